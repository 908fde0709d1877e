-- BC-20: Composite keys: join on every column pair, in declared order
-- Tables of ../shared/cases/BC-20.md, verbatim.
CREATE TABLE products (product_id INTEGER, variant_id INTEGER, color VARCHAR, PRIMARY KEY (product_id, variant_id));
INSERT INTO products VALUES (1,1,'red'),(1,2,'blue'),(2,1,'red'),(2,2,'green');
CREATE TABLE order_lines (line_id INTEGER PRIMARY KEY, product_id INTEGER, variant_id INTEGER, qty INTEGER);
INSERT INTO order_lines VALUES (10,1,1,5),(11,1,2,3),(12,2,2,4),(13,2,1,1),(14,1,1,2);
