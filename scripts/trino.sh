#!/usr/bin/env bash
# Fetches the Trino server the real-Trino test suites start (test/trinoserver)
# into
#   $BIN/trino/<version>/server/         trino-server-core, unpacked
#   $BIN/trino/<version>/plugin/<name>/  only the connector plugins the tests use
#   $BIN/trino/<version>/jdk             symlink to the Java runtime it runs on
# with `mvn dependency:copy`, so the archives land in ~/.m2 and a second
# checkout on the same machine downloads nothing. Docs: docs/trino.md.
#
# Idempotent: the server with the memory plugin has the marker .complete
# (its text, "version=<v> plugins=memory", is the same as in the first
# layout, so checkouts of older commits sharing bin/trino keep this
# install); every other plugin has its own marker .plugin-<name>, so adding
# a plugin unpacks only that plugin and never the server again. A warm run
# takes well under a second. The last line of stdout is the absolute install
# directory; progress goes to stderr.
#
# Environment:
#   BIN            default bin, relative to the repo root
#   TRINO_VERSION  default 476: the newest io.trino:trino-server-core that
#                  Maven Central serves here (483 is published for plugins
#                  only); it needs Java 24 or later
#   TRINO_PLUGINS  default "memory iceberg": plugin artifacts
#                  io.trino:trino-<name> (zip), space-separated; memory is
#                  always installed (every Trino suite uses it); iceberg is
#                  346 MB, used with the Iceberg REST catalog of
#                  scripts/iceberg-rest.sh; `make bench-trino` adds hive
#                  (258 MB)
#   TRINO_JAVA_HOME  the JDK to run it with; default: the first of
#                  $JAVA_HOME and /usr/lib/jvm/* whose java is 24 or newer
#   MVN            default mvn
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${BIN:-bin}
MVN=${MVN:-mvn}
version=${TRINO_VERSION:-476}
plugins=${TRINO_PLUGINS:-memory iceberg}
extra=() # the plugins besides memory
for p in $plugins; do
	[[ $p == memory ]] || extra+=("$p")
done
min_java=24

log() { printf 'trino: %s\n' "$*" >&2; }

case $BIN in /*) bin_abs=$BIN ;; *) bin_abs="$root/$BIN" ;; esac
dest="$bin_abs/trino/$version"
want="version=$version plugins=memory"

java_major() { # prints the feature version of $1/bin/java, or nothing
	[[ -x $1/bin/java ]] || return 0
	"$1/bin/java" -XshowSettings:properties -version 2>&1 |
		awk -F'= ' '/java.specification.version/ { print $2; exit }'
}

find_java() {
	local c major
	for c in ${TRINO_JAVA_HOME:-} ${JAVA_HOME:-} /usr/lib/jvm/*; do
		[[ -n $c ]] || continue
		major=$(java_major "$c")
		if [[ -n $major && $major -ge $min_java ]]; then
			echo "$c"
			return 0
		fi
	done
	return 1
}

server_complete() {
	[[ -f $dest/.complete && $(cat "$dest/.complete") == "$want" && -x $dest/jdk/bin/java ]]
}

plugin_complete() { # $1: plugin name besides memory
	[[ -f $dest/.plugin-$1 && $(cat "$dest/.plugin-$1") == "version=$version" && -d $dest/plugin/$1 ]]
}

complete() {
	server_complete || return 1
	local p
	for p in "${extra[@]}"; do
		plugin_complete "$p" || return 1
	done
}

# shellcheck source=scripts/install-once.sh
source "$root/scripts/install-once.sh"
once_per_version

downloads="$dest/.download"
rm -rf "$downloads"
mkdir -p "$downloads"
# fetch ARTIFACT: group:artifact:version:type into $downloads, through ~/.m2.
fetch() {
	local start
	start=$(date +%s)
	log "fetching $1"
	if ! "$MVN" -B -q dependency:copy -Dartifact="$1" -DoutputDirectory="$downloads" >"$downloads/mvn.log" 2>&1; then
		log "mvn dependency:copy $1 failed:"
		grep -E 'ERROR' "$downloads/mvn.log" | head -5 >&2
		exit 1
	fi
	log "fetched $1 in $(($(date +%s) - start))s"
}

# install_plugin NAME: fetch and unpack io.trino:trino-NAME into plugin/NAME.
install_plugin() {
	fetch "io.trino:trino-$1:$version:zip"
	rm -rf "$dest/plugin/$1" "$downloads/$1"
	unzip -q "$downloads/trino-$1-$version.zip" -d "$downloads/$1"
	mv "$downloads/$1/trino-$1-$version" "$dest/plugin/$1"
	rm -rf "$downloads/$1" "$downloads/trino-$1-$version.zip"
}

if ! server_complete; then
	if ! jdk=$(find_java); then
		log "no Java $min_java or newer found (Trino $version needs it): set TRINO_JAVA_HOME to a JDK, e.g. /usr/lib/jvm/temurin-25-jdk-amd64"
		exit 1
	fi
	log "running on Java $(java_major "$jdk") from $jdk"
	fetch "io.trino:trino-server-core:$version:tar.gz"
	rm -rf "$dest/server" "$dest/plugin" "$dest/.complete" "$dest"/.plugin-*
	log "unpacking"
	mkdir -p "$dest/server" "$dest/plugin"
	tar -xzf "$downloads/trino-server-core-$version.tar.gz" -C "$dest/server" --strip-components=1
	install_plugin memory
	ln -sfn "$jdk" "$dest/jdk"
	echo "$want" >"$dest/.complete"
fi
for p in "${extra[@]}"; do
	if ! plugin_complete "$p"; then
		install_plugin "$p"
		echo "version=$version" >"$dest/.plugin-$p"
	fi
done
rm -rf "$downloads"
log "installed Trino $version with plugins: memory ${extra[*]}"
echo "$dest"
