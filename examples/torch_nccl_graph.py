"""A torch program doing NCCL all-reduces outside and inside a captured CUDA graph, the shape of
tensor-parallel inference. Run it under torchrun (one process per GPU), or alone as a world of
one. Exits 0 when every all-reduce gave the right sum.

    nodescope run -o ar.json -- torchrun --nproc-per-node 2 examples/torch_nccl_graph.py
"""
import faulthandler
import os

import torch
import torch.distributed as dist


def main(replays=20):
    # A test's watchdog: print every thread's Python stack and exit if the program hangs.
    if os.environ.get("EXAMPLE_WATCHDOG_S"):
        faulthandler.dump_traceback_later(float(os.environ["EXAMPLE_WATCHDOG_S"]), exit=True)
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29531")
    os.environ.setdefault("RANK", "0")
    os.environ.setdefault("WORLD_SIZE", "1")
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    dist.init_process_group("nccl", device_id=dev)

    # Eager: an all-reduce outside any graph.
    x = torch.full((1 << 16,), float(rank + 1), device=dev)
    dist.all_reduce(x)
    expect = world * (world + 1) / 2
    ok = bool(torch.all(x == expect))

    # Captured: matmul -> all-reduce -> relu, replayed.
    w = torch.eye(256, device=dev)
    a = torch.full((256, 256), float(rank + 1), device=dev)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):  # warm up NCCL's communicator on the capture stream
            y = a @ w
            dist.all_reduce(y)
            z = torch.relu(y)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = a @ w
        dist.all_reduce(y)
        z = torch.relu(y)
    for _ in range(replays):
        g.replay()
    torch.cuda.synchronize()
    ok = ok and bool(torch.all(z == expect))
    print(f"rank {rank}/{world}: all-reduce eager and in a graph x{replays}: {'ok' if ok else 'WRONG'}")
    if not os.environ.get("EXAMPLE_KEEP_GRAPH"):
        del g  # the graph holds NCCL work: release it before the communicator goes
    torch.cuda.synchronize()
    dist.barrier()
    dist.destroy_process_group()
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
