-- BC-16: Identifiers that need quoting: reserved words, spaces, mixed case; a metric named like a column
-- Tables of ../shared/cases/BC-16.md, verbatim.
CREATE TABLE "Order Facts" ("order" INTEGER PRIMARY KEY, "group" VARCHAR, "Invoice Date" DATE, amount DECIMAL(10,2));
INSERT INTO "Order Facts" VALUES (1,'g1','2024-03-01',5),(2,'g1','2024-03-15',7),(3,'g2','2024-04-02',11),(4,'g2','2024-04-30',2),(5,'g3','2024-04-03',1);
