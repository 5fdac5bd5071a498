"""Rewrites the gpu_user_annotation lines of a trace written by nodescope before device spans were
widened as today's writer writes them: each span's ts/dur widened on each side by the pads that
DeviceSpanPads (src/attribution/annotations.h) gives, computed by ./span_pads (span_pads.cc), and
"widened (ns)" added after "External id". Every other byte is kept. See docs/viewers.md.

usage: widen_spans.py IN.json OUT.json [path/to/span_pads]
"""
import re
import subprocess
import sys

src, dst = sys.argv[1], sys.argv[2]
pads_tool = sys.argv[3] if len(sys.argv) > 3 else "./span_pads"
lines = open(src, encoding="utf-8").read().split("\n")
SPAN = re.compile(r'"pid":(\d+),"tid":(\d+),"ts":(\d+)\.(\d{3}),"dur":(\d+)\.(\d{3}),'
                  r'"args":\{"External id":(\d+)')
spans = []  # (line index, pid, tid, start ns, end ns), in the file's (the writer's) order
for i, line in enumerate(lines):
    if '"cat":"gpu_user_annotation"' in line:
        m = SPAN.search(line)
        pid, tid, ts_us, ts_ns, dur_us, dur_ns = (int(g) for g in m.groups()[:6])
        start = ts_us * 1000 + ts_ns
        spans.append((i, m, pid, tid, start, start + dur_us * 1000 + dur_ns))
query = "".join(f"{pid} {tid} {start} {end}\n" for _, _, pid, tid, start, end in spans)
pads = [int(p) for p in subprocess.run([pads_tool], input=query, capture_output=True, text=True,
                                        check=True).stdout.split()]
for (i, m, pid, tid, start, end), pad in zip(spans, pads):
    s, e = max(start - pad, 0), end + pad
    new = (f'"pid":{pid},"tid":{tid},"ts":{s // 1000}.{s % 1000:03d},"dur":{(e - s) // 1000}.'
           f'{(e - s) % 1000:03d},"args":{{"External id":{m.group(7)},"widened (ns)":{pad}')
    lines[i] = lines[i][:m.start()] + new + lines[i][m.end():]
open(dst, "w", encoding="utf-8").write("\n".join(lines))
print(f"{len(spans)} spans widened: " +
      ", ".join(f"{p} ns x{pads.count(p)}" for p in sorted(set(pads))))
