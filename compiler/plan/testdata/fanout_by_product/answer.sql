-- An order without lines has no product and is in no group (fan-out members).
SELECT product, SUM(amount), COUNT(order_id) FROM (SELECT DISTINCT l.product, o.order_id, o.amount FROM shop.orders o JOIN shop.order_lines l ON l.order_id = o.order_id) t GROUP BY 1 ORDER BY 1 NULLS LAST
