SELECT CAST(g AS DATE),
  (SELECT SUM(amount) FROM shop.orders WHERE CAST(date_trunc('week', timezone('UTC', ordered_at)) AS DATE) = CAST(g AS DATE)),
  (SELECT SUM(amount) FROM shop.orders WHERE CAST(date_trunc('week', timezone('UTC', ordered_at)) AS DATE) <= CAST(g AS DATE)),
  (SELECT SUM(amount) FROM shop.orders WHERE CAST(date_trunc('week', timezone('UTC', ordered_at)) AS DATE) BETWEEN CAST(g - INTERVAL '7 days' AS DATE) AND CAST(g AS DATE)),
  (SELECT SUM(amount) FROM shop.orders WHERE CAST(date_trunc('week', timezone('UTC', ordered_at)) AS DATE) = CAST(g - INTERVAL '364 days' AS DATE))
FROM generate_series(TIMESTAMP '2024-04-22', TIMESTAMP '2024-05-13', INTERVAL '7 days') AS t(g)
