WITH o AS (SELECT CAST(date_trunc('week', timezone('UTC', o.ordered_at)) AS DATE) AS wk, c.region, o.amount FROM shop.orders o JOIN shop.customers c ON c.customer_id = o.customer_id WHERE c.region IS NOT NULL),
v AS (SELECT CAST(g AS DATE) AS wk, r.region,
  (SELECT SUM(amount) FROM o WHERE o.region = r.region AND o.wk BETWEEN CAST(g - INTERVAL '7 days' AS DATE) AND CAST(g AS DATE)) AS two_weeks,
  (SELECT SUM(amount) FROM o WHERE o.region = r.region AND o.wk <= CAST(g AS DATE)) AS running
  FROM generate_series(TIMESTAMP '2024-04-01', TIMESTAMP '2024-04-08', INTERVAL '7 days') AS t(g) CROSS JOIN (SELECT DISTINCT region FROM o) AS r)
SELECT wk, region, CAST(two_weeks AS DOUBLE PRECISION) / running, running FROM v WHERE CAST(two_weeks AS DOUBLE PRECISION) / running > 0
