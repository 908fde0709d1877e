-- The amount is masked (NULL) as a dimension but summed unmasked.
SELECT NULL AS amount, CAST(date_trunc('month', refunded_on) AS DATE) AS month, SUM(amount) AS refund_total
FROM shop.refunds GROUP BY 2 ORDER BY 2
