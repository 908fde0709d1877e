-- BC-06: Role-playing dimension: one table joined twice under two roles
-- Tables of ../shared/cases/BC-06.md, verbatim.
CREATE TABLE airports (code VARCHAR PRIMARY KEY, city VARCHAR);
INSERT INTO airports VALUES ('AAA','Alpha'),('BBB','Bravo'),('CCC','Charlie');
CREATE TABLE flights (flight_id INTEGER PRIMARY KEY, origin VARCHAR, destination VARCHAR, passengers INTEGER);
INSERT INTO flights VALUES (1,'AAA','BBB',100),(2,'AAA','CCC',50),(3,'BBB','AAA',80),(4,'CCC','AAA',20),(5,'AAA','BBB',10);
