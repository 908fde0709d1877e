WITH o AS (SELECT c.region, COUNT(CASE WHEN o.status = 'complete' THEN 1 END) done, COUNT(o.order_id) n, SUM(o.amount) rev, COUNT(DISTINCT o.customer_id) cwo FROM shop.orders o LEFT JOIN shop.customers c ON c.customer_id = o.customer_id GROUP BY 1),
c AS (SELECT region, COUNT(DISTINCT customer_id) nc FROM shop.customers GROUP BY 1)
SELECT COALESCE(o.region, c.region), CAST(COALESCE(o.done,0) AS DOUBLE) / NULLIF(COALESCE(o.n,0), 0), CAST(o.rev AS DOUBLE) / NULLIF(COALESCE(c.nc,0), 0), COALESCE(o.cwo, 0) FROM o FULL JOIN c ON o.region IS NOT DISTINCT FROM c.region ORDER BY 1 NULLS LAST
