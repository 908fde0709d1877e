SELECT region, SUM(amount) FROM shop.orders o JOIN shop.customers c USING (customer_id) WHERE false GROUP BY 1
