#!/usr/bin/env bash
# Runs every Fuzz target of the module for a short time each (default 10s,
# FUZZTIME=1m scripts/fuzz.sh for longer). `go test` accepts one -fuzz
# target per package and run, so targets are found and run one by one.
# Seed corpora alone already run in `make test`; this explores beyond them.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${FUZZTIME:-10s}"
# The duckdb_arrow tag, as the Makefile sets it, unless GOFLAGS names tags:
# DuckDB answers read as Arrow record batches (docs/development.md).
case " ${GOFLAGS:-} " in *" -tags="*) ;; *) export GOFLAGS="${GOFLAGS:+$GOFLAGS }-tags=duckdb_arrow" ;; esac
found=0
while IFS= read -r file; do
	pkg="./$(dirname "$file")"
	for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file"); do
		found=1
		echo "== $pkg $target ($fuzztime)"
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg"
	done
done < <(grep -rl --include='*_test.go' '^func Fuzz' . | grep -v -e '^\./\.cache/' -e '^\./tools/' | sed 's|^\./||' | sort)
if [ "$found" = 0 ]; then
	echo "no Fuzz targets found"
fi
