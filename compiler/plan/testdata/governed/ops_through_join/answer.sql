-- orders is only joined (units live on order_lines): cancelled orders are
-- hidden, so their lines fall under a NULL status.
SELECT o.status, SUM(l.quantity) AS units
FROM shop.order_lines l LEFT JOIN (SELECT * FROM shop.orders WHERE status <> 'cancelled') o ON l.order_id = o.order_id
GROUP BY 1 ORDER BY 1 NULLS LAST
