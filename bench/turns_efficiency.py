#!/usr/bin/env python3
"""What measuring in turns costs, and whether the steps after a switch are biased (benchmark,
not a test; docs/statistics.md "Measuring in turns").

    bench/turns_efficiency.py [--runs R] [--pperf BIN] [--before BIN] [--config C]

Per run, for each binary (alternating which goes first, so both see the same host):
- the config in turns: the share of the turns' wall time spent on measured steps (the sum of
  the configurations' `measurement.elapsed_s` over `turns_wall_s`; for a binary from before
  that field, the pperf command's wall time less its set-up is not known, so the run's own
  wall is used for both), the share of un-timed steps, and the whole command's wall time;
- the config with --sequential: measured steps over warmup + measured steps;
- an A/A run: the config's baseline configuration twice (identical, equal prices): a verdict of
  cheaper or dearer is a false decision.
The sequential and A/A runs take measure.max_seconds = --max-seconds (default 20) at most.
Then, over every round of every turns run: the first timed step after a switch against the
round's other steps (mean relative difference with a 95 % interval): where it differs, the
un-timed steps were too few (faster: a head start left; slower: caches not settled).
Standard library only.
"""
import argparse
import copy
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(binary, config, out, *flags):
    start = time.monotonic()
    subprocess.run([binary, "run", "--config", config, "--out", out, *flags], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    wall = time.monotonic() - start
    with open(out) as f:
        return json.load(f), wall


def turns_figures(doc, wall):
    results = [r for r in doc["results"] if r.get("measurement")]
    m = [r["measurement"] for r in results]
    measured = sum(x["elapsed_s"] for x in m)
    turns_wall = m[0].get("turns_wall_s")
    untimed = sum(x.get("untimed_s", 0) for x in m)
    untimed_steps = sum(x.get("untimed_steps", x.get("untimed_steps_per_round", 0) * max(x["rounds"] - 1, 0)) for x in m)
    timed_steps = sum(len(r["step_time_ms"]["samples"]) for r in results)
    return {"share": measured / turns_wall if turns_wall else None, "untimed_share": untimed / turns_wall if turns_wall else None,
            "share_of_command": measured / wall, "untimed_per_timed": untimed_steps / timed_steps, "wall_s": wall}


def first_step_effects(doc):
    """Per round: the first timed step over the mean of the round's other steps, less 1."""
    out = {}
    for r in doc["results"]:
        m = r.get("measurement") or {}
        k, s = m.get("round_steps"), r["step_time_ms"]["samples"]
        if not k:
            continue
        for i in range(1, len(s) // k):  # the first round follows the warmup, not a switch
            rest = s[i * k + 1:(i + 1) * k]
            out.setdefault(r["configuration"], []).append(s[i * k] / statistics.fmean(rest) - 1)
    return out


def interval(xs):
    mean = statistics.fmean(xs)
    half = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")
    return f"{100 * mean:+.1f} % ({100 * (mean - half):+.1f} to {100 * (mean + half):+.1f} %, {len(xs)} switches)"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--pperf", default=os.path.join(ROOT, "build", "pperf"))
    p.add_argument("--before", help="a second binary measured beside it (e.g. the one before a change)")
    p.add_argument("--config", default=os.path.join(ROOT, "configs", "p4d_vs_hetero.json"))
    p.add_argument("--max-seconds", type=float, default=20, help="measure.max_seconds of the sequential and A/A runs")
    a = p.parse_args()
    binaries = {"now": a.pperf}
    if a.before:
        binaries["before"] = a.before
    with open(a.config) as f:
        config = json.load(f)
    work = tempfile.mkdtemp()
    aa = copy.deepcopy(config)
    base = next(c for c in config["configurations"] if c.get("baseline"))
    aa["name"] = config["name"] + "-aa"
    aa["configurations"] = [dict(copy.deepcopy(base), name="a", baseline=True),
                            dict(copy.deepcopy(base), name="b", baseline=False)]
    # The sequential and A/A runs only need their figures, not the config's whole budget.
    capped = copy.deepcopy(config)
    for c in (capped, aa):
        c["measure"]["max_seconds"] = min(c["measure"].get("max_seconds", 300), a.max_seconds)
    aa_path, seq_path = os.path.join(work, "aa.json"), os.path.join(work, "seq.json")
    for path, doc in ((aa_path, aa), (seq_path, capped)):
        with open(path, "w") as f:
            json.dump(doc, f)
    figures = {name: {"turns": [], "sequential": [], "aa": [], "effects": {}} for name in binaries}
    for r in range(a.runs):
        order = list(binaries.items()) if r % 2 == 0 else list(reversed(binaries.items()))
        for name, binary in order:
            f = figures[name]
            doc, wall = run(binary, a.config, os.path.join(work, "turns.json"))
            f["turns"].append(turns_figures(doc, wall))
            for conf, xs in first_step_effects(doc).items():
                f["effects"].setdefault(conf, []).extend(xs)
            doc, wall = run(binary, seq_path, os.path.join(work, "seq-out.json"), "--sequential")
            m = [x["measurement"] for x in doc["results"] if x.get("measurement")]
            f["sequential"].append(sum(x["elapsed_s"] for x in m) / sum(x["elapsed_s"] + x.get("warmup_s", 0) for x in m))
            doc, _ = run(binary, aa_path, os.path.join(work, "aa-out.json"))
            f["aa"].append(next((x.get("decision") or {}).get("verdict", "none") for x in doc["results"] if x["configuration"] == "b"))
            t = f["turns"][-1]
            share = f"{100 * t['share']:.1f} %" if t["share"] is not None else "-"
            print(f"run {r + 1} {name}: measured share in turns {share}, of the command {100 * t['share_of_command']:.1f} %,"
                  f" sequential {100 * f['sequential'][-1]:.1f} %, A/A {f['aa'][-1]}", flush=True)
    print()
    for name, f in figures.items():
        shares = [t["share"] for t in f["turns"] if t["share"] is not None]
        untimed = [t["untimed_share"] for t in f["turns"] if t["untimed_share"] is not None]
        med = lambda xs: f"{100 * statistics.median(xs):.1f} % ({100 * min(xs):.1f}..{100 * max(xs):.1f})" if xs else "-"
        print(f"{name} ({binaries[name]}), {a.runs} runs of {os.path.basename(a.config)}, median (min..max):")
        print(f"  measured share of the turns' wall time: {med(shares)}; un-timed steps: {med(untimed)}")
        print(f"  measured share of the whole command: {med([t['share_of_command'] for t in f['turns']])};"
              f" --sequential, measured over warmup + measured: {med(f['sequential'])}")
        print(f"  un-timed steps per timed step: {statistics.median(t['untimed_per_timed'] for t in f['turns']):.3f}")
        print(f"  A/A ({len(f['aa'])} runs): " + ", ".join(f"{v} {f['aa'].count(v)}" for v in sorted(set(f["aa"]))))
        for conf, xs in f["effects"].items():
            print(f"  first timed step after a switch against the round's others, {conf}: {interval(xs)}")


if __name__ == "__main__":
    sys.exit(main())
