-- RW-01: a constellation (orders and returns share dates, products and stores),
-- keys that are columns, not fields, and vendor-dialect expressions.
CREATE TABLE dates (date_key INTEGER, day DATE, month VARCHAR);
INSERT INTO dates VALUES (1, DATE '2024-01-05', '2024-01'), (2, DATE '2024-01-20', '2024-01'), (3, DATE '2024-02-03', '2024-02');
CREATE TABLE products (product_id INTEGER, category VARCHAR);
INSERT INTO products VALUES (10, 'Tea'), (11, 'Coffee'), (12, 'Cocoa');
CREATE TABLE stores (store_id INTEGER, city VARCHAR);
INSERT INTO stores VALUES (100, 'Utrecht'), (101, 'Delft'), (102, 'Gouda');
CREATE TABLE orders (order_id INTEGER, date_key INTEGER, product_id INTEGER, store_id INTEGER, amount INTEGER, qty INTEGER);
INSERT INTO orders VALUES (1, 1, 10, 100, 20, 2), (2, 1, 11, 100, 35, 1), (3, 2, 10, 101, 15, 3), (4, 3, 11, 101, 40, 4), (5, 3, 12, 100, 10, 1), (6, NULL, 10, 101, 5, 1);
CREATE TABLE returns (return_id INTEGER, date_key INTEGER, product_id INTEGER, store_id INTEGER, refund INTEGER);
INSERT INTO returns VALUES (1, 2, 10, 100, 5), (2, 3, 11, 101, 40), (3, 3, 11, 100, 8);
