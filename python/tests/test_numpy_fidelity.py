"""NumPy 2's answers where porta's used to differ (issue 38): result values, dtypes, shapes and
exception types, each against NumPy on every device. Inputs are small: each case is a rule (a
dtype, a bound, a shape), not a size, and cold PoCL compiles dominate the time."""
import numpy as np
import pytest

import porta


def same(got, want):
    """porta's result equals NumPy's: dtype, shape and values (NaN where NumPy has NaN)."""
    got_np = porta.asnumpy(got) if isinstance(got, porta.ndarray) else np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got_np.shape == want.shape, (got_np.shape, want.shape)
    np.testing.assert_array_equal(got_np, want)


# NumPy scalars are strongly typed (NEP 50), as porta.result_type says.

@pytest.mark.parametrize("dtype,scalar", [("float16", np.float32(1.5)), ("int32", np.int64(1)),
                                          ("uint8", np.int8(-1)), ("float32", np.float64(0.1)),
                                          ("bool", np.int16(3)), ("int8", np.float16(2.5))])
def test_numpy_scalars_are_typed(device, dtype, scalar):
    a = np.array([0, 1, 3], dtype=dtype)
    x = porta.asarray(a)
    same(x + scalar, a + scalar)
    same(scalar * x, scalar * a)
    assert porta.result_type(x, scalar) == (a + scalar).dtype


# A function with float loops only takes the least float each operand casts to (hypot(uint16,
# np.int8) is float32, where uint16 + int8 is int32 and would give float64).

@pytest.mark.parametrize("fn", ["hypot", "arctan2", "copysign", "logaddexp"])
@pytest.mark.parametrize("dtype,scalar", [("uint16", np.int8(8)), ("int8", np.uint8(3)), ("bool", np.int16(2)),
                                          ("uint8", np.bool_(True)), ("int32", np.uint8(1)), ("float16", np.int16(-2))])
def test_float_functions_of_numpy_scalars(device, fn, dtype, scalar):
    a = np.array([0, 1, 3], dtype=dtype)
    want = getattr(np, fn)(a, scalar)
    if want.dtype == np.float16 and not device.supports(porta.float16):
        pytest.skip("no half precision on " + str(device))
    for got, want in ((getattr(porta, fn)(porta.asarray(a, device=device), scalar), want),
                      (getattr(porta, fn)(scalar, porta.asarray(a, device=device)), getattr(np, fn)(scalar, a))):
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        np.testing.assert_allclose(porta.asnumpy(got), want, rtol=1e-3 if want.dtype == np.float16 else 1e-6)


# Slices.

@pytest.mark.parametrize("key", [slice(-5, None, -1), slice(-4, -9, -1), slice(-3, -4, -1), slice(-3, None, -2),
                                 slice(None, -5, -1), slice(7, -5, -1), slice(-9, 9, 2)], ids=repr)
def test_negative_step_slices(device, rng, key):
    a = rng.standard_normal((3, 4, 3))
    x = porta.asarray(a)
    same(x[key], a[key])
    same(x[..., key, :], a[..., key, :])
    same(x[:, :, key], a[:, :, key])
    a[key] = 7.0
    x[key] = 7.0
    a[..., key] = -1.0
    x[..., key] = -1.0
    same(x, a)


@pytest.mark.parametrize("points", [[-3], [3, 1], [-9, 9, 2], [0, -1], [5, -20, 2], []], ids=str)
def test_split_at_points(device, points):
    a = np.arange(20).reshape(4, 5)
    x = porta.asarray(a)
    for axis in (0, 1):
        got, want = porta.split(x, points, axis=axis), np.split(a, points, axis=axis)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)


# float16 and bfloat16 round after every operation, fused or not.

