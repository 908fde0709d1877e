WITH d AS (SELECT c.region, CAST(date_trunc('month', r.refunded_on) AS DATE) AS m, r.refunded_on, SUM(r.amount) AS v
           FROM shop.refunds r LEFT JOIN shop.customers c ON c.customer_id = r.customer_id GROUP BY 1, 2, 3)
SELECT g.region, g.m,
  (SELECT SUM(v) FROM d WHERE d.region IS NOT DISTINCT FROM g.region AND d.m = g.m),
  (SELECT v FROM d WHERE d.region IS NOT DISTINCT FROM g.region AND d.m = g.m ORDER BY refunded_on DESC LIMIT 1)
FROM (SELECT DISTINCT region, m FROM d) AS g
