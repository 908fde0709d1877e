-- order_count per product of the order's lines, each order once per
-- product, cancelled orders excluded (home dataset filtered); an order
-- without lines has no product and is in no group (fan-out members).
SELECT l.product, COUNT(DISTINCT o.order_id) AS order_count
FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.order_id
WHERE o.status <> 'cancelled'
GROUP BY 1 ORDER BY 1 NULLS LAST
