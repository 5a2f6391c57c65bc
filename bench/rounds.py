#!/usr/bin/env python3
"""Rounds of a side-by-side benchmark, and how busy the host was in each (benchmarks, not tests).

Every benchmark that prints a ratio uses this module, so they all report it the same way: each
round's ratio with the load beside it, then the median with min..max over the rounds, and how
many rounds were busy. Standard library only.

As a library:
    with Load() as load: ...            # load.result: the round's load (see Load)
    report(title, rows, a, b, unit)     # rows: [{"a": x, "b": y, **load}], ratio a / b
As commands (for shell scripts):
    rounds.py run LOAD_JSON -- COMMAND [ARG...]   run COMMAND, write its round's load to LOAD_JSON
    rounds.py report --title T --a NAME --b NAME --unit U ROWS_JSONL
        ROWS_JSONL: one {"a": x, "b": y, "loads": [load, ...]} per line, one line per round
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

# pperf's own busy-host warning threshold (src/core/bottleneck.cpp): other processes' share of
# all the host's CPUs at or above which a round is flagged.
BUSY_OTHERS_PCT = 25.0
# Fewer rounds than this range too widely on a shared host to be quoted.
MIN_ROUNDS = 5


def _busy_and_total_s():
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    tick = os.sysconf("SC_CLK_TCK")
    return (sum(fields[:8]) - idle) / tick, sum(fields[:8]) / tick


def _descendants_cpu_s(pid):
    """CPU seconds of pid's live descendants (with their reaped children): processes this one
    started and has not waited for, e.g. a server it keeps running, are its own work too."""
    tick = os.sysconf("SC_CLK_TCK")
    parent, cpu = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(entry)] = int(fields[1])
        cpu[int(entry)] = sum(int(x) for x in fields[11:15]) / tick  # utime stime cutime cstime

    def under(p):
        while p > 1:
            p = parent.get(p, 0)
            if p == pid:
                return True
        return False

    return sum(c for p, c in cpu.items() if under(p))


def _own_cpu_s():
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return (me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime
            + _descendants_cpu_s(os.getpid()))


class Load:
    """Measures one round. On exit, `result` holds: wall_s, own_cpu_s (this process and every
    process it started), others_cpu_pct (every other process's CPU time as a share of all the
    host's CPUs, from /proc/stat less the round's own), load_average_1m at the end, and busy
    (others_cpu_pct >= BUSY_OTHERS_PCT)."""

    def __enter__(self):
        self._busy0, self._total0 = _busy_and_total_s()
        self._own0, self._wall0 = _own_cpu_s(), time.monotonic()
        return self

    def __exit__(self, *exc):
        wall = time.monotonic() - self._wall0
        own = _own_cpu_s() - self._own0
        busy1, total1 = _busy_and_total_s()
        capacity = total1 - self._total0
        others = max(0.0, (busy1 - self._busy0) - own)
        pct = 100 * others / capacity if capacity > 0 else 0.0
        self.result = {"wall_s": wall, "own_cpu_s": own, "others_cpu_pct": pct,
                       "load_average_1m": os.getloadavg()[0], "busy": pct >= BUSY_OTHERS_PCT}
        return False


def merge(loads):
    """One round's load from the loads of its parts: the busiest part's figures."""
    return {"others_cpu_pct": max(x["others_cpu_pct"] for x in loads),
            "load_average_1m": max(x["load_average_1m"] for x in loads),
            "busy": any(x["busy"] for x in loads)}


def spread(values):
    """'median (min..max)' of ratios, as every benchmark quotes them."""
    return f"{statistics.median(values):.2f}x ({min(values):.2f}..{max(values):.2f})"


def report(title, rows, a, b, unit, out=sys.stdout):
    """Prints each round's a, b (in unit), ratio a / b and load, then the median ratio with its
    min..max and the number of busy rounds. Returns the ratios."""
    ratios = [r["a"] / r["b"] for r in rows]
    print(title, file=out)
    print(f"  {'round':>5} {a + ' ' + unit:>18} {b + ' ' + unit:>18} {'ratio':>7} {'others CPU %':>12} {'load 1m':>8}",
          file=out)
    for i, (r, q) in enumerate(zip(rows, ratios)):
        print(f"  {i + 1:>5} {r['a']:18.3f} {r['b']:18.3f} {q:6.2f}x {r['others_cpu_pct']:12.0f}"
              f" {r['load_average_1m']:8.2f}{'  busy' if r['busy'] else ''}", file=out)
    busy = sum(r["busy"] for r in rows)
    print(f"  ratio {a} / {b}: median {spread(ratios)} over {len(rows)} rounds; {busy} busy"
          f" round{'s' if busy != 1 else ''} (others used >= {BUSY_OTHERS_PCT:.0f} % of the CPUs)", file=out)
    if len(rows) < MIN_ROUNDS:
        print(f"  {len(rows)} rounds: fewer than {MIN_ROUNDS}, not a figure to quote", file=out)
    return ratios


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "run" and sys.argv[3] == "--":
        with Load() as load:
            status = subprocess.call(sys.argv[4:])
        with open(sys.argv[2], "w") as f:
            json.dump(load.result, f)
        sys.exit(status)
    p = argparse.ArgumentParser(usage=__doc__)
    p.add_argument("command", choices=["report"])
    p.add_argument("--title", required=True)
    p.add_argument("--a", required=True)
    p.add_argument("--b", required=True)
    p.add_argument("--unit", required=True)
    p.add_argument("rows")
    args = p.parse_args()
    rows = []
    for line in open(args.rows):
        r = json.loads(line)
        rows.append({"a": r["a"], "b": r["b"], **merge(r["loads"])})
    report(args.title, rows, args.a, args.b, args.unit)


if __name__ == "__main__":
    main()
