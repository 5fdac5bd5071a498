#!/usr/bin/env python3
"""The house rules a compiler does not check, checked on the sources (docs/ARCHITECTURE.md):

  layers   every `#include "..."` in src/, tools/, include/ and python/src/ goes to a folder
           its own folder may include (LAYERS below: the table in docs/ARCHITECTURE.md);
  vendor   an SDK's headers (`#include <cupti.h>`, ...) appear only in that vendor's
           src/backends/<vendor>/ (VENDOR_HEADERS);
  size     no C/C++ source file in src/ is over 500 lines, tests (*_test.*) and test data aside.
  backends every folder of src/backends/ is a backend reachable through the checklist of
           docs/ARCHITECTURE.md ("Adding a backend"), NOT_BACKENDS aside: its CMakeLists.txt calls
           nodescope_backend(<folder>), it has entry_point.cc, a tracer on the skeleton (a class
           deriving from BackendTracer), a tracer and a launcher registered under
           NODESCOPE_BACKEND_NAME (never a name written out), a VENDOR_HEADERS entry, and the
           document names the folder.

Today's known breaks are listed below as explicit allowances, each to be removed by the change
that fixes it. An allowance that no longer matches anything is an error too, so the lists only
shrink. Prints one line per problem, `path:line: rule: what`, and exits 1 if there is any.

  tools/check_source_rules.py [--root DIR]   check a source tree (default: this repository)
  tools/check_source_rules.py --self-test    plant one violation of each rule in a scratch tree
                                             and fail unless each one, and nothing else, is found
"""

import argparse
import os
import re
import sys
import tempfile

# Folder -> the folders it may include besides itself. A folder is named as its includes name it:
# src/base is "base", src/backends/cuda is "backends/cuda" ("backends/*": any vendor's folder),
# include/nodescope is "nodescope" (the public API), tools/<program> is "tools".
NEUTRAL = ["base", "model", "ranges", "attribution", "export", "backends", "api", "nodescope"]
LAYERS = {
    "base": [],
    "model": ["base"],
    "ranges": ["base", "model"],
    "attribution": ["base", "model"],
    "export": ["base", "model", "attribution"],
    "backends": ["base", "model", "ranges", "attribution"],
    "backends/*": ["base", "model", "ranges", "attribution", "backends"],
    "api": ["base", "model", "ranges", "attribution", "export", "backends", "nodescope",
            "metrics"],
    # The analysis side reads trace files; it never sees a backend or the api, and writes only
    # through export/ (merge).
    "analysis/reader": ["base", "model"],
    "analysis/stats": ["base", "model", "analysis/reader"],
    "analysis/plot": ["base", "model", "analysis/reader", "analysis/stats"],
    "analysis/merge": ["base", "model", "attribution", "export", "analysis/reader",
                       "analysis/stats"],
    # `run --metrics` and NODESCOPE_METRICS (Prometheus text, its server, the figures read from a
    # trace by the analysis or made from a session's records). The api includes only what builds
    # without the analysis library (nodescope_metrics_serve, nodescope_metrics_live: CMake).
    "metrics": ["base", "model", "attribution", "export", "analysis/reader", "analysis/stats"],
    "nodescope": [],
    # The command-line programs: anything but a vendor's backend internals.
    "tools": NEUTRAL + ["analysis/reader", "analysis/stats", "analysis/plot", "analysis/merge",
                        "metrics"],
    # The Python extensions (python/src): the analysis library, as the CLI reads it, ...
    # and the C API of libnodescope.so (tracing.cc).
    "python": ["base", "model", "analysis/reader", "analysis/stats", "analysis/plot", "nodescope"],
}

# <header> patterns -> the only folder whose files may include them.
VENDOR_HEADERS = [
    (r"(cupti|cuda|nvperf|driver_types|vector_types)[^/]*\.h|(cuda|thrust|cub)/", "src/backends/cuda"),
    (r"nvtx3/|nvToolsExt", "src/backends/nvtx"),
    (r"(rocprofiler-sdk|rocprofiler|roctracer|hip|hsa)/", "src/backends/rocm"),
    (r"(pti|level_zero|sycl)/", "src/backends/xpu"),
]

# Folders of src/backends/ that are not backends, and what they are.
NOT_BACKENDS = {"nvtx": "NVTX's handlers, built into libnodescope.so"}
REGISTERED_BY_LITERAL_RE = re.compile(r'Register(Tracer|Launcher)\((Launcher\{)?\s*"')


