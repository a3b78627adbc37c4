"""The small add of porta-bench's small_add and small_graph rows (1024 float32, into an existing
output) through PyTorch, eager and in a replayed CUDA graph of 10 adds: a program for
scripts/dev/gpu_profile.sh ('py:scripts/dev/peer_small_add.py') to time PyTorch's kernels beside
porta's under Nsight Compute."""
import torch

a = torch.rand(1024, device="cuda")
b = torch.rand(1024, device="cuda")
c = torch.empty_like(a)
for _ in range(10):
    torch.add(a, b, out=c)
s = torch.cuda.Stream()
with torch.cuda.stream(s):
    torch.add(a, b, out=c)
torch.cuda.current_stream().wait_stream(s)
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    for _ in range(10):
        torch.add(a, b, out=c)
for _ in range(3):
    g.replay()
torch.cuda.synchronize()
