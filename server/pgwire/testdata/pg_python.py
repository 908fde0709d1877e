"""Drives the SQL endpoint with psycopg 3 and SQLAlchemy 2, as a BI tool or
a notebook would, and prints what they saw as one JSON document on stdout
(server/pgwire/clients_python_test.go checks it against the HTTP API and
hand-written SQL).

    python pg_python.py HOST PORT AUDITOR_TOKEN ANALYST_TOKEN

The token is the password; the user name is only shown back. Values are
written as JSON numbers, strings and ISO dates; Decimals as strings, so
no digit is lost on the way.
"""

import datetime
import decimal
import json
import sys
import threading
import time

import psycopg
import sqlalchemy
from psycopg import errors
from sqlalchemy import inspect, text

host, port, auditor, analyst = sys.argv[1:5]


def conninfo(token):
    return psycopg.conninfo.make_conninfo(
        host=host, port=port, user="bi", password=token, dbname="ossie", sslmode="disable", connect_timeout=10
    )


def plain(v):
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, (datetime.date, datetime.datetime)):
        return v.isoformat()
    return v


def rows(cur):
    return [[plain(v) for v in r] for r in cur.fetchall()]


out = {"queries": {}}
q = out["queries"]

BY_STATE = "SELECT customers_state, MEASURE(revenue) FROM shop.shop GROUP BY 1 ORDER BY 2 DESC LIMIT 2"
BY_MONTH = (
    "SELECT DATE_TRUNC('month', orders_order_date) AS m, order_count, revenue "
    "FROM shop.shop GROUP BY 1 ORDER BY 1"
)
PARAMS = (
    "SELECT customers_state, order_count, revenue FROM shop.shop "
    "WHERE orders_order_date BETWEEN %s AND %s AND customers_state IN (%s, %s) "
    "GROUP BY 1 ORDER BY 1 LIMIT %s"
)
PARAMS_ARGS = (datetime.date(2024, 1, 1), datetime.date(2024, 2, 11), "CA", "NY", 10)
HAVING = "SELECT customers_state, order_count FROM shop.shop GROUP BY 1 HAVING order_count > %s ORDER BY 1"

with psycopg.connect(conninfo(auditor), autocommit=True) as conn:
    out["server_version"] = conn.info.server_version
    # Catalog through information_schema, as a notebook lists what it may ask.
    cur = conn.execute("SELECT schema_name FROM information_schema.schemata ORDER BY 1")
    out["schemas"] = [r[0] for r in cur.fetchall()]
    cur = conn.execute(
        "SELECT table_schema, table_name FROM information_schema.tables "
        "WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2"
    )
    out["tables"] = rows(cur)
    cur = conn.execute(
        "SELECT column_name, data_type FROM information_schema.columns "
        "WHERE table_schema = %s AND table_name = %s ORDER BY ordinal_position",
        ("shop", "shop"),
    )
    out["columns"] = rows(cur)

    # Without parameters psycopg sends a simple query; with them, Parse/Bind
    # of an unnamed statement (server-side binding); prepare=True a named
    # statement, bound again with other values.
    q["by_state"] = rows(conn.execute(BY_STATE))
    q["by_month"] = rows(conn.execute(BY_MONTH))
    q["params"] = rows(conn.execute(PARAMS, PARAMS_ARGS))
    q["prepared_1"] = rows(conn.execute(HAVING, (1,), prepare=True))
    q["prepared_2"] = rows(conn.execute(HAVING, (2,), prepare=True))
    # Client-side binding: the values as literals in a simple query.
    with psycopg.ClientCursor(conn) as ccur:
        ccur.execute(PARAMS, PARAMS_ARGS)
        q["params_client_side"] = rows(ccur)

    # A named (server-side) cursor sends DECLARE, which the endpoint refuses.
    try:
        with conn.cursor(name="c") as ncur:
            ncur.execute(BY_STATE)
            ncur.fetchall()
        out["named_cursor"] = "answered"
    except psycopg.Error as e:
        out["named_cursor"] = e.sqlstate

    # A slow query cancelled from another thread with a CancelRequest.
    result = {}

    def slow():
        try:
            conn.execute("SELECT MEASURE(rows) FROM slow.slow")
            result["error"] = "not cancelled"
        except errors.QueryCanceled as e:
            result["sqlstate"] = e.sqlstate
        except Exception as e:  # noqa: BLE001 - reported to the Go test
            result["error"] = repr(e)

    start = time.monotonic()
    th = threading.Thread(target=slow)
    th.start()
    time.sleep(0.3)
    conn.cancel_safe(timeout=10)
    th.join(30)
    result["seconds"] = round(time.monotonic() - start, 3)
    result["alive"] = not th.is_alive()
    # The connection keeps serving after the cancel.
    result["after"] = rows(conn.execute(BY_STATE))
    out["cancel"] = result