def _half_values(rng, dtype, n=37):
    """Random values of the dtype with its edges: zeros of both signs, inf, NaN, the largest
    finite, the smallest subnormal, values near 1 whose sums round."""
    # ml_dtypes' own finfo: NumPy's knows bfloat16 only through newer ml_dtypes (the GPU host's
    # older one raised "not compatible with finfo").
    try:
        info = np.finfo(dtype)
    except ValueError:
        info = __import__("ml_dtypes").finfo(dtype)
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, float(info.max), -float(info.max), float(info.smallest_subnormal),
             1.0, 1.0 + float(info.eps), 0.5, -2.5]
    v = np.concatenate([np.array(edges), rng.standard_normal(n) * 8]).astype(dtype)
    return rng.permutation(v)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_rounds_after_every_operation(device, rng, dtype):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    npt = np.float16 if dtype == "float16" else ml_dtypes.bfloat16
    if not device.supports(dtype):
        pytest.skip(f"{device.spec} has no {dtype}")
    a, b, c = (_half_values(rng, npt) for _ in range(3))
    x, y, z = (porta.asarray(v.astype(np.float32)).astype(dtype) for v in (a, b, c))
    with np.errstate(all="ignore"):
        cases = [((x - 0.1) * 3, (a - npt(0.1)) * npt(3)),
                 (x * y + z - x / y, a * b + c - a / b),
                 ((x + y) * (x - y) / (z + 1.5), (a + b) * (a - b) / (c + npt(1.5))),
                 (porta.sqrt(x * x + y * y) - porta.abs(z), np.sqrt(a * a + b * b) - np.abs(c))]
    for got, want in cases:
        g = porta.asnumpy(got)  # (bfloat16 arrives as float32 through a fused cast)
        np.testing.assert_array_equal(g, want.astype(np.float32))
        np.testing.assert_array_equal(porta.asnumpy(got.eval()), g)  # the stored array: the same values
        np.testing.assert_array_equal(g.astype(npt).astype(np.float32), g)  # every value is one of the dtype


def test_half_mean_sums_in_float32(device, rng):
    a = np.array([40000, 40000], dtype=np.float16)
    same(porta.mean(porta.asarray(a)), np.mean(a))
    b = rng.uniform(2e4, 6e4, size=(5, 301)).astype(np.float16)  # (sums far beyond 65504)
    x = porta.asarray(b)
    for axis in (None, 1):
        got, want = porta.asnumpy(porta.mean(x, axis=axis)), np.mean(b, axis=axis)
        assert got.dtype == want.dtype and np.all(np.isfinite(got))
        # float32 sums in another order may round the last float16 bit the other way.
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=2e-3, atol=1e-2)


# Unique values: NaNs distinct (NumPy 2's unique_*, unique(equal_nan=False)) or merged (unique's default).

@pytest.mark.parametrize("dtype", ["float32", "float64"])  # (float16's sort: a 15 s cold compile on PoCL)
def test_unique_nans(device, rng, dtype):
    a = rng.choice(np.array([np.nan, 1.0, -0.0, 2.5, np.inf]), size=(3, 7)).astype(dtype)
    a[0, 0] = a[2, 6] = np.nan
    x = porta.asarray(a)
    for got, want in [(porta.unique_all(x), np.unique_all(a)), (porta.unique_counts(x), np.unique_counts(a)),
                      # (NumPy's unique_inverse numbers equal NaNs in the order of an unstable sort;
                      # porta's is its unique_all's, by position)
                      (porta.unique_inverse(x), np.unique_all(a)[::2]),
                      (porta.unique(x, return_index=True, return_inverse=True, return_counts=True, equal_nan=False),
                       np.unique(a, return_index=True, return_inverse=True, return_counts=True, equal_nan=False)),
                      (porta.unique(x, return_index=True, return_counts=True),
                       np.unique(a, return_index=True, return_counts=True))]:
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
    same(porta.unique_values(x), np.unique_values(a))
    same(porta.unique(x), np.unique(a))
    same(porta.unique(x, equal_nan=False), np.unique(a, equal_nan=False))


# Reductions and differences.

@pytest.mark.parametrize("dtype,to", [("int32", "int32"), ("int8", "int8"), ("bool", "int32"), ("int16", "float32")])
def test_sum_and_prod_with_dtype(device, rng, dtype, to):
    a = rng.integers(0, 2 if dtype == "bool" else 120, size=(4, 9)).astype(dtype)
    x = porta.asarray(a)

    def close(got, want):  # integers exact (int8 wraps as NumPy's); floats summed in another order
        if np.dtype(to).kind != "f":
            return same(got, want)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(porta.asnumpy(got), want, rtol=1e-6 if to == "float32" else 1e-14)

    for axis in (None, 1):
        close(porta.sum(x, axis=axis, dtype=to), np.sum(a, axis=axis, dtype=to))
        close(porta.prod(x[:, :3], axis=axis, dtype=to), np.prod(a[:, :3], axis=axis, dtype=to))
    close(x.sum(dtype=to), a.sum(dtype=to))


# A sample of (dtype, edge) pairs: each promotion rule once (cold kernel compiles dominate).
@pytest.mark.parametrize("dtype,edge", [("int32", -4), ("uint8", 300), ("int32", 2.5), ("float32", True),
                                        ("bool", True), ("bool", -4), ("uint8", np.int16(3)),
                                        ("float32", np.full((3, 1), 2, np.uint8))], ids=repr)
