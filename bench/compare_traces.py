#!/usr/bin/env python3
"""Two traces of the same training step side by side, kernel by kernel: pperf's
(`pperf run --trace DIR`) and a peer's (`bench/peers/*.py --trace FILE`), or any two Chrome
traces whose steps are ranges named ProfilerStep#N. Per step (the mean over each trace's steps):
the step's time, the GPU kernels' count and time by kernel class and by name, the GPU's idle
time inside the step, memory copies, and on the CPU the launches (count, the gaps between them)
and the time spent waiting for the GPU. Without GPU events (a CPU trace) it compares the CPU
operators instead (aten::*, by name). Standard library only.

usage: bench/compare_traces.py [--top N] A.json B.json [--names A-NAME B-NAME]
The last line is a one-line summary (scripts/gpu-check.sh prints it).
"""
import argparse
import collections
import json
import re
import statistics
import sys

STEP = re.compile(r"ProfilerStep#\d+")
# Kernel classes by name, first match wins (cuBLAS/CUTLASS GEMMs, cuDNN convolutions, ...).
CLASSES = [
    ("gemm", re.compile(r"gemm|cutlass|xmma|nvjet|cublas|matmul|_mma_|wgrad|dgrad", re.I)),
    ("convolution", re.compile(r"conv|cudnn|implicit|winograd|fft", re.I)),
    ("attention/softmax", re.compile(r"softmax|flash|attention|fmha", re.I)),
    ("normalization", re.compile(r"norm|welford", re.I)),
    ("optimizer (multi-tensor)", re.compile(r"multi_tensor|foreach|adam|sgd", re.I)),
    ("reduction", re.compile(r"reduce|sum_kernel|mean", re.I)),
    ("copy/cast/layout", re.compile(r"copy|cast|transpose|cat_|index|gather|scatter|permute|contiguous", re.I)),
    ("elementwise", re.compile(r"elementwise|vectorized|unrolled|pointwise|gelu|activation|add|mul|fill", re.I)),
]
LAUNCH = re.compile(r"^(cuda|cu)LaunchKernel|^cudaGraphLaunch|^cuGraphLaunch|^cudaLaunchCooperativeKernel")
WAIT = re.compile(r"Synchronize|cudaMemcpy(Async)?$|cudaStreamWaitEvent|cudaEventSynchronize")


def kernel_class(name):
    for label, pattern in CLASSES:
        if pattern.search(name):
            return label
    return "other"


def load(path):
    doc = json.load(open(path))
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    complete = [e for e in events if e.get("ph") == "X" and "dur" in e and "ts" in e]
    for e in complete:
        e["ts"], e["dur"] = float(e["ts"]), float(e["dur"])
    # The CPU's ranges: on a GPU Kineto repeats each annotation on the GPU's timeline
    # (cat gpu_user_annotation), spanning the kernels launched inside it.
    steps = sorted((e for e in complete if STEP.fullmatch(e.get("name", "")) and e.get("cat") != "gpu_user_annotation"),
                   key=lambda e: e["ts"])
    if not steps:
        sys.exit(f"compare_traces: {path}: no ProfilerStep#N ranges (not a trace of pperf's or a peer's steps)")
    return complete, steps


def union_us(intervals):
    total, end = 0.0, None
    for start, stop in sorted(intervals):
        if end is None or start > end:
            total += stop - start
            end = stop
        elif stop > end:
            total += stop - end
            end = stop
    return total


def summarize(path):
    complete, steps = load(path)
    n = len(steps)
    s = {"steps": n, "step_us": statistics.mean(e["dur"] for e in steps), "kernels": collections.Counter(),
         "kernel_us": collections.Counter(), "class_us": collections.Counter(), "class_n": collections.Counter(),
         "ops": collections.Counter(), "memcpy_us": 0.0, "memcpy_n": 0, "launches": 0, "gaps": [], "wait_us": 0.0,
         "gpu_busy_us": 0.0, "gpu": False}
    for step in steps:
        lo, hi = step["ts"], step["ts"] + step["dur"]
        inside = [e for e in complete if lo <= e["ts"] < hi and e is not step]
        busy = []
        launches = []
        for e in inside:
            cat, name = e.get("cat", ""), e.get("name", "")
            if cat == "kernel":
                s["gpu"] = True
                s["kernels"][name] += 1
                s["kernel_us"][name] += e["dur"]
                s["class_us"][kernel_class(name)] += e["dur"]
                s["class_n"][kernel_class(name)] += 1
                busy.append((e["ts"], e["ts"] + e["dur"]))
            elif cat in ("gpu_memcpy", "gpu_memset"):
                s["gpu"] = True
                s["memcpy_us"] += e["dur"]
                s["memcpy_n"] += 1
                busy.append((e["ts"], e["ts"] + e["dur"]))
            elif cat in ("cuda_runtime", "cuda_driver"):
                if LAUNCH.search(name):
                    launches.append(e)
                elif WAIT.search(name):
                    s["wait_us"] += e["dur"]
            elif cat in ("cpu_op", "") and name.startswith("aten::"):
                s["ops"][name] += 1
        s["gpu_busy_us"] += union_us(busy)
        launches.sort(key=lambda e: e["ts"])
        s["launches"] += len(launches)
        s["gaps"] += [b["ts"] - (a["ts"] + a["dur"]) for a, b in zip(launches, launches[1:])]
    for key in ("kernels", "kernel_us", "class_us", "class_n", "ops"):
        s[key] = collections.Counter({k: v / n for k, v in s[key].items()})
    for key in ("memcpy_us", "memcpy_n", "launches", "wait_us", "gpu_busy_us"):
        s[key] /= n
    return s


