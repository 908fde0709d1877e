-- RW-05: fan-out groups. Store 2 has employees and no sales; sale 101 has no customer.
CREATE TABLE stores (store_id INTEGER, city VARCHAR);
INSERT INTO stores VALUES (1, 'Utrecht'), (2, 'Delft'), (3, 'Gouda');
CREATE TABLE employees (emp_id INTEGER, store_id INTEGER);
INSERT INTO employees VALUES (1, 1), (2, 1), (3, 2), (4, 2), (5, 2), (6, 3);
CREATE TABLE customers (customer_id INTEGER, last_name VARCHAR);
INSERT INTO customers VALUES (10, 'Jansen'), (11, 'Bakker');
CREATE TABLE sales (sale_id INTEGER, store_id INTEGER, customer_id INTEGER);
INSERT INTO sales VALUES (100, 1, 10), (101, 1, NULL), (102, 3, 11), (103, 3, 10);
