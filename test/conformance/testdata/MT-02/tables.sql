-- Sign-ups around the 2024 US daylight-saving start (2024-03-10 02:00 in
-- New York, 07:00 UTC). 2024-03-10 is a Sunday.
CREATE TABLE signups (id INTEGER PRIMARY KEY, signed_up_at TIMESTAMPTZ, plan VARCHAR);
INSERT INTO signups VALUES
  (1, '2024-03-05 03:00:00+00', 'free'),
  (2, '2024-03-09 23:30:00+00', 'paid'),
  (3, '2024-03-10 06:30:00+00', 'free'),
  (4, '2024-03-11 03:30:00+00', 'paid'),
  (5, '2024-03-12 05:00:00+00', 'free');
