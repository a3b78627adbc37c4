"""The python blocks of README.md and of every page under docs/ run as they are, on the default
device (CTest builds and runs the C++ ones: example.readme_*, example.doc_*). Only ```python blocks
are code to run; a block meant as text only is fenced otherwise (```sh, ```text). Test ids name the
page and the block's place in it, counted from 1, as CTest's do: readme_1, doc_guide_python_3."""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))


def page_id(page):
    if page.name == "README.md" and page.parent == ROOT:
        return "readme"
    return "doc_" + re.sub(r"[^A-Za-z0-9_]", "_", str(page.relative_to(ROOT / "docs").with_suffix("")))


BLOCKS = [(f"{page_id(page)}_{i}", page, code)
          for page in PAGES
          for i, code in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S), 1)]


def test_pages_have_python_blocks():
    assert any(page.name == "README.md" for _, page, _ in BLOCKS), "README.md has no python block"
    assert any(page.name == "python.md" for _, page, _ in BLOCKS), "docs/guide/python.md has no python block"
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("name,page,code", BLOCKS, ids=[name for name, _, _ in BLOCKS])
def test_page_python_block_runs(name, page, code):
    if "import torch" in code:
        torch = pytest.importorskip("torch")
        if not torch.cuda.is_available():
            pytest.skip("the PyTorch block needs a CUDA device")
    where = f"{page.relative_to(ROOT)} python block {name.rsplit('_', 1)[1]}"
    exec(compile(code, where, "exec"), {"__name__": "__readme__"})
