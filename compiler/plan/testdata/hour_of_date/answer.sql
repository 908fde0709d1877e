SELECT date_trunc('hour', refunded_on), SUM(amount) FROM shop.refunds GROUP BY 1 ORDER BY 1
