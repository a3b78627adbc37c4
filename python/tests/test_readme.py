"""The README's python blocks run as they are, on the default device (CTest runs the C++ ones)."""
import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_readme_has_python_blocks():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_block_runs(index):
    code = BLOCKS[index]
    if "import torch" in code:
        torch = pytest.importorskip("torch")
        if not torch.cuda.is_available():
            pytest.skip("the PyTorch block needs a CUDA device")
    exec(compile(code, f"README.md python block {index}", "exec"), {"__name__": "__readme__"})
