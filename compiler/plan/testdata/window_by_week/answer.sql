WITH o AS (SELECT CAST(date_trunc('week', timezone('America/New_York', o.ordered_at)) AS DATE) AS wk, c.region, o.amount FROM shop.orders o LEFT JOIN shop.customers c ON c.customer_id = o.customer_id),
w AS (SELECT CAST(g AS DATE) AS wk FROM generate_series(TIMESTAMP '2024-04-01', TIMESTAMP '2024-04-29', INTERVAL '7 days') AS t(g)),
r AS (SELECT DISTINCT region FROM o)
SELECT w.wk, r.region,
  (SELECT SUM(amount) FROM o WHERE o.wk = w.wk AND o.region IS NOT DISTINCT FROM r.region),
  (SELECT SUM(amount) FROM o WHERE o.wk <= w.wk AND o.region IS NOT DISTINCT FROM r.region),
  (SELECT SUM(amount) FROM o WHERE o.wk > w.wk - 14 AND o.wk <= w.wk AND o.region IS NOT DISTINCT FROM r.region),
  (SELECT SUM(amount) FROM o WHERE o.wk = w.wk - 7 AND o.region IS NOT DISTINCT FROM r.region)
FROM w CROSS JOIN r
