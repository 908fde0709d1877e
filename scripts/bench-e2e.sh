#!/usr/bin/env bash
# End-to-end serving benchmark on the flights data (`make bench-e2e`):
# builds bin/server, gets the 3 M-row data (scripts/fetch-flights.sh; the
# committed sample when offline) and runs test/benche2e, which interleaves
# hand-written SQL, the server's SQL run directly and the server over HTTP
# on one DuckDB file, then measures the cached answer and 8-client
# throughput. The measured runs use --cache-bytes 0 so every HTTP answer
# comes from the engine. Extra arguments go to test/benche2e (e.g.
# --scale 0.3 for a quicker, noisier run; --server OTHER_BINARY to compare
# another build).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
GO=${GO:-go}
# The duckdb_arrow tag, as the Makefile sets it, unless GOFLAGS names tags:
# DuckDB answers read as Arrow record batches (docs/development.md).
case " ${GOFLAGS:-} " in *" -tags="*) ;; *) export GOFLAGS="${GOFLAGS:+$GOFLAGS }-tags=duckdb_arrow" ;; esac
BIN=${BIN:-bin}
data=$(scripts/fetch-flights.sh)
"$GO" build -o "$BIN/server" ./cmd/server
"$GO" build -o "$BIN/bench-e2e" ./test/benche2e
exec "$BIN/bench-e2e" --data "$data" --server "$BIN/server" \
	--server-args "--cache-bytes 0" --cache-args "--cache-bytes 67108864" "$@"
