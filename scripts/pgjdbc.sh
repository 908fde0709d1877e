#!/usr/bin/env bash
# Installs what the JDBC client test (server/pgwire/jdbc_test.go) runs: the
# PostgreSQL JDBC driver org.postgresql:postgresql, listed in
# scripts/pgjdbc/pom.xml and copied with `mvn dependency:copy-dependencies`
# (cached in ~/.m2), and the test's Java program
# server/pgwire/testdata/jdbc/JdbcProbe.java compiled with javac against it:
#   $BIN/pgjdbc/<version>/lib/       the driver jar
#   $BIN/pgjdbc/<version>/classes/   JdbcProbe.class
# Run it as: java -cp "$dir/lib/*:$dir/classes" JdbcProbe
#
# Idempotent: a complete install (marker .complete naming the version and
# hashes of the pom and the Java source) is kept, and a changed source is
# only recompiled; a warm run takes well under a second. The last line of
# stdout is the absolute install directory; progress goes to stderr.
#
# Environment:
#   BIN             default bin, relative to the repo root
#   PGJDBC_VERSION  default 42.7.14
#   MVN             default mvn
#   JAVAC           default javac (a JDK 11 or newer; scripts/install-deps.sh installs one)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${BIN:-bin}
MVN=${MVN:-mvn}
JAVAC=${JAVAC:-javac}
version=${PGJDBC_VERSION:-42.7.14}
pom="$root/scripts/pgjdbc/pom.xml"
src="$root/server/pgwire/testdata/jdbc/JdbcProbe.java"
# shellcheck source=scripts/mvn-copy.sh
source "$root/scripts/mvn-copy.sh"

log() { printf 'pgjdbc: %s\n' "$*" >&2; }

case $BIN in /*) bin_abs=$BIN ;; *) bin_abs="$root/$BIN" ;; esac
dest="$bin_abs/pgjdbc/$version"
want_lib="version=$version pom=$(sha256sum "$pom" | cut -c1-16)"
want_classes="source=$(sha256sum "$src" | cut -c1-16)"

lib_complete() {
	[[ -f $dest/.complete && $(cat "$dest/.complete") == "$want_lib" && -d $dest/lib ]]
}
classes_complete() {
	[[ -f $dest/.classes && $(cat "$dest/.classes") == "$want_classes" && -f $dest/classes/JdbcProbe.class ]]
}

complete() { lib_complete && classes_complete; }
# shellcheck source=scripts/install-once.sh
source "$root/scripts/install-once.sh"
once_per_version

if ! lib_complete; then
	start=$(date +%s)
	log "resolving org.postgresql:postgresql:$version"
	rm -f "$dest/.complete"
	mvn_copy_dependencies "$pom" "$dest/lib" -Dpgjdbc.version="$version"
	echo "$want_lib" >"$dest/.complete"
	log "installed $(ls "$dest/lib" | tr "\n" " ")in $(($(date +%s) - start))s"
fi
if ! classes_complete; then
	if ! command -v "$JAVAC" >/dev/null; then
		log "no $JAVAC: install a JDK (scripts/install-deps.sh does) or set JAVAC"
		exit 1
	fi
	rm -rf "$dest/classes" "$dest/.classes" "$dest/classes.new"
	mkdir -p "$dest/classes.new"
	"$JAVAC" -encoding UTF-8 -Xlint:all -Werror -cp "$dest/lib/*" -d "$dest/classes.new" "$src" >&2
	mv "$dest/classes.new" "$dest/classes"
	echo "$want_classes" >"$dest/.classes"
	log "compiled $(basename "$src")"
fi
echo "$dest"
