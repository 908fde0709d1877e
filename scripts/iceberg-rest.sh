#!/usr/bin/env bash
# Fetches the Apache Iceberg REST catalog test fixture that the Iceberg
# tests through Trino start (test/icebergrest): the test-fixtures jar of
# org.apache.iceberg:iceberg-open-api and its runtime dependencies, listed in
# scripts/iceberg-rest/pom.xml, copied with `mvn dependency:copy-dependencies`
# (cached in ~/.m2) into
#   $BIN/iceberg-rest/<version>/lib/
# Docs: docs/trino.md.
#
# Idempotent: a complete install (marker .complete naming the version and a
# hash of the pom) is kept; a warm run takes well under a second. The last
# line of stdout is the absolute install directory; progress goes to stderr.
#
# Environment:
#   BIN                   default bin, relative to the repo root
#   ICEBERG_REST_VERSION  default 1.10.0
#   MVN                   default mvn
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${BIN:-bin}
MVN=${MVN:-mvn}
version=${ICEBERG_REST_VERSION:-1.10.0}
pom="$root/scripts/iceberg-rest/pom.xml"
# shellcheck source=scripts/mvn-copy.sh
source "$root/scripts/mvn-copy.sh"

log() { printf 'iceberg-rest: %s\n' "$*" >&2; }

case $BIN in /*) bin_abs=$BIN ;; *) bin_abs="$root/$BIN" ;; esac
dest="$bin_abs/iceberg-rest/$version"
want="version=$version pom=$(sha256sum "$pom" | cut -c1-16)"

complete() {
	[[ -f $dest/.complete && $(cat "$dest/.complete") == "$want" && -d $dest/lib ]]
}

# shellcheck source=scripts/install-once.sh
source "$root/scripts/install-once.sh"
once_per_version

start=$(date +%s)
log "resolving Iceberg $version REST catalog fixture and its dependencies"
rm -f "$dest/.complete"
mvn_copy_dependencies "$pom" "$dest/lib" -Diceberg.version="$version"
echo "$want" >"$dest/.complete"
log "installed $(ls "$dest/lib" | wc -l) jars ($(du -sh "$dest/lib" | cut -f1)) in $(($(date +%s) - start))s"
echo "$dest"
