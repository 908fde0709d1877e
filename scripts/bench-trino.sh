#!/usr/bin/env bash
# The flights questions on Trino (`make bench-trino`): gets the 3 M-row
# flights data (scripts/fetch-flights.sh; the committed sample when
# offline), the Trino server with the memory and Hive plugins
# (scripts/trino.sh; Hive adds 258 MB once) and runs
# BenchmarkTrinoServerVsClient in test/conformance, which starts a Trino
# reading the Parquet file in place through the Hive connector and times
# the semantic server over HTTP against the same questions' hand-written
# SQL through trino-go-client, in one run. Extra arguments go to go test
# (e.g. -benchtime 1x for a quicker, noisier run).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
GO=${GO:-go}
# The duckdb_arrow tag, as the Makefile sets it, unless GOFLAGS names tags:
# DuckDB answers read as Arrow record batches (docs/development.md).
case " ${GOFLAGS:-} " in *" -tags="*) ;; *) export GOFLAGS="${GOFLAGS:+$GOFLAGS }-tags=duckdb_arrow" ;; esac
BIN=${BIN:-bin}
data=$(scripts/fetch-flights.sh)
home=$(BIN="$BIN" TRINO_PLUGINS="memory hive" scripts/trino.sh | tail -n1)
OSSIE_TRINO_HOME=${OSSIE_TRINO_HOME:-$home} OSSIE_REQUIRE_TRINO=1 OSSIE_BENCH_FLIGHTS="$data" \
	exec "$GO" test ./test/conformance -run '^$' -bench TrinoServerVsClient -benchtime 3x -benchmem -timeout 60m -v "$@"
