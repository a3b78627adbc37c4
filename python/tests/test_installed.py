"""The package pip installed (CTest's python.pip_install, PORTA_PYTHON_PIP) is what these tests
import and load: the interpreter's site-packages holds porta, libporta and every plugin of the
build, found through rpaths with no environment variable, and its libporta is this build's.

Runs when PORTA_TEST_INSTALLED_FROM names the porta build that pip built against (CTest sets it);
skipped on the build tree's package (PYTHONPATH), which these checks are not about."""
import importlib.metadata
import os
import pathlib
import struct
import subprocess
import sys
import sysconfig

import pytest

import porta

BUILD = os.environ.get("PORTA_TEST_INSTALLED_FROM")
pytestmark = pytest.mark.skipif(not BUILD, reason="not the pip-installed package (PORTA_TEST_INSTALLED_FROM unset)")
PKG = pathlib.Path(porta.__file__).resolve().parent


def _elf_sections(path, names):
    """{name: bytes} of the named sections of a 64-bit little-endian ELF file."""
    data = pathlib.Path(path).read_bytes()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, f"{path} is not a 64-bit little-endian ELF file"
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = headers[shstrndx]
    strings = data[strtab[4]:strtab[4] + strtab[5]]
    out = {}
    for h in headers:
        name = strings[h[0]:strings.index(b"\0", h[0])].decode()
        if name in names:
            out[name] = data[h[4]:h[4] + h[5]]
    return out


def test_the_package_is_the_installed_one_in_site_packages():
    site = {pathlib.Path(sysconfig.get_paths()[k]).resolve() for k in ("purelib", "platlib")}
    assert PKG.parent in site, f"porta was imported from {PKG}, not from {sys.executable}'s site-packages {site}"
    assert sys.prefix != sys.base_prefix, f"{sys.executable} is not a virtual environment's"
    assert PKG != pathlib.Path(BUILD).resolve() / "python" / "porta", "the build tree's package was imported"
    for var in ("PYTHONPATH", "PORTA_PLUGIN_PATH"):
        assert var not in os.environ, f"{var} is set ({os.environ[var]}): the package must need neither"
    assert (PKG / "__init__.pyi").is_file() and (PKG / "random.pyi").is_file() and (PKG / "py.typed").is_file()


def test_the_package_carries_the_license_and_declares_it():
    root_license = pathlib.Path(__file__).resolve().parents[2] / "LICENSE"
    assert (PKG / "LICENSE").read_bytes() == root_license.read_bytes()
    meta = importlib.metadata.metadata("porta")
    assert "Apache-2.0" in (meta.get("License-Expression") or meta.get("License") or ""), dict(meta)


def test_libporta_is_loaded_from_the_package_and_is_this_builds():
    maps = pathlib.Path("/proc/self/maps").read_text().split("\n")
    loaded = {line.split()[-1] for line in maps if "libporta" in line and "/" in line}
    core = [p for p in loaded if pathlib.Path(p).name.startswith("libporta.so")]
    assert core, f"no libporta mapped: {sorted(loaded)}"
    for p in core:
        assert pathlib.Path(p).resolve().parent == PKG / "lib", f"libporta loaded from {p}, not from {PKG / 'lib'}"
    # Its code is the build's (the rpaths differ: pip installs it as cmake --install does).
    sections = (".text", ".rodata")
    mine = _elf_sections(PKG / "lib" / "libporta.so.0", sections)
    built = _elf_sections(pathlib.Path(BUILD) / "lib" / "libporta.so.0", sections)
    assert set(mine) == set(sections)
    assert mine == built, (f"{PKG / 'lib' / 'libporta.so.0'} is not {BUILD}/lib/libporta.so.0's code: the "
                           "installed package is stale (run python.pip_install, or scripts/test.sh, again)")


def test_every_plugin_of_the_build_is_in_the_package(device):
    built = {p.name for p in (pathlib.Path(BUILD) / "lib").glob("libporta_*.so")}
    packaged = {p.name for p in (PKG / "lib").glob("libporta_*.so")}
    status = {s.backend: s for s in porta.backends()}
    s = status[device.backend]
    assert s.loaded and pathlib.Path(s.plugin_path).resolve().parent == PKG / "lib", s
    assert pathlib.Path(s.plugin_path).name in built
    for b in porta.backends():
        if b.built:
            name = f"libporta_{b.backend}.so"
            assert name in packaged, f"{name} is missing from {PKG / 'lib'} ({sorted(packaged)})"
            if b.loaded:
                assert pathlib.Path(b.plugin_path).resolve().parent == PKG / "lib", b


def test_a_fresh_interpreter_finds_the_plugins_without_any_environment(device):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PORTA_", "PYTHON"))}
    code = ("import porta, pathlib; d = porta.Device(%r); x = porta.arange(10, device=d); "
            "print(int((x * x).sum()), pathlib.Path(porta.__file__).parent)") % device.spec
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                         cwd=pathlib.Path(BUILD).resolve().parent)
    assert out.returncode == 0, out.stderr
    total, where = out.stdout.split()
    assert int(total) == 285 and pathlib.Path(where).resolve() == PKG
