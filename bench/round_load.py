#!/usr/bin/env python3
"""Runs one round of a benchmark and says how busy the host was meanwhile (benchmarks, not tests).

    bench/round_load.py LOAD_JSON -- COMMAND [ARG...]

Runs COMMAND (its output passes through), then writes LOAD_JSON: its wall time (s), the CPU
time it and its children used (s), and the CPU time every other process used meanwhile, as a
share of all the host's CPUs (`others_cpu_pct`, from /proc/stat's busy time less the round's
own) and the 1-minute load average at the end. A round is `busy` when others used 25 % or more
of the CPUs, the threshold of pperf's own busy-host warning (src/core/bottleneck.cpp). Exits
with COMMAND's status. Standard library only.
"""
import json
import os
import resource
import subprocess
import sys
import time

BUSY_OTHERS_PCT = 25.0


def busy_and_total_s():
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    tick = os.sysconf("SC_CLK_TCK")
    return (sum(fields[:8]) - idle) / tick, sum(fields[:8]) / tick


def children_cpu_s():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit("usage: round_load.py LOAD_JSON -- COMMAND [ARG...]")
    out, command = sys.argv[1], sys.argv[3:]
    busy0, total0 = busy_and_total_s()
    own0, wall0 = children_cpu_s(), time.monotonic()
    status = subprocess.call(command)
    wall = time.monotonic() - wall0
    busy1, total1 = busy_and_total_s()
    own = children_cpu_s() - own0
    capacity = total1 - total0  # CPU-seconds the host had (every CPU's ticks)
    others = max(0.0, (busy1 - busy0) - own)
    others_pct = 100 * others / capacity if capacity > 0 else 0.0
    with open(out, "w") as f:
        json.dump({"wall_s": wall, "own_cpu_s": own, "others_cpu_pct": others_pct,
                   "load_average_1m": os.getloadavg()[0], "busy": others_pct >= BUSY_OTHERS_PCT}, f)
    sys.exit(status)


if __name__ == "__main__":
    main()
