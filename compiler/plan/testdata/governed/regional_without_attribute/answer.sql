-- No region attribute: the customers filter admits nothing, so every order
-- falls under a NULL region.
SELECT NULL AS region, SUM(amount) AS revenue FROM shop.orders
