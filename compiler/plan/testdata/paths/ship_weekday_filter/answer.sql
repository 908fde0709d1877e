SELECT oc.month, o.channel, SUM(o.amount)
FROM orders o
LEFT JOIN calendar oc ON o.order_day = oc.day
LEFT JOIN calendar sc ON o.ship_day = sc.day
WHERE sc.kind = 'weekday'
GROUP BY 1, 2
ORDER BY 3 DESC, 1, 2
