"""porta.fft against numpy.fft on every device: within c * log2(n) * eps * ||x|| (the norm of the
input's transformed lines), NumPy's result dtypes and shapes, every norm, views with negative
strides, empty batches, round trips, errors. Where PoCL runs VkFFT (PORTA_OPENCL_FFT=vkfft; by
default it runs porta's host FFT) it builds VkFFT's programs for each distinct plan (about 6 s
cold), so the shapes are fft_test.cpp's (lengths 1, 16, 17, 360: trivial, radix 2, Bluestein,
mixed radix; the same batches), whose programs PoCL's cache then holds; the longer lengths of
test_long_and_real_lengths_match_numpy are skipped there."""
import math
import os

import numpy as np
import pytest

import porta
import porta.fft as pfft

NORMS = ["backward", "ortho", "forward"]


def _eps(dtype):
    return np.finfo(np.complex64 if np.dtype(dtype) in (np.complex64, np.float32) else np.complex128).eps


def _close(got, want, x, n, axes=(-1,)):
    """got (a porta array) matches want (NumPy's result) in dtype, shape and within the bound."""
    g = got.get()
    assert g.dtype == want.dtype, (g.dtype, want.dtype)
    assert g.shape == want.shape, (g.shape, want.shape)
    x = np.asarray(x)
    norm = math.sqrt(np.max(np.sum(np.abs(x.astype(np.complex128)) ** 2, axis=tuple(axes)))) if x.size else 0.0
    bound = 8 * (math.log2(n + 1) + 1) * _eps(want.dtype) * max(norm, 1e-30)
    err = np.max(np.abs(g.astype(np.complex128) - want.astype(np.complex128))) if g.size else 0.0
    assert err <= bound, (err, bound)


def _complex(rng, shape, dtype):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def _needs(device, name):
    if not device.supports(name):
        pytest.skip(f"{device.spec} does not compute {name}")


@pytest.mark.parametrize("n", [1, 16, 17, 360])
def test_fft_and_ifft_match_numpy(device, rng, n):
    x = _complex(rng, (3, n), np.complex64)
    a = porta.asarray(x)
    _close(pfft.fft(a), np.fft.fft(x), x, n)
    _close(pfft.ifft(a), np.fft.ifft(x), x, n)


# Real transforms of even length run as complex ones of half the length on the host FFT (Kokkos,
# PoCL): odd and even lengths, radix 8 (4096) and mixed (6144 = 2^11 * 3); complex64 and complex128.
@pytest.mark.parametrize("n", [2, 6, 9, 4096, 6144])
def test_long_and_real_lengths_match_numpy(device, rng, n):
    if device.spec.startswith("opencl") and device.kind == "cpu" and os.environ.get("PORTA_OPENCL_FFT") == "vkfft":
        pytest.skip("VkFFT on PoCL: a plan a length, about 6 s each to build")
    x = rng.standard_normal((3, n)).astype(np.float32)
    a = porta.asarray(x)
    _close(pfft.rfft(a), np.fft.rfft(x), x, n)
    h = np.fft.rfft(x)
    _close(pfft.irfft(porta.asarray(h), n), np.fft.irfft(h, n), h, n)
    z = _complex(rng, (3, n), np.complex64)
    _close(pfft.fft(porta.asarray(z)), np.fft.fft(z), z, n)
    if device.supports("complex128"):
        z2 = _complex(rng, (2, n), np.complex128)
        _close(pfft.ifft(porta.asarray(z2)), np.fft.ifft(z2), z2, n)


@pytest.mark.parametrize("norm", NORMS)
def test_every_norm_and_real_transform(device, rng, norm):
    for n in (16, 17):
        x = rng.standard_normal((2, n)).astype(np.float32)
        a = porta.asarray(x)
        _close(pfft.fft(a, norm=norm), np.fft.fft(x, norm=norm), x, n)
        _close(pfft.rfft(a, norm=norm), np.fft.rfft(x, norm=norm), x, n)
        h = np.fft.rfft(x, norm=norm)
        _close(pfft.irfft(porta.asarray(h), n, norm=norm), np.fft.irfft(h, n, norm=norm), h, n)
        _close(pfft.hfft(porta.asarray(h), n, norm=norm), np.fft.hfft(h, n, norm=norm), h, n)
        _close(pfft.ihfft(a, norm=norm), np.fft.ihfft(x, norm=norm), x, n)
        # Round trips.
        _close(pfft.irfft(pfft.rfft(a, norm=norm), n, norm=norm), x, x, n)
        _close(pfft.ifft(pfft.fft(a, norm=norm), norm=norm), x.astype(np.complex64), x, n)


