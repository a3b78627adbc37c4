"""porta.record / Graph.replay: every replay against NumPy on fresh random inputs, rebinding to
other arrays, and the errors record and replay give."""
import numpy as np
import pytest

import porta


def _mix(x, y):
    return x * 2 + y - x * y


def test_replay_on_recorded_and_other_arrays_matches_numpy(device, rng):
    n = int(rng.integers(500, 1500))
    hx, hy = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    x, y = porta.asarray(hx), porta.asarray(hy)
    out = porta.empty((n,), dtype="float32")

    def body():
        out[...] = _mix(x, y)

    g = porta.record([x, y], [out], body)
    assert (g.inputs, g.outputs) == (2, 1) and g.device == device
    np.testing.assert_allclose(porta.asnumpy(out), _mix(hx, hy), rtol=1e-5, atol=1e-5)  # the warm-up
    for _ in range(5):
        hx, hy = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
        x[...] = porta.asarray(hx)
        y[...] = porta.asarray(hy)
        g.replay()
        np.testing.assert_allclose(porta.asnumpy(out), _mix(hx, hy), rtol=1e-5, atol=1e-5)
        ha, hb = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
        o2 = porta.full((n,), 9.0, dtype="float32")
        g.replay([porta.asarray(ha), porta.asarray(hb)], [o2])
        np.testing.assert_allclose(porta.asnumpy(o2), _mix(ha, hb), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(porta.asnumpy(out), _mix(hx, hy), rtol=1e-5, atol=1e-5)


def test_record_refuses_host_reads_and_replay_checks_arrays(device, rng):
    x = porta.asarray(rng.standard_normal(64).astype(np.float32))
    out = porta.empty((64,), dtype="float32")

    def reads_back():
        out[...] = x + 1
        porta.asnumpy(out)

    with pytest.raises(porta.InvalidArgument, match="reading device memory to the host"):
        porta.record([x], [out], reads_back)

    def fails():
        out[...] = x + 1
        raise RuntimeError("from the recorded function")

    with pytest.raises(RuntimeError, match="from the recorded function"):
        porta.record([x], [out], fails)

    def body():
        out[...] = x * 3

    g = porta.record([x], [out], body)
    with pytest.raises(porta.DTypeError, match="float64"):
        g.replay([porta.asarray(np.ones(64))], [porta.empty((64,), dtype="float32")])
    with pytest.raises(porta.ShapeError, match=r"\(65,\)"):
        g.replay([porta.asarray(np.ones(65, dtype=np.float32))], [porta.empty((64,), dtype="float32")])
    hx = rng.standard_normal(64).astype(np.float32)
    x[...] = porta.asarray(hx)
    g.replay()
    np.testing.assert_allclose(porta.asnumpy(out), hx * 3, rtol=1e-6)
