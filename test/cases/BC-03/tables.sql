-- BC-03: Chasm trap: two fact datasets sharing one dimension
-- Tables of ../shared/cases/BC-03.md, verbatim.
CREATE TABLE customers (customer_id VARCHAR PRIMARY KEY, customer_name VARCHAR);
INSERT INTO customers VALUES ('c1','A'),('c2','B'),('c3','C');
CREATE TABLE sales (sale_id INTEGER PRIMARY KEY, customer_id VARCHAR, amount INTEGER);
INSERT INTO sales VALUES (1,'c1',30000),(2,'c1',34000),(3,'c2',500);
CREATE TABLE refunds (refund_id INTEGER PRIMARY KEY, customer_id VARCHAR, amount INTEGER);
INSERT INTO refunds VALUES (1,'c1',300),(2,'c1',400),(3,'c3',50);
