"""porta has every name of the Python array API standard 2024.12 (array_api_2024_12.py, generated
from the standard's own stubs) under the standard's name, callable the standard's way: every call
the standard allows (its positional-only, positional and keyword arguments, which of them may be
left out) is a call porta's function takes, beside NumPy's and CuPy's arguments. The linalg and fft
extensions are checked once porta has those modules. Then what the new names do, on every device."""
import ast
import inspect
import math

import numpy as np
import pytest

import porta
from array_api_2024_12 import ARRAY_ATTRIBUTES, ARRAY_METHODS, FFT, INFO_METHODS, LINALG, NAMESPACE

P = inspect.Parameter

# Defaults porta spells differently with the same meaning (each is tested below).
SAME_DEFAULT = {
    # NumPy's ddof=0 stands beside the standard's correction: correction=None means "ddof's".
    ("std", "correction"), ("var", "correction"),
    # Where NumPy and the standard disagree, porta keeps NumPy's default (docs/guide/array-api.md):
    # pinv's cutoff without rtol is NumPy's rcond 1e-15, the standard's max(M, N) * eps (rtol=None
    # gives the standard's).
    ("pinv", "rtol"),
}


def _spec_signature(text):
    """The standard's signature text, e.g. '(x, /, *, axis=None)', as an inspect.Signature."""
    return inspect.signature(eval("lambda " + text[1:-1] + ": None"))  # noqa: S307 (our own generated file)


def _nanobind_signature(fn):
    """A nanobind function's signature from its __nb_signature__ ('def f(a: T, b: U = \\0) -> R' and
    the defaults); the first overload's (porta binds no overloads of the standard's functions)."""
    text, _, defaults = fn.__nb_signature__[0]
    head = text.split("->")[0] if ") ->" in text else text
    tree = ast.parse(head.replace("\\", "_D") + ": pass")
    args = tree.body[0].args
    params = []

    def default(node):
        if node is None:
            return P.empty
        return defaults[int(node.id[2:])] if isinstance(node, ast.Name) and node.id.startswith("_D") else \
            ast.literal_eval(node)

    pos = args.posonlyargs + args.args
    pos_defaults = [None] * (len(pos) - len(args.defaults)) + args.defaults
    for i, (a, d) in enumerate(zip(pos, pos_defaults)):
        if a.arg == "self":
            continue
        kind = P.POSITIONAL_ONLY if i < len(args.posonlyargs) else P.POSITIONAL_OR_KEYWORD
        params.append(P(a.arg, kind, default=default(d)))
    if args.vararg:
        params.append(P(args.vararg.arg, P.VAR_POSITIONAL))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        params.append(P(a.arg, P.KEYWORD_ONLY, default=default(d)))
    if args.kwarg:
        params.append(P(args.kwarg.arg, P.VAR_KEYWORD))
    return inspect.Signature(params)


def signature(fn):
    if hasattr(fn, "__nb_signature__"):
        return _nanobind_signature(fn)
    sig = inspect.signature(fn)
    if isinstance(fn, type) or (inspect.isfunction(fn) and next(iter(sig.parameters), None) == "self"):
        sig = sig.replace(parameters=list(sig.parameters.values())[1:])
    return sig


def _same(a, b):
    return type(a) is type(b) and a == b


def _check_default(name, s, h, problems):
    """The standard's optional parameter s is optional in porta's h, with the same default."""
    if s.default is P.empty:
        return
    if h.default is P.empty:
        problems.append(f"{s.name!r} must be optional (default {s.default!r})")
    elif not _same(h.default, s.default) and (name, s.name) not in SAME_DEFAULT:
        problems.append(f"{s.name!r} defaults to {h.default!r}, the standard's to {s.default!r}")


