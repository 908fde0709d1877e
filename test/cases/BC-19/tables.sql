-- BC-19: Empty results: one row of neutral values without dimensions, zero rows with dimensions
-- Tables of ../shared/cases/BC-19.md, verbatim.
CREATE TABLE orders (order_id INTEGER PRIMARY KEY, status VARCHAR, amount INTEGER);
INSERT INTO orders VALUES (1,'paid',10),(2,'paid',20),(3,'paid',30);
CREATE TABLE returns (return_id INTEGER PRIMARY KEY, amount INTEGER);
