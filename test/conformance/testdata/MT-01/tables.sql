-- Sales in two regions over 2024 and 2025. No sale in 2024-03 (a month
-- with no data inside a running total), none in 2024-05 … 2024-12.
CREATE TABLE sales (id INTEGER PRIMARY KEY, sold_on DATE, region VARCHAR, amount INTEGER);
INSERT INTO sales VALUES
  (1, '2024-01-10', 'A', 10),
  (2, '2024-01-20', 'B', 5),
  (3, '2024-02-05', 'A', 20),
  (4, '2024-04-02', 'A', 7),
  (5, '2024-04-15', 'B', 3),
  (6, '2025-01-03', 'A', 100),
  (7, '2025-02-10', 'B', 1),
  (8, '2025-03-31', 'A', 4);
