#!/usr/bin/env bash
# Installs psycopg 3 (with its bundled libpq, psycopg[binary]) and
# SQLAlchemy 2, the Python clients the SQL endpoint's client test drives a
# real server with (server/pgwire/clients_python_test.go,
# server/pgwire/testdata/pg_python.py), into a Python virtual environment
#   $BIN/pg-python/<version>/venv/       bin/python inside
# with pip, so a second run downloads nothing (scripts/pyvenv.sh).
#
# Idempotent: a complete install is kept and a warm run takes well under a
# second. The last line of stdout is the absolute install directory;
# progress goes to stderr.
#
# Environment:
#   BIN                 default bin, relative to the repo root
#   PSYCOPG_VERSION     default 3.3.9, the newest psycopg on PyPI when this
#                       was written
#   SQLALCHEMY_VERSION  default 2.1.9, likewise
#   PYTHON              default python3 (3.10 or newer, with the venv module)
set -euo pipefail
psycopg=${PSYCOPG_VERSION:-3.3.9}
sqlalchemy=${SQLALCHEMY_VERSION:-2.1.9}
exec "$(dirname "${BASH_SOURCE[0]}")/pyvenv.sh" pg-python "psycopg$psycopg-sqlalchemy$sqlalchemy" \
	"psycopg[binary]==$psycopg sqlalchemy==$sqlalchemy" \
	./python -c 'import psycopg, sqlalchemy.dialects.postgresql.psycopg'
