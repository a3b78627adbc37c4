"""porta.linalg's decompositions and compositions against numpy.linalg on every device: residuals and
reconstructions with bounds of a few n * eps (values that are unique, such as det, eigenvalues and
singular values, compared to NumPy's directly), stacks, non-contiguous views, 0 x 0, singular and
not-positive-definite input (LinAlgError, also numpy.linalg.LinAlgError, naming the matrix), and
NumPy's result tuples. float32 and complex128 sample the dtypes (the C++ test runs all four)."""
import numpy as np
import pytest

import porta
import porta.linalg as pla

DTYPES = [np.float32, np.complex128]


def _eps(dtype):
    return np.finfo(dtype).eps


def _random(rng, shape, dtype, diagonal=0.0):
    a = rng.uniform(-1, 1, shape)
    if np.issubdtype(dtype, np.complexfloating):
        a = a + 1j * rng.uniform(-1, 1, shape)
    if diagonal:
        a = a + diagonal * np.eye(shape[-1])
    return a.astype(dtype)


def _get(x):
    return porta.asnumpy(x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_solve_inv_det_match_numpy(device, rng, dtype):
    n = 13
    a = _random(rng, (2, 3, n, n), dtype, 2.0)
    b = _random(rng, (2, 3, n, 4), dtype)
    pa, pb = porta.asarray(a), porta.asarray(b)
    x = _get(pla.solve(pa, pb))
    assert x.dtype == dtype and x.shape == (2, 3, n, 4)
    resid = np.linalg.norm(a @ x - b, axis=(-2, -1)) / (np.linalg.norm(a, axis=(-2, -1)) * np.linalg.norm(x, axis=(-2, -1)))
    assert resid.max() < 30 * n * _eps(dtype)
    v = _random(rng, (2 * n,), dtype)[::2]  # a strided vector: NumPy 2's 1-D b
    xv = _get(pla.solve(porta.asarray(a[0, 0]).T, porta.asarray(v)))
    np.testing.assert_allclose(a[0, 0].T @ xv, v, atol=100 * n * _eps(dtype))
    inv = _get(pla.inv(pa))
    fro = lambda m: np.linalg.norm(m, axis=(-2, -1))  # noqa: E731
    assert (fro(a @ inv - np.eye(n)) / (fro(a) * fro(inv))).max() < 30 * n * _eps(dtype)
    # det and slogdet are as accurate as the factors: relative errors of n eps times the condition number.
    tol = 100 * n * _eps(dtype) * np.linalg.cond(a.astype(np.complex128))
    want = np.linalg.det(a.astype(np.complex128))
    assert (np.abs(_get(pla.det(pa)) - want) / np.abs(want) < tol).all()
    sign, logabs = pla.slogdet(pa)
    ws, wl = np.linalg.slogdet(a.astype(np.complex128))
    assert (np.abs(_get(sign) - ws) < tol).all() and (np.abs(_get(logabs) - wl) < tol).all()
    np.testing.assert_array_equal(_get(pa), a)  # inputs are never overwritten


def test_singular_and_not_positive_definite_raise_numpy_linalgerror(device, rng):
    a = np.stack([np.eye(3) * 2, np.zeros((3, 3)), np.eye(3)])
    with pytest.raises(np.linalg.LinAlgError) as e:
        pla.solve(porta.asarray(a), porta.asarray(np.ones((3, 3, 1))))
    assert isinstance(e.value, porta.Error) and e.value.batch_index == 1 and "singular" in str(e.value)
    with pytest.raises(pla.LinAlgError):
        pla.inv(porta.asarray(a))
    assert _get(pla.det(porta.asarray(a)))[1] == 0
    with pytest.raises(np.linalg.LinAlgError) as e:
        pla.cholesky(porta.asarray(np.stack([np.eye(2), -np.eye(2)])))
    assert e.value.batch_index == 1
    with pytest.raises(ValueError):
        pla.inv(porta.asarray(np.ones((2, 3))))
    with pytest.raises(TypeError):
        pla.inv(porta.asarray(np.eye(2, dtype=np.float16))) if device.supports("float16") else pla.inv(np.eye(2))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_svd_of_nan_raises_as_numpy(device, rng, bad):
    # NumPy refuses a NaN in the SVD's input (LAPACK's gesdd does) and returns NaNs for an
    # infinity: porta answers the same on every device, naming the matrix.
    a = _random(rng, (3, 5, 4), np.float32)
    a[1, 2, 3] = bad
    for name in ("svd", "svdvals", "pinv", "matrix_rank"):
        try:
            getattr(np.linalg, name)(a)
            numpy_raises = False
        except np.linalg.LinAlgError:
            numpy_raises = True
        if numpy_raises:
            with pytest.raises(np.linalg.LinAlgError) as e:
                getattr(pla, name)(porta.asarray(a))
            assert e.value.batch_index == 1 and "NaN" in str(e.value), name
        else:
            getattr(pla, name)(porta.asarray(a))


@pytest.mark.parametrize("dtype", DTYPES)
def test_cholesky_qr_eigh_svd_reconstruct(device, rng, dtype):
    n, tol = 11, 50 * 11 * _eps(dtype)
    b = _random(rng, (2, n, n), dtype)
    spd = b @ b.conj().transpose(0, 2, 1) + n * np.eye(n, dtype=dtype)
    l = _get(pla.cholesky(porta.asarray(spd)))
    np.testing.assert_allclose(l @ l.conj().transpose(0, 2, 1), spd, atol=tol * n)
    assert np.all(np.triu(l, 1) == 0)
    u = _get(pla.cholesky(porta.asarray(spd), upper=True))
    np.testing.assert_allclose(u, l.conj().transpose(0, 2, 1), atol=tol)
    for m, k in ((9, 5), (5, 9)):
        a = _random(rng, (2, m, k), dtype)
        for mode in ("reduced", "complete"):
            q, r = pla.qr(porta.asarray(a), mode=mode)
            q, r = _get(q), _get(r)
            wq, wr = np.linalg.qr(a, mode=mode)
            assert q.shape == wq.shape and r.shape == wr.shape
            np.testing.assert_allclose(q @ r, a, atol=tol)
            np.testing.assert_allclose(q.conj().transpose(0, 2, 1) @ q, np.broadcast_to(np.eye(q.shape[-1]), (2,) + (q.shape[-1],) * 2), atol=tol)
        assert _get(pla.qr(porta.asarray(a), mode="r")).shape == np.linalg.qr(a, mode="r").shape
        U, S, Vh = pla.svd(porta.asarray(a), full_matrices=False)
        U, S, Vh = _get(U), _get(S), _get(Vh)
        np.testing.assert_allclose((U * S[..., None, :]) @ Vh, a, atol=tol)
        np.testing.assert_allclose(S, np.linalg.svd(a, compute_uv=False), atol=tol)
        full = pla.svd(porta.asarray(a))
        assert tuple(_get(x).shape for x in full) == tuple(x.shape for x in np.linalg.svd(a))
        np.testing.assert_allclose(_get(pla.svdvals(porta.asarray(a))), S, atol=tol)
    h = b + b.conj().transpose(0, 2, 1)
    w, v = pla.eigh(porta.asarray(h))
    w, v = _get(w), _get(v)
    assert w.dtype == np.finfo(dtype).dtype
    np.testing.assert_allclose(w, np.linalg.eigvalsh(h), atol=tol * n)
    np.testing.assert_allclose(h @ v, v * w[..., None, :], atol=tol * n)
    np.testing.assert_allclose(_get(pla.eigvalsh(porta.asarray(h), UPLO="U")), np.linalg.eigvalsh(h, UPLO="U"), atol=tol * n)
    # Only the named triangle is read, as NumPy's: b is not Hermitian, so a triangle mixed up gives
    # other eigenvalues.
    for uplo in ("L", "U"):
        tri = np.tril(b) if uplo == "L" else np.triu(b)
        herm = tri + np.conj(np.swapaxes(tri, -1, -2)) - np.diagonal(tri, axis1=-2, axis2=-1)[..., None] * np.eye(n)
        herm = herm - 1j * np.imag(np.diagonal(herm, axis1=-2, axis2=-1))[..., None] * np.eye(n) if np.iscomplexobj(herm) else herm
        w, v = pla.eigh(porta.asarray(b), UPLO=uplo)
        w, v = _get(w), _get(v)
        np.testing.assert_allclose(w, np.linalg.eigvalsh(b, UPLO=uplo), atol=tol * n)
        np.testing.assert_allclose(herm @ v, v * w[..., None, :], atol=tol * n)


def test_lstsq_pinv_rank_norms_and_compositions(device, rng):
    a = rng.standard_normal((8, 5))
    b = rng.standard_normal((8, 2))
    x, res, rank, s = pla.lstsq(porta.asarray(a), porta.asarray(b))
    wx, wres, wrank, ws = np.linalg.lstsq(a, b)
    np.testing.assert_allclose(_get(x), wx, atol=1e-10)
    np.testing.assert_allclose(_get(res), wres, rtol=1e-10)
    assert rank == wrank
    np.testing.assert_allclose(_get(s), ws, rtol=1e-12)
    np.testing.assert_allclose(_get(pla.pinv(porta.asarray(a))), np.linalg.pinv(a), atol=1e-12)
    low = rng.standard_normal((6, 2)) @ rng.standard_normal((2, 7))
    assert int(_get(pla.matrix_rank(porta.asarray(low)))) == np.linalg.matrix_rank(low) == 2
    t = rng.standard_normal((2, 4, 6))
    pt = porta.asarray(t)
    for ord in ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
        np.testing.assert_allclose(_get(pla.matrix_norm(pt, ord=ord)), np.linalg.matrix_norm(t, ord=ord), rtol=1e-12)
    for ord in (2, 1, 0, np.inf, -np.inf, 3):
        np.testing.assert_allclose(_get(pla.vector_norm(pt, ord=ord, axis=-1)), np.linalg.vector_norm(t, ord=ord, axis=-1), rtol=1e-12)
    np.testing.assert_allclose(float(_get(pla.norm(pt[0]))), np.linalg.norm(t[0]), rtol=1e-12)
    np.testing.assert_allclose(_get(pla.trace(pt, offset=1)), np.linalg.trace(t, offset=1), rtol=1e-12)
    np.testing.assert_array_equal(_get(pla.diagonal(pt, offset=-2)), np.linalg.diagonal(t, offset=-2))
    np.testing.assert_array_equal(_get(pla.matrix_transpose(pt)), np.linalg.matrix_transpose(t))
    u, w = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    np.testing.assert_allclose(_get(pla.cross(porta.asarray(u), porta.asarray(w))), np.linalg.cross(u, w), rtol=1e-12)
    np.testing.assert_allclose(_get(pla.outer(porta.asarray(u[0]), porta.asarray(w[0]))), np.linalg.outer(u[0], w[0]))
    m = rng.standard_normal((3, 3)) + 2 * np.eye(3)
    for k in (0, 1, 5, -2):
        np.testing.assert_allclose(_get(pla.matrix_power(porta.asarray(m), k)), np.linalg.matrix_power(m, k), rtol=1e-10, atol=1e-12)


def test_empty_and_one_element_matrices(device, rng):
    e = np.zeros((2, 0, 0))
    assert _get(pla.inv(porta.asarray(e))).shape == (2, 0, 0)
    np.testing.assert_array_equal(_get(pla.det(porta.asarray(e))), np.linalg.det(e))
    assert _get(pla.eigvalsh(porta.asarray(e))).shape == (2, 0)
    one = np.array([[4.0]])
    np.testing.assert_allclose(_get(pla.cholesky(porta.asarray(one))), [[2.0]])
    np.testing.assert_allclose(_get(pla.inv(porta.asarray(one))), [[0.25]])
    np.testing.assert_allclose(_get(pla.svdvals(porta.asarray(-one))), [4.0])


@pytest.mark.parametrize("subscripts,shapes", [
    ("ij,jk->ik", [(5, 7), (7, 3)]),
    ("ij,jk", [(5, 7), (7, 3)]),
    ("bij,bjk->bik", [(4, 5, 6), (4, 6, 2)]),
    ("ii->i", [(6, 6)]),
    ("ii", [(6, 6)]),
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("i,i->", [(9,), (9,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ijk,jl,lm->ikm", [(3, 4, 5), (4, 6), (6, 2)]),
    ("...ij,...jk->...ik", [(2, 3, 4, 5), (3, 5, 2)]),
    ("a,b,c", [(2,), (3,), (4,)]),
    ("iij->j", [(3, 3, 4)]),
])
def test_einsum_matches_numpy(device, rng, subscripts, shapes):
    ops = [rng.standard_normal(s) for s in shapes]
    got = _get(porta.einsum(subscripts, *[porta.asarray(x) for x in ops]))
    want = np.einsum(subscripts, *ops)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_einsum_errors(device):
    x = porta.asarray(np.ones((2, 3)))
    with pytest.raises(ValueError):
        porta.einsum("ij,jk->ik", x, x)  # j is 3 and 2
    with pytest.raises(ValueError):
        porta.einsum("ijk", x)
    with pytest.raises(ValueError):
        porta.einsum("ij->iz", x)
    with pytest.raises(ValueError):
        porta.einsum("ij,jk", x)


def test_pinv_and_matrix_rank_take_a_tolerance_per_matrix(device, rng):
    # Three 6 x 4 matrices with known singular values, so that each tolerance keeps a different count.
    q1, _ = np.linalg.qr(rng.standard_normal((3, 6, 4)))
    q2, _ = np.linalg.qr(rng.standard_normal((3, 4, 4)))
    s = np.array([[1.0, 1e-1, 1e-3, 1e-6], [1.0, 0.5, 1e-2, 1e-8], [2.0, 1.0, 1e-4, 1e-5]])
    a = (q1 * s[:, None, :]) @ np.swapaxes(q2, -1, -2)
    pa = porta.asarray(a)
    rtol = np.array([1e-2, 1e-1, 1e-3])  # keeps 2, 2 and 2 values (2.0 * 1e-3 = 2e-3 > 1e-4)
    for tol in (rtol, porta.asarray(rtol), list(rtol)):
        np.testing.assert_allclose(_get(pla.pinv(pa, rtol=tol)), np.linalg.pinv(a, rtol=rtol), rtol=1e-9, atol=1e-9)
        np.testing.assert_array_equal(_get(pla.matrix_rank(pa, rtol=tol)), np.linalg.matrix_rank(a, rtol=rtol))
    np.testing.assert_allclose(_get(pla.pinv(pa, rcond=rtol)), np.linalg.pinv(a, rcond=rtol), atol=1e-9)
    tol = np.array([5e-7, 1e-9, 1e-6])  # absolute: 4, 3 and 4 values
    np.testing.assert_array_equal(_get(pla.matrix_rank(pa, tol=tol)), np.linalg.matrix_rank(a, tol=tol))
    # One tolerance for a stack of stacks broadcasts; a shape that does not is a ShapeError (a ValueError).
    b = np.stack([a, a])
    np.testing.assert_array_equal(_get(pla.matrix_rank(porta.asarray(b), rtol=rtol)), np.linalg.matrix_rank(b, rtol=rtol))
    with pytest.raises(ValueError, match="tolerance of shape"):
        pla.pinv(pa, rtol=np.array([1e-2, 1e-1]))
    with pytest.raises(ValueError):
        pla.matrix_rank(pa, tol=1e-3, rtol=1e-3)
