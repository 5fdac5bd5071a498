"""Example workload: a 3-layer MLP block (matmul, GELU, matmul, residual, LayerNorm per layer)
captured once as a CUDA graph under NVTX ranges, then replayed. Recorded with

    nodescope run -o examples/traces/torch_graph_mlp.json -- python3 examples/torch_graph_mlp.py

to make the trace committed under examples/traces/ (what `scripts/run.sh` analyses on a
machine without a GPU).
"""
import sys

import torch

replays = int(sys.argv[1]) if len(sys.argv) > 1 else 100
torch.manual_seed(0)
hidden, batch = 1024, 256
layers = [
    (torch.nn.Linear(hidden, 4 * hidden), torch.nn.Linear(4 * hidden, hidden),
     torch.nn.LayerNorm(hidden))
    for _ in range(3)
]
for fc1, fc2, norm in layers:
    fc1.cuda(), fc2.cuda(), norm.cuda()
static_x = torch.randn(batch, hidden, device="cuda")


def block(x):
    for i, (fc1, fc2, norm) in enumerate(layers):
        with torch.cuda.nvtx.range(f"layer.{i}"):
            with torch.cuda.nvtx.range("mlp"):
                h = torch.nn.functional.gelu(fc1(x))
                x = fc2(h) + x
            with torch.cuda.nvtx.range("norm"):
                x = norm(x)
    return x


with torch.no_grad():
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm up outside the graph, as torch recommends
        for _ in range(2):
            block(static_x)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        with torch.cuda.nvtx.range("model"):
            static_y = block(static_x)
    with torch.cuda.nvtx.range("replays"):
        for _ in range(replays):
            graph.replay()
    torch.cuda.synchronize()
print(f"torch_graph_mlp: {replays} replays, output norm {float(static_y.norm()):.3f}")