def incompatibilities(name, fn, spec_text):
    """What keeps a call the standard allows from being a call `fn` takes (an empty list: none)."""
    spec, have = _spec_signature(spec_text), signature(fn)
    hp = list(have.parameters.values())
    var_pos = next((i for i, p in enumerate(hp) if p.kind == P.VAR_POSITIONAL), None)
    var_kw = any(p.kind == P.VAR_KEYWORD for p in hp)
    positional = [p for p in hp if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
    by_name = {p.name: p for p in hp if p.kind in (P.POSITIONAL_OR_KEYWORD, P.KEYWORD_ONLY)}
    problems, used = [], set()
    for i, s in enumerate(spec.parameters.values()):
        if s.kind == P.VAR_POSITIONAL:
            if var_pos is None or var_pos != i:
                problems.append(f"*{s.name} must be taken at position {i}")
            continue
        h = None
        if s.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD):
            if i < len(positional):
                h = positional[i]
            elif var_pos is not None and i >= var_pos:
                continue
            else:
                problems.append(f"positional argument {i} ({s.name}) is not taken")
                continue
            if s.kind == P.POSITIONAL_OR_KEYWORD and (h.name != s.name or h.kind != P.POSITIONAL_OR_KEYWORD):
                # (array-api-tests asks for the name at that place too, not only a keyword beside it)
                problems.append(f"argument {i} must be named {s.name!r} (it is {h.name!r})")
        else:
            h = by_name.get(s.name)
            if h is None:
                if not var_kw:
                    problems.append(f"keyword {s.name!r} is not taken")
                continue
        used.add(h.name)
        _check_default(name, s, h, problems)
    for p in hp:
        if p.name not in used and p.default is P.empty and p.kind not in (P.VAR_POSITIONAL, P.VAR_KEYWORD):
            problems.append(f"{p.name!r} is required, which the standard does not give")
    return problems


def _check_namespace(module, names, where):
    missing = sorted(n for n in names if not hasattr(module, n))
    assert not missing, f"{where} lacks the array API standard's {missing}"
    wrong = {}
    for n, text in sorted(names.items()):
        if text is None:
            continue
        problems = incompatibilities(n, getattr(module, n), text)
        if problems:
            wrong[n] = problems
    assert not wrong, f"{where}: signatures that refuse calls the standard allows: {wrong}"


def test_namespace_has_every_name_and_signature():
    _check_namespace(porta, NAMESPACE, "porta")


@pytest.mark.parametrize("ext,names", [("linalg", LINALG), ("fft", FFT)])
def test_extensions(ext, names):
    if not hasattr(porta, ext):
        pytest.skip(f"porta.{ext} does not exist yet (its own issue)")
    _check_namespace(getattr(porta, ext), names, f"porta.{ext}")


def test_array_has_every_method_and_attribute():
    missing = [n for n in ARRAY_ATTRIBUTES + list(ARRAY_METHODS) if not hasattr(porta.ndarray, n)]
    # Every binary operator comes reflected (__radd__) and in place (__iadd__), as the standard says.
    binary = [n for n, s in ARRAY_METHODS.items() if s == "(other, /)" and n not in
              ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__")]
    for n in binary:
        for variant in ("__r" + n[2:], "__i" + n[2:]):
            if not hasattr(porta.ndarray, variant):
                missing.append(variant)
    assert not missing, f"porta.ndarray lacks the array API standard's {missing}"
    wrong = {}
    for n in ("to_device", "__array_namespace__", "__dlpack__"):
        problems = incompatibilities(n, getattr(porta.ndarray, n), ARRAY_METHODS[n])
        if problems:
            wrong[n] = problems
    assert not wrong, wrong


def test_checker_can_fail():
    """The signature check refuses what it should (else the tests above could not fail)."""
    def numpy_style(a, axis=None, dtype=None, keepdims=False):
        pass

    def required_extra(x, y, /):
        pass

    def keyword_only_x(*, x):
        pass

    assert incompatibilities("sum", numpy_style, NAMESPACE["sum"]) == []
    assert incompatibilities("sum", required_extra, NAMESPACE["sum"])
    assert incompatibilities("abs", keyword_only_x, NAMESPACE["abs"])
    assert incompatibilities("sort", numpy_style, NAMESPACE["sort"])  # axis default None, not -1
    assert incompatibilities("reshape", lambda a, newshape: None, NAMESPACE["reshape"])  # 'shape' by keyword


def test_constants():
    assert porta.pi == math.pi and porta.e == math.e and porta.inf == math.inf and math.isnan(porta.nan)
    assert porta.newaxis is None
    assert all(isinstance(c, float) for c in (porta.pi, porta.e, porta.inf, porta.nan))


def test_dtypes_are_numpys():
    for n in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
              "complex64", "complex128"):
        assert np.dtype(getattr(porta, n)) == np.dtype(n)
        assert porta.zeros(2, dtype=getattr(porta, n)).dtype == getattr(porta, n)


