#!/usr/bin/env bash
# `pperf export --format gbench|csv`, read by google/benchmark's own compare.py (Debian's
# libbenchmark-tools): it parses pperf runs, and its median and mean changes are the samples'
# (its mean change is pperf compare's). The CSV has one row per result with the JSON's figures.
# usage: tests/e2e/export_test.sh PATH/TO/pperf
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
comparepy=/usr/share/benchmark/compare.py
golden=tests/data/results/run_tiny.json

check "compare.py is installed (scripts/setup-test-tools.sh)" test -f "$comparepy"
check "--help" expect_exit 0 "$work/o" "$pperf" export --help
check "unknown format" one_line_error "^pperf export: --format: expected console, csv, html, markdown, gbench, json, got 'gbnch' \(did you mean 'gbench'\?\)$" "$pperf" export "$golden" --format gbnch
check "missing file" one_line_error "^$work/none.json: cannot open file$" "$pperf" export "$work/none.json" --format csv
check "missing --format" one_line_error "^pperf export: --format: " "$pperf" export "$golden"

# --- Google Benchmark JSON ----------------------------------------------------------------------
check "run" expect_exit 0 "$work/o" "$pperf" run --config tests/data/tiny_run.json --out "$work/a.json"
edit "$work/a.json" "$work/b.json" 'for i, r in enumerate(j["results"]): resample(r, i); slow(r, 1.10)'
check "export a" expect_exit 0 "$work/o" "$pperf" export "$work/a.json" --format gbench --out "$work/a.gb.json"
check "export b to stdout" bash -c "'$pperf' export '$work/b.json' --format gbench >'$work/b.gb.json'"
check "gbench layout" json_check "$work/a.gb.json" '
set(j) == {"context", "benchmarks"}
j["context"]["executable"] == "pperf" and j["context"]["num_cpus"] >= 1 and j["context"]["date"].endswith("+00:00")
j["context"]["pperf_config"] == "tiny-run" and len(j["context"]["pperf_config_sha256"]) == 64
[b["name"] for b in j["benchmarks"] if b["run_type"] == "aggregate"][:4] == ["mnist_heavy/tiny/batch:32/ondemand_" + a for a in ("mean", "median", "stddev", "cv")]
all(b["time_unit"] == "ms" and b["iterations"] == 1 and b["real_time"] == b["cpu_time"] for b in j["benchmarks"])
all("usd_per_step" in b and "samples_per_s" in b for b in j["benchmarks"])
len([b for b in j["benchmarks"] if b["run_type"] == "iteration"]) == sum(r["step_time_ms"]["n"] for r in json.load(open(sys.argv[1].replace(".gb", ""))) ["results"])'
check "compare.py reads it" bash -c "/usr/bin/python3 '$comparepy' --no-color -d '$work/dump.json' benchmarks '$work/a.gb.json' '$work/b.gb.json' >'$work/cmp.out' 2>&1"
check "compare.py names every pair" bash -c "for c in ondemand spot service; do grep -q \"^mnist_heavy/tiny/batch:32/\${c}_median \" '$work/cmp.out' || exit 1; done && grep -q 'U Test, Repetitions' '$work/cmp.out'"
"$pperf" compare "$work/a.json" "$work/b.json" --out "$work/pp.json" >/dev/null
check "compare.py's median change = the samples', mean change = pperf compare's" /usr/bin/python3 -c "
import json
dump = {d['name']: d for d in json.load(open('$work/dump.json'))}
pp = json.load(open('$work/pp.json'))
a = json.load(open('$work/a.json')); b = json.load(open('$work/b.json'))
for p, ra, rb in zip(pp['pairs'], a['results'], b['results']):
    name = 'mnist_heavy/tiny/batch:32/' + p['configuration']
    mean_change = dump[name + '_mean']['measurements'][0]['time']
    assert abs(mean_change - p['change_pct'] / 100) < 1e-3, (name, mean_change, p['change_pct'])
    change = dump[name + '_median']['measurements'][0]['time']
    want = rb['step_time_ms']['median'] / ra['step_time_ms']['median'] - 1
    import statistics
    got_median = statistics.median(rb['step_time_ms']['samples']) / statistics.median(ra['step_time_ms']['samples']) - 1
    assert abs(change - got_median) < 1e-9, (name, change, got_median)
print('ok')"
check "a cost run: one repetition per result" bash -c "'$pperf' export configs/../tests/data/results/cost_seed000_ex1.json --format gbench --out '$work/cost.gb.json'"
check "cost layout" json_check "$work/cost.gb.json" '
[b["repetitions"] for b in j["benchmarks"] if b["run_type"] == "iteration"] == [1, 1]
abs([b for b in j["benchmarks"] if b["run_type"] == "iteration"][0]["real_time"] - 192) < 1e-9
abs([b for b in j["benchmarks"] if b["run_type"] == "iteration"][0]["usd_per_step"] * 100 - 0.20101) < 1e-4'
check "compare.py on cost runs" bash -c "/usr/bin/python3 '$comparepy' --no-color benchmarks '$work/cost.gb.json' '$work/cost.gb.json' >'$work/o' 2>&1"

# --- CSV ---------------------------------------------------------------------------------------
check "csv" expect_exit 0 "$work/o" "$pperf" export "$work/a.json" --format csv --out "$work/a.csv"
check "csv: one row per result, the JSON's figures" /usr/bin/python3 -c "
import csv, json
rows = list(csv.DictReader(open('$work/a.csv')))
j = json.load(open('$work/a.json'))
assert len(rows) == len(j['results']) == 3
for row, r in zip(rows, j['results']):
    assert row['configuration'] == r['configuration']
    assert abs(float(row['step_ms_median']) - r['step_time_ms']['median']) < 1e-9 * r['step_time_ms']['median']
    assert abs(float(row['usd_per_step']) - r['cost']['usd_per_step']) < 1e-9 * r['cost']['usd_per_step']
print('ok')"

# --- every other format of the registry (reports/writer.h) ---------------------------------------
for f in console html markdown json; do
  check "export --format $f" expect_exit 0 "$work/o" "$pperf" export "$golden" --format "$f" --out "$work/g.$f"
done
check "json export reads back as the same results" /usr/bin/python3 -c "
import json
a = json.load(open('$golden')); b = json.load(open('$work/g.json'))
assert [r['step_time_ms']['samples'] for r in a['results']] == [r['step_time_ms']['samples'] for r in b['results']]
assert a['config'] == b['config'] and a['pricing'] == b['pricing']
print('ok')"
check "console export to a file: every column" bash -c "grep -q 'median ms 95% CI' '$work/g.console' && grep -q 'MFU %' '$work/g.console'"
check "markdown export: the table" bash -c "[ \$(grep -c '^| mnist_heavy/tiny batch 32 |' '$work/g.markdown') -eq 3 ]"

finish
