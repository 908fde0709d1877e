-- BC-09: Ratio metric is a ratio of sums at every grain, never a sum or average of ratios
-- Tables of ../shared/cases/BC-09.md, verbatim.
CREATE TABLE performance (id INTEGER PRIMARY KEY, region VARCHAR, month DATE, actual DECIMAL(12,2), target DECIMAL(12,2));
INSERT INTO performance VALUES (1,'N','2024-01-01',90,100),(2,'N','2024-02-01',30,200),(3,'S','2024-01-01',5,10),(4,'S','2024-02-01',14,30);
