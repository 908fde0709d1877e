SELECT date_trunc('month', timezone('America/New_York', ordered_at)), SUM(amount) FROM shop.orders GROUP BY 1 ORDER BY 1
