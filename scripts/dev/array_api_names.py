"""Writes python/tests/array_api_2024_12.py: the array API standard's names and signatures, read (not
imported) from the standard's own stubs, which test_namespace.py checks porta against.

    git clone https://github.com/data-apis/array-api && git -C array-api rev-parse --short HEAD
    python3 scripts/dev/array_api_names.py array-api/src/array_api_stubs/_2024_12 <that commit> \
        > python/tests/array_api_2024_12.py
"""
import ast
import pathlib
import pprint
import sys

root = pathlib.Path(sys.argv[1])
commit = sys.argv[2]

def sig(fn):
    a = fn.args
    parts = []
    pos = a.posonlyargs + a.args
    defaults = [None] * (len(pos) - len(a.defaults)) + a.defaults
    for i, (p, d) in enumerate(zip(pos, defaults)):
        if p.arg == "self":
            continue
        parts.append(p.arg + ("=" + ast.unparse(d) if d is not None else ""))
        if a.posonlyargs and i == len(a.posonlyargs) - 1:
            parts.append("/")
    if a.vararg:
        parts.append("*" + a.vararg.arg)
    elif a.kwonlyargs:
        parts.append("*")
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        parts.append(p.arg + ("=" + ast.unparse(d) if d is not None else ""))
    if a.kwarg:
        parts.append("**" + a.kwarg.arg)
    return "(" + ", ".join(parts) + ")"

def module(name):
    tree = ast.parse((root / (name + ".py")).read_text())
    alls = None
    fns = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            alls = ast.literal_eval(node.value)
        if isinstance(node, ast.FunctionDef):
            fns[node.name] = sig(node)
    return alls, fns

top = {}
for m in ["constants", "creation_functions", "data_type_functions", "elementwise_functions",
          "indexing_functions", "linear_algebra_functions", "manipulation_functions", "searching_functions",
          "set_functions", "sorting_functions", "statistical_functions", "utility_functions"]:
    alls, fns = module(m)
    for n in alls or []:
        top[n] = fns.get(n)  # None: a constant or a dtype
# The dtypes (the standard's "Data Types" page; the stubs have no module names for them).
for n in ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
          "complex64", "complex128"]:
    top[n] = None
_, fns = module("info")
top["__array_namespace_info__"] = fns["__array_namespace_info__"]
info = {n: s for n, s in fns.items() if n != "__array_namespace_info__"}
ext = {}
for m in ["linalg", "fft"]:
    alls, fns = module(m)
    ext[m] = {n: fns.get(n) for n in alls}
tree = ast.parse((root / "array_object.py").read_text())
methods, attributes = {}, []
for node in tree.body:
    if isinstance(node, ast.ClassDef):
        for f in node.body:
            if isinstance(f, ast.FunctionDef) and f.name != "__init__":
                if any(getattr(d, "id", "") == "property" for d in f.decorator_list):
                    attributes.append(f.name)
                else:
                    methods[f.name] = sig(f)
print(f'''"""The names and signatures of the Python array API standard 2024.12, generated from the standard's
own stubs (github.com/data-apis/array-api, src/array_api_stubs/_2024_12, commit {commit}) by
parsing them: a signature is None for a constant or a dtype. test_namespace.py checks porta against
these; regenerate rather than edit by hand."""

NAMESPACE = {pprint.pformat(top, width=118, sort_dicts=True)}

INFO_METHODS = {pprint.pformat(info, width=118, sort_dicts=True)}

LINALG = {pprint.pformat(ext["linalg"], width=118, sort_dicts=True)}

FFT = {pprint.pformat(ext["fft"], width=118, sort_dicts=True)}

ARRAY_ATTRIBUTES = {pprint.pformat(sorted(attributes), width=118)}

ARRAY_METHODS = {pprint.pformat(methods, width=118, sort_dicts=True)}
''')
