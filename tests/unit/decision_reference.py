#!/usr/bin/env python3
"""Reference figures for tests/unit/test_decision.cpp, from the definitions in src/stats/decision.h
(standard library only: Student t by its regularised incomplete beta, the mixture boundary, the
horizon factor by the same density integration). Run: python3 tests/unit/decision_reference.py"""
import math
from statistics import NormalDist


def betacf(a, b, x):
    # Lentz's continued fraction for the incomplete beta (Numerical Recipes 6.4).
    tiny, c, d = 1e-300, 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10000):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)), -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + num * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return h


def t_cdf(x, df):
    xb = df / (df + x * x)
    lbeta = math.lgamma(df / 2) + math.lgamma(0.5) - math.lgamma(df / 2 + 0.5)
    front = math.exp(df / 2 * math.log(xb) + 0.5 * math.log(1 - xb) - lbeta)
    if xb < (df / 2 + 1) / (df / 2 + 2.5):
        tail = front * betacf(df / 2, 0.5, xb) / (df / 2)
    else:
        tail = 1 - front * betacf(0.5, df / 2, 1 - xb) / 0.5
    return 1 - tail / 2 if x > 0 else tail / 2


def t_quantile(p, df):
    lo, hi = 0.0, 1e6
    for _ in range(300):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_cdf(mid, df) < p else (lo, mid)
    return (lo + hi) / 2


def mixture_z(t, alpha, planned=30):
    rho2 = (-2 * math.log(alpha) + math.log(-2 * math.log(alpha) + 1)) / planned
    v = t * rho2 + 1
    return math.sqrt(2 * v / (t * rho2) * math.log(math.sqrt(v) / alpha))


def crossing_probability(k, m, h, alpha, planned=30):
    step, half = 0.1, 80
    kernel = [step * math.exp(-0.5 * (i * step) ** 2) / math.sqrt(2 * math.pi) for i in range(-half, half + 1)]
    var0 = m - 1
    w = int(8 * math.sqrt(var0) / step) + 1 if var0 > 0 else 0
    f = [step * math.exp(-0.5 * (i * step) ** 2 / var0) / math.sqrt(2 * math.pi * var0) for i in range(-w, w + 1)] if var0 > 0 else [1.0]
    crossed = 0.0
    for t in range(m, h + 1):
        b = k * mixture_z(t, alpha, planned) * math.sqrt(t) / step
        nw = math.ceil(b - 0.5)
        inside = b - (nw - 0.5)
        g = [0.0] * (2 * nw + 1)
        total = 0.0
        for i in range(-w, w + 1):
            fi = f[i + w]
            if fi < 1e-300:
                continue
            total += fi
            for j in range(max(-half, -nw - i), min(half, nw - i) + 1):
                g[i + j + nw] += fi * kernel[j + half]
        g[0] *= inside
        g[-1] *= inside
        crossed += total - sum(g)
        f, w = g, nw
    return crossed


def horizon_scale(m, h, alpha, share=0.4):
    lo, hi = 0.3, 1.0
    if crossing_probability(1, m, h, alpha) < share * alpha:
        while hi - lo > 1e-4:
            k = (lo + hi) / 2
            lo, hi = (k, hi) if crossing_probability(k, m, h, alpha) > share * alpha else (lo, k)
    return hi


def halfwidth(sd, t, alpha, scale=1.0):
    small = t_quantile(1 - alpha / 2, t - 1) / NormalDist().inv_cdf(1 - alpha / 2)
    return scale * small * sd * mixture_z(t, alpha) / math.sqrt(t)


def widening(psi):
    t, m = len(psi), sum(psi) / len(psi)
    den = sum((x - m) ** 2 for x in psi)
    num = sum((psi[j] - m) * (psi[j - 1] - m) for j in range(1, t))
    r = min(0.9, max(0.0, num / den + (1 + 3 * num / den) / t + 0.5 / math.sqrt(t)))
    return math.sqrt((1 + r) / (1 - r))


def paired(b, c):
    mb, mc = sum(b) / len(b), sum(c) / len(c)
    psi = [c[j] / mc - b[j] / mb for j in range(len(b))]
    m = sum(psi) / len(psi)
    sd = math.sqrt(sum((x - m) ** 2 for x in psi) / (len(psi) - 1))
    return math.log(mc / mb), psi, sd


def improvement(lo, hi, price):
    return (1 - price * math.exp(hi)) * 100, (1 - price * math.exp(lo)) * 100


ALPHA = 0.05
SEQ_ALPHA = ALPHA * (1 - 0.1)  # early looks take 10 % of alpha
EARLY_LEVEL = 1 - ALPHA * 0.1 / 2  # the default: looks at rounds 6 and 7
EARLY_LEVEL_FROM_5 = 1 - ALPHA * 0.1 / 3  # early_look_rounds 5: looks at rounds 5, 6 and 7
b = [100 + (j * 7 % 5) for j in range(12)]
c = [90 + (j * 3 % 4) + (j % 2) for j in range(12)]
lr, psi, sd = paired(b, c)
half = halfwidth(sd, 12, SEQ_ALPHA) * widening(psi)
print("sequence alpha", SEQ_ALPHA, "early look level", EARLY_LEVEL)
print("12 reference rounds, price 1.05: improvement", improvement(lr - half, lr + half, 1.05))
for t in range(6, 8):
    lr7, psi7, sd7 = paired(b[:t], c[:t])
    eh = t_quantile(0.5 + EARLY_LEVEL / 2, t - 1) * sd7 / math.sqrt(t) * widening(psi7)
    print(f"early look at {t} rounds, price 1.05: improvement", improvement(lr7 - eh, lr7 + eh, 1.05))
