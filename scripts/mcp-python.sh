#!/usr/bin/env bash
# Installs the official Model Context Protocol Python SDK (PyPI mcp), the
# client the MCP test drives a real server with (server/mcp_python_test.go,
# server/testdata/mcp_client.py), into a Python virtual environment
#   $BIN/mcp-python/<version>/venv/      bin/python inside
# with pip, so a second run downloads nothing (scripts/pyvenv.sh).
#
# Idempotent: a complete install is kept and a warm run takes well under a
# second. The last line of stdout is the absolute install directory;
# progress goes to stderr.
#
# Environment:
#   BIN                 default bin, relative to the repo root
#   MCP_PYTHON_VERSION  default 2.3.0, the newest mcp on PyPI when this
#                       was written
#   PYTHON              default python3 (3.10 or newer, with the venv module)
set -euo pipefail
version=${MCP_PYTHON_VERSION:-2.3.0}
exec "$(dirname "${BASH_SOURCE[0]}")/pyvenv.sh" mcp-python "$version" "mcp==$version" ./python -c 'import mcp.client.streamable_http'
