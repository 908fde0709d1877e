#!/usr/bin/env bash
# Installs moto's server mode (PyPI moto[server]), the AWS Glue
# implementation the Glue drafting tests run against (test/motoserver),
# into a Python virtual environment
#   $BIN/moto/<version>/venv/            bin/moto_server inside
# with pip, so a second run downloads nothing (scripts/pyvenv.sh). Docs:
# docs/authoring.md.
#
# Idempotent: a complete install is kept and a warm run takes well under a
# second. The last line of stdout is the absolute install directory;
# progress goes to stderr.
#
# Environment:
#   BIN            default bin, relative to the repo root
#   MOTO_VERSION   default 5.2.5, the newest moto on PyPI when this was
#                  written (test/motoserver.Version names the same)
#   PYTHON         default python3 (3.9 or newer, with the venv module:
#                  Debian's python3-venv, which scripts/install-deps.sh adds)
set -euo pipefail
version=${MOTO_VERSION:-5.2.5}
exec "$(dirname "${BASH_SOURCE[0]}")/pyvenv.sh" moto "$version" "moto[server]==$version" ./moto_server --help
