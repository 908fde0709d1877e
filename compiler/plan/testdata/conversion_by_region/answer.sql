SELECT c.region, COUNT(o.order_id),
  CAST(COUNT(DISTINCT CASE WHEN EXISTS (SELECT 1 FROM shop.refunds r WHERE r.customer_id = o.customer_id AND r.refunded_on >= o.ordered_at AND r.refunded_on <= o.ordered_at + INTERVAL '7 days') THEN o.customer_id END) AS DOUBLE PRECISION)
    / NULLIF(COUNT(DISTINCT o.customer_id), 0)
FROM shop.orders o LEFT JOIN shop.customers c ON c.customer_id = o.customer_id GROUP BY 1
