-- Instants around the 2024 US daylight-saving start (2024-03-10 02:00 in
-- New York, 07:00 UTC) and around local midnights in New York and Tokyo.
CREATE TABLE events (id INTEGER PRIMARY KEY, occurred_at TIMESTAMPTZ, amount INTEGER);
INSERT INTO events VALUES
  (1, '2024-03-09 23:30:00+00', 10),
  (2, '2024-03-10 06:30:00+00', 20),
  (3, '2024-03-10 07:30:00+00', 30),
  (4, '2024-03-31 15:30:00+00', 40),
  (5, '2024-04-01 03:59:59+00', 50),
  (6, '2024-04-01 04:00:00+00', 60);
