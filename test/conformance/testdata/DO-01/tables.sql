-- Orders reach customers (and through them regions), products and
-- channels; returns reach orders; reviews reach customers and products
-- but no channel. Customer 4 and product 12 have reviews but no order;
-- order 6 has no customer.
CREATE TABLE regions (region_id INTEGER PRIMARY KEY, name VARCHAR);
INSERT INTO regions VALUES (1, 'North'), (2, 'South');
CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, segment VARCHAR, region_id INTEGER);
INSERT INTO customers VALUES (1, 'retail', 1), (2, 'retail', 2), (3, 'business', 1), (4, 'business', 2);
CREATE TABLE products (product_id INTEGER PRIMARY KEY, category VARCHAR);
INSERT INTO products VALUES (10, 'toys'), (11, 'books'), (12, 'tools');
CREATE TABLE channels (channel_id INTEGER PRIMARY KEY, name VARCHAR);
INSERT INTO channels VALUES (100, 'web'), (101, 'store');
CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER, product_id INTEGER, channel_id INTEGER);
INSERT INTO orders VALUES
  (1, 1, 10, 100),
  (2, 1, 11, 100),
  (3, 2, 10, 101),
  (4, 3, 11, 101),
  (5, 3, 11, 100),
  (6, NULL, 10, 100);
CREATE TABLE returns (return_id INTEGER PRIMARY KEY, order_id INTEGER);
INSERT INTO returns VALUES (1, 1), (2, 4);
CREATE TABLE reviews (review_id INTEGER PRIMARY KEY, customer_id INTEGER, product_id INTEGER);
INSERT INTO reviews VALUES (1, 4, 12), (2, 1, 10), (3, 2, 11);