def _dtypes(device, kinds="biufc", count=None, rng=None):
    """The NumPy dtypes `device` has, of `kinds` (`count` of them drawn by rng): a sample of the
    dtypes, as every dtype (and every pair for astype) on every device would add minutes of cold
    PoCL compiles for the same few lines of Python; a fresh draw each run covers the rest in time."""
    names = [n for n in ("bool", "int8", "int16", "int64", "uint8", "uint16", "uint32", "uint64", "int32", "float16",
                         "float32", "float64", "complex64", "complex128")
             if device.supports(n) and np.dtype(n).kind in kinds]
    return names if count is None else list(rng.choice(names, size=min(count, len(names)), replace=False))


def _random(rng, shape, name):
    if name == "bool":
        return rng.random(shape) < 0.5
    if np.dtype(name).kind in "iu":
        info = np.iinfo(name)
        return rng.integers(info.min, info.max, size=shape, dtype=name, endpoint=True)
    h = rng.standard_normal(shape) * 100
    if np.dtype(name).kind == "c":
        h = h + 1j * rng.standard_normal(shape)
    h = h.astype(name)
    if h.size > 3:  # the edges: signed zeros, NaN, inf
        h.reshape(-1)[:4] = [-0.0, np.nan, np.inf, -np.inf]
    return h


def _equal(got, want):
    got = got.get() if isinstance(got, porta.ndarray) else got
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    np.testing.assert_array_equal(got, want)


def test_astype_concat_permute_dims_matrix_transpose(device, rng):
    # Two dtypes a run (every one costs PoCL kernel compiles; tests/compose_test.cpp takes all of
    # them through the same C++ functions).
    for name in _dtypes(device, count=2, rng=rng):
        h = _random(rng, (4, 3, 7), name)
        big = porta.asarray(_random(rng, (4, 6, 7), name))
        x, v = porta.asarray(h), big[:, ::2]  # a strided view beside a contiguous array
        hv = big.get()[:, ::2]
        for to in _dtypes(device, "biuf", count=1, rng=rng):
            if np.dtype(name).kind == "c":
                continue  # (complex to real: astype's ComplexWarning, tested in test_dtypes.py)
            with np.errstate(invalid="ignore", over="ignore"):
                want = hv.astype(to)
            if np.dtype(name).kind == "f" and np.dtype(to).kind in "iu":
                continue  # NaN, inf and out-of-range floats to integers are undefined (C's and NumPy's)
            _equal(porta.astype(v, getattr(porta, to)), want)
        assert porta.astype(x, x.dtype, copy=False) is x
        y = porta.astype(x, x.dtype)
        assert y is not x
        ax = int(rng.integers(-3, 3))
        _equal(porta.concat((x, v), axis=ax), np.concatenate([h, hv], axis=ax))
        _equal(porta.concat([x, v[:, :0]], axis=None), np.concatenate([h.ravel(), hv[:, :0].ravel()]))
        _equal(porta.permute_dims(v, (2, 0, 1)), np.permute_dims(hv, (2, 0, 1)))
        _equal(porta.permute_dims(v, (-1, 1, 0)), np.permute_dims(hv, (-1, 1, 0)))
        _equal(porta.matrix_transpose(v), np.matrix_transpose(hv))
        _equal(porta.matrix_transpose(x[0]), h[0].T)


def test_new_functions_refuse_bad_arguments(device):
    x = porta.zeros((2, 3, 4), device=device)
    with pytest.raises(porta.InvalidArgument, match=r"axes \(0, 1\) for an array of 3 dimensions"):
        porta.permute_dims(x, (0, 1))
    with pytest.raises(ValueError):
        porta.permute_dims(x, (0, 1, 1))
    with pytest.raises(porta.InvalidArgument, match="needs at least two"):
        porta.matrix_transpose(x[0, 0])
    with pytest.raises(ValueError):
        porta.concat([x, x[0]], axis=0)
    with pytest.raises(TypeError):
        porta.concat([x, np.zeros(3)])
    with pytest.raises(porta.InvalidArgument, match="no stream"):
        x.to_device(device, stream=1)
    with pytest.raises(TypeError):
        porta.astype(np.zeros(3), "float32")