def check_backends(root):
    """The backends rule: each folder of src/backends/ is reachable through the checklist."""
    problems = []
    top = os.path.join(root, "src", "backends")
    if not os.path.isdir(top):
        return problems
    doc_path = os.path.join(root, "docs", "ARCHITECTURE.md")
    doc = open(doc_path, encoding="utf-8").read() if os.path.exists(doc_path) else ""
    for name in sorted(os.listdir(top)):
        folder = os.path.join(top, name)
        rel = f"src/backends/{name}"
        if not os.path.isdir(folder) or name in NOT_BACKENDS:
            continue
        texts = {}
        for dirpath, _, filenames in os.walk(folder):
            for f in filenames:
                if f.endswith(SOURCE_SUFFIXES) or f == "CMakeLists.txt":
                    path = os.path.join(dirpath, f)
                    key = os.path.relpath(path, root).replace(os.sep, "/")
                    texts[key] = open(path, encoding="utf-8", errors="replace").read()
        def missing(what):
            problems.append(f"{rel}/:1: backends: {what} (docs/ARCHITECTURE.md, \"Adding a "
                            "backend\")")
        cmake = texts.get(f"{rel}/CMakeLists.txt", "")
        if not re.search(r"nodescope_backend\(\s*" + re.escape(name) + r"\b", cmake):
            missing(f"CMakeLists.txt calls no nodescope_backend({name} ...)")
        if f"{rel}/entry_point.cc" not in texts:
            missing("no entry_point.cc")
        sources = [t for k, t in texts.items() if not k.endswith("CMakeLists.txt")]
        if not any(re.search(r":\s*public\s+BackendTracer\b", t) for t in sources):
            missing("no tracer on the skeleton (a class deriving from BackendTracer)")
        if not any("RegisterTracer(NODESCOPE_BACKEND_NAME" in re.sub(r"\s+", "", t) for t in sources):
            missing("no tracer registered as RegisterTracer(NODESCOPE_BACKEND_NAME, ...)")
        if not any("RegisterLauncher(Launcher{NODESCOPE_BACKEND_NAME" in re.sub(r"\s+", "", t)
                   for t in sources):
            missing("no launcher registered as RegisterLauncher(Launcher{NODESCOPE_BACKEND_NAME, "
                    "...})")
        if not any(f == rel for _, f in VENDOR_HEADERS):
            missing("no VENDOR_HEADERS entry for its SDK's headers")
        if f"`{rel}/`" not in doc:
            missing("docs/ARCHITECTURE.md does not name it")
    for dirpath, _, filenames in os.walk(top):
        for f in sorted(filenames):
            if not f.endswith(SOURCE_SUFFIXES):
                continue
            path = os.path.join(dirpath, f)
            for number, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                if REGISTERED_BY_LITERAL_RE.search(line):
                    key = os.path.relpath(path, root).replace(os.sep, "/")
                    problems.append(f"{key}:{number}: backends: a backend registered under a "
                                    "name written out: use NODESCOPE_BACKEND_NAME, its folder's")
    return problems


# Known breaks of the layer rules, as (file, the header it includes), each with a comment saying
# which change removes it. None today: the last one, CUDA's injection entry point including
# api/process_session.h from src/backends/cuda/, moved into src/api/ (issue 10).
ALLOWED_INCLUDES = []

MAX_LINES = 500
# Files over MAX_LINES today, with the line count they may not grow past. None today: the last
# one, cupti_tracer.cc, lost its buffer pool to buffer_pool.cc (issue 10).
ALLOWED_SIZES = {}

SOURCE_SUFFIXES = (".h", ".hpp", ".hh", ".c", ".cc", ".cpp", ".cu", ".cuh")
SCANNED_ROOTS = ("src", "tools", "include", "python/src")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


def component_of_file(rel):
    """The LAYERS key for a file (path relative to the root), or None if it has none."""
    parts = rel.split("/")
    if parts[0] == "include":
        return "nodescope" if len(parts) > 2 and parts[1] == "nodescope" else None
    if parts[0] == "tools":
        return "tools"
    if parts[0] == "python":
        return "python"
    if parts[0] != "src" or len(parts) < 3:
        return None
    return component_of_path(parts[1:-1])


def component_of_path(dirs):
    """The LAYERS key for a folder under src/ given as a list of names, or None."""
    if dirs[0] == "backends" and len(dirs) > 1:
        return "backends/" + dirs[1]
    if len(dirs) > 1 and "/".join(dirs[:2]) in LAYERS:
        return "/".join(dirs[:2])
    return dirs[0] if dirs[0] in LAYERS else None


def rule_key(component):
    return "backends/*" if component.startswith("backends/") else component


def may_include(component, target):
    if target == component:
        return True
    # A folder split into parts (analysis/reader, ...) is one folder to itself and to those
    # that may include all of it.
    allowed = LAYERS[rule_key(component)]
    if target in allowed:
        return True
    return "/" in target and target.split("/")[0] in allowed and not target.startswith("backends/")


def source_files(root):
    for top in SCANNED_ROOTS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if d != "testdata")
            for name in sorted(filenames):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")


