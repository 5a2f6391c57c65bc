#!/usr/bin/env python3
"""Reference figures for tests/unit/test_intervals.cpp's mean intervals, from the definitions in
src/stats/intervals.h (batch means, Hall's skew correction of Student t, the batch means' lag-1
the larger of their own and the one the steps' lag-1 implies under AR(1)). Debian's numpy and
scipy: run /usr/bin/python3 tests/unit/intervals_reference.py"""
import numpy as np
from scipy import stats


def lag1_log(v):
    d = np.log(v) - np.log(v).mean()
    return (d[1:] * d[:-1]).sum() / (d * d).sum()


def corrected(r, n, most=0.9):  # Marriott-Pope, clamped
    return min(max(r + (1 + 3 * r) / n, 0.0), most)


def block_means_lag1(rho, b):  # summed term by term: no closed form shared with the code
    if rho <= 0:
        return 0.0
    n = int(round(b))
    cov = sum(rho ** (n + j - i) for i in range(n) for j in range(n))
    var = sum(rho ** abs(i - j) for i in range(n) for j in range(n))
    return cov / var


def mean_interval(x):
    n = len(x)
    k = max(6, min(30, n // 10))
    b = np.array([x[j * n // k:(j + 1) * n // k].mean() for j in range(k)])
    r = max(corrected(lag1_log(b), k), min(0.9, block_means_lag1(corrected(lag1_log(x), n, 0.99), n / k)))
    m = b.mean()
    se = b.std(ddof=1) / np.sqrt(k) * np.sqrt((1 + r) / (1 - r))
    skew = ((b - m) ** 3).mean() / b.std(ddof=0) ** 3
    t, a = stats.t.ppf(0.975, k - 1), skew / (3 * np.sqrt(k))
    inverse = lambda z: (np.cbrt(1 + 3 * a * (z - a / 2)) - 1) / a
    return r, m - se * inverse(t), m - se * inverse(-t)


wave = np.array([100 + 10 * np.sin(i / 8.0) + (i * 37 % 11) + (60 if i % 17 == 3 else 0) for i in range(60)])
print("wave: r' %.4f, [%r, %r]" % mean_interval(wave))
s, ar = 0.0, []
for i in range(120):
    s = 0.8 * s + ((i * 7919) % 13 - 6) / 6.0
    ar.append(100 * np.exp(0.05 * s))
print("AR(1), periodic drive: r' %.4f, [%r, %r]" % mean_interval(np.array(ar)))

# Issue 60: 60 steps switching between ~14 and ~30 ms (runs of 9, 13, 17, 11 and 10 steps, slow
# first): the widened t interval before it is kept within the fastest and slowest step.
regimes, i = [], 0
for run, slow in zip([9, 13, 17, 11, 10], [True, False, True, False, True]):
    for _ in range(run):
        regimes.append((30.0 if slow else 14.0) + ((i * 37) % 11 - 5) * 0.1)
        i += 1
regimes = np.array(regimes)
r, lo, hi = mean_interval(regimes)
print("regimes: lag-1 %.4f, r' %.4f, mean %r, unbounded [%r, %r], fastest %r, slowest %r"
      % (lag1_log(regimes), r, regimes.mean(), lo, hi, regimes.min(), regimes.max()))
