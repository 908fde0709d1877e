-- Statuses come out as md5 hex; the filter compares the hash, so the
-- plain word 'cancelled' matches nothing and excludes nothing.
SELECT md5(status) AS status, SUM(amount) AS revenue FROM shop.orders GROUP BY 1 ORDER BY 1 DESC
