-- Sign-ups (event A) and purchases (event B), worked out by hand in
-- queries.yaml. User 1 bought 29 days and 22 hours after signing up on
-- January 31 (inside 30 days, past the calendar month, which ends on
-- February 29); user 2 bought 30 days and 3 hours after January 2 (past
-- 30 days, inside the month, which ends on February 2); user 3 bought
-- before signing up (large) and within the week (small); user 4 bought
-- twice, once exactly 20 and once less; user 5 never bought; user 6 bought
-- exactly 7 days later.
CREATE TABLE signups (user_id INTEGER PRIMARY KEY, plan VARCHAR, signed_up_at TIMESTAMP);
INSERT INTO signups VALUES
  (1, 'free', '2024-01-31 10:00:00'),
  (2, 'free', '2024-01-02 09:00:00'),
  (3, 'paid', '2024-01-05 12:00:00'),
  (4, 'paid', '2024-01-10 08:00:00'),
  (5, 'free', '2024-02-15 08:00:00'),
  (6, 'paid', '2024-01-20 10:00:00');
CREATE TABLE purchases (purchase_id INTEGER PRIMARY KEY, user_id INTEGER, amount INTEGER, bought_at TIMESTAMP);
INSERT INTO purchases VALUES
  (10, 1, 25, '2024-03-01 08:00:00'),
  (11, 2, 40, '2024-02-01 12:00:00'),
  (12, 3, 50, '2024-01-01 12:00:00'),
  (13, 3, 8, '2024-01-07 10:00:00'),
  (14, 4, 20, '2024-01-10 20:00:00'),
  (15, 4, 15, '2024-01-11 09:00:00'),
  (16, 6, 100, '2024-01-27 10:00:00');
