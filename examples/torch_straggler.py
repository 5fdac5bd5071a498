"""A two-rank job with a straggler, for `nodescope nodes` across ranks: each rank captures a CUDA
graph of matmul -> sleep kernel -> all-reduce -> relu -> matmul and replays it; rank 1's sleep
kernel spins far longer (STRAGGLER_US, default 200 us), so rank 1 is the straggler at that node
and the other rank waits for it in the all-reduce. The node sequence is the same on every rank
(only the sleep's length differs), so the graphs match across ranks. Exits 0 when every
all-reduce gave the right sum.

    nodescope run -o job.json -- torchrun --nproc-per-node 2 examples/torch_straggler.py
    nodescope nodes job-rank0.json job-rank1.json
"""
import faulthandler
import os

import torch
import torch.distributed as dist


def main(replays=50):
    if os.environ.get("EXAMPLE_WATCHDOG_S"):
        faulthandler.dump_traceback_later(float(os.environ["EXAMPLE_WATCHDOG_S"]), exit=True)
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    os.environ.setdefault("RANK", "0")
    os.environ.setdefault("WORLD_SIZE", "1")
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    dist.init_process_group("nccl", device_id=dev)

    # torch.cuda._sleep spins for a number of GPU clock cycles: about 2 per ns on an H200.
    slow_us = float(os.environ.get("STRAGGLER_US", "200"))
    cycles = int(slow_us * 2000) if rank == 1 else 1000
    w = torch.eye(512, device=dev)
    a = torch.full((512, 512), float(rank + 1), device=dev)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):  # warm up cuBLAS and NCCL on the capture stream
            y = a @ w
            torch.cuda._sleep(cycles)
            dist.all_reduce(y)
            z = torch.relu(y) @ w
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = a @ w
        torch.cuda._sleep(cycles)
        dist.all_reduce(y)
        z = torch.relu(y) @ w
    for _ in range(replays):
        g.replay()
    torch.cuda.synchronize()
    expect = world * (world + 1) / 2
    ok = bool(torch.all(z == expect))
    print(f"rank {rank}/{world}: {replays} replays, sleep {cycles} cycles: {'ok' if ok else 'WRONG'}")
    del g
    torch.cuda.synchronize()
    dist.barrier()
    dist.destroy_process_group()
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
