CREATE TABLE fct_orders AS SELECT * FROM (VALUES
 (1, 10, TIMESTAMP '2024-01-05 09:00:00', 20.0, 'shop', false),
 (2, 10, TIMESTAMP '2024-01-20 18:30:00', 35.5, 'online', true),
 (3, 11, TIMESTAMP '2024-02-02 12:00:00', 12.0, 'online', false),
 (4, 12, TIMESTAMP '2024-02-03 08:15:00', 50.0, 'shop', true),
 (5, 13, TIMESTAMP '2024-03-10 10:00:00', 8.0, 'online', false),
 (6, 11, TIMESTAMP '2024-03-11 23:59:00', 16.0, 'shop', false),
 (7, NULL, TIMESTAMP '2024-03-12 11:00:00', 5.0, 'shop', false)
) t(order_id, customer_id, ordered_at, amount, channel, is_gift);
CREATE TABLE dim_customers AS SELECT * FROM (VALUES
 (10, 'west', DATE '2023-12-14'), (11, 'east', DATE '2024-01-30'), (12, 'west', DATE '2024-02-01'), (13, 'east', DATE '2024-02-25'), (14, 'west', DATE '2024-03-01')
) t(customer_id, region, joined_at);
CREATE TABLE fct_visits AS SELECT * FROM (VALUES
 (100, 10, TIMESTAMP '2024-01-04 20:00:00', 'search'),
 (101, 11, TIMESTAMP '2024-01-20 10:00:00', 'ad'),
 (102, 12, TIMESTAMP '2024-02-01 10:00:00', 'search'),
 (103, 13, TIMESTAMP '2024-03-09 10:00:00', 'ad'),
 (104, 14, TIMESTAMP '2024-03-10 10:00:00', 'search'),
 (105, 11, TIMESTAMP '2024-03-01 10:00:00', 'ad')
) t(visit_id, customer_id, visited_at, referrer);