def test_complex128_and_result_dtypes(device, rng):
    x = rng.standard_normal((2, 17))
    for dtype in ("float32", "float16", "int32", "float64", "complex128"):
        if not device.supports(dtype) or (dtype not in ("float32", "float16") and not device.supports("float64")):
            continue
        xi = (x * 10).astype(dtype) if dtype == "int32" else x.astype(dtype)
        _close(pfft.fft(porta.asarray(xi)), np.fft.fft(xi), xi, 17)
    if not device.supports("float64"):
        with pytest.raises(TypeError, match=device.spec):
            pfft.fft(porta.asarray(np.ones(4, np.int32)))


def test_axes_s_and_views(device, rng):
    base = _complex(rng, (17, 5, 16), np.complex64)
    v = base[::-1, 1:, ::-1]
    a = porta.asarray(base)[::-1, 1:, ::-1]
    _close(pfft.fft(a, 16, axis=0), np.fft.fft(v, 16, axis=0), v, 16, axes=(0,))
    _close(pfft.fft(a, 17, axis=1), np.fft.fft(v, 17, axis=1), v, 17, axes=(1,))
    _close(pfft.fftn(a, axes=(2, 0)), np.fft.fftn(v, axes=(2, 0)), v, 16 * 17, axes=(0, 2))
    _close(pfft.ifft2(a, axes=(2, 0)), np.fft.ifft2(v, axes=(2, 0)), v, 16 * 17, axes=(0, 2))
    # An axis named twice: cropped to 16 and transformed, then padded to 17 and transformed (NumPy's order).
    _close(pfft.fftn(a, s=(17, 16), axes=(0, 0), norm="ortho"), np.fft.fftn(v, s=(17, 16), axes=(0, 0), norm="ortho"),
           v, 16 * 17, axes=(0,))
    r = np.ascontiguousarray(v.real)
    ra = porta.real(a)
    _close(pfft.rfftn(ra, s=(16, 17), axes=(0, 2)), np.fft.rfftn(r, s=(16, 17), axes=(0, 2)), r, 16 * 17, axes=(0, 2))
    h = np.fft.rfftn(r, s=(16, 17), axes=(0, 2))
    _close(pfft.irfftn(porta.asarray(h), s=(16, 17), axes=(0, 2)), np.fft.irfftn(h, s=(16, 17), axes=(0, 2)), h,
           16 * 17, axes=(0, 2))


def test_empty_batches_and_zero_length_axes(device):
    e = pfft.fft(porta.zeros((0, 16), dtype="complex64"))
    assert e.shape == (0, 16) and e.dtype == porta.complex64
    r = pfft.rfft(porta.zeros((3, 0, 16), dtype="float32"))
    assert r.shape == (3, 0, 9) and r.dtype == porta.complex64
    z = pfft.fft(porta.zeros((2, 0), dtype="complex64"), 16)
    np.testing.assert_array_equal(z.get(), np.fft.fft(np.zeros((2, 0), np.complex64), 16))


def test_frequencies_and_shifts_match_numpy(device, rng):
    for n in (1, 4, 7, 10):
        for d in (1.0, 0.1):
            dtype = "float64" if device.supports("float64") else "float32"
            np.testing.assert_array_equal(pfft.fftfreq(n, d).get(), np.fft.fftfreq(n, d).astype(dtype))
            np.testing.assert_array_equal(pfft.rfftfreq(n, d).get(), np.fft.rfftfreq(n, d).astype(dtype))
    x = rng.standard_normal((5, 4, 3)).astype(np.float32)
    a = porta.asarray(x)
    for axes in (None, 0, (1, 2), (-1,)):
        np.testing.assert_array_equal(pfft.fftshift(a, axes).get(), np.fft.fftshift(x, axes))
        np.testing.assert_array_equal(pfft.ifftshift(a, axes).get(), np.fft.ifftshift(x, axes))


def test_errors(device):
    a = porta.zeros(4, dtype="complex64")
    with pytest.raises(ValueError, match="0"):
        pfft.fft(a, 0)
    with pytest.raises(TypeError, match="complex64"):
        pfft.rfft(a)
    with pytest.raises(ValueError, match="norm"):
        pfft.fft(a, norm="unitary")
    with pytest.raises(ValueError):
        pfft.fft(a, axis=2)
    with pytest.raises(ValueError):
        pfft.fftfreq(0)
    with pytest.raises(ValueError, match="twice"):
        pfft.rfftn(porta.zeros((4, 4), dtype="float32"), axes=(1, 1))
    assert a.get().tolist() == [0, 0, 0, 0]
