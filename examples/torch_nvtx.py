"""Example: a PyTorch program annotated with NVTX, traced unchanged by `nodescope run`.

    nodescope run -o torch.json -- python3 examples/torch_nvtx.py

Ranges from torch.cuda.nvtx and from emit_nvtx() become user_annotation / gpu_user_annotation
spans; the range open while the CUDA graph is captured follows its kernels into every replay.
"""
import torch

x = torch.randn(512, 512, device="cuda")
with torch.cuda.nvtx.range("forward"):
    for i in range(4):
        with torch.cuda.nvtx.range(f"layer.{i}"):
            x = torch.relu(x @ x) / 512
torch.cuda.synchronize()

static_in = torch.randn(512, 512, device="cuda")
graph = torch.cuda.CUDAGraph()
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):  # warm up outside the graph, as torch recommends
    torch.relu(static_in @ static_in)
torch.cuda.current_stream().wait_stream(side)
with torch.cuda.graph(graph):
    with torch.cuda.nvtx.range("captured.block"):
        static_out = torch.relu(static_in @ static_in)
with torch.cuda.nvtx.range("replays"):
    for _ in range(5):
        graph.replay()
torch.cuda.synchronize()

with torch.autograd.profiler.emit_nvtx():
    y = torch.nn.functional.gelu(x).sum()
torch.cuda.synchronize()
print(f"torch_nvtx: done ({float(y):.3f})")