def test_diff_prepend_append_promote(device, rng, dtype, edge):
    """prepend/append are arrays of their own dtype (np.asanyarray: a Python int is int64) that the
    join promotes; bool's difference is not_equal (NumPy's)."""
    a = rng.integers(0, 2 if dtype == "bool" else 50, size=(3, 5)).astype(dtype)
    x = porta.asarray(a)
    for kw in ({"prepend": edge}, {"append": edge}, {"prepend": edge, "append": edge}):
        same(porta.diff(x, **kw), np.diff(a, **kw))
        if np.ndim(edge) == 0:
            same(porta.diff(x, axis=0, **kw), np.diff(a, axis=0, **kw))
    same(porta.diff(x, n=0, prepend=edge), np.diff(a, n=0, prepend=edge))


# Elementwise dtypes of bool and integer operands, and bounds beyond the dtype.

def test_bool_and_integer_rounding_dtypes(device, rng):
    b = rng.integers(0, 2, size=(3, 4)).astype(bool)
    i = rng.integers(-100, 100, size=(3, 4)).astype(np.int32)
    u = rng.integers(0, 200, size=(3, 4)).astype(np.uint8)
    for a in (b, i, u, i.astype(np.int16)):
        x = porta.asarray(a)
        for name in ("floor", "ceil", "trunc", "square"):
            same(getattr(porta, name)(x), getattr(np, name)(a))
        if device.supports("float16") or a.dtype.itemsize > 1:
            same(porta.rint(x), np.rint(a))
    same(porta.clip(porta.asarray(b), False, True), np.clip(b, False, True))
    same(porta.clip(porta.asarray(b), True, True), np.clip(b, True, True))
    same(porta.asarray(b).clip(False, False), b.clip(False, False))


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint8", "uint32", "int64", "uint64"])
def test_clip_clamps_bounds_beyond_the_dtype(device, rng, dtype):
    info = np.iinfo(dtype)
    a = np.concatenate([rng.integers(info.min, info.max, size=29, dtype=dtype, endpoint=True),
                        np.array([info.min, info.max, 0], dtype=dtype)])
    x = porta.asarray(a)
    for lo, hi in [(0, info.max + 1), (info.min - 1, 3), (-2 ** 70, 2 ** 70), (info.min - 5, info.max + 5),
                   (5, 2 ** 64)]:
        same(porta.clip(x, lo, hi), np.clip(a, lo, hi))
    with pytest.raises(OverflowError):  # arithmetic keeps NumPy 2's OverflowError
        x + (info.max + 1)


def test_float_index_arrays_are_index_errors(device):
    x = porta.arange(3)
    with pytest.raises(IndexError):
        x[porta.asarray([])]
    with pytest.raises(IndexError):
        x[porta.asarray([1.0])]
    with pytest.raises(IndexError):
        x[porta.asarray([])] = 1
    same(x[[]], np.arange(3)[[]])
    same(x[porta.asarray([], dtype="int64")], np.arange(3)[np.array([], dtype=np.int64)])


# Several index arrays in one subscript (NumPy's advanced indexing): they broadcast together; the
# result's indexed dimensions stand where the arrays stand when they are adjacent, else first.

def _index_keys(rng):
    i = rng.integers(-3, 3, size=4)
    j = rng.integers(-3, 3, size=(3, 1))
    k = rng.integers(0, 5, size=4)
    mask2 = rng.random((3, 4)) < 0.5
    # Each placement rule once: adjacent arrays, arrays apart, an int between, None between, a mask
    # of two dimensions beside an array, a 1-D mask beside an int, empty arrays.
    return [(i, j), (i, slice(None), k), (slice(1, 3), i, k), (i, 1, k), (i, None, j), (mask2, k[:1]),
            (slice(None), rng.random(4) < 0.5, 2), (np.array([], dtype=np.int64), np.array([], dtype=np.int64))]


