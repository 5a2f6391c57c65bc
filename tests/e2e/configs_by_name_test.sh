#!/usr/bin/env bash
# `--config NAME` runs a shipped config from any directory (issue 27), with the build's pperf
# (configs from the source tree) and an installed one (`cmake --install`: P/share/pperf/configs);
# a name found nowhere is one line naming where pperf looked, with the closest shipped names;
# `pperf list configs` lists every shipped config with its description's first sentence.
# usage: tests/e2e/configs_by_name_test.sh BUILD_DIR
set -uo pipefail
build="$(readlink -f "$1")"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$build/pperf"
unset PPERF_DATA_DIR PPERF_HISTORY
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null || { echo "FAIL cmake --install $build"; exit 1; }
check "configs installed" diff -r "$root/configs" "$prefix/share/pperf/configs"

# Each config's expected listing line, computed from the source tree's files.
/usr/bin/python3 - "$root/configs" >"$work/expected_list" <<'PY'
import glob, json, os, re, sys
def first_sentence(d):  # docs/config.md: up to a line break or a ". " (not after e.g, i.e, vs)
    for i, ch in enumerate(d):
        if ch == "\n": return d[:i]
        if d.startswith(". ", i) and not re.search(r"(?<![A-Za-z0-9])(e\.g|i\.e|vs)$", d[:i]): return d[:i + 1]
    return d
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    print(os.path.basename(path)[:-5] + "\t" + first_sentence(json.load(open(path)).get("description", "")))
PY

lists_every_config() {  # lists_every_config LISTING: one line per shipped config, "NAME  SUMMARY"
  /usr/bin/python3 - "$1" "$work/expected_list" <<'PY'
import re, sys
rows = [re.split(r"  +", line.rstrip("\n"), maxsplit=1) for line in open(sys.argv[1]).readlines()[1:]]
expected = [line.rstrip("\n").split("\t") for line in open(sys.argv[2])]
if rows != expected:
    print("  listed:", rows, "\n  expected:", expected); sys.exit(1)
PY
}

list_check() {  # list_check PPERF DIR: `pperf list configs` names DIR, then every config
  "$1" list configs >"$work/list" && head -1 "$work/list" | grep -q "^shipped configs in $2 " && lists_every_config "$work/list"
}

elsewhere="$work/elsewhere"  # outside the repository: no configs/ here
mkdir -p "$elsewhere"
cd "$elsewhere"
for kind in build installed; do
  if [ "$kind" = build ]; then bin="$pperf"; dir="$root/configs"; else bin="$prefix/bin/pperf"; dir="$prefix/share/pperf/configs"; fi
  check "$kind: validate p4d_vs_hetero" bash -c "'$bin' validate --config p4d_vs_hetero | grep -q '^$dir/p4d_vs_hetero.json: valid'"
  check "$kind: validate p4d_vs_hetero.json" bash -c "'$bin' validate --config p4d_vs_hetero.json | grep -q '^$dir/p4d_vs_hetero.json: valid'"
  check "$kind: cost by name" expect_exit 0 "$work/o" "$bin" cost --config seed000_ex1_resnet50_cost --out "$work/$kind.json" \
    --history "$work/$kind.sqlite"
  check "$kind: results record the path read" json_check "$work/$kind.json" "
    j['config']['path'] == '$dir/seed000_ex1_resnet50_cost.json'
    j['config']['name'] == 'seed000-ex1-resnet50-hetero-cost'"
  check "$kind: history records the path read" test "$(/usr/bin/python3 -c "
import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT config_path FROM runs').fetchone()[0])" \
    "$work/$kind.sqlite")" = "$dir/seed000_ex1_resnet50_cost.json"
  check "$kind: misspelt name" one_line_error \
    "^p4d_vs_hetro: no such file in the current directory \($elsewhere\) nor among the shipped configs in $dir \(did you mean 'p4d_vs_hetero'\?\)$" \
    "$bin" validate --config p4d_vs_hetro
  check "$kind: misspelt name, run" one_line_error "^p4d_vs_hetro.json: .* in $dir \(did you mean 'p4d_vs_hetero'\?\)$" \
    "$bin" run --config p4d_vs_hetro.json --out "$work/never.json"
  check "$kind: list configs" list_check "$bin" "$dir"
done

# A file of that name in the current directory wins; the name without .json is still the shipped one.
sed 's/"name": "p4d-vs-hetero"/"name": "my-copy"/' "$root/configs/p4d_vs_hetero.json" >p4d_vs_hetero.json
check "a file here wins" bash -c "'$pperf' validate --config p4d_vs_hetero.json | grep -q '^p4d_vs_hetero.json: valid'"
check "the bare name is still shipped" bash -c "'$pperf' validate --config p4d_vs_hetero | grep -q '^$root/configs/p4d_vs_hetero.json: valid'"
rm p4d_vs_hetero.json

# A measured run by name: its measuring processes re-read the config at the path found. smoke as
# shipped, both configurations: its budget reaches the decision's first look (round 8), or it
# was decided before.
check "installed: run smoke by name" expect_exit 0 "$work/o" "$prefix/bin/pperf" run --config smoke \
  --out "$work/smoke.json" --quiet
check "installed: run recorded the path read" json_check "$work/smoke.json" "
  j['config']['path'] == '$prefix/share/pperf/configs/smoke.json'
  j['status'] == 'complete' and all(r['status'] == 'ok' for r in j['results'])"
# On a host others keep busy (the run records a busy-host event) the steps are the contention's
# and the time budget may end the turns first: said, not checked.
if grep -q '"busy host: ' "$work/smoke.json"; then
  echo "not checked on this busy host: smoke's first look ($(grep -o '"busy host: [^"]*' "$work/smoke.json" | head -1 | cut -c2-))"
else
  check "smoke reaches what it is for: its decision looked (round 8 or decided early)" json_check "$work/smoke.json" "
  j['results'][1]['decision']['looks'] >= 8 or j['results'][1]['decision']['verdict'] != 'undecided'"
fi

# Each shipped measured config's budget (measure.max_steps) against what it is for, by the same
# preflight run and validate use: an interval for every result (pperf decide needs one), and in
# turns, the decision's first look. A config validate refuses here (a Python step without torch)
# is named and skipped.
cd "$root"
export PYTHONPATH="$root/python/examples${PYTHONPATH:+:$PYTHONPATH}"  # the shipped Python steps, as their configs say
for f in configs/*.json; do
  name=$(basename "$f" .json)
  grep -q '"step_time_ms"' "$f" && continue  # priced only: nothing measured
  if ! "$pperf" validate --config "$f" >"$work/v.out" 2>&1; then
    echo "skip budget of $name: validate refuses it here: $(tail -n 1 "$work/v.out")"
    continue
  fi
  check "budget of $name gives an interval and the first look" bash -c "! grep -E '^  measure: max_steps [0-9]+ gives' '$work/v.out' || { cat '$work/v.out'; exit 1; }"
done
finish
