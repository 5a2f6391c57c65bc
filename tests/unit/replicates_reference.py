#!/usr/bin/env python3
"""Reference figures for tests/unit/test_replicates.cpp, from the definitions in
src/stats/replicates.h (the replicates' paired log ratios pooled by between_hosts.h's rule;
a contended run's interval widened by the between-run spread), written apart from them
(standard library only; Student t from decision_reference.py).
Run: python3 tests/unit/replicates_reference.py"""
import contextlib
import io
import math
import os
import sys
from statistics import NormalDist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
with contextlib.redirect_stdout(io.StringIO()):
    from decision_reference import t_quantile  # noqa: E402


def pooled(estimates, confidence=0.95):
    """estimates: (log ratio, se, dof). Returns (mean, variance, dof, tau2, [lo, hi])."""
    k = len(estimates)
    v = sum(se * se * max(d, 4) / (max(d, 4) - 2) for _, se, d in estimates) / k
    mean = sum(y for y, _, _ in estimates) / k
    scatter = sum((y - mean) ** 2 for y, _, _ in estimates) / (k - 1)
    tau2 = max(0.0, scatter - v)
    var = max((v + tau2) / k, scatter / k)
    half = t_quantile(1 - (1 - confidence) / 2, k - 1) * math.sqrt(var)
    return mean, var, k - 1, tau2, [mean - half, mean + half]


def improvement(log_interval, price=1.0):
    return [(1 - price * math.exp(log_interval[1])) * 100, (1 - price * math.exp(log_interval[0])) * 100]


for name, est in [("spread", [(0.0, 0.03, 100), (0.1, 0.03, 100), (0.2, 0.03, 100)]),
                  ("agree", [(-0.10, 0.01, 59), (-0.12, 0.01, 59), (-0.11, 0.01, 59), (-0.10, 0.01, 59), (-0.12, 0.01, 59)])]:
    m, var, dof, tau2, ci = pooled(est)
    print(f"{name}: mean {m:.17g} variance {var:.17g} dof {dof} tau2 {tau2:.17g} log ci {ci[0]:.17g} {ci[1]:.17g} "
          f"improvement {improvement(ci)[0]:.17g} {improvement(ci)[1]:.17g}")

# with_contention: bounds [2, 8] % at price ratio 1, widened by 0.077 at z(0.975).
lo, hi = math.log(1 - 0.08), math.log(1 - 0.02)
c, h = (lo + hi) / 2, (hi - lo) / 2
z = NormalDist().inv_cdf(0.975)
w = math.sqrt(h * h + (z * 0.077) ** 2)
print("contended:", " ".join(f"{x:.17g}" for x in improvement([c - w, c + w])))
