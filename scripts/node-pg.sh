#!/usr/bin/env bash
# Installs node-postgres (npm pg), the Node.js client the SQL endpoint's
# client test drives a real server with (server/pgwire/clients_node_test.go,
# server/pgwire/testdata/pg_node.mjs), into
#   $BIN/node-pg/<version>/node_modules/pg
# with npm, so a second run downloads nothing. Needs node and npm (Node.js
# 18 or newer; scripts/install-deps.sh adds Debian's when missing).
#
# Idempotent: a complete install (marker file .complete naming the same
# package) is kept and a warm run takes well under a second. The last line
# of stdout is the absolute install directory; progress goes to stderr.
#
# Environment:
#   BIN              default bin, relative to the repo root
#   NODE_PG_VERSION  default 8.23.1, the newest pg on npm when this was
#                    written
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${BIN:-bin}
version=${NODE_PG_VERSION:-8.23.1}
want="pg@$version"

log() { printf 'node-pg: %s\n' "$*" >&2; }

case $BIN in /*) bin_abs=$BIN ;; *) bin_abs="$root/$BIN" ;; esac
dest="$bin_abs/node-pg/$version"

complete() {
	[[ -f $dest/.complete && $(cat "$dest/.complete") == "$want" && -f $dest/node_modules/pg/package.json ]]
}

# shellcheck source=scripts/install-once.sh
source "$root/scripts/install-once.sh"
once_per_version

for tool in node npm; do
	if ! command -v "$tool" >/dev/null; then
		log "$tool is not on PATH: install Node.js (scripts/install-deps.sh does)"
		exit 1
	fi
done

start=$(date +%s)
rm -rf "$dest/node_modules" "$dest/package.json" "$dest/package-lock.json" "$dest/.complete"
log "installing $want with node $(node --version)"
# A package.json of its own keeps npm from walking up into the repo.
echo '{"private": true}' >"$dest/package.json"
if ! npm install --prefix "$dest" --no-audit --no-fund --save-exact "$want" >"$dest/npm.log" 2>&1; then
	log "npm install $want failed:"
	tail -n 5 "$dest/npm.log" >&2
	exit 1
fi
(cd "$dest" && node -e 'require("pg")') >/dev/null
echo "$want" >"$dest/.complete"
log "installed $want in $(($(date +%s) - start))s ($(du -sh "$dest/node_modules" | cut -f1))"
echo "$dest"
