"""porta.random: Philox draws (the same bits on every device for a seed), with cupy.random's names."""
from . import _core
from ._helpers import dtype_name as _dtype_name  # (underscored: porta.random's public names are its own)

__all__ = ["seed", "uniform", "normal", "random", "random_sample", "rand", "randn"]


def _shape(size):
    return () if size is None else (size,) if isinstance(size, int) else tuple(size)


def seed(seed):
    _core._seed(int(seed))


def uniform(low=0.0, high=1.0, size=None, dtype="float64", device=None):
    return _core._uniform(_shape(size), float(low), float(high), _dtype_name(dtype), device)


def normal(loc=0.0, scale=1.0, size=None, dtype="float64", device=None):
    return _core._normal(_shape(size), float(loc), float(scale), _dtype_name(dtype), device)


def random(size=None, dtype="float64", device=None):
    return uniform(0.0, 1.0, size, dtype, device)


def rand(*size, dtype="float64"):
    return uniform(0.0, 1.0, size, dtype)


def randn(*size, dtype="float64"):
    return normal(0.0, 1.0, size, dtype)


random_sample = random
