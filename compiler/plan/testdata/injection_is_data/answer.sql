SELECT COUNT(*) FROM shop.orders WHERE status = 'x''); DROP TABLE shop.orders; --\\'
