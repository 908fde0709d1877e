-- The rows of testdata/deliveries.yaml, the web explorer's chart test:
-- twelve regions with long names (labels that must be truncated), 180 days
-- (a daily axis whose labels must be thinned), an on-time rate between 0.8
-- and 0.9 (an axis that must not start at 0) and a margin that crosses 0.
CREATE TABLE regions (region_id INTEGER PRIMARY KEY, name VARCHAR);
INSERT INTO regions VALUES
  (1, 'Northern California and Nevada'),
  (2, 'Pacific Northwest (Oregon, Washington, Idaho)'),
  (3, 'Greater New York Metropolitan Area'),
  (4, 'Texas Gulf Coast'),
  (5, 'Chicago and the Upper Midwest'),
  (6, 'Southern California'),
  (7, 'Florida Peninsula and the Keys'),
  (8, 'Mountain West (Colorado, Utah, Wyoming)'),
  (9, 'New England'),
  (10, 'Mid-Atlantic (Pennsylvania, New Jersey, Delaware)'),
  (11, 'Ohio Valley'),
  (12, 'Alaska');
CREATE TABLE deliveries AS
SELECT r.region_id,
       CAST(DATE '2024-01-01' + CAST(d.range AS INTEGER) AS DATE) AS day,
       p.parcels,
       -- at least 80% and at most 90% of the day's parcels (p.parcels >= 130)
       CAST(ceil(p.parcels * 0.8) AS INTEGER) + (r.region_id * 5) % 11 + CAST(d.range % 3 AS INTEGER) AS on_time,
       20 + (r.region_id * 13 + d.range * 7) % 11 + r.region_id / 4.0 AS delay_hours,
       CAST((r.region_id - 6.5) * 3 + (d.range % 5) - 2 AS DECIMAL(10, 2)) AS margin
FROM regions r, range(180) d,
     LATERAL (SELECT CAST(130 + (r.region_id * 37) % 23 + (r.region_id * 7 + d.range * 3) % 10 AS INTEGER) AS parcels) p;
