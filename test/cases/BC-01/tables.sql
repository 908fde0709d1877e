-- BC-01: Fan-out: one-side measures repeated by a one-to-many join
-- Tables of ../shared/cases/BC-01.md, verbatim.
CREATE TABLE orders (order_id INTEGER PRIMARY KEY, region VARCHAR, order_date DATE, amount DECIMAL(10,2));
INSERT INTO orders VALUES (1,'NA','2017-12-01',50.36),(2,'EMEA','2017-12-02',24.12),(3,'NA','2017-12-02',50.36);
CREATE TABLE order_lines (line_id INTEGER PRIMARY KEY, order_id INTEGER, quantity INTEGER, unit_price DECIMAL(10,2));
INSERT INTO order_lines VALUES (50,1,1,23.00),(63,1,2,13.68),(64,2,1,13.68),(72,2,1,5.08),(79,2,1,5.36),(78,3,1,50.36);
