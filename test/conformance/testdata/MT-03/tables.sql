-- Month-end style balance snapshots of three accounts in two regions.
-- Account 3 has no snapshot on 2024-01-31; summing over time would
-- count each balance once per snapshot.
CREATE TABLE balances (snapshot_id INTEGER PRIMARY KEY, account INTEGER, region VARCHAR, taken_on DATE, balance INTEGER);
INSERT INTO balances VALUES
  (1, 1, 'A', '2024-01-15', 100),
  (2, 2, 'A', '2024-01-15', 50),
  (3, 3, 'B', '2024-01-15', 10),
  (4, 1, 'A', '2024-01-31', 120),
  (5, 2, 'A', '2024-01-31', 40),
  (6, 1, 'A', '2024-02-29', 90),
  (7, 2, 'A', '2024-02-29', 70),
  (8, 3, 'B', '2024-02-29', 30);
