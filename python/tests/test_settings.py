"""porta.settings(): the PORTA_* settings table (src/base/settings.cpp) with each value and its
source, the Python side of porta-info's list (the package ships no porta-info); and the backends'
notes. Values come from a fresh interpreter, since a setting read once keeps its first value."""
import json
import os
import pathlib
import re
import subprocess
import sys

import porta

SETTINGS_PAGE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "guide" / "settings.md"
ROWS = ("name", "type", "values", "default", "read", "audience", "bad_value", "why_error", "meaning", "value",
        "source", "problem")


def _settings_in(env):
    code = ("import json, porta\n"
            f"print(json.dumps([{{k: getattr(s, k) for k in {ROWS!r}}} for s in porta.settings()]))\n")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PORTA_") or k.startswith("PORTA_TEST")}
    out = subprocess.run([sys.executable, "-c", code], env=dict(clean, **env), capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return {s["name"]: s for s in json.loads(out.stdout.splitlines()[-1])}


def test_every_setting_of_the_page_with_a_complete_row():
    got = porta.settings()
    names = [s.name for s in got]
    assert len(names) == len(set(names)) and names
    # The guide's page is generated from the same table (CTest settings.check): the same names.
    assert set(names) == set(re.findall(r"^\| `(PORTA_[A-Z0-9_]+)` \|", SETTINGS_PAGE.read_text(), re.M))
    for s in got:
        assert s.type in {"choice", "flag", "integer", "number", "text", "path", "list"}, s
        assert s.audience in {"user", "tuning"}, s
        assert s.bad_value in {"warn", "error", "not checked"}, s
        assert bool(s.why_error) == (s.bad_value == "error"), s
        assert s.meaning and s.read and s.source in {"environment", "default"}, s
        assert "PORTA_MATMUL" in repr(porta.settings()) and s.name in repr(s)


def test_value_and_source_follow_the_environment():
    unset = _settings_in({})
    assert unset["PORTA_MATMUL"]["source"] == "default" and unset["PORTA_MATMUL"]["value"] == "exact"
    assert unset["PORTA_MATMUL"]["problem"] == ""
    given = _settings_in({"PORTA_MATMUL": "TF32", "PORTA_GIL_HOLD_US": "3"})
    assert given["PORTA_MATMUL"]["source"] == "environment" and given["PORTA_MATMUL"]["value"].lower() == "tf32"
    assert given["PORTA_GIL_HOLD_US"]["value"] == "3" and given["PORTA_GIL_HOLD_US"]["problem"] == ""
    # A bad value is shown with what porta does about it (porta-info's "bad value" line).
    bad = _settings_in({"PORTA_MATMUL": "fast"})["PORTA_MATMUL"]
    assert bad["source"] == "environment" and bad["value"] == "fast"
    assert "exact, tf32" in bad["problem"] and "exact" in bad["problem"], bad


def test_backends_carry_their_notes():
    for b in porta.backends():
        assert isinstance(b.notes, str)
    opencl = [b for b in porta.backends() if b.backend == "opencl" and b.loaded]
    if opencl:  # the OpenCL plugin tells its matmul paths (porta-info prints them)
        assert opencl[0].notes.startswith("OpenCL matmul paths (PORTA_OPENCL_GEMM)"), opencl[0].notes
