-- Orders of NA customers only (10, 11, 13), and only their lines: the row
-- filters of orders and order_lines read customers.region through
-- many-to-one relationships.
WITH vo AS (SELECT o.* FROM shop.orders o JOIN shop.customers c ON o.customer_id = c.customer_id WHERE c.region = 'NA'),
     vl AS (SELECT l.* FROM shop.order_lines l JOIN vo ON l.order_id = vo.order_id),
     u AS (SELECT vo.status, SUM(vl.quantity) AS units FROM vl LEFT JOIN vo ON vl.order_id = vo.order_id GROUP BY 1),
     n AS (SELECT status, COUNT(order_id) AS order_count FROM vo GROUP BY 1)
SELECT n.status, u.units, n.order_count FROM n LEFT JOIN u ON u.status = n.status
ORDER BY 1
