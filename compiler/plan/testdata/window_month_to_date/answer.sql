SELECT CAST(g AS DATE),
  (SELECT COUNT(*) FROM shop.orders WHERE status = 'complete' AND CAST(timezone('UTC', ordered_at) AS DATE) = CAST(g AS DATE)),
  (SELECT COUNT(*) FROM shop.orders WHERE status = 'complete' AND CAST(timezone('UTC', ordered_at) AS DATE) BETWEEN DATE '2024-04-01' AND CAST(g AS DATE))
FROM generate_series(TIMESTAMP '2024-04-02', TIMESTAMP '2024-04-03', INTERVAL '1 day') AS t(g)
