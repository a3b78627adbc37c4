"""The type stubs (porta/__init__.pyi, porta/random.pyi, porta/fft.pyi, porta/linalg.pyi) name everything the package offers, and
nothing it lacks, so that editors complete the real API."""
import ast
import pathlib

import pytest

import porta
import porta.fft
import porta.linalg
import porta.random

PKG = pathlib.Path(porta.__file__).resolve().parent


def _stub(name):
    tree = ast.parse((PKG / name).read_text())
    top, classes, methods = set(), {}, {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
        if isinstance(node, ast.ClassDef):
            members = set()
            for n in node.body:
                if isinstance(n, ast.FunctionDef):
                    members.add(n.name)
                elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name):
                    members.add(n.target.id)
                elif isinstance(n, ast.Assign):
                    members.update(t.id for t in n.targets if isinstance(t, ast.Name))
            classes[node.name] = members
            methods[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
        elif isinstance(node, ast.Assign):
            top.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            top.add(node.target.id)
        elif isinstance(node, ast.ImportFrom) and node.level == 1:
            top.update(a.asname or a.name for a in node.names)
    _stub.methods = methods
    return top, classes


def _public(obj):
    return {n for n in dir(obj) if not n.startswith("_")}


def test_every_public_name_of_porta_is_in_the_stub():
    top, _ = _stub("__init__.pyi")
    assert not _public(porta) - top, sorted(_public(porta) - top)


def test_the_stub_names_nothing_porta_lacks():
    top, classes = _stub("__init__.pyi")
    typing_helpers = {n for n in top if n[0].isupper() and not hasattr(porta, n)}
    # Type aliases of the stub itself (DTypeLike, ...) are allowed; other names must exist.
    lacking = {n for n in top - typing_helpers if not hasattr(porta, n) and not n.startswith("_")}
    assert not lacking, sorted(lacking)
    # Methods must exist on the class; annotated attributes may be set per instance
    # (CompileError.log), so they are not checked here.
    for cls, members in _stub.methods.items():
        if hasattr(porta, cls):
            missing = {m for m in members if not hasattr(getattr(porta, cls), m)}
            assert not missing, (cls, sorted(missing))


@pytest.mark.parametrize("cls", ["ndarray", "Device", "DevicePool", "RawKernel", "ElementwiseKernel", "Event",
                                 "BackendStatus"])
def test_class_members_are_in_the_stub(cls):
    _, classes = _stub("__init__.pyi")
    have = _public(getattr(porta, cls))
    if cls == "DevicePool":  # map, __enter__, __exit__ come from concurrent.futures.Executor, its stub base
        have -= _public(__import__("concurrent.futures").futures.Executor)
    assert not have - classes[cls], sorted(have - classes[cls])
    if cls == "ndarray":
        for dunder in ("__dlpack__", "__dlpack_device__", "__cuda_array_interface__", "__getitem__", "__array__",
                       "__matmul__", "__add__", "__radd__", "__eq__", "__len__", "__iter__", "__iadd__", "__imatmul__"):
            assert dunder in classes[cls], dunder


def test_fft_stub_matches_porta_fft():
    top, _ = _stub("fft.pyi")
    public = {n for n in _public(porta.fft) if callable(getattr(porta.fft, n))}
    assert public - top == set() and {n for n in top if callable(getattr(porta.fft, n, None))} == public


def test_random_stub_matches_porta_random():
    top, _ = _stub("random.pyi")
    public = {n for n in _public(porta.random) if callable(getattr(porta.random, n))}
    assert public - top == set() and {n for n in top if callable(getattr(porta.random, n, None))} == public


def test_linalg_stub_matches_porta_linalg():
    top, _ = _stub("linalg.pyi")
    public = {n for n in _public(porta.linalg) if callable(getattr(porta.linalg, n))}
    assert public - top == set() and {n for n in top if callable(getattr(porta.linalg, n, None))} == public