def is_test(rel):
    stem = os.path.splitext(os.path.basename(rel))[0]
    return stem.endswith("_test")


def check(root, allowed_includes, allowed_sizes):
    problems = []
    used_includes = set()
    seen_sizes = set()
    for rel in source_files(root):
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        component = component_of_file(rel)
        if component is None and rel.startswith("src/"):
            problems.append(f"{rel}:1: layers: folder {os.path.dirname(rel)} is not in the layer "
                            "table (tools/check_source_rules.py LAYERS, docs/ARCHITECTURE.md)")
        for number, line in enumerate(lines, 1):
            m = INCLUDE_RE.match(line)
            if not m:
                continue
            kind, header = m.groups()
            if kind == "<":
                for pattern, folder in VENDOR_HEADERS:
                    if re.match(pattern, header) and not rel.startswith(folder + "/"):
                        problems.append(f"{rel}:{number}: vendor: <{header}> may only be "
                                        f"included under {folder}/")
                continue
            if component is None or "/" not in header:
                continue  # a header beside the file: its own folder
            if header.startswith("nodescope/"):
                target = "nodescope"
            else:
                target = component_of_path(header.split("/")[:-1])
            if target is None:
                problems.append(f"{rel}:{number}: layers: \"{header}\" is in no folder of the "
                                "layer table")
            elif not may_include(component, target):
                if (rel, header) in allowed_includes:
                    used_includes.add((rel, header))
                    continue
                problems.append(f"{rel}:{number}: layers: {component} may not include {target} "
                                f"(\"{header}\")")
        if rel.startswith("src/") and not is_test(rel):
            n = len(lines)
            if rel in allowed_sizes:
                seen_sizes.add(rel)
                if n > allowed_sizes[rel]:
                    problems.append(f"{rel}:{n}: size: {n} lines, grown past its allowance of "
                                    f"{allowed_sizes[rel]} (the limit is {MAX_LINES})")
                elif n <= MAX_LINES:
                    problems.append(f"{rel}:1: size: {n} lines, within the limit now: remove its "
                                    "allowance from ALLOWED_SIZES")
            elif n > MAX_LINES:
                problems.append(f"{rel}:{n}: size: {n} lines, over the limit of {MAX_LINES}")
    problems += check_backends(root)
    for rel, header in allowed_includes:
        if (rel, header) not in used_includes:
            problems.append(f"{rel}:1: layers: the allowance for \"{header}\" is no longer used: "
                            "remove it from ALLOWED_INCLUDES")
    for rel in allowed_sizes:
        if rel not in seen_sizes:
            problems.append(f"{rel}:1: size: the allowance names a file that is gone: remove it "
                            "from ALLOWED_SIZES")
    return problems