print("horizon scale, first look 8, horizon 20:", horizon_scale(8, 20, SEQ_ALPHA))
# tests/unit/test_threshold_edges.cpp's rounds(5): the early look at 5 rounds, widened for the
# rounds' correlation (r' clamped at 0.9 for these periodic rounds: x 4.3589).
b5 = [100 + (j % 3) for j in range(5)]
c5 = [50 + ((j + 1) % 4) * 0.5 for j in range(5)]
lr5, psi5, sd5 = paired(b5, c5)
eh5 = t_quantile(0.5 + EARLY_LEVEL_FROM_5 / 2, 4) * sd5 / math.sqrt(5) * widening(psi5)
print("threshold edges, 5 rounds: widening", widening(psi5), "improvement", improvement(lr5 - eh5, lr5 + eh5, 1.0))


# Issue 40 item 9: the rounds' correlation from the steps within them (step_implied and the
# guarded widening in decision.h), for tests/unit/test_decision.cpp's StepsWithinRounds test.
GAP = 1  # kAssumedGapSteps


def ar1_round(rho, n, gap=GAP):
    c = [rho ** k for k in range(n)]
    a = [sum(c[abs(i - k)] for k in range(n)) for i in range(n)]
    g = sum(a)
    mean_var = g
    a = [x / n for x in a]
    g /= n * n
    square = sum(1 - 2 * a[i] + g for i in range(n))
    lag = sum(c[1] - a[i] - a[i + 1] + g for i in range(n - 1))
    return lag, square, mean_var, rho ** (gap + 1) * sum(c) ** 2


def fit_side(steps, n, rounds):
    m = sum(steps[: rounds * n]) / (rounds * n)
    lag = square = 0.0
    for j in range(rounds):
        x = steps[j * n:(j + 1) * n]
        rm = sum(x) / n
        d = [(v - rm) / m for v in x]
        square += sum(v * v for v in d)
        lag += sum(d[i] * d[i + 1] for i in range(n - 1))
    observed = lag / square
    ratio = lambda rho: ar1_round(rho, n)[0] / ar1_round(rho, n)[1]
    lo, hi = 0.0, 0.99
    if observed <= ratio(lo):
        hi = 0.0
    elif observed >= ratio(hi):
        lo = hi
    while hi - lo > 1e-6:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if ratio(mid) < observed else (lo, mid)
    _, sq, mv, nc = ar1_round(hi, n)
    step_var = square / (rounds * sq)
    return hi, mv * step_var / n ** 2, nc * step_var / n ** 2


def step_implied(bs, cs, n, rounds):
    _, vb, cb = fit_side(bs, n, rounds)
    _, vc, cc = fit_side(cs, n, rounds)
    return (cb + cc) / (vb + vc), vb + vc


def widening_with_steps(psi, lag1_steps, var_steps):
    t, m = len(psi), sum(psi) / len(psi)
    den = sum((x - m) ** 2 for x in psi)
    num = sum((psi[j] - m) * (psi[j - 1] - m) for j in range(1, t))
    lag1, variance = num / den, den / (t - 1)
    corrected, se = lag1 + (1 + 3 * lag1) / t, 1 / math.sqrt(t)
    rounds_rule = corrected + 0.5 * se
    if corrected > lag1_steps + 1.645 * se:
        r = rounds_rule
    else:
        e = min(1.0, max(0.0, 1 - var_steps / (variance * math.exp(0.5 * math.sqrt(2 / (t - 1))))))  # kUnexplainedZ = 0.5
        explained = (1 - e) * lag1_steps
        r = min(max(rounds_rule, explained), explained + e)
    r = min(0.9, max(0.0, r))
    return math.sqrt((1 + r) / (1 - r))


def ar1_steps(level, offset):
    # 12 rounds of 10 steps from a deterministic AR(1) chain (lag-1 0.8, a side's whole run; the
    # un-timed steps between rounds left out): strongly correlated steps whose 12 round means
    # alone show little.
    state, out = 0.0, []
    for k in range(120):
        u = ((k * 37 + offset) % 17 - 8) / 4.9
        state = 0.8 * state + 0.6 * u
        out.append(level * (1 + 0.03 * state))
    return out


bs, cs = ar1_steps(100, 3), ar1_steps(90, 11)
means = lambda s: [sum(s[j * 10:(j + 1) * 10]) / 10 for j in range(12)]
lr_s, psi_s, sd_s = paired(means(bs), means(cs))
lag1_s, var_s = step_implied(bs, cs, 10, 12)
print("steps within rounds: rho baseline", fit_side(bs, 10, 12)[0], "candidate", fit_side(cs, 10, 12)[0])
print("step-implied terms' lag-1", lag1_s, "variance", var_s, "terms' variance", sd_s ** 2)
w_steps, w_means = widening_with_steps(psi_s, lag1_s, var_s), widening(psi_s)
print("widening from the steps", w_steps, "from the round means", w_means)
h_steps = halfwidth(sd_s, 12, SEQ_ALPHA) * w_steps
print("log ratio", lr_s, "anytime half-width from the steps", h_steps, "from the means", halfwidth(sd_s, 12, SEQ_ALPHA) * w_means)
