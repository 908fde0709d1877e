SELECT oc.month, sc.month, SUM(o.amount), COUNT(o.order_id)
FROM orders o
LEFT JOIN calendar oc ON o.order_day = oc.day
LEFT JOIN calendar sc ON o.ship_day = sc.day
GROUP BY 1, 2
