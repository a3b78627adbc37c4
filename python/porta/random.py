"""porta.random: Philox draws (the same bits on every device for a seed), with cupy.random's names."""
from . import _core
from ._helpers import dtype_name as _dtype_name  # (underscored: porta.random's public names are its own)

__all__ = ["seed", "uniform", "normal", "random", "random_sample", "rand", "randn", "integers", "randint"]


def _shape(size):
    return () if size is None else (size,) if isinstance(size, int) else tuple(size)


def seed(seed):
    _core._seed(int(seed))


def uniform(low=0.0, high=1.0, size=None, dtype="float64", device=None):
    return _core._uniform(_shape(size), float(low), float(high), _dtype_name(dtype), device)


def normal(loc=0.0, scale=1.0, size=None, dtype="float64", device=None):
    return _core._normal(_shape(size), float(loc), float(scale), _dtype_name(dtype), device)


def _bound(v, what):
    """A Python int as the C++ bound (int64 bits, above INT64_MAX, exactly 2**64)."""
    v = int(v)
    if v == 2**64:
        return 0, False, True
    if not -(2**63) <= v < 2**64:
        raise ValueError(f"{what} {v} is out of bounds for every porta integer dtype (int64 and uint64)")
    return (v - 2**64, True, False) if v >= 2**63 else (v, False, False)


def integers(low, high=None, size=None, dtype="int64", device=None, endpoint=False):
    """NumPy's Generator.integers: whole numbers on [low, high) ([low, high] with endpoint), of any
    integer dtype, the same bits on every device for a seed; [0, low) when high is None. A range
    that is empty or not inside the dtype raises (porta.InvalidArgument, a ValueError)."""
    if high is None:
        low, high = 0, low
    if endpoint:
        high = int(high) + 1
    lo_bits, lo_big, lo_2_64 = _bound(low, "low")
    if lo_2_64:
        raise ValueError(f"low {low} is out of bounds for every porta integer dtype")
    hi_bits, hi_big, hi_2_64 = _bound(high, "high")
    return _core._integers(_shape(size), lo_bits, lo_big, hi_bits, hi_big, hi_2_64, _dtype_name(dtype), device)


def randint(low, high=None, size=None, dtype="int64", device=None):
    """cupy.random.randint / numpy.random.randint: integers on [low, high), or [0, low)."""
    return integers(low, high, size, dtype, device)


def random(size=None, dtype="float64", device=None):
    return uniform(0.0, 1.0, size, dtype, device)


def rand(*size, dtype="float64"):
    return uniform(0.0, 1.0, size, dtype)


def randn(*size, dtype="float64"):
    return normal(0.0, 1.0, size, dtype)


random_sample = random