def ms(us):
    return f"{us / 1000:.3f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--names", nargs=2, default=["pperf", "peer"])
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    A, B = summarize(args.a), summarize(args.b)
    na, nb = args.names
    print(f"per step, mean over {A['steps']} ({na}) and {B['steps']} ({nb}) traced steps; times in ms")
    print(f"{'':34} {na:>12} {nb:>12} {'ratio':>7}")

    def row(label, x, y, fmt=ms):
        ratio = f"{x / y:.3f}" if y else "-"
        print(f"{label:34} {fmt(x):>12} {fmt(y):>12} {ratio:>7}")

    count = lambda v: f"{v:.1f}"
    row("step (the ProfilerStep range)", A["step_us"], B["step_us"])
    if A["gpu"] or B["gpu"]:
        row("GPU busy (kernels, copies)", A["gpu_busy_us"], B["gpu_busy_us"])
        row("GPU idle inside the step", A["step_us"] - A["gpu_busy_us"], B["step_us"] - B["gpu_busy_us"])
        row("kernels (count)", sum(A["kernels"].values()), sum(B["kernels"].values()), count)
        row("kernel time (sum)", sum(A["kernel_us"].values()), sum(B["kernel_us"].values()))
        row("memory copies/sets (count)", A["memcpy_n"], B["memcpy_n"], count)
        row("memory copies/sets (time)", A["memcpy_us"], B["memcpy_us"])
        row("CPU: launches (count)", A["launches"], B["launches"], count)
        for label, q in (("CPU: gap between launches, median", 50), ("CPU: gap between launches, p95", 95)):
            pa = statistics.quantiles(A["gaps"], n=100)[q - 1] if len(A["gaps"]) > 1 else 0
            pb = statistics.quantiles(B["gaps"], n=100)[q - 1] if len(B["gaps"]) > 1 else 0
            row(label, pa, pb)
        row("CPU: gaps between launches (sum)", sum(A["gaps"]) / A["steps"], sum(B["gaps"]) / B["steps"])
        row("CPU: waiting for the GPU (sync, D2H)", A["wait_us"], B["wait_us"])
        print("\nkernel time by class (count per step)")
        for c in sorted(set(A["class_us"]) | set(B["class_us"]), key=lambda c: -(A["class_us"][c] + B["class_us"][c])):
            row(f"  {c} ({A['class_n'][c]:.0f} / {B['class_n'][c]:.0f})", A["class_us"][c], B["class_us"][c])
        print(f"\nkernels whose count or time differs most (top {args.top}): count {na} / {nb}, time ms {na} / {nb}")
        names = set(A["kernels"]) | set(B["kernels"])
        diff = sorted(names, key=lambda k: -abs(A["kernel_us"][k] - B["kernel_us"][k]))[: args.top]
        for k in diff:
            print(f"  {A['kernels'][k]:5.1f} / {B['kernels'][k]:5.1f}  {ms(A['kernel_us'][k]):>8} / {ms(B['kernel_us'][k]):>8}  {k[:110]}")
        summary = (f"step {ms(A['step_us'])} / {ms(B['step_us'])} ms; kernels {sum(A['kernels'].values()):.0f} / "
                   f"{sum(B['kernels'].values()):.0f}, kernel time {ms(sum(A['kernel_us'].values()))} / "
                   f"{ms(sum(B['kernel_us'].values()))} ms, GPU idle {ms(A['step_us'] - A['gpu_busy_us'])} / "
                   f"{ms(B['step_us'] - B['gpu_busy_us'])} ms, launches {A['launches']:.0f} / {B['launches']:.0f} ({na} / {nb})")
    else:
        print(f"\nno GPU events: CPU operators (aten::*) per step, the {args.top} that differ most in count")
        names = set(A["ops"]) | set(B["ops"])
        for k in sorted(names, key=lambda k: (-abs(A["ops"][k] - B["ops"][k]), k))[: args.top]:
            print(f"  {A['ops'][k]:7.1f} / {B['ops'][k]:7.1f}  {k}")
        differ = sum(1 for k in names if abs(A["ops"][k] - B["ops"][k]) > 1e-9)
        summary = (f"step {ms(A['step_us'])} / {ms(B['step_us'])} ms; operators {sum(A['ops'].values()):.0f} / "
                   f"{sum(B['ops'].values()):.0f} per step, {len(names)} names, {differ} with different counts ({na} / {nb})")
    print(summary)


if __name__ == "__main__":
    main()