def test_clip_with_optional_bounds(device, rng):
    for name in _dtypes(device, "iuf", count=3, rng=rng):
        h = _random(rng, (5, 7), name)
        x = porta.asarray(h)
        lo, hi = (h.min() // 2, h.max() // 2) if h.dtype.kind in "iu" else (-3.5, 2.25)
        lo, hi = (lo.item(), hi.item()) if hasattr(lo, "item") else (lo, hi)
        _equal(porta.clip(x, lo, None), np.clip(h, lo, None))
        _equal(porta.clip(x, None, hi), np.clip(h, None, hi))
        _equal(porta.clip(x, min=lo), np.clip(h, min=lo))
        _equal(porta.clip(x, max=hi), np.clip(h, max=hi))
        _equal(porta.clip(x, a_min=lo, a_max=hi), np.clip(h, a_min=lo, a_max=hi))
        _equal(porta.clip(x, lo, hi), np.clip(h, lo, hi))
        _equal(porta.clip(x), np.clip(h))
    with pytest.raises(TypeError):
        porta.clip(porta.zeros(3, device=device), 1, a_min=1)


def test_info(device):
    info = porta.__array_namespace_info__()
    caps = info.capabilities()
    assert caps["boolean indexing"] is True and caps["data-dependent shapes"] is True
    assert caps["max dimensions"] == 64
    # The capabilities are true: a bool mask indexes, nonzero's shape depends on the data, and an
    # array of 64 dimensions (a transposed view of one) computes and comes back to NumPy.
    h = np.array([1.0, -2.0, 3.0, -4.0])
    x = porta.asarray(h, device=device)
    _equal(x[x > 0], h[h > 0])
    assert porta.nonzero(x > 0)[0].shape == (2,)
    shape = tuple(2 if i % 16 == 0 else 1 for i in range(64))
    hb = np.arange(16.0).reshape(shape).transpose(list(range(64))[::-1])
    _equal((porta.asarray(np.arange(16.0).reshape(shape), device=device).transpose(list(range(64))[::-1]) * 2), hb * 2)

    assert info.default_device() == porta.current_device()
    with device:
        assert info.default_device() == device
    assert info.devices() == porta.devices()
    d = info.default_dtypes(device=device)
    assert d == {"real floating": np.float64, "complex floating": np.complex128, "integral": np.int64,
                 "indexing": np.int64}
    # The defaults are what porta's functions give.
    assert porta.zeros(2, device=device).dtype == d["real floating"]
    assert porta.zeros(2, dtype=None, device=device).dtype == d["real floating"]
    assert porta.arange(3, device=device).dtype == d["integral"]
    assert porta.argmax(porta.zeros(3, device=device)).dtype == d["indexing"]
    assert porta.asarray([1j], device=device).dtype == d["complex floating"]

    every = info.dtypes(device=device)
    assert set(every) == {n for n in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                                      "float32", "float64", "complex64", "complex128") if device.supports(n)}
    for n, t in every.items():
        assert porta.zeros(1, dtype=t, device=device).dtype == t
    for kind in ("bool", "signed integer", "unsigned integer", "integral", "real floating", "complex floating",
                 "numeric"):
        got = info.dtypes(device=device, kind=kind)
        assert got == {n: t for n, t in every.items() if porta.isdtype(t, kind)}, kind
        assert got
    assert info.dtypes(device=device, kind=("bool", "complex floating")) == \
        {n: t for n, t in every.items() if n == "bool" or n.startswith("complex")}
    with pytest.raises(ValueError, match="kind='floating'"):
        info.dtypes(kind="floating")


def test_to_device_and_complex(device, rng):
    h = rng.standard_normal((3, 4))
    x = porta.asarray(h, device=device)
    assert x.to_device(device) is x
    for other in porta.devices():
        y = x.to_device(other)
        assert y.device == other
        _equal(y, h)
    for name in _dtypes(device):  # (no kernels: host copies only)
        v = _random(rng, (1,), name)
        assert complex(porta.asarray(v, device=device)) == complex(v[0]) or np.isnan(complex(v[0]).real)
        assert isinstance(complex(porta.asarray(v, device=device)[0]), complex)


