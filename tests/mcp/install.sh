#!/usr/bin/env bash
# Installs the MCP Python SDK (PyPI `mcp`), the client tests/mcp/ drives `grounded mcp`
# with, in a venv outside the repository:
#   ${GROUNDED_MCP_VENV:-$HOME/.cache/grounded/mcp-client}
# Idempotent: an install already there is kept (a second).
# Run: bash tests/mcp/install.sh
set -euo pipefail

VENV="${GROUNDED_MCP_VENV:-$HOME/.cache/grounded/mcp-client}"
# Pinned: the tests read the SDK's result types (structuredContent, isError).
MCP="mcp==2.3.0"

ready() {
    [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import mcp.client.stdio' 2>/dev/null
}

if ready; then
    echo "mcp client: already installed in $VENV"
    exit 0
fi
python3 -c 'import ensurepip' 2>/dev/null || { apt-get update && apt-get install -y python3-venv; }
echo "mcp client: installing into $VENV"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet "$MCP"
if ! ready; then
    echo "mcp client: the install in $VENV is incomplete" >&2
    exit 1
fi
echo "mcp client: installed in $VENV"
