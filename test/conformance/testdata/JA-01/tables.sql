-- One calendar reached from orders by order day and by ship day. Days:
-- 2024-01-30 Tue, 2024-01-31 Wed, 2024-02-03 Sat, 2024-02-05 Mon,
-- 2024-03-02 Sat. Amounts are powers of two, so every sum names its
-- orders. Order 6 has not shipped (NULL ship day); order 7 ships on a day
-- the calendar does not hold (unmatched).
CREATE TABLE calendar (day DATE PRIMARY KEY, month VARCHAR, kind VARCHAR);
INSERT INTO calendar VALUES
  ('2024-01-30', '2024-01', 'weekday'),
  ('2024-01-31', '2024-01', 'weekday'),
  ('2024-02-03', '2024-02', 'weekend'),
  ('2024-02-05', '2024-02', 'weekday'),
  ('2024-03-02', '2024-03', 'weekend');
CREATE TABLE orders (order_id INTEGER PRIMARY KEY, channel VARCHAR, order_day DATE, ship_day DATE, amount INTEGER);
INSERT INTO orders VALUES
  (1, 'web',  '2024-01-30', '2024-01-31', 10),
  (2, 'shop', '2024-01-31', '2024-02-03', 20),
  (3, 'web',  '2024-01-31', '2024-02-05', 40),
  (4, 'web',  '2024-02-03', '2024-02-05', 80),
  (5, 'shop', '2024-02-05', '2024-03-02', 160),
  (6, 'shop', '2024-02-05', NULL, 320),
  (7, 'web',  '2024-03-02', '2024-03-09', 640);
