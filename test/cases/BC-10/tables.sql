-- BC-10: Ratio of two integer sums must not use integer division
-- Tables of ../shared/cases/BC-10.md, verbatim.
CREATE TABLE coin_tosses (toss_day DATE PRIMARY KEY, successes INTEGER, attempts INTEGER);
INSERT INTO coin_tosses VALUES ('2019-06-01',8,27),('2019-06-02',2,3),('2019-06-03',19,20);
