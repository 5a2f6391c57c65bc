#!/usr/bin/env python3
"""Edits a pperf results file for tests: edit_results.py IN OUT STATEMENT...

Each STATEMENT is Python run with `j` (the document) and these helpers in scope:
  slow(r, factor)    every step-time figure of result r (samples, median, CI, spread,
                     throughput, cost) scaled as if each step took `factor` times as long
  price(r, factor)   result r's instance prices and cost scaled by `factor` (same step times)
  resample(r, seed)  result r's samples drawn again, with replacement, from its own samples
                     (median, CI and cost follow): a second run without any drift
  synth(r, median, n, cv, seed)  result r's samples replaced by n log-normal draws around
                     `median` ms (spread cv), figures following
The output is written with the indentation pperf uses."""
import json
import random
import statistics
import sys


def slow(r, factor):
    st = r["step_time_ms"]
    st["samples"] = [s * factor for s in st["samples"]]
    for k in ("median", "mean", "stdev", "p5", "p95"):
        if st.get(k) is not None:
            st[k] *= factor
    for k in ("ci95", "mean_ci95"):
        if st.get(k) is not None:
            st[k] = [v * factor for v in st[k]]
    if r.get("throughput"):
        r["throughput"]["samples_per_s"] /= factor
    c = r.get("cost")
    if c:
        scale_cost(c, factor)


def scale_cost(c, factor):
    c["usd_per_step"] *= factor
    if c.get("usd_per_step_ci95") is not None:
        c["usd_per_step_ci95"] = [v * factor for v in c["usd_per_step_ci95"]]
    c["usd_per_1m_samples"] *= factor
    if c.get("usd_per_1m_samples_ci95") is not None:
        c["usd_per_1m_samples_ci95"] = [v * factor for v in c["usd_per_1m_samples_ci95"]]
    c["samples_per_usd"] /= factor


def price(r, factor):
    for g in r["instances"]:
        g["usd_per_hour"] *= factor
    c = r["cost"]
    c["usd_per_hour"] *= factor
    scale_cost(c, factor)


def resample(r, seed):
    st = r["step_time_ms"]
    rng = random.Random(seed)
    drawn = [rng.choice(st["samples"]) for _ in st["samples"]]
    slow(r, statistics.median(drawn) / st["median"])  # median, CI, spread and cost follow
    st["samples"] = drawn
    set_mean(st, statistics.mean(drawn))


def set_mean(st, mean):
    """The mean of new samples; its interval moves with it (a reader refuses one that misses it)."""
    if st.get("mean_ci95") is not None:
        st["mean_ci95"] = [v + mean - st["mean"] for v in st["mean_ci95"]]
    st["mean"] = mean


def synth(r, median, n, cv, seed):
    st = r["step_time_ms"]
    rng = random.Random(seed)
    drawn = [median * rng.lognormvariate(0, cv) for _ in range(n)]
    slow(r, statistics.median(drawn) / st["median"])
    st["samples"] = drawn
    set_mean(st, statistics.mean(drawn))
    st["n"] = n
    r["measurement"]["data_wait_ms"] = [0.0] * n


def main(argv):
    j = json.load(open(argv[1]))
    scope = {"json": json, "j": j, "slow": slow, "price": price, "resample": resample, "synth": synth}
    for statement in argv[3:]:
        exec(statement, scope)
    with open(argv[2], "w") as f:
        f.write(json.dumps(j, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv)
