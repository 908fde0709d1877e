-- BC-04: Counting an optional many side: parents without children must count 0
-- Tables of ../shared/cases/BC-04.md, verbatim.
CREATE TABLE stores (store_id VARCHAR PRIMARY KEY, region VARCHAR);
INSERT INTO stores VALUES ('s1','R1'),('s2','R2'),('s3','R2'),('s4','R3');
CREATE TABLE orders (order_id INTEGER PRIMARY KEY, store_id VARCHAR, amount INTEGER);
INSERT INTO orders VALUES (1,'s1',10),(2,'s1',20),(3,'s1',30),(4,'s2',40),(5,'s2',50);
