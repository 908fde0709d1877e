#!/usr/bin/env bash
# Installs pinned PyPI requirements into a Python virtual environment
#   $BIN/<name>/<version>/venv/
# with pip, so a second run downloads nothing; scripts/moto.sh,
# scripts/mcp-python.sh and scripts/pg-python.sh are its callers.
#
#   scripts/pyvenv.sh NAME VERSION REQUIREMENTS CHECK...
#
# REQUIREMENTS is one pip requirement or several separated by spaces
# (`psycopg[binary]==3.3.9 sqlalchemy==2.1.9`), installed together.
# CHECK is a command run inside the venv's bin/ once installed (it must
# succeed for the install to count): `moto_server --help`, `python -c
# 'import mcp'`.
#
# Idempotent: a complete install (marker file .complete naming the same
# requirement) is kept and a warm run takes well under a second. The last
# line of stdout is the absolute install directory; progress goes to
# stderr.
#
# Environment:
#   BIN      default bin, relative to the repo root
#   PYTHON   default python3 (3.10 or newer, with the venv module:
#            Debian's python3-venv, which scripts/install-deps.sh adds)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${BIN:-bin}
PYTHON=${PYTHON:-python3}
name=$1 version=$2 want=$3
shift 3

log() { printf '%s: %s\n' "$name" "$*" >&2; }

case $BIN in /*) bin_abs=$BIN ;; *) bin_abs="$root/$BIN" ;; esac
dest="$bin_abs/$name/$version"

complete() {
	[[ -f $dest/.complete && $(cat "$dest/.complete") == "$want" && -x $dest/venv/bin/python ]]
}

# shellcheck source=scripts/install-once.sh
source "$root/scripts/install-once.sh"
once_per_version

if ! "$PYTHON" -c 'import venv, ensurepip' 2>/dev/null; then
	log "$PYTHON cannot create virtual environments (no venv/ensurepip module): install python3-venv (scripts/install-deps.sh does) or set PYTHON"
	exit 1
fi

start=$(date +%s)
rm -rf "$dest/venv" "$dest/.complete"
log "creating a virtual environment with $("$PYTHON" --version 2>&1)"
"$PYTHON" -m venv "$dest/venv"
log "installing $want"
# shellcheck disable=SC2086 # several requirements are separate words
if ! "$dest/venv/bin/python" -m pip install --quiet --disable-pip-version-check $want >"$dest/pip.log" 2>&1; then
	log "pip install $want failed:"
	tail -n 5 "$dest/pip.log" >&2
	exit 1
fi
(cd "$dest/venv/bin" && PATH="$dest/venv/bin:$PATH" "$@") >/dev/null
echo "$want" >"$dest/.complete"
log "installed $want in $(($(date +%s) - start))s ($(du -sh "$dest/venv" | cut -f1))"
echo "$dest"
