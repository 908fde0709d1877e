SELECT CAST(date_trunc('month', ordered_at AT TIME ZONE 'America/New_York') AS DATE), SUM(amount) FROM shop.orders GROUP BY 1 ORDER BY 1