def test_several_index_arrays(device, rng):
    a = rng.standard_normal((3, 4, 5)).astype(np.float32)
    x = porta.asarray(a)
    for n, key in enumerate(_index_keys(rng)):
        if any(isinstance(k, np.ndarray) and k.dtype == bool for k in key) and \
                np.count_nonzero([k for k in key if isinstance(k, np.ndarray) and k.dtype == bool][0]) == 0:
            continue  # (an empty mask beside another array: NumPy's broadcast of 0 with 1)
        pk = tuple(porta.asarray(k) if isinstance(k, np.ndarray) else k for k in key)
        want = a[key]
        same(x[pk], want)
        b, y = a.copy(), porta.asarray(a)
        v = rng.standard_normal(want.shape).astype(np.float32)
        b[key] = v
        y[pk] = porta.asarray(v)
        # (an element indexed twice: which value lands is unspecified, as CuPy's)
        if np.unique(np.arange(a.size).reshape(a.shape)[key]).size == want.size:
            same(y, b)
        y[pk] = 7.0
        b[key] = 7.0
        same(y, b)
    with pytest.raises(IndexError):
        x[porta.asarray([0, 1]), porta.asarray([1, 2, 3])]
    with pytest.raises(IndexError):
        x[porta.asarray([0]), porta.asarray([4])]
    with pytest.raises(IndexError):  # a mask smaller than the axes it stands for
        x[porta.asarray(np.ones((2, 4), bool)), porta.asarray([0])]
    with pytest.raises(IndexError):
        x[porta.asarray([0]), porta.asarray([1.0])]


# Products of integer and bool operands, and of more than 3 dimensions.

@pytest.mark.parametrize("dtype", ["int32", "uint8", "bool", "float64"])
def test_matmul_stacked_and_integer(device, rng, dtype):
    a = rng.integers(0, 2 if dtype == "bool" else 9, size=(2, 1, 3, 4)).astype(dtype)
    b = rng.integers(0, 2 if dtype == "bool" else 9, size=(3, 4, 2)).astype(dtype)
    v = rng.integers(0, 2 if dtype == "bool" else 9, size=4).astype(dtype)
    x, y, w = porta.asarray(a), porta.asarray(b), porta.asarray(v)
    same(x @ y, a @ b)
    same(porta.matmul(x, w), np.matmul(a, v))
    same(porta.matmul(w, porta.asarray(b[0])), np.matmul(v, b[0]))
    same(porta.matmul(x, y[1]), np.matmul(a, b[1]))
    same(porta.dot(x[0, 0], y[0]), np.dot(a[0, 0], b[0]))
    same(porta.dot(x, y), np.dot(a, b))  # (NumPy's dot of stacks is not matmul: (2, 1, 3, 3, 2))
    same(porta.dot(x, w), np.dot(a, v))
    same(porta.dot(w, y), np.dot(v, b))
    same(x.dot(y[0]), a.dot(b[0]))
    with pytest.raises(ValueError):
        porta.matmul(x, porta.asarray(np.ones((3, 3, 4, 2), dtype)))  # leading (2, 1) and (3, 3)


@pytest.mark.parametrize("x, y", [(np.int32(0), False), (np.int32(-3), 1.5), (np.float16(2), 3), (np.True_, False),
                                  (np.complex64(1j), 2), (np.uint8(200), np.int8(-1)), (1, 2)])
def test_where_of_two_scalars_types_numpy_scalars_strongly(device, x, y):
    """where(c, x, y) with no array among x and y: a NumPy scalar keeps its dtype (the differential
    test found where(c, np.int32(0), False) int64 on 2026-12-06; NumPy: int32)."""
    cn = np.array([True, False, True])
    got = porta.where(porta.asarray(cn, device=device), x, y)
    want = np.where(cn, x, y)
    assert got.dtype == want.dtype, (x, y, got.dtype, want.dtype)
    np.testing.assert_array_equal(got.get(), want)


@pytest.mark.parametrize("dtype,number", [("uint8", -3), ("uint8", 256), ("int8", 200), ("int16", -2 ** 15 - 1),
                                          ("uint64", -1), ("int64", 2 ** 63)])
def test_where_with_a_python_int_beyond_the_dtype_raises(device, dtype, number):
    """where(c, uint8_array, -3): NumPy 2.4 wraps -3 to 253 silently (its where casts unsafely, unlike
    its ufuncs, clip and asarray: NumPy issue 27006); porta raises the OverflowError of NumPy's
    arithmetic (listed in docs/guide/numpy-differences.md). A number the dtype holds is taken."""
    a = np.array([1, 2, 3], dtype=dtype)
    c = porta.asarray(np.array([True, False, True]), device=device)
    x = porta.asarray(a, device=device)
    with pytest.raises(OverflowError, match=str(number)):
        porta.where(c, x, number)
    with pytest.raises(OverflowError, match=str(number)):
        porta.where(c, number, x)
    assert x.get().tolist() == [1, 2, 3]  # (the array stays valid)
    inside = int(np.iinfo(dtype).max if number > 0 else np.iinfo(dtype).min)
    same(porta.where(c, x, inside), np.where(np.array([True, False, True]), a, inside))


