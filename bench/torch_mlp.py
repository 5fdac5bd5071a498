"""Overhead workload: a 6-layer MLP (matmul, GELU, matmul, residual, LayerNorm per layer) captured
once as a CUDA graph, then replayed; prints the time of the replays, as examples/graph_replay does,
so bench/overhead.py can time it bare and traced (`--workload torch_mlp`).

  python3 bench/torch_mlp.py [REPLAYS]   (default 400)
"""
import sys
import time

import torch

replays = int(sys.argv[1]) if len(sys.argv) > 1 else 400
torch.manual_seed(0)
hidden, batch = 1024, 256
layers = [(torch.nn.Linear(hidden, 4 * hidden), torch.nn.Linear(4 * hidden, hidden),
           torch.nn.LayerNorm(hidden)) for _ in range(6)]
for fc1, fc2, norm in layers:
    fc1.cuda(), fc2.cuda(), norm.cuda()
static_x = torch.randn(batch, hidden, device="cuda")


def block(x):
    for fc1, fc2, norm in layers:
        x = norm(fc2(torch.nn.functional.gelu(fc1(x))) + x)
    return x


with torch.no_grad():
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            block(static_x)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_y = block(static_x)
    for _ in range(10):  # the first replays upload the graph
        graph.replay()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(replays):
        graph.replay()
    torch.cuda.synchronize()
    ms = (time.perf_counter() - t0) * 1e3
print(f"torch_mlp: {replays} replays in {ms:.2f} ms, output norm {float(static_y.norm()):.3f}")
