-- Sign-ups (event A) and purchases (event B). User 3 bought before
-- signing up; user 2 bought too late; user 5 never bought; user 4 bought
-- twice.
CREATE TABLE signups (user_id INTEGER PRIMARY KEY, plan VARCHAR, signed_up_at TIMESTAMP);
INSERT INTO signups VALUES
  (1, 'free', '2024-01-01 10:00:00'),
  (2, 'free', '2024-01-02 09:00:00'),
  (3, 'paid', '2024-01-05 12:00:00'),
  (4, 'paid', '2024-01-10 08:00:00'),
  (5, 'free', '2024-02-15 08:00:00');
CREATE TABLE purchases (purchase_id INTEGER PRIMARY KEY, user_id INTEGER, bought_at TIMESTAMP);
INSERT INTO purchases VALUES
  (10, 1, '2024-01-03 18:00:00'),
  (11, 2, '2024-01-20 09:00:00'),
  (12, 3, '2024-01-01 12:00:00'),
  (13, 4, '2024-01-10 20:00:00'),
  (14, 4, '2024-01-11 09:00:00');
