"""porta.RawKernel: CuPy's RawKernel(code, name, options=()) in CUDA C++ or OpenCL C."""
from . import _core

__all__ = ["RawKernel"]


class RawKernel(_core._RawKernel):
    """RawKernel(code, name, options=(), backend=None): backend 'cuda' or 'opencl'; by default
    OpenCL C when the code has __kernel, else CUDA C++. Call it as kernel(grid, block, args)."""

    def __init__(self, code, name, options=(), backend=None):
        if backend is None:
            backend = "opencl" if "__kernel" in code or "kernel void" in code else "cuda"
        super().__init__(code, name, list(options), backend)
        self.code, self.name, self.backend = code, name, backend
