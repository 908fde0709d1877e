SELECT CAST(refunded_on - CAST(dayofweek(refunded_on) AS INTEGER) AS DATE), SUM(amount) FROM shop.refunds GROUP BY 1 ORDER BY 1
