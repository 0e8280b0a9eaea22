"""Runs llama-cpp-python's OpenAI-compatible server (`python -m llama_cpp.server`,
same arguments) with llama.cpp's extra weight buffers turned off.

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

from llama_cpp.server.__main__ import main  # noqa: E402  (after the wrap above)

if __name__ == "__main__":
    main()
