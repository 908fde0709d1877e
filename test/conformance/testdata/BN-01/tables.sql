-- BN-01: orders and customers named as in TPC-H, whose column names
-- carry their table's prefix, so a bare name belongs to one table.
CREATE TABLE customer (c_custkey INTEGER PRIMARY KEY, c_mktsegment VARCHAR);
INSERT INTO customer VALUES (1, 'BUILDING'), (2, 'MACHINERY'), (3, 'BUILDING');
CREATE TABLE orders (o_orderkey INTEGER PRIMARY KEY, o_custkey INTEGER, o_orderdate DATE, o_totalprice INTEGER);
INSERT INTO orders VALUES
  (10, 1, '2024-01-05', 100),
  (11, 1, '2024-02-07', 250),
  (12, 2, '2024-01-20', 40),
  (13, 3, '2024-02-01', 300),
  (14, NULL, '2024-02-03', 10);