def self_test():
    """Plants one violation of each rule (and cases that must pass) in a scratch tree."""
    files = {
        # Must pass: same folder, lower layers, the public API, a big test, an allowance.
        "src/api/ok.cc": '#include "ok.h"\n#include "backends/backend.h"\n'
                         '#include "nodescope/nodescope.h"\n#include <vector>\n',
        "src/base/big_test.cc": "//\n" * 700,
        "src/backends/cuda/ok.cc": '#include <cupti.h>\n#include "backends/backend.h"\n'
                                    '#include "api/process_session.h"\n',
        "src/backends/cuda/allowed_big.cc": "//\n" * 600,
        "src/analysis/plot/ok.cc": '#include "analysis/stats/node_series.h"\n',
        "tools/nodescope/ok.cc": '#include "analysis/reader/trace_reader.h"\n'
                                 '#include "model/run_report.h"\n',
        # Must fail, each naming its file and line.
        "src/base/up.h": '#pragma once\n#include "api/process_session.h"\n',
        "src/api/vendor_internal.cc": '#include "backends/cuda/cupti_tracer.h"\n',
        "src/backends/rocm/cross.cc": '\n#include "backends/cuda/cuda_driver.h"\n',
        "src/export/sdk.cc": "#include <vector>\n#  include <cupti_activity.h>\n",
        "src/backends/nvtx/other_sdk.cc": "#include <cuda.h>\n",
        "tools/nodescope/hip.cc": "#include <hip/hip_runtime.h>\n",
        "src/analysis/reader/up.cc": '#include "analysis/stats/node_series.h"\n',
        "src/model/big.cc": "//\n" * 501,
        "src/backends/cuda/grown.cc": "//\n" * 512,
        "src/backends/cuda/shrunk.cc": "//\n" * 500,
        "src/newfolder/x.h": "#pragma once\n",
        "src/analysis/loose.cc": '#include "analysis/stats/node_stats.h"\n',
        "include/nodescope/public.h": '#include "base/status.h"\n',
        # The backends rule: "xpu" is whole; "rocm" lacks everything but its folder and cross.cc;
        # "cuda" registers its tracer under a name written out.
        "docs/ARCHITECTURE.md": "`src/backends/xpu/` `src/backends/cuda/`\n",
        "src/backends/xpu/CMakeLists.txt": "nodescope_backend(xpu SOURCES t.cc)\n",
        "src/backends/xpu/entry_point.cc": "\n",
        "src/backends/xpu/t.h": "class T final : public BackendTracer {};\n",
        "src/backends/xpu/t.cc": "RegisterTracer(NODESCOPE_BACKEND_NAME, &F);\n"
                                 "RegisterLauncher(\n    Launcher{NODESCOPE_BACKEND_NAME, 1});\n",
        "src/backends/rocm/CMakeLists.txt": "nodescope_backend(rocmx)\n",
        "src/backends/cuda/CMakeLists.txt": "nodescope_backend(cuda)\n",
        "src/backends/cuda/entry_point.cc": "\n",
        "src/backends/cuda/t.cc": "class T : public BackendTracer {};\n"
                                  "RegisterTracer(\"cuda\", &F);\n"
                                  "RegisterLauncher(Launcher{NODESCOPE_BACKEND_NAME});\n",
    }
    allowed_includes = [
        ("src/backends/cuda/ok.cc", "api/process_session.h"),
        ("src/backends/cuda/gone.cc", "api/process_session.h"),
    ]
    allowed_sizes = {
        "src/backends/cuda/allowed_big.cc": 600,
        "src/backends/cuda/grown.cc": 510,
        "src/backends/cuda/shrunk.cc": 510,
        "src/backends/cuda/deleted.cc": 510,
    }
    expected = {
        "src/base/up.h:2: layers: base may not include api",
        "src/api/vendor_internal.cc:1: layers: api may not include backends/cuda",
        "src/backends/rocm/cross.cc:2: layers: backends/rocm may not include "
        "backends/cuda",
        "src/export/sdk.cc:2: vendor: <cupti_activity.h> may only be included under "
        "src/backends/cuda/",
        "src/backends/nvtx/other_sdk.cc:1: vendor: <cuda.h> may only be included under "
        "src/backends/cuda/",
        "tools/nodescope/hip.cc:1: vendor: <hip/hip_runtime.h> may only be included under "
        "src/backends/rocm/",
        "src/analysis/reader/up.cc:1: layers: analysis/reader may not include analysis/stats",
        "src/model/big.cc:501: size: 501 lines, over the limit",
        "src/backends/cuda/grown.cc:512: size: 512 lines, grown past its allowance of 510",
        "src/backends/cuda/shrunk.cc:1: size: 500 lines, within the limit now",
        "src/backends/cuda/deleted.cc:1: size: the allowance names a file that is gone",
        "src/backends/cuda/gone.cc:1: layers: the allowance for \"api/process_session.h\" is "
        "no longer used",
        "src/newfolder/x.h:1: layers: folder src/newfolder is not in the layer table",
        "src/analysis/loose.cc:1: layers: folder src/analysis is not in the layer table",
        "include/nodescope/public.h:1: layers: nodescope may not include base",
        "src/backends/rocm/:1: backends: CMakeLists.txt calls no nodescope_backend(rocm",
        "src/backends/rocm/:1: backends: no entry_point.cc",
        "src/backends/rocm/:1: backends: no tracer on the skeleton",
        "src/backends/rocm/:1: backends: no tracer registered",
        "src/backends/rocm/:1: backends: no launcher registered",
        "src/backends/rocm/:1: backends: docs/ARCHITECTURE.md does not name it",
        "src/backends/cuda/:1: backends: no tracer registered",
        "src/backends/cuda/t.cc:2: backends: a backend registered under a name written out",
    }
    with tempfile.TemporaryDirectory() as root:
        for rel, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                f.write(text)
        problems = check(root, allowed_includes, allowed_sizes)
    missed = [e for e in sorted(expected) if not any(p.startswith(e) for p in problems)]
    extra = [p for p in problems if not any(p.startswith(e) for e in expected)]
    for p in problems:
        print("found:", p)
    for e in missed:
        print("self-test: NOT FOUND:", e)
    for p in extra:
        print("self-test: UNEXPECTED:", p)
    if missed or extra or len(problems) != len(expected):
        print(f"self-test failed: {len(problems)} problems found, {len(expected)} expected")
        return 1
    print(f"self-test passed: all {len(expected)} planted violations found, nothing else")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    problems = check(args.root, ALLOWED_INCLUDES, ALLOWED_SIZES)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} problem(s): see docs/ARCHITECTURE.md for the rules")
        return 1
    n = sum(1 for _ in source_files(args.root))
    print(f"source rules hold: {n} files checked ({len(ALLOWED_INCLUDES)} include and "
          f"{len(ALLOWED_SIZES)} size allowances)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
