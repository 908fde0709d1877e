-- BC-05: NULL and dangling foreign keys must not drop fact rows
-- Tables of ../shared/cases/BC-05.md, verbatim.
CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, segment VARCHAR);
INSERT INTO customers VALUES (1,'Retail'),(2,'Wholesale'),(3,'Retail');
CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER, amount INTEGER);
INSERT INTO orders VALUES (101,1,10),(102,2,20),(103,3,30),(104,NULL,40),(105,99,50);
