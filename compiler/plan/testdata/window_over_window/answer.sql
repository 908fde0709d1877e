WITH o AS (SELECT CAST(date_trunc('week', timezone('UTC', o.ordered_at)) AS DATE) AS wk, c.region, o.amount FROM shop.orders o LEFT JOIN shop.customers c ON c.customer_id = o.customer_id),
v AS (SELECT CAST(g AS DATE) AS wk, r.region,
  (SELECT SUM(amount) FROM o WHERE o.region IS NOT DISTINCT FROM r.region AND o.wk <= CAST(g AS DATE)) AS running,
  (SELECT SUM(amount) FROM o WHERE o.region IS NOT DISTINCT FROM r.region AND o.wk <= CAST(g - INTERVAL '7 days' AS DATE)) AS running_before
  FROM generate_series(TIMESTAMP '2024-04-01', TIMESTAMP '2024-04-08', INTERVAL '7 days') AS t(g) CROSS JOIN (SELECT DISTINCT region FROM o) AS r)
SELECT wk, region, running, running - running_before FROM v
