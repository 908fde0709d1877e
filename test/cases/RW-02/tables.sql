-- RW-02: dimension-only queries (no metric): the distinct members.
CREATE TABLE customers (id INTEGER, name VARCHAR, region VARCHAR);
INSERT INTO customers VALUES (1, 'Ann', 'EU'), (2, 'Bob', 'US'), (3, 'Cy', 'EU'), (4, 'Dee', NULL), (5, 'Eve', 'APAC');
CREATE TABLE orders (order_id INTEGER, customer_id INTEGER, status VARCHAR);
INSERT INTO orders VALUES (1, 1, 'complete'), (2, 1, 'cancelled'), (3, 2, 'complete'), (4, NULL, 'complete'), (5, 3, 'pending'), (6, 4, 'cancelled');
