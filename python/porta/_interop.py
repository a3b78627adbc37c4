"""Zero-copy exchange with NumPy, CuPy, PyTorch, JAX...: porta.from_dlpack and the CUDA Array Interface."""
from . import _core

__all__ = ["from_dlpack", "from_cuda_array_interface"]

_KDL_CUDA = 2


def from_dlpack(x, *, device=None, copy=None):
    """A porta array over x's memory (x: anything with __dlpack__, or a DLPack capsule).

    CUDA tensors become arrays of cuda:N, with the producer's work ordered before porta's on this
    thread's stream; host tensors (NumPy) an array of a device that uses host memory in place
    (Kokkos, an OpenCL CPU device), `device` if given. copy=True copies after the import.
    """
    if not hasattr(x, "__dlpack__"):
        r = _core._from_dlpack_capsule(x, device)
    else:
        dev_type, dev_id = x.__dlpack_device__()
        stream = None
        if dev_type == _KDL_CUDA:
            stream = _core._native_queue(f"cuda:{dev_id}") or 1
        try:
            capsule = x.__dlpack__(stream=stream, max_version=(1, 0))
        except TypeError:  # a producer that predates max_version
            capsule = x.__dlpack__(stream=stream)
        r = _core._from_dlpack_capsule(capsule, device if dev_type != _KDL_CUDA else None)
    return r.copy() if copy else r


def from_cuda_array_interface(x, device=None):
    """A porta array over an object's __cuda_array_interface__ memory (version 2 or 3), zero-copy."""
    return _core._from_cuda_array_interface(x, device)
