"""CuPy's first program: x = cp.array([1, 2, 3, 4, 5]); y = x ** 2; cp.asnumpy(y)."""
import numpy as np

import porta as cp  # the only change from the CuPy original

x = cp.array([1, 2, 3, 4, 5])
y = x ** 2
print(cp.asnumpy(y), "on", x.device)
assert (cp.asnumpy(y) == np.array([1, 4, 9, 16, 25])).all()
