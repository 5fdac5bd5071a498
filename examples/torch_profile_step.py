"""A torch training step (MLP + SGD) captured in a CUDA graph and replayed 50 times, traced from
inside the script with nodescope.profile(): per-node statistics straight from Python, no
`nodescope run`. The README's "Tracing from Python" output is this script's, on an H200:

    python examples/torch_profile_step.py [trace.json]
"""
import sys

import nodescope
import torch

out = sys.argv[1] if len(sys.argv) > 1 else "step.json"
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(),
                            torch.nn.Linear(512, 256), torch.nn.ReLU(),
                            torch.nn.Linear(256, 10)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loss_fn = torch.nn.CrossEntropyLoss()
x = torch.randn(64, 256, device="cuda")
y = torch.randint(0, 10, (64,), device="cuda")

s = torch.cuda.Stream()  # warm-up on a side stream before capture, as torch's docs do
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for _ in range(3):
        opt.zero_grad(set_to_none=True)
        loss_fn(model(x), y).backward()
        opt.step()
torch.cuda.current_stream().wait_stream(s)
g = torch.cuda.CUDAGraph()
opt.zero_grad(set_to_none=True)
with torch.cuda.graph(g):
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
torch.cuda.synchronize()

with nodescope.profile(output=out) as p:
    with nodescope.range("replays"):
        for _ in range(50):
            g.replay()
    torch.cuda.synchronize()
print(p.summary())
t = p.trace()
nodes = t.nodes().sort_values("share", ascending=False)
nodes["name"] = nodes["name"].str.slice(0, 34)
print(nodes[["graph_id", "ordinal", "name", "replays", "mean_us", "p99_us", "share"]]
      .head(6).to_string(index=False))
print(t.check()["verdict"])
