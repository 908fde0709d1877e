-- Weekly and monthly sales around the ISO year 2020, which has 53 weeks
-- (2020-W53 is 2020-12-28 … 2021-01-03; 2020-W01 starts 2019-12-30), and
-- visits around the 2024 US daylight-saving start (2024-03-10 02:00 in
-- New York, 07:00 UTC).
CREATE TABLE sales (id INTEGER PRIMARY KEY, sold_on DATE, region VARCHAR, amount INTEGER);
INSERT INTO sales VALUES
  (1, '2019-12-23', 'A', 7),
  (2, '2019-12-30', 'A', 1),
  (3, '2020-01-06', 'A', 2),
  (4, '2020-02-10', 'A', 30),
  (5, '2020-12-21', 'B', 4),
  (6, '2020-12-28', 'A', 53),
  (7, '2021-01-04', 'A', 10),
  (8, '2021-01-11', 'B', 20),
  (9, '2021-02-15', 'B', 40),
  (10, '2021-03-01', 'A', 6),
  (11, '2021-12-27', 'A', 5);
CREATE TABLE visits (id INTEGER PRIMARY KEY, visited_at TIMESTAMPTZ);
INSERT INTO visits VALUES
  (1, '2024-03-10 05:30:00+00'),
  (2, '2024-03-10 06:15:00+00'),
  (3, '2024-03-10 06:45:00+00'),
  (4, '2024-03-10 07:10:00+00'),
  (5, '2024-03-10 08:20:00+00'),
  (6, '2024-03-10 09:05:00+00');
