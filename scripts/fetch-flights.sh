#!/usr/bin/env bash
# Obtains the full 3 M-row flights data (vega-datasets@3.2.1 from the npm
# registry) for the flights example and prints the data directory to use on
# stdout: examples/flights/data/full when the full data is (or becomes)
# available, else examples/flights/data (the committed 30k-row sample).
#
# Idempotent: a second run finds the files and does nothing. Never fails:
# without npm, without network, or with a tarball that does not check out,
# it falls back silently to the sample (a one-line note goes to stderr).
#
# Environment:
#   OSSIE_OFFLINE=1     skip the download, use what is there
#   OSSIE_CACHE_DIR     where the npm tarball is kept (default .cache/vega-datasets)
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
sample="$root/examples/flights/data"
full="$sample/full"
cache="${OSSIE_CACHE_DIR:-$root/.cache/vega-datasets}"
pkg="vega-datasets@3.2.1"
tgz="$cache/vega-datasets-3.2.1.tgz"
# sha256 of the files inside vega-datasets-3.2.1.tgz; the catalog's own sha1
# for flights-3m.parquet is stale, so we pin what the release actually holds.
flights_sha="dbeb920c90f59b6ccaff823dcc3d08f25a97fa1ce128d93f40be4e931f5900b0"
airports_sha="903c7169e6d558eefb95295fe2947ec8503135fbb855ea5c737cf4a90ea603ad"

note() { echo "fetch-flights: $*" >&2; }

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | cut -d' ' -f1
	else
		echo unknown
	fi
}

have_full() {
	[ -s "$full/flights-3m.parquet" ] && [ -s "$full/airports.csv" ]
}

fallback() {
	note "$1; using the committed sample (30,000 flights)"
	echo "$sample"
	exit 0
}

if have_full; then
	echo "$full"
	exit 0
fi

[ "${OSSIE_OFFLINE:-}" = "1" ] && fallback "OSSIE_OFFLINE=1"
command -v npm >/dev/null 2>&1 || fallback "npm not found"
command -v tar >/dev/null 2>&1 || fallback "tar not found"

mkdir -p "$cache" || fallback "cannot create $cache"
if [ ! -s "$tgz" ]; then
	note "downloading $pkg from the npm registry (17 MB, once)"
	# npm checks the tarball against the registry's integrity hash.
	runner=()
	command -v timeout >/dev/null 2>&1 && runner=(timeout 300)
	if ! (cd "$cache" && ${runner[@]+"${runner[@]}"} npm pack "$pkg" --silent \
		--fetch-retries=1 --fetch-timeout=60000 >/dev/null 2>&1); then
		rm -f "$tgz"
		fallback "npm pack $pkg failed (offline?)"
	fi
	[ -s "$tgz" ] || fallback "npm pack did not produce $tgz"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ossie-flights.XXXXXX") || fallback "mktemp failed"
trap 'rm -rf "$tmp"' EXIT
if ! tar -xzf "$tgz" -C "$tmp" package/data/flights-3m.parquet package/data/airports.csv 2>/dev/null; then
	rm -f "$tgz"
	fallback "cannot unpack $tgz (removed; the next run downloads it again)"
fi
got_f=$(sha256 "$tmp/package/data/flights-3m.parquet")
got_a=$(sha256 "$tmp/package/data/airports.csv")
if [ "$got_f" != unknown ] && { [ "$got_f" != "$flights_sha" ] || [ "$got_a" != "$airports_sha" ]; }; then
	rm -f "$tgz"
	fallback "checksum mismatch in $tgz (removed)"
fi

# Move into place through a staging directory so an interrupted run never
# leaves a half-written full/ that the next run would trust.
stage="$sample/.full.tmp.$$"
rm -rf "$stage" && mkdir -p "$stage" || fallback "cannot write $sample"
mv "$tmp/package/data/flights-3m.parquet" "$tmp/package/data/airports.csv" "$stage/" || fallback "cannot write $stage"
rm -rf "$full" && mv "$stage" "$full" || { rm -rf "$stage"; fallback "cannot write $full"; }
note "full data in $full"
echo "$full"
