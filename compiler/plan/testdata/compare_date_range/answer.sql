SELECT r.label, CAST(g AS DATE),
  (SELECT SUM(amount) FROM shop.orders WHERE status <> 'cancelled' AND CAST(timezone('UTC', ordered_at) AS DATE) = CAST(g AS DATE)),
  (SELECT SUM(amount) FROM shop.orders WHERE status <> 'cancelled' AND CAST(timezone('UTC', ordered_at) AS DATE) <= CAST(g AS DATE)),
  (SELECT COUNT(*) FROM shop.orders WHERE status <> 'cancelled' AND CAST(timezone('UTC', ordered_at) AS DATE) = CAST(g AS DATE))
FROM (SELECT '2024-04-01 - 2024-04-03' AS label, DATE '2024-04-01' AS lo, DATE '2024-04-03' AS hi
      UNION ALL SELECT '2024-03-30 - 2024-03-31', DATE '2024-03-30', DATE '2024-03-31') AS r
CROSS JOIN generate_series(TIMESTAMP '2024-03-30', TIMESTAMP '2024-04-03', INTERVAL '1 day') AS t(g)
WHERE CAST(g AS DATE) BETWEEN r.lo AND r.hi
