package httpapi

// fieldsTables is the data of testdata/fields.yaml. ordered_at holds UTC
// instants; order 1 is January in UTC and February in Europe/Amsterdam,
// order 4's day (2024-03-10) is a Sunday and it has not shipped.
const fieldsTables = `
CREATE TABLE f_customers (customer_id INTEGER PRIMARY KEY, state VARCHAR);
INSERT INTO f_customers VALUES (1, 'CA'), (2, 'NY');
CREATE TABLE f_calendar (day DATE PRIMARY KEY);
INSERT INTO f_calendar VALUES ('2024-01-31'), ('2024-02-02'), ('2024-02-15'), ('2024-02-29'), ('2024-03-01'), ('2024-03-02'), ('2024-03-10');
CREATE TABLE f_orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER, status VARCHAR, ordered_at TIMESTAMP, order_day DATE, ship_day DATE, amount DECIMAL(10,2));
INSERT INTO f_orders VALUES
  (1, 1, 'placed',   '2024-01-31 23:30:00', '2024-01-31', '2024-02-02', 10.00),
  (2, 1, 'shipped',  '2024-02-15 12:00:00', '2024-02-15', '2024-03-01', 20.00),
  (3, 2, 'placed',   '2024-02-29 22:00:00', '2024-02-29', '2024-03-02', 30.00),
  (4, 2, 'returned', '2024-03-10 08:00:00', '2024-03-10', NULL,         40.00);
`
