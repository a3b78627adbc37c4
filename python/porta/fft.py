"""porta.fft: numpy.fft's functions and the array API's fft extension, on every device with an FFT
library (cuFFT on CUDA, VkFFT on OpenCL, porta's own on Kokkos; porta-info names it per device).

Results have NumPy 2's dtypes: float32 (and float16) and complex64 inputs give complex64 (float32
for irfft and hfft), the rest complex128 (float64). `n` / `s` crop or zero-pad; `norm` is
"backward" (the default), "ortho" or "forward"; an axis may be any axis of any view."""
from . import _core

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
           "fft2", "ifft2", "rfft2", "irfft2", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def _norm(norm):
    return "backward" if norm is None else norm


def _n(n):
    return None if n is None else int(n)


def _list(v):
    if v is None:
        return None
    return [int(v)] if isinstance(v, int) else [int(x) for x in v]


def fft(x, n=None, axis=-1, norm="backward"):
    return _core._fft_fft(x, _n(n), int(axis), _norm(norm))


def ifft(x, n=None, axis=-1, norm="backward"):
    return _core._fft_ifft(x, _n(n), int(axis), _norm(norm))


def rfft(x, n=None, axis=-1, norm="backward"):
    return _core._fft_rfft(x, _n(n), int(axis), _norm(norm))


def irfft(x, n=None, axis=-1, norm="backward"):
    return _core._fft_irfft(x, _n(n), int(axis), _norm(norm))


def hfft(x, n=None, axis=-1, norm="backward"):
    return _core._fft_hfft(x, _n(n), int(axis), _norm(norm))


def ihfft(x, n=None, axis=-1, norm="backward"):
    return _core._fft_ihfft(x, _n(n), int(axis), _norm(norm))


def fftn(x, s=None, axes=None, norm="backward"):
    return _core._fft_fftn(x, _list(s), _list(axes), _norm(norm))


def ifftn(x, s=None, axes=None, norm="backward"):
    return _core._fft_ifftn(x, _list(s), _list(axes), _norm(norm))


def rfftn(x, s=None, axes=None, norm="backward"):
    return _core._fft_rfftn(x, _list(s), _list(axes), _norm(norm))


def irfftn(x, s=None, axes=None, norm="backward"):
    return _core._fft_irfftn(x, _list(s), _list(axes), _norm(norm))


def fft2(x, s=None, axes=(-2, -1), norm="backward"):
    return fftn(x, s, axes, norm)


def ifft2(x, s=None, axes=(-2, -1), norm="backward"):
    return ifftn(x, s, axes, norm)


def rfft2(x, s=None, axes=(-2, -1), norm="backward"):
    return rfftn(x, s, axes, norm)


def irfft2(x, s=None, axes=(-2, -1), norm="backward"):
    return irfftn(x, s, axes, norm)


def _freq_dtype(dtype, device):
    if dtype is not None:
        return dtype
    d = _core.Device(device) if device is not None and not isinstance(device, _core.Device) else device
    d = d if d is not None else _core.current_device()
    return "float64" if d.supports("float64") else "float32"


def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """[0, 1, ..., -(n // 2), ..., -1] / (d * n): float64 by default (float32 on a device without it)."""
    return _core._fft_fftfreq(int(n), float(d), _freq_dtype(dtype, device), device, False)


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """[0, 1, ..., n // 2] / (d * n)."""
    return _core._fft_fftfreq(int(n), float(d), _freq_dtype(dtype, device), device, True)


def fftshift(x, axes=None):
    return _core._fft_shift(x, _list(axes), False)


def ifftshift(x, axes=None):
    return _core._fft_shift(x, _list(axes), True)
