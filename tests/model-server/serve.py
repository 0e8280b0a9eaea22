"""Runs llama-cpp-python's OpenAI-compatible server (`python -m llama_cpp.server`,
same arguments) with llama.cpp's extra weight buffers turned off, and the request's
`max_tokens` honoured when the model writes a tool call (both below).

Why: on CPUs that advertise AMX (the CI machine's does), the AMX buffer that llama.cpp
repacks weights into crashed the server with a segmentation fault
(`ggml_backend_amx_mul_mat`) on the first request, before any answer. The plain CPU
buffers answer the same requests; repacking only buys speed. llama-cpp-python has no
switch for it, so the model parameters' default is wrapped before the server loads
the model.
"""

import llama_cpp.llama_cpp as raw

_default_params = raw.llama_model_default_params


def _params_without_extra_buffers():
    params = _default_params()
    params.use_extra_bufts = False
    return params


raw.llama_model_default_params = _params_without_extra_buffers

# The request's `max_tokens`, honoured by every completion the tool-calling handler makes.
#
# Why: llama-cpp-python's `chatml-function-calling` handler passes `max_tokens=None` to
# the completions that write a tool call's name and arguments (0.3.36,
# llama_chat_format.py), so the request's limit binds only plain answers. Under the
# JSON-schema grammar SmolLM2-135M at times wrote one argument string without end: 6,430
# tokens in 240 s, until the context overflowed and the server answered 400, and the
# test's turn took minutes instead of seconds. With the limit, such a call is cut at
# `max_tokens` like any answer, and the agent answers its broken JSON with a tool error.
import llama_cpp.llama_chat_format as chat_format  # noqa: E402

_tool_calling = chat_format.chatml_function_calling


def _tool_calling_within_max_tokens(*args, **kwargs):
    limit = kwargs.get("max_tokens")
    llama = kwargs.get("llama", args[0] if args else None)
    if limit is None or llama is None:
        return _tool_calling(*args, **kwargs)
    complete = llama.create_completion

    def bounded(*a, **k):
        asked = k.get("max_tokens")
        k["max_tokens"] = limit if asked is None else min(asked, limit)
        return complete(*a, **k)

    llama.create_completion = bounded
    try:
        return _tool_calling(*args, **kwargs)
    finally:
        del llama.create_completion


chat_format.LlamaChatCompletionHandlerRegistry().register_chat_completion_handler(
    "chatml-function-calling", _tool_calling_within_max_tokens, overwrite=True
)

from llama_cpp.server.__main__ import main  # noqa: E402  (after the wraps above)

if __name__ == "__main__":
    main()
