-- NA customers only; names keep their first letter; refunds under 10 only.
-- Orders and refunds of other customers stay, under a NULL name.
SELECT CASE WHEN c."Name" IS NULL THEN NULL ELSE left(c."Name", 1) || '****' END AS name,
       (SELECT COUNT(*) FROM shop.orders o LEFT JOIN shop.customers c2 ON o.customer_id = c2.customer_id AND c2.region = 'NA'
         WHERE c2."Name" IS NOT DISTINCT FROM c."Name") AS order_count,
       (SELECT SUM(r.amount) FROM shop.refunds r LEFT JOIN shop.customers c2 ON r.customer_id = c2.customer_id AND c2.region = 'NA'
         WHERE r.amount < 10 AND c2."Name" IS NOT DISTINCT FROM c."Name") AS refund_total
FROM (SELECT "Name" FROM shop.customers WHERE region = 'NA' UNION ALL SELECT NULL) c
ORDER BY 1 NULLS LAST
