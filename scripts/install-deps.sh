#!/usr/bin/env bash
# Installs the Debian packages the test suites need when a machine lacks
# them: the PostgreSQL 15 server binaries (test/pgtest starts its own
# server from /usr/lib/postgresql/15/bin), Maven (scripts/trino.sh
# fetches Trino with `mvn dependency:copy`), a JDK (scripts/pgjdbc.sh
# compiles the JDBC client test with javac; Maven alone brings a JRE),
# Python's venv module
# (scripts/moto.sh installs moto into a virtual environment; Debian ships
# it apart as python3-venv), Node.js with npm (scripts/node-pg.sh
# installs node-postgres for the SQL endpoint's client test) and
# bash-completion (test/binaries loads each binary's bash completion
# script, which calls its functions, into bash). Idempotent: nothing is
# installed, and apt is not touched, when all are present.
set -euo pipefail

need=()
[[ -x /usr/lib/postgresql/15/bin/initdb ]] || need+=(postgresql-15)
command -v "${MVN:-mvn}" >/dev/null || need+=(maven)
command -v "${JAVAC:-javac}" >/dev/null || need+=(default-jdk-headless)
command -v "${PYTHON:-python3}" >/dev/null || need+=(python3)
"${PYTHON:-python3}" -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
command -v node >/dev/null || need+=(nodejs)
command -v npm >/dev/null || need+=(npm)
[[ -f /usr/share/bash-completion/bash_completion ]] || need+=(bash-completion)
if ((${#need[@]} == 0)); then
	exit 0
fi
if ! command -v apt-get >/dev/null; then
	echo "install-deps: missing ${need[*]} and no apt-get; install them yourself" >&2
	exit 1
fi
sudo=""
if [[ $(id -u) != 0 ]]; then
	sudo="sudo"
fi
echo "install-deps: installing ${need[*]}" >&2
$sudo apt-get update >&2
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${need[@]}" >&2