# Complex special values as NumPy gives them (its functions are the C library's, glibc's on Linux,
# with the signs Annex G leaves open): each pair of parts from the list below, compared part by
# part with the signs of zeros and infinities. Found on 2026-12-06: isinf(inf + i NaN) was false;
# reciprocal(0j) inf + i NaN (NumPy NaN + i NaN); 0 ** (1 + 1j) NaN (NumPy 2.4: 0 for Re w > 0);
# i ** (inf + i inf) NaN (NumPy 0: the C library's cpow multiplies with Annex G's recovery);
# atanh(NaN + 1e300j) NaN + i pi/2 (NumPy NaN + i NaN); sinh(-inf + i inf), sin(inf - i inf),
# cos(i NaN), cosh(-0 + i inf), acos(inf + i NaN), asin(inf + i NaN) with other signs.
# (Only the functions fixed then; complex64, whose code is the same text with float parts, only
# isinf and pow: a cold PoCL compile costs about a second a kernel.)
_PARTS = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 2.5, -0.5, 1e30, 1e300]


def _same_parts(got, want):
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        ok = (np.isnan(g) & np.isnan(w)) | ((g == w) & (np.signbit(g) == np.signbit(w))) | \
             (np.isfinite(w) & (np.abs(g - w) <= 16 * np.spacing(np.abs(want).astype(w.dtype))))
        bad = np.nonzero(~ok)[0]
        assert not bad.size, [(i, got[i], want[i]) for i in bad[:5]]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_special_values_are_numpys(device, dtype):
    z = np.array([complex(a, b) for a in _PARTS for b in _PARTS]).astype(dtype)
    x = porta.asarray(z, device=device)
    functions = [("isinf", np.isinf), ("reciprocal", np.reciprocal), ("atan", np.arctan), ("atanh", np.arctanh),
                 ("acos", np.arccos), ("asin", np.arcsin), ("cos", np.cos), ("cosh", np.cosh), ("sin", np.sin),
                 ("sinh", np.sinh)]
    for name, ref in functions if dtype == "complex128" else functions[:1]:
        got, want = getattr(porta, name)(x).get(), ref(z)
        assert got.dtype == want.dtype, name
        if want.dtype.kind == "b":
            np.testing.assert_array_equal(got, want, err_msg=name)
        else:
            _same_parts(got, want)
    # pow of every pair (121 x 121): zero bases, infinite exponents (finite ones within 16 ulps of |r|)
    a, b = np.repeat(z, z.size), np.tile(z, z.size)
    want = a ** b
    got = porta.pow(porta.asarray(a, device=device), porta.asarray(b, device=device)).get()
    fin = np.isfinite(want) | ~(np.isfinite(a) & np.isfinite(b))  # (an overflow's phase is arbitrary)
    _same_parts(got[fin], want[fin])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_vecdot_of_half_floats_sums_in_float32(device, dtype):
    """vecdot of float16 multiplies and sums in float32 and rounds once (NumPy's half dot; porta's
    matmul): 300 * 400 is beyond float16, and in float16 products the sum was inf - inf = NaN
    (found by the differential test on 2026-12-06)."""
    if not device.supports(dtype):
        pytest.skip(f"{device.spec} has no {dtype}")
    a = np.array([[300.0, 400.0, 1.5], [-250.0, 260.0, 0.0]], dtype=np.float32)
    b = np.array([[-300.0, 300.0, 2.0], [250.0, 270.0, 7.0]], dtype=np.float32)
    x, y = porta.asarray(a, dtype=dtype, device=device), porta.asarray(b, dtype=dtype, device=device)
    got = porta.vecdot(x, y)
    assert got.dtype == x.dtype
    want = np.sum(x.get().astype(np.float64) * y.get().astype(np.float64), axis=-1)  # (exact here)
    np.testing.assert_allclose(got.get().astype(np.float64), want, rtol=1e-2)
    if dtype == "float16":
        same(got, np.vecdot(a.astype(np.float16), b.astype(np.float16)))


@pytest.mark.parametrize("exponent", [np.uint64(14609321633852689065), 2 ** 63 + 5, np.uint64(2 ** 64 - 1)])
def test_power_of_unsigned_exponents_beyond_int64(device, exponent):
    """uint64 ** a uint64 above INT64_MAX: NumPy's wrapping power (the exponent was read as a negative
    int64 and refused; found by the differential test on 2026-12-06)."""
    a = np.array([0, 1, 2, 3, 2 ** 63 + 1], dtype=np.uint64)
    same(porta.power(porta.asarray(a, device=device), exponent), np.power(a, exponent))