# The state analyst's role hides columns and filters rows.
with psycopg.connect(conninfo(analyst), autocommit=True) as conn:
    cur = conn.execute(
        "SELECT column_name FROM information_schema.columns "
        "WHERE table_schema = 'shop' AND table_name = 'shop' ORDER BY ordinal_position"
    )
    out["governed_columns"] = [r[0] for r in cur.fetchall()]
    q["governed"] = rows(conn.execute("SELECT customers_state, order_count, revenue FROM shop.shop GROUP BY 1 ORDER BY 1"))
    try:
        conn.execute("SELECT avg_amount FROM shop.shop")
        out["governed_hidden"] = "answered"
    except psycopg.Error as e:
        out["governed_hidden"] = e.sqlstate

# SQLAlchemy: the URL a BI tool (Superset) is given, its inspector, and a
# textual query with a bound parameter through the pool.
url = sqlalchemy.URL.create(
    "postgresql+psycopg", username="bi", password=auditor, host=host, port=int(port), database="ossie",
    query={"sslmode": "disable"},
)
engine = sqlalchemy.create_engine(url)
insp = inspect(engine)
sa = {}
sa["schemas"] = insp.get_schema_names()
sa["tables"] = insp.get_table_names(schema="shop")
sa["columns"] = [
    [c["name"], str(c["type"]), c["nullable"], c.get("comment")] for c in insp.get_columns("shop", schema="shop")
]
sa["table_comment"] = insp.get_table_comment("shop", schema="shop").get("text")
# What Superset reads when a dataset is added (its table metadata) and
# when it lists a schema; a model table has no keys, indexes or views.
sa["pk"] = insp.get_pk_constraint("shop", schema="shop").get("constrained_columns")
sa["foreign_keys"] = insp.get_foreign_keys("shop", schema="shop")
sa["indexes"] = insp.get_indexes("shop", schema="shop")
sa["unique"] = insp.get_unique_constraints("shop", schema="shop")
sa["views"] = insp.get_view_names(schema="shop") + insp.get_materialized_view_names(schema="shop")
sa["has_table"] = insp.has_table("shop", schema="shop")
with engine.connect() as c:
    # Superset's connection test, then a chart: the metric in SUM(), the
    # column aliased by its label.
    sa["ping"] = c.execute(text("SELECT 1")).scalar()
    q["superset_chart"] = [
        [plain(v) for v in r]
        for r in c.execute(
            text(
                'SELECT customers_state AS customers_state, SUM(revenue) AS "SUM(revenue)" FROM shop.shop '
                'GROUP BY customers_state ORDER BY "SUM(revenue)" DESC LIMIT 2'
            )
        )
    ]
    q["sa_by_state"] = [[plain(v) for v in r] for r in c.execute(text(BY_STATE))]
    q["sa_having"] = [
        [plain(v) for v in r]
        for r in c.execute(
            text("SELECT customers_state, order_count FROM shop.shop GROUP BY 1 HAVING order_count > :n ORDER BY 1"),
            {"n": 1},
        )
    ]
engine.dispose()
out["sqlalchemy"] = sa

json.dump(out, sys.stdout)
