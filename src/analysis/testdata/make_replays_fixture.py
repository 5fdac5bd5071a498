#!/usr/bin/env python3
"""Writes replays_8x200.json: one graph of 8 nodes replayed 200 times, for `nodescope plot`.

Deterministic (its own LCG, no clock): node #2 drifts upward, node #3 has a cold first replay,
node #4 spikes every 50 replays, the rest are steady with a little noise.
Usage: make_replays_fixture.py > replays_8x200.json
"""

GRAPH = 3
REPLAYS = 200
NODES = [
    ("kernel", "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>"
               "(cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4::Params)", 182.0),
    ("kernel", "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl"
               "(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const"
               "::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::"
               "GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}"
               "::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>)", 24.0),
    ("kernel", "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, "
               "false>(float*, float const*, int, int, int, bool const*, int, bool)", 41.0),
    ("gpu_memcpy", "Memcpy DtoD (Device -> Device)", 9.0),
    ("kernel", "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
               "cutlass::half_t>, false, true, false, false, true, true, false>(Flash_fwd_params)",
     118.0),
    ("kernel", "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::"
               "MeanOps<float, float, float, float>, unsigned int, float, 4> >(at::native::ReduceOp"
               "<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>)",
     12.0),
    ("kernel", "ampere_sgemm_128x64_tn", 95.0),
    ("gpu_memset", "Memset (Device)", 3.0),
]

state = 12345


def uniform():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
    return (state >> 11) / float(1 << 53)


def noise():  # about N(0, 1)
    return sum(uniform() for _ in range(4)) * 3 ** 0.5 - 2 * 3 ** 0.5


def duration(node, replay, base):
    d = base * (1 + 0.015 * noise())
    if node == 2:
        d *= 1 + 0.9 * replay / (REPLAYS - 1)
    if node == 3 and replay == 0:
        d = 640.0
    if node == 4 and replay % 50 == 49:
        d *= 1.35
    return max(d, 0.5)


def json_string(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


events = []
for replay in range(REPLAYS):
    correlation = 1000 + replay
    ts = 100.0 + replay * 1000.0
    events.append('{"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":4242,"tid":4243,'
                  f'"ts":{ts:.3f},"dur":4.000,"args":{{"cbid":311,"correlation":{correlation}}}}}')
    ts += 6.0
    for node, (cat, name, base) in enumerate(NODES):
        d = duration(node, replay, base)
        events.append(f'{{"ph":"X","cat":"{cat}","name":{json_string(name)},"pid":0,"tid":7,'
                      f'"ts":{ts:.3f},"dur":{d:.3f},"args":{{"device":0,"stream":7,'
                      f'"correlation":{correlation},"graph id":{GRAPH},'
                      f'"graph node id":{(GRAPH << 32) | node}}}}}')
        ts += d + 1.0

print('{\n  "schemaVersion": 1,\n  "displayTimeUnit": "ms",\n'
      '  "baseTimeNanoseconds": 1700000000000000000,\n  "traceEvents": [\n  ' +
      ',\n  '.join(events) + '\n  ]\n}')
