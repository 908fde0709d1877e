-- The rows of testdata/shop.yaml and testdata/slow.yaml, shared by the
-- server's tests and the SQL endpoint's (server/pgwire).
CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, state VARCHAR);
INSERT INTO customers VALUES (1, 'CA'), (2, 'NY'), (3, 'CA'), (4, 'TX');
CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER, status VARCHAR, order_date DATE, amount DECIMAL(10,2));
INSERT INTO orders VALUES
  (10, 1, 'placed',   '2024-01-05', 10.50),
  (11, 1, 'shipped',  '2024-01-20', 20.25),
  (12, 2, 'shipped',  '2024-02-01', 5.00),
  (13, 3, 'returned', '2024-02-11', 7.75),
  (14, 9, 'placed',   '2024-03-03', 100.00),
  (15, NULL, 'placed', '2024-03-04', 1.00),
  (16, 2, 'placed',   '2024-03-30', NULL);
CREATE VIEW slow_view AS SELECT a.range + b.range AS k FROM range(1000000) a, range(100000) b;
