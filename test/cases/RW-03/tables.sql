-- RW-03: one fact related twice to one calendar (order date and ship date).
CREATE TABLE calendar (day DATE, month VARCHAR);
INSERT INTO calendar VALUES (DATE '2024-01-31', '2024-01'), (DATE '2024-02-01', '2024-02');
CREATE TABLE orders (order_id INTEGER, channel VARCHAR, order_day DATE, ship_day DATE, amount INTEGER);
INSERT INTO orders VALUES (1, 'web', DATE '2024-01-31', DATE '2024-02-01', 10), (2, 'shop', DATE '2024-01-31', DATE '2024-01-31', 7), (3, 'web', DATE '2024-02-01', NULL, 4);
