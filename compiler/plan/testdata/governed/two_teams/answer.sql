-- Either team's customers (NA or EMEA); customer 4 (no region) is hidden,
-- so its refund falls under a NULL region, and orders of hidden or missing
-- customers count under NULL too, with no visible customer to divide by.
WITH vis AS (SELECT * FROM shop.customers WHERE region = 'NA' OR region = 'EMEA'),
     r AS (SELECT v.region, SUM(r.amount) AS refund_total
           FROM shop.refunds r LEFT JOIN vis v ON r.customer_id = v.customer_id GROUP BY 1),
     o AS (SELECT v.region, CAST(SUM(o.amount) AS FLOAT8) / NULLIF(COUNT(DISTINCT v.customer_id), 0) AS rpc
           FROM shop.orders o LEFT JOIN vis v ON o.customer_id = v.customer_id GROUP BY 1)
SELECT COALESCE(r.region, o.region) AS region, r.refund_total, o.rpc
FROM r FULL JOIN o ON COALESCE(r.region, '~') = COALESCE(o.region, '~')
ORDER BY 1 NULLS LAST
