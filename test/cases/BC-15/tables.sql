-- BC-15: Filter values with quotes, backslashes and SQL-looking text are data, not SQL
-- Tables of ../shared/cases/BC-15.md, verbatim.
CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_name VARCHAR, amount INTEGER);
INSERT INTO orders VALUES (1,'Rock ''n'' Roll',10),(2,'Rock ''n'' Roll',15),(3,'Baker''s',7),(4,'Plain',100),(5,'x''); DROP TABLE orders;--',1),(6,'C:\temp',3);
