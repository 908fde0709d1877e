WITH o AS (SELECT CAST(timezone('America/New_York', o.ordered_at) AS DATE) AS d, c.region, o.amount FROM shop.orders o LEFT JOIN shop.customers c ON c.customer_id = o.customer_id WHERE o.status <> 'pending'),
m AS (SELECT CAST(g AS DATE) AS mo FROM generate_series(TIMESTAMP '2024-03-01', TIMESTAMP '2024-04-01', INTERVAL '1 month') AS t(g))
SELECT m.mo, r.region,
  (SELECT SUM(amount) FROM o WHERE o.region IS NOT DISTINCT FROM r.region AND CAST(date_trunc('month', o.d) AS DATE) = m.mo),
  (SELECT SUM(amount) FROM o WHERE o.region IS NOT DISTINCT FROM r.region AND o.d >= CAST(m.mo + INTERVAL '1 month' - INTERVAL '14 days' AS DATE) AND o.d < CAST(m.mo + INTERVAL '1 month' AS DATE))
FROM m CROSS JOIN (SELECT DISTINCT region FROM o) AS r
