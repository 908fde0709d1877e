WITH o AS (SELECT c.region, SUM(o.amount) revenue, COUNT(o.order_id) order_count FROM shop.orders o LEFT JOIN shop.customers c ON c.customer_id = o.customer_id GROUP BY 1),
l AS (SELECT c.region, SUM(l.quantity) units FROM shop.order_lines l LEFT JOIN shop.orders o ON o.order_id = l.order_id LEFT JOIN shop.customers c ON c.customer_id = o.customer_id GROUP BY 1)
SELECT COALESCE(o.region, l.region), o.revenue, COALESCE(o.order_count, 0), l.units FROM o FULL JOIN l ON COALESCE(o.region, '<null>') = COALESCE(l.region, '<null>') ORDER BY 1 NULLS LAST
