"""porta: one array API over CUDA, OpenCL (PoCL included) and Kokkos devices, with CuPy's names.

porta works without the GIL wherever it may wait or work for long (README, Python, The GIL), so
Python threads drive devices in parallel. An operation makes a new array; elementwise work is lazy and fused.
Writes (a[...] = b, a[idx] = v, a[mask] = v, fill, put, scatter_add) change the memory every view of it sees.
"""
# (_array exports no names: importing it adds NumPy's conveniences to ndarray.)
from . import _array, _arrayapi, _compose, _core, _creation, _dtypes, _interop, _kernel, _pool, _reduce, _standard  # noqa: F401
from ._core import (  # noqa: F401
    Error, BackendUnavailable, DeviceError, ShapeError, DTypeError, InvalidArgument, Cancelled, CompileError,
    OutOfMemory, NumberOutOfRange,
    Device, BackendStatus, devices, backends, default_device, current_device, get_device, synchronize,
    Setting, settings,
    ndarray, empty, zeros, ones, eye, concatenate, stack,
    add, subtract, multiply, divide, true_divide, remainder, mod, power, pow, maximum, minimum, equal, not_equal,
    less, less_equal, greater, greater_equal, logical_and, logical_or, logical_xor, logical_not, bitwise_and,
    bitwise_or, bitwise_xor, bitwise_not, bitwise_invert, invert, negative, abs, absolute, sign, square, exp, log,
    log1p, expm1, sqrt, rsqrt, sin, cos, tan, tanh, sigmoid, erf, floor, ceil, round, around, rint, isnan, isinf,
    isfinite, clip, where, matmul, dot, ElementwiseKernel, Event, get_elapsed_time, Graph, record,
    acos, arccos, asin, arcsin, atan, arctan, acosh, arccosh, asinh, arcsinh, atanh, arctanh, sinh, cosh, log2,
    log10, trunc, signbit, reciprocal, atan2, arctan2, hypot, copysign, nextafter, logaddexp, bitwise_left_shift,
    left_shift, bitwise_right_shift, right_shift, floor_divide, positive,
)
from ._creation import (  # noqa: F401
    array, asarray, asnumpy, full, arange, linspace, zeros_like, ones_like, full_like, empty_like, reshape,
    transpose, expand_dims, squeeze, broadcast_to, bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float16, bfloat16, float32, float64, complex64, complex128,
)
from ._reduce import sum, mean, prod, min, max, amin, amax, argmin, argmax, all, any  # noqa: F401,A004
from ._arrayapi import (  # noqa: F401
    take, take_along_axis, put, scatter_add, compress, nonzero, flatnonzero, count_nonzero, cumsum, cumprod,
    cumulative_sum, cumulative_prod, diff, sort, argsort, unique, unique_all, unique_counts, unique_inverse,
    unique_values, searchsorted, topk, flip, roll, tile, repeat, pad, split, unstack, tril, triu, var, std, real,
    imag, conj, conjugate, angle,
)
from ._dtypes import finfo, iinfo, can_cast, result_type, isdtype  # noqa: F401
from ._compose import meshgrid, broadcast_arrays, moveaxis, vecdot, tensordot, einsum  # noqa: F401
from ._kernel import RawKernel  # noqa: F401
from ._pool import DevicePool  # noqa: F401
from ._interop import from_dlpack, from_cuda_array_interface  # noqa: F401
# The array API standard's names NumPy spells otherwise (concat, permute_dims, ...); its clip with
# optional bounds stands for _core's, which needs both.
from ._standard import (  # noqa: F401
    e, inf, nan, newaxis, pi, astype, concat, permute_dims, matrix_transpose, clip, __array_namespace_info__,
)
from . import random  # noqa: F401
from . import fft  # noqa: F401
from . import linalg  # noqa: F401

bool = bool_  # noqa: A001 (the standard's name for the bool dtype, as numpy.bool)

# What `from porta import *` gives: _core's names imported above, then each module's __all__.
__all__ = [
    "Error", "BackendUnavailable", "DeviceError", "ShapeError", "DTypeError", "InvalidArgument", "Cancelled",
    "CompileError", "OutOfMemory", "NumberOutOfRange",
    "Device", "BackendStatus", "devices", "backends", "default_device", "current_device", "get_device", "synchronize",
    "Setting", "settings",
    "ndarray", "empty", "zeros", "ones", "eye", "concatenate", "stack",
    "add", "subtract", "multiply", "divide", "true_divide", "remainder", "mod", "power", "pow", "maximum", "minimum",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
    "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_invert",
    "invert", "negative", "abs", "absolute", "sign", "square", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin",
    "cos", "tan", "tanh", "sigmoid", "erf", "floor", "ceil", "round", "around", "rint", "isnan", "isinf",
    "isfinite", "clip", "where", "matmul", "dot", "ElementwiseKernel", "Event", "get_elapsed_time", "Graph", "record",
    "acos", "arccos", "asin", "arcsin", "atan", "arctan", "acosh", "arccosh", "asinh", "arcsinh", "atanh", "arctanh",
    "sinh", "cosh", "log2", "log10", "trunc", "signbit", "reciprocal", "atan2", "arctan2", "hypot", "copysign",
    "nextafter", "logaddexp", "bitwise_left_shift", "left_shift", "bitwise_right_shift", "right_shift",
    "floor_divide", "positive",
    "random", "fft", "linalg", "bool",
]
__all__ += _creation.__all__
__all__ += _reduce.__all__
__all__ += _arrayapi.__all__
__all__ += _dtypes.__all__
__all__ += _compose.__all__
__all__ += _kernel.__all__
__all__ += _pool.__all__
__all__ += _interop.__all__
__all__ += [n for n in _standard.__all__ if n not in __all__]

__version__ = "0.1.0"
# The array API standard's version whose names porta follows (README: which functions it has).
__array_api_version__ = "2024.12"
