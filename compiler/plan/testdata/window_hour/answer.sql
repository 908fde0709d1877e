SELECT g,
  (SELECT COUNT(*) FROM shop.orders WHERE date_trunc('hour', timezone('America/New_York', ordered_at)) = g),
  (SELECT COUNT(*) FROM shop.orders WHERE date_trunc('hour', timezone('America/New_York', ordered_at)) BETWEEN g - INTERVAL '23 hours' AND g),
  (SELECT SUM(amount) FROM shop.orders WHERE date_trunc('hour', timezone('America/New_York', ordered_at)) <= g)
FROM generate_series(TIMESTAMP '2024-03-31 00:00:00', TIMESTAMP '2024-04-01 23:00:00', INTERVAL '1 hour') AS t(g)
