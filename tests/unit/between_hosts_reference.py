#!/usr/bin/env python3
"""Reference figures for tests/unit/test_between_hosts.cpp, from the definitions in
src/stats/between_hosts.h, written apart from it (standard library only; Student t from
decision_reference.py). Run: python3 tests/unit/between_hosts_reference.py"""
import contextlib
import io
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
with contextlib.redirect_stdout(io.StringIO()):
    from decision_reference import t_quantile  # noqa: E402  (its own figures are not printed)

LARGE = 1e6


def satterthwaite(parts):
    total = sum(v for v, _ in parts)
    den = sum(v * v / max(d, 1.0) for v, d in parts if v > 0)
    return total * total / den if den > 0 else LARGE


def pool(hosts, external=None):
    """hosts: (log mean, se, dof); external: (cv, hosts, scatter, own). Returns (log mean, variance, dof, tau2, source)."""
    k = len(hosts)
    if k == 1:
        y, se, dof = hosts[0]
        if not external:
            return y, se * se, dof, 0.0, "not_included"
        cv, n, scatter, own = external
        beyond = max(0.0, se * se - own)
        return y, scatter + beyond, satterthwaite([(scatter, n - 1), (beyond, dof)]), cv * cv, "history"
    # Every host weighted by the hosts' average own variance, each se^2 dof / (dof - 2), dof >= 4.
    v = sum(se * se * max(dof, 4) / (max(dof, 4) - 2) for _, se, dof in hosts) / k
    ys = [y for y, _, _ in hosts]
    w = [1 / v] * k
    fixed = sum(wi * y for wi, y in zip(w, ys)) / sum(w)
    q = sum(wi * (y - fixed) ** 2 for wi, y in zip(w, ys))
    tau2 = max(0.0, (q - (k - 1)) / (sum(w) - sum(wi * wi for wi in w) / sum(w)))
    ws = [1 / (v + tau2)] * k
    mean = sum(wi * y for wi, y in zip(ws, ys)) / sum(ws)
    hk = sum(wi * (y - mean) ** 2 for wi, y in zip(ws, ys)) / ((k - 1) * sum(ws))
    return mean, max(1 / sum(ws), hk), k - 1.0, tau2, "replicates"


def with_prior(p, cv):
    y, v, dof, tau2, source = p
    if source != "not_included":
        return p
    return y, v + cv * cv, satterthwaite([(v, dof), (cv * cv, LARGE)]), cv * cv, "prior"


def interval(b, c, conf=0.95):
    d = c[0] - b[0]
    dof = satterthwaite([(b[1], b[2]), (c[1], c[2])])
    dof = LARGE if not dof > 0 or dof >= LARGE else dof
    h = t_quantile(1 - (1 - conf) / 2, dof) * math.sqrt(b[1] + c[1])
    return d - h, d + h


def decision_interval(b, c, cv, conf=0.95):
    own, wp = interval(b, c, conf), interval(with_prior(b, cv), with_prior(c, cv), conf)
    return min(own[0], wp[0]), max(own[1], wp[1])


if __name__ == "__main__":
    base = [(0.0, 0.01, 29), (0.02, 0.012, 19), (-0.01, 0.008, 5)]
    cand = [(0.05, 0.01, 29), (0.03, 0.02, 19)]
    pb, pc = pool(base), pool(cand)
    print("three hosts: log mean %.17g variance %.17g dof %g tau2 %.17g" % pb[:4])
    print("two hosts: log mean %.17g variance %.17g dof %g tau2 %.17g" % pc[:4])
    print("interval %.17g %.17g" % interval(pb, pc))
    one_b, one_c = pool([(0.0, 0.01, 5)]), pool([(0.1, 0.02, 19)])
    print("one host a side, 5 %% prior: %.17g %.17g" % decision_interval(one_b, one_c, 0.05))
    print("one host a side, own: %.17g %.17g" % interval(one_b, one_c))
    print("three hosts against one host, 5 %% prior: %.17g %.17g" % decision_interval(pb, one_c, 0.05))
    hist = pool([(0.1, 0.02, 19)], (0.02, 5, 5e-4, 0.5e-4))
    print("one host with a history of 5 against three hosts: %.17g %.17g" % interval(pb, hist))
