#!/usr/bin/env bash
# Installs the Python client (clients/python) with its test dependencies
# (pyarrow, pandas, pytest, pinned below) into a virtual environment
#   $BIN/pyclient/<pins>/venv/
# with pip, so a second run downloads nothing. The client's tests
# (clients/python, driven by a Go test against a real server) put the
# source tree first on PYTHONPATH, so the install proves `pip install
# clients/python` works and the tests read the current source.
#
# Idempotent: a complete install (marker file .complete naming the same
# pins) is kept; a warm run takes well under a second. The last line of
# stdout is the absolute install directory; progress goes to stderr.
#
# Environment:
#   BIN      default bin, relative to the repo root
#   PYTHON   default python3 (3.9 or newer, with the venv module)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${BIN:-bin}
PYTHON=${PYTHON:-python3}
pins="pyarrow==26.0.1 pandas==3.1.1 pytest==9.2.0"
version=pyarrow26-pandas3.1-pytest9.2

log() { printf 'pyclient: %s\n' "$*" >&2; }

case $BIN in /*) bin_abs=$BIN ;; *) bin_abs="$root/$BIN" ;; esac
dest="$bin_abs/pyclient/$version"

complete() {
	[[ -f $dest/.complete && $(cat "$dest/.complete") == "$pins" && -x $dest/venv/bin/pytest ]]
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
log "installing $pins and clients/python"
# shellcheck disable=SC2086 # the pins are separate words
if ! "$dest/venv/bin/python" -m pip install --quiet --disable-pip-version-check $pins "$root/clients/python" >"$dest/pip.log" 2>&1; then
	log "pip install failed:"
	tail -n 5 "$dest/pip.log" >&2
	exit 1
fi
"$dest/venv/bin/python" -c 'import ossie_client, pyarrow, pandas' >/dev/null
echo "$pins" >"$dest/.complete"
log "installed in $(($(date +%s) - start))s ($(du -sh "$dest/venv" | cut -f1))"
echo "$dest"
