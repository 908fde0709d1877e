-- BC-11: Division by zero in a ratio metric yields NULL
-- Tables of ../shared/cases/BC-11.md, verbatim.
CREATE TABLE sales (id INTEGER PRIMARY KEY, store VARCHAR, amount DECIMAL(10,2), qty INTEGER);
INSERT INTO sales VALUES (1,'A',100,4),(2,'A',50,1),(3,'B',20,0),(4,'B',0,0),(5,'C',0,0);
