CREATE SCHEMA shop;
CREATE TABLE shop.customers (customer_id INTEGER PRIMARY KEY, region VARCHAR, "Name" VARCHAR);
INSERT INTO shop.customers VALUES (1,'NA','Ann'),(2,'EMEA','Bo'),(3,'NA','Cy'),(4,NULL,'Di');
CREATE TABLE shop.orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER, status VARCHAR, ordered_at TIMESTAMPTZ, amount DECIMAL(10,2));
INSERT INTO shop.orders VALUES
 (10,1,'complete','2024-03-30 23:30:00+00',100.00),
 (11,1,'cancelled','2024-03-31 00:30:00+00',20.00),
 (12,2,'complete','2024-04-01 10:00:00+00',50.50),
 (13,3,'complete','2024-04-02 22:15:00+00',75.25),
 (14,NULL,'complete','2024-04-03 09:00:00+00',10.00),
 (15,99,'pending','2024-05-01 12:00:00+00',5.00);
CREATE TABLE shop.order_lines (line_id INTEGER PRIMARY KEY, order_id INTEGER, product VARCHAR, quantity INTEGER);
INSERT INTO shop.order_lines VALUES (1,10,'apple',2),(2,10,'pear',1),(3,11,'apple',5),(4,12,'plum',3),(5,13,'apple',1),(6,13,'apple',4),(7,15,'pear',2);
CREATE TABLE shop.refunds (refund_id INTEGER PRIMARY KEY, customer_id INTEGER, refunded_on DATE, amount DECIMAL(10,2));
INSERT INTO shop.refunds VALUES (1,1,'2024-04-05',20.00),(2,4,'2024-04-06',7.50),(3,2,'2024-05-02',1.00);
