#!/usr/bin/env bash
# `pperf report` (and `run`/`compare --html/--markdown`) in a real browser: Debian's headless
# chromium renders the self-contained HTML to a PNG (expected size, not blank, no network) and
# its dumped DOM holds the charts and the figures of the results file; with --history the trend
# charts mark the change point at the run where the level moved.
# usage: tests/e2e/report_test.sh PATH/TO/pperf
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
golden=tests/data/results/run_tiny.json
render() {  # render HTML PNG WIDTH HEIGHT: screenshot and DOM dump, no network allowed
  chromium --headless --no-sandbox --disable-gpu --host-resolver-rules="MAP * ~NOTFOUND" \
    --screenshot="$2" --window-size="$3,$4" "file://$1" >"$work/chromium.log" 2>&1 &&
  chromium --headless --no-sandbox --disable-gpu --host-resolver-rules="MAP * ~NOTFOUND" --dump-dom "file://$1" >"${2%.png}.dom" 2>>"$work/chromium.log"
}
png_check() {  # png_check PNG WIDTH HEIGHT: that size, and not blank (many colours, ink on most bands)
  /usr/bin/python3 - "$@" <<'PY'
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
w, h = int(sys.argv[2]), int(sys.argv[3])
assert im.size == (w, h), im.size
colours = im.getcolors(1 << 24)
assert len(colours) > 50, f"only {len(colours)} colours"
# Ink (non-background) in at least 6 of 10 horizontal bands: the page is filled, not blank.
px = im.load()
bands = 0
for b in range(10):
    ys = range(b * h // 10, (b + 1) * h // 10, 7)
    dark = sum(1 for y in ys for x in range(0, w, 7) if sum(px[x, y]) < 600)
    bands += dark > 20
assert bands >= 6, f"ink in {bands} of 10 bands"
PY
}

# --- bad input -----------------------------------------------------------------------------------
check "--help" expect_exit 0 "$work/o" "$pperf" report --help
check "no output asked for" one_line_error "^pperf report: --html: give --html OUT.html and/or --markdown OUT.md$" "$pperf" report "$golden"
check "missing results" one_line_error "^$work/none.json: cannot open file$" "$pperf" report "$work/none.json" --html "$work/x.html"
check "--history without a database" one_line_error "^$work/none.sqlite: no history database here" \
  "$pperf" report "$golden" --html "$work/x.html" --history "$work/none.sqlite"

# --- a run report --------------------------------------------------------------------------------
check "report" expect_exit 0 "$work/o" "$pperf" report "$golden" --html "$work/r.html" --markdown "$work/r.md"
check "self-contained: no script, no external reference" bash -c "! grep -qiE '<script|<link|src=|url\(|https?://' '$work/r.html'"
check "render" render "$work/r.html" "$work/r.png" 1100 1800
check "PNG: 1100x1800, not blank" png_check "$work/r.png" 1100 1800
check "DOM: every chart and the figures" /usr/bin/python3 - "$work/r.png" "$golden" <<'PY'
import json, re, sys
dom = open(sys.argv[1].replace(".png", ".dom")).read()
j = json.load(open(sys.argv[2]))
for chart in ("cost-bars", "step-distribution", "improvement"):
    assert f'data-chart="{chart}"' in dom, chart
assert j["config"]["sha256"] in dom and j["pricing"]["table"] in dom and j["host"]["cpu_model"] in dom
for r in j["results"]:
    usd = float(re.search(r'data-configuration="%s" data-usd-per-100-steps="([^"]+)"' % r["configuration"], dom).group(1))
    assert abs(usd - r["cost"]["usd_per_step"] * 100) < 1e-5 * usd, (r["configuration"], usd)
    med = float(re.search(r'class="distribution" data-configuration="%s" data-median-ms="([^"]+)" data-n="(\d+)"' % r["configuration"], dom).group(1))
    assert abs(med - r["step_time_ms"]["median"]) < 1e-5 * med
    if r["improvement_pct"] is not None:
        imp = float(re.search(r'data-configuration="%s" data-improvement-pct="([^"]+)"' % r["configuration"], dom).group(1))
        assert abs(imp - r["improvement_pct"]) < 1e-4 * abs(imp) + 1e-9
assert dom.count('class="whisker"') >= 3 * 3  # cost whiskers: a line and two caps per bar
assert 'id="trends"' not in dom  # no history asked for
print("ok")
PY
check "markdown: a row per result" bash -c "[ \$(grep -c '^| mnist_heavy/tiny batch 32 |' '$work/r.md') -eq 3 ] && grep -q 'pperf report: tiny-run' '$work/r.md'"

# --- with history: trend charts and the change point ---------------------------------------------
# Fourteen nights: ten at one level (within +-1 %), then four 12 % slower (git shas name the nights).
for i in $(seq 1 14); do
  d=$(printf '%02d' "$i")
  slow='pass'; [ "$i" -gt 10 ] && slow='for r in j["results"]: slow(r, 1.12)'
  edit "$golden" "$work/n$i.json" "j['started_at'] = '2026-12-${d}T02:00:00Z'" "j['tool']['git_sha'] = 'night${d}' + 'a' * 33" \
    "for k, r in enumerate(j['results']): slow(r, 1 + 0.01 * ((7 * $i + 3 * k) % 5 - 2) / 2)" "$slow"
done
"$pperf" history record --db "$work/h.sqlite" $(for i in $(seq 1 13); do echo "$work/n$i.json"; done) >/dev/null
check "report --history" expect_exit 0 "$work/o" "$pperf" report "$work/n14.json" --history "$work/h.sqlite" --html "$work/t.html" --markdown "$work/t.md"
check "render with trends" render "$work/t.html" "$work/t.png" 1100 3000
check "PNG with trends: 1100x3000, not blank" png_check "$work/t.png" 1100 3000
check "DOM: trend charts for every pair, the change point at night 11" /usr/bin/python3 - "$work/t.png" <<'PY'
import re, sys
dom = open(sys.argv[1].replace(".png", ".dom")).read()
assert 'id="trends"' in dom
for pair in ("ondemand", "spot", "service"):
    for chart in ("trend-median", "trend-cost"):
        assert re.search(r'data-chart="%s" data-series="mnist_heavy/tiny/32 %s" data-runs="14"' % (chart, pair), dom), (chart, pair)
marks = re.findall(r'class="change-point" data-run="(\d+)" data-git-sha="([^"]+)"', dom)
assert len(marks) == 6 and all(sha.startswith("night11") and run == "11" for run, sha in marks), marks
print("ok")
PY
check "markdown names the change point" bash -c "grep -q 'run 11 .night11' '$work/t.md' && grep -q '13 complete run(s)' '$work/t.md'"

# --- pperf run and pperf compare write them directly -------------------------------------------------
check "run --html --markdown" expect_exit 0 "$work/run.out" "$pperf" run --config tests/data/tiny_run.json --out "$work/run.json" \
  --html "$work/run.html" --markdown "$work/run.md"
check "run says where" bash -c "grep -q '^report: $work/run.html$' '$work/run.out' && grep -q 'data-chart=\"cost-bars\"' '$work/run.html' && grep -q 'tiny-run' '$work/run.md'"
check "run --history --html: trends" expect_exit 0 "$work/o" "$pperf" run --config tests/data/tiny_run.json --out "$work/run2.json" \
  --history "$work/runs.sqlite" --html "$work/run2.html"
check "... with this run in them" bash -c "grep -q 'id=\"trends\"' '$work/run2.html' && grep -q 'this run among them' '$work/run2.html'"
edit "$golden" "$work/g100.json" 'for k, r in enumerate(j["results"]): synth(r, 10 * (1 + k), 100, 0.03, k)'
edit "$work/g100.json" "$work/g_slow.json" 'slow(j["results"][0], 1.5)'
check "compare --html --markdown" expect_exit 1 "$work/o" "$pperf" compare "$work/g100.json" "$work/g_slow.json" --html "$work/c.html" --markdown "$work/c.md"
check "render compare" render "$work/c.html" "$work/c.png" 1100 900
check "compare PNG: 1100x900, not blank" png_check "$work/c.png" 1100 900
check "compare DOM: the change chart and verdicts" /usr/bin/python3 - "$work/c.png" <<'PY'
import re, sys
dom = open(sys.argv[1].replace(".png", ".dom")).read()
assert 'data-chart="change"' in dom
verdicts = re.findall(r'class="pair" data-verdict="(\w+)" data-change-pct="([^"]+)"', dom)
assert len(verdicts) == 3, verdicts
assert [v for v, c in verdicts] == ["regressed", "unchanged", "unchanged"] and float(verdicts[0][1]) > 30, verdicts
print("ok")
PY

finish
