-- BC-12: Week grain starts on Monday and covers Monday..Sunday
-- Tables of ../shared/cases/BC-12.md, verbatim.
CREATE TABLE events (event_id INTEGER PRIMARY KEY, event_date DATE, amount INTEGER);
INSERT INTO events VALUES (1,'2025-01-12',1),(2,'2025-01-13',10),(3,'2025-01-14',100),(4,'2025-01-19',1000),(5,'2025-01-20',10000),(6,'2025-01-26',100000),(7,'2025-01-27',1000000);
