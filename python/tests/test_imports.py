"""The package's modules import one another in layers, never in a circle: porta._helpers (the leaf,
over porta._core and NumPy) at the bottom, porta/__init__.py at the top. Every import is at the top of
its module, none inside a function (where it would run on hot paths such as __setitem__), except for
optional dependencies in OPTIONAL_DEPENDENCIES; and every module says what it exports in __all__."""
import ast
import pathlib
import subprocess
import sys
import textwrap

import pytest

import porta
import porta.linalg
import porta.random

PKG = pathlib.Path(porta.__file__).resolve().parent
MODULES = sorted(p.stem for p in PKG.glob("*.py") if p.stem != "__init__")
# Packages a function may import where it needs them (heavy and optional, so not at the top), with
# a comment on the line or the one above that says why.
OPTIONAL_DEPENDENCIES = {"cupy", "jax", "numba", "torch"}
# The leaf: within the package it imports only the compiled module.
LEAF, LEAF_IMPORTS = "_helpers", {"_core"}


def _tree(name):
    return ast.parse((PKG / f"{name}.py").read_text(), filename=str(PKG / f"{name}.py"))


def _package_imports(node):
    """The package's modules an import statement names ('__init__' for porta itself, which an import
    by the name porta runs first), or None when it imports nothing of the package's."""
    if isinstance(node, ast.ImportFrom) and node.level == 1:
        return {node.module.split(".")[0]} if node.module else {a.name for a in node.names}  # from .a / from .
    if isinstance(node, ast.ImportFrom) and node.level == 0:
        names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
    elif isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        return None
    out = set()
    for parts in (n.split(".") for n in names):
        if parts[0] == "porta":
            out |= {"__init__"} | ({parts[1]} & set(MODULES) if len(parts) > 1 else set())
    return out or None


def _graph():
    """{module: the package's modules it imports}, from every import statement in it."""
    graph = {}
    for name in MODULES + ["__init__"]:
        edges = set()
        for node in ast.walk(_tree(name)):
            edges |= _package_imports(node) or set()
        graph[name] = edges - {name}
    return graph


def test_the_modules_import_one_another_without_a_circle():
    graph = _graph()
    done, path = set(), []

    def visit(m):
        if m in path:
            cycle = path[path.index(m):] + [m]
            pytest.fail("the package's imports go round in a circle: " + " -> ".join(cycle))
        if m in done:
            return
        path.append(m)
        for n in sorted(graph.get(m, ())):
            visit(n)
        path.pop()
        done.add(m)

    for m in graph:
        visit(m)


def test_the_leaf_imports_only_the_compiled_module_and_no_module_imports_porta_itself():
    graph = _graph()
    assert graph[LEAF] <= LEAF_IMPORTS, sorted(graph[LEAF])
    for m, edges in graph.items():
        assert "__init__" not in edges, f"porta.{m} imports porta (the package) itself"


@pytest.mark.parametrize("name", MODULES)
def test_each_module_imports_alone_first_in_a_fresh_interpreter(name):
    """porta.<name> imported first, without porta/__init__.py (which would import the rest in its own
    order first): a module that needs another one half-way through its own import fails here."""
    code = textwrap.dedent(f"""
        import importlib, sys, types
        shell = types.ModuleType("porta")
        shell.__path__ = [{str(PKG)!r}]
        sys.modules["porta"] = shell
        importlib.import_module("porta.{name}")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


def _imports_in_functions(tree):
    """(line, imported module, function) for each import made inside a function of a module's tree:
    import statements, __import__(...) and importlib.import_module(...)."""
    out = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        for node in ast.walk(fn):
            where = getattr(fn, "name", "<lambda>")
            if isinstance(node, ast.Import):
                out += [(node.lineno, a.name, where) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                out.append((node.lineno, "." * node.level + (node.module or ""), where))
            elif isinstance(node, ast.Call):
                f = node.func
                called = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
                if called in ("__import__", "import_module"):
                    arg = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else "?"
                    out.append((node.lineno, str(arg), where))
    return sorted(set(out))


@pytest.mark.parametrize("name", MODULES + ["__init__"])
def test_no_function_imports_anything_but_an_optional_dependency(name):
    lines = (PKG / f"{name}.py").read_text().split("\n")
    bad = []
    for line, module, fn in _imports_in_functions(_tree(name)):
        commented = "#" in lines[line - 1] or lines[line - 2].strip().startswith("#")
        if module.split(".")[0] not in OPTIONAL_DEPENDENCIES or not commented:
            bad.append(f"{name}.py:{line}: {fn}() imports {module}")
    assert not bad, "imports belong at the top of the module (or in OPTIONAL_DEPENDENCIES, with a comment " \
                    "that says why):\n" + "\n".join(bad)


def test_the_function_import_check_sees_imports_in_methods_nested_functions_and_calls():
    tree = ast.parse(textwrap.dedent("""
        import numpy
        class A:
            import os
            def f(self):
                def g():
                    from ._creation import asarray
                import torch
                return importlib.import_module("porta"), __import__("cupy")
    """))
    found = {(line, module) for line, module, _ in _imports_in_functions(tree)}
    assert found == {(7, "._creation"), (8, "torch"), (9, "porta"), (9, "cupy")}, found


def _module(name):
    return porta if name == "__init__" else getattr(porta, name)


@pytest.mark.parametrize("name", MODULES + ["__init__"])
def test_every_module_has___all___of_names_it_has(name):
    mod = _module(name)
    assert isinstance(getattr(mod, "__all__", None), list), f"porta.{name} has no __all__ (a list)"
    names = mod.__all__
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert not [n for n in names if n.startswith("_") or not hasattr(mod, n)], names


def test_porta___all___is_every_public_name_of_porta():
    public = {n for n in dir(porta) if not n.startswith("_")}
    assert set(porta.__all__) == public, sorted(set(porta.__all__) ^ public)


def test_porta_random___all___is_every_public_name_of_porta_random():
    public = {n for n in dir(porta.random) if not n.startswith("_")}
    assert set(porta.random.__all__) == public, sorted(set(porta.random.__all__) ^ public)


def test_porta_fft___all___is_every_public_name_of_porta_fft():
    public = {n for n in dir(porta.fft) if not n.startswith("_")}
    assert set(porta.fft.__all__) == public, sorted(set(porta.fft.__all__) ^ public)


def test_porta_linalg___all___is_every_public_name_of_porta_linalg():
    public = {n for n in dir(porta.linalg) if not n.startswith("_")}
    assert set(porta.linalg.__all__) == public, sorted(set(porta.linalg.__all__) ^ public)


# porta.random, porta.fft and porta.linalg are public submodules (cupy.random, cupy.fft, cupy.linalg), not re-exported.
@pytest.mark.parametrize("name", [m for m in MODULES if m not in (LEAF, "random", "fft", "linalg")])
def test_porta_exports_each_private_modules___all___as_the_same_objects(name):
    mod = _module(name)
    for n in mod.__all__:
        assert n in porta.__all__ and getattr(porta, n) is getattr(mod, n), f"porta.{n} is not porta.{name}.{n}"