def test_asarray_copy(device, rng):
    h = rng.standard_normal((3, 5))
    x = porta.asarray(h, device=device)
    assert porta.asarray(x) is x and porta.asarray(x, copy=None) is x and porta.asarray(x, copy=False) is x
    assert porta.asarray(x, dtype=x.dtype, device=device, copy=False) is x
    c = porta.asarray(x, copy=True)
    assert c is not x
    c[0, 0] = 7.0  # a new array: x keeps its value
    assert x[0, 0].item() == h[0, 0]
    v = x[:, ::2]
    assert porta.asarray(v, copy=False) is v
    _equal(porta.asarray(v, copy=True), h[:, ::2])
    _equal(porta.asarray(h, copy=True, device=device), h)
    _equal(porta.array(x), h)
    assert porta.array(x) is not x
    with pytest.raises(ValueError, match="host data"):
        porta.asarray(h, copy=False)
    with pytest.raises(ValueError, match="host data"):
        porta.asarray([1, 2], copy=False)
    with pytest.raises(ValueError, match="dtype=float32 needs a copy"):
        porta.asarray(x, dtype="float32", copy=False)
    _equal(porta.asarray(x, dtype="float32", copy=None), h.astype(np.float32))
    others = [d for d in porta.devices() if d != device]
    if others:
        with pytest.raises(ValueError, match="needs a copy"):
            porta.asarray(x, device=others[0], copy=False)
        assert porta.asarray(x, device=others[0]).device == others[0]


def test_reshape_copy_and_like_device(device, rng):
    h = rng.standard_normal((4, 6))
    x = porta.asarray(h, device=device)
    r = porta.reshape(x, (6, 4), copy=False)
    r[0, 0] = 5.0  # a view: the write reaches x
    assert x[0, 0].item() == 5.0
    h[0, 0] = 5.0
    r2 = porta.reshape(x, shape=(3, 8), copy=True)
    r2[0, 0] = -1.0
    assert x[0, 0].item() == 5.0
    _equal(porta.reshape(x, newshape=-1), h.reshape(-1))
    v = x[:, ::2]
    with pytest.raises(ValueError, match="copy=False"):
        porta.reshape(v, (12,), copy=False)
    _equal(porta.reshape(v, (12,)), h[:, ::2].reshape(12))
    w = porta.reshape(v, (4, 1, 3), copy=False)  # only an axis of length 1 added: a view
    w[1, 0, 1] = 9.0
    assert x[1, 2].item() == 9.0
    for other in porta.devices():
        for fn, want in ((porta.zeros_like, 0.0), (porta.ones_like, 1.0)):
            z = fn(x, device=other)
            assert z.device == other and z.shape == x.shape and z.dtype == x.dtype
            _equal(z, np.full(h.shape, want))
        assert porta.empty_like(x, device=other).device == other
        _equal(porta.full_like(x, 2.5, dtype="float32", device=other), np.full(h.shape, 2.5, np.float32))


def test_zero_d_masks_and_nonzero(device, rng):
    """A whole key of one bool (True, np.False_, a 0-d bool array) is NumPy's 0-d mask: an axis
    of length 1 or 0 in front; nonzero of a 0-d array is refused, as NumPy 2.1's and the standard's
    (found by array-api-tests)."""
    for shape in ((), (3,), (2, 3)):
        h = rng.standard_normal(shape)
        for key in (True, False, np.True_, np.array(False), np.array(True)):
            x = porta.asarray(h, device=device)
            pkey = porta.asarray(key, device=device) if isinstance(key, np.ndarray) else key
            _equal(x[pkey], h[key])
            hh = h.copy()
            hh[key] = 5.0
            x[pkey] = 5.0
            _equal(x, hh)
        x = porta.asarray(h, device=device)
        x[True] = porta.asarray(np.full((1,) + shape, -1.0), device=device)
        _equal(x, np.full(shape, -1.0))
    with pytest.raises(ValueError, match="0-d"):
        porta.nonzero(porta.asarray(1.0, device=device))
