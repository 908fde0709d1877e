-- SA-01: balance snapshots of four accounts in two branches. Within a
-- month the accounts' last snapshots differ: account 2's last January
-- snapshot is on the 29th, two days before the others'; account 4 has
-- only one, on January 10th; account 3's last February snapshot is on
-- the 27th. Account 1 also holds a small USD balance, snapshot once.
CREATE TABLE accounts (account_id INTEGER PRIMARY KEY, branch VARCHAR);
INSERT INTO accounts VALUES (1, 'North'), (2, 'North'), (3, 'South'), (4, 'South');
CREATE TABLE balances (snapshot_id INTEGER PRIMARY KEY, account_id INTEGER, currency VARCHAR, taken_on DATE, balance INTEGER);
INSERT INTO balances VALUES
  (1, 1, 'EUR', '2024-01-15', 100),
  (2, 2, 'EUR', '2024-01-15', 200),
  (3, 3, 'EUR', '2024-01-15', 300),
  (4, 1, 'EUR', '2024-01-31', 110),
  (5, 2, 'EUR', '2024-01-29', 210),
  (6, 3, 'EUR', '2024-01-31', 310),
  (7, 1, 'EUR', '2024-02-29', 120),
  (8, 2, 'EUR', '2024-02-29', 220),
  (9, 3, 'EUR', '2024-02-27', 320),
  (10, 4, 'EUR', '2024-01-10', 400),
  (11, 1, 'USD', '2024-01-20', 5);
