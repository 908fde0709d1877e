WITH o AS (SELECT c.region, SUM(o.amount) revenue FROM shop.orders o LEFT JOIN shop.customers c ON c.customer_id = o.customer_id GROUP BY 1),
r AS (SELECT c.region, SUM(r.amount) refund_total FROM shop.refunds r LEFT JOIN shop.customers c ON c.customer_id = r.customer_id GROUP BY 1)
SELECT COALESCE(o.region, r.region) region, o.revenue, r.refund_total, COALESCE(o.revenue, 0) - COALESCE(r.refund_total, 0) FROM o FULL JOIN r ON COALESCE(o.region, '<null>') = COALESCE(r.region, '<null>') ORDER BY region DESC NULLS LAST
