SELECT refunded_on - CAST(EXTRACT(DOW FROM refunded_on) AS INTEGER), SUM(amount) FROM shop.refunds GROUP BY 1 ORDER BY 1
