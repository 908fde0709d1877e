-- A small shop on DuckDB and PostgreSQL: keys, comments, names that need
-- quoting, two foreign keys to one table (origin/destination: only one can
-- be a relationship of a tree), a self reference and a view.
CREATE SCHEMA shop;
CREATE TABLE shop.customers (id INTEGER PRIMARY KEY, email VARCHAR(200) UNIQUE, region TEXT, "Signup Date" DATE);
COMMENT ON TABLE shop.customers IS 'People who bought something';
COMMENT ON COLUMN shop.customers.email IS 'Login e-mail';
CREATE TABLE shop.airports (code CHAR(3) PRIMARY KEY, name TEXT, "group" TEXT);
CREATE TABLE shop.orders (
    id BIGINT PRIMARY KEY,
    customer_id INTEGER REFERENCES shop.customers (id),
    "Order Date" DATE,
    amount NUMERIC(12,2),
    placed_at TIMESTAMPTZ,
    shipped_at TIMESTAMP,
    "select" TEXT,
    "say ""hi""" TEXT,
    origin CHAR(3) REFERENCES shop.airports (code),
    destination CHAR(3) REFERENCES shop.airports (code),
    weight DOUBLE PRECISION,
    gift BOOLEAN,
    tags TEXT[]);
COMMENT ON TABLE shop.orders IS 'One row per order';
COMMENT ON COLUMN shop.orders.amount IS 'Order total in EUR';
CREATE TABLE shop.employees (id INTEGER PRIMARY KEY, manager_id INTEGER REFERENCES shop.employees (id));
CREATE VIEW shop.big_orders AS SELECT id, amount FROM shop.orders WHERE amount > 100;
