SELECT SUM(amount), COUNT(order_id) FROM shop.orders WHERE order_id IN (SELECT order_id FROM shop.order_lines WHERE product = 'apple')
