"""A CUDA graph captured by torch over two streams: a matmul branch on one side stream and a
longer chain of elementwise kernels on another, joined at the end. The elementwise branch bounds
every replay; `nodescope nodes` shows it on the critical path and the matmul's slack.

    nodescope run -o two_streams.json -- python3 examples/torch_two_streams.py [REPLAYS]
    nodescope nodes two_streams.json
"""
import sys

import torch

replays = int(sys.argv[1]) if len(sys.argv) > 1 else 200
torch.manual_seed(0)
a = torch.randn(1024, 1024, device="cuda")
w = torch.randn(1024, 1024, device="cuda")
x = torch.randn(2048, 2048, device="cuda")
s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()


def step():
    main = torch.cuda.current_stream()  # the capture stream inside torch.cuda.graph
    s1.wait_stream(main)
    s2.wait_stream(main)
    with torch.cuda.stream(s1):
        m = a @ w  # the short branch
    with torch.cuda.stream(s2):
        e = x
        for _ in range(24):  # the long branch: 24 elementwise kernels over 16 MiB
            e = e * 1.0001 + 0.5
    main.wait_stream(s1)
    main.wait_stream(s2)
    return m.sum() + e[:1024, :1024].sum()  # the join


for _ in range(3):  # warm up (cuBLAS handles, allocator) outside the capture
    step()
torch.cuda.synchronize()
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    out = step()
for _ in range(replays):
    g.replay()
torch.cuda.synchronize()
print(f"replays={replays} out={out.item():.3f}")
