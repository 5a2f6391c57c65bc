#!/usr/bin/env bash
# The run session from outside: `validate` and `run --dry-run` agree on every shipped config and
# every refusal fixture; the main job in a real 100-column terminal (tmux) shows its progress
# within seconds and draws no line wider than the terminal; a terminal's Ctrl-C keeps every
# measured step; nothing is drawn when stderr is not a terminal; a full disk loses no result and
# never replaces an earlier --out with less.
# usage: tests/e2e/run_session_test.sh PATH/TO/pperf
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# --- validate and run's preflight agree ---------------------------------------------------
# Agree: run --dry-run exits 0 <=> validate says "runnable here: yes" (exit 0); run refuses with
# line L (exit 2) <=> validate exits 2 with L, or lists L's pointer under "runnable here: no".
agree() {  # agree CONFIG [FLAGS...]
  local config="$1"; shift
  "$pperf" validate --config "$config" "$@" >"$work/v.out" 2>&1; local v=$?
  "$pperf" run --dry-run --quiet --config "$config" "$@" >"$work/r.out" 2>&1; local r=$?
  if [ "$r" -eq 0 ]; then
    [ "$v" -eq 0 ] && grep -q '^runnable here: yes$' "$work/v.out" && return 0
  elif [ "$r" -eq 2 ]; then
    local line pointer
    line="$(cat "$work/r.out")"
    if [ "$v" -eq 2 ] && [ "$(cat "$work/v.out")" = "$line" ]; then return 0; fi
    # "FILE: POINTER: not runnable on this host: REASON" <-> "  POINTER: REASON (configuration 'x')"
    pointer="$(sed -n 's/^[^ ]*: \(\/[^:]*\): not runnable on this host: .*/\1/p' "$work/r.out")"
    [ "$v" -eq 0 ] && [ -n "$pointer" ] && grep -q '^runnable here: no' "$work/v.out" && grep -qF "  $pointer: " "$work/v.out" && return 0
  fi
  echo "  run --dry-run exit $r:"; sed 's/^/    /' "$work/r.out"; echo "  validate exit $v:"; sed 's/^/    /' "$work/v.out"
  return 1
}
for config in configs/*.json; do
  # A priced-only config is `cost`'s: validate says valid, run refuses (nothing to measure).
  if grep -q '"step_time_ms"' "$config"; then
    check "priced only: $(basename "$config")" bash -c "'$pperf' validate --config '$config' | grep -q 'priced only' &&
      '$pperf' run --dry-run --config '$config' 2>&1 | grep -q 'use .pperf cost.'"
    continue
  fi
  check "agree: $(basename "$config")" agree "$config"
done
fixture() {  # fixture NAME PYTHON-EDIT: configs/p3_vs_hetero_mnist_python.json edited into $work/NAME.json
  /usr/bin/python3 - "$work/$1.json" "$2" <<'PY'
import json, sys
c = json.load(open("configs/p3_vs_hetero_mnist_python.json"))
c["workloads"] = c["workloads"][1:]
for d in (x["execution"]["data"] for x in c["configurations"]):
    d["python_path"] = ["%s/python/examples" % __import__("os").getcwd()]
exec(sys.argv[2])
json.dump(c, open(sys.argv[1], "w"))
PY
}
fixture dataset_missing 'c["configurations"][0]["execution"]["data"]["dataset"] = "no_such_module:make"'
check "agree: a Python dataset that does not import" agree "$work/dataset_missing.json"
check "  ... refused by both"  grep -q "no_such_module" "$work/r.out"
fixture dataset_raises 'c["configurations"][1]["execution"]["data"]["dataset_kwargs"]["root"] = "/nonexistent"'
check "agree: a dataset factory that raises" agree "$work/dataset_raises.json"
fixture not_here 'c["configurations"][1]["execution"]["cpus"] = [64]'
check "agree: not runnable here" agree "$work/not_here.json"
check "agree: a batch over --max-memory" agree configs/smoke.json --max-memory 0.01
check "  ... refused by both"  grep -q "does not fit in memory" "$work/r.out"
cat >"$work/step_missing.json" <<EOF
{"name": "s", "pricing": {"table": "aws-ec2-us-east-1"},
 "workloads": [{"name": "python_step", "batch_size": 4, "params": {"step": "no_such_step_module:make", "python": "/usr/bin/python3"}}],
 "measure": {"warmup_steps": 1, "min_steps": 2, "max_steps": 4},
 "configurations": [{"name": "a", "baseline": true, "instances": [{"type": "c5.9xlarge"}]}]}
EOF
check "agree: a Python step that does not import" agree "$work/step_missing.json"
check "  ... refused by both"  grep -q "no_such_step_module" "$work/r.out"

# --- the main job in a real terminal ------------------------------------------------------
config="$work/main.json"
/usr/bin/python3 - "$config" <<'PY'
import json, sys
c = json.load(open("configs/p4d_vs_hetero.json"))
c["measure"].update({"max_steps": 400, "max_seconds": 12})  # long enough to watch, short for CI
json.dump(c, open(sys.argv[1], "w"))
PY
session="pperf-session-test-$$"
trap 'tmux kill-session -t "$session" 2>/dev/null; [ -n "${KEEP_WORK:-}" ] || rm -rf "$work"' EXIT
tmux new-session -d -s "$session" -x 100 -y 50 "bash --norc"
tmux send-keys -t "$session" "cd '$root' && '$pperf' run --config '$config' --out '$work/main.out'; echo EXIT=\$? >'$work/exit'" Enter
# Sample the pane every 0.5 s until the run ends.
progress_seen_at="" widest=0 lines_seen=""
for i in $(seq 1 400); do
  sleep 0.5
  pane="$(tmux capture-pane -p -t "$session")"
  width="$(printf '%s\n' "$pane" | awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }')"
  [ "$width" -gt "$widest" ] && widest="$width"
  if [ -z "$progress_seen_at" ] && printf '%s\n' "$pane" | grep -qE 'resnet50_augment round [0-9]+: [0-9]+ steps each, ETA'; then
    progress_seen_at="$i"
    lines_seen="$(printf '%s\n' "$pane" | grep -E 'resnet50_augment round')"
  fi
  [ -f "$work/exit" ] && break
done
tmux capture-pane -p -t "$session" -S -200 >"$work/pane.txt"
check "terminal: the run ended"               grep -q 'EXIT=0' "$work/exit"
check "terminal: the turns' progress line drawn" test -n "$progress_seen_at"
echo "  (first seen $(awk "BEGIN { print $progress_seen_at * 0.5 }") s after the start: $lines_seen)"
check "terminal: no line wider than 100 columns" test "$widest" -le 100
# On a terminal the stale-price warning is one line that fits (the full sentence goes to logs).
check "terminal: the price warning one line"  bash -c "grep -qE '^pperf: warning: [a-z0-9-]+: prices' '$work/pane.txt' && ! grep -qE '^.{101}' '$work/pane.txt'"
check "terminal: the table printed"           grep -q '^results: ' "$work/pane.txt"

# --- nothing drawn when stderr is not a terminal -------------------------------------------
"$pperf" run --config "$config" --out "$work/plain.json" >"$work/plain.out" 2>"$work/plain.err"
check "not a terminal: no control characters" bash -c "! grep -qP '[\r\x1b]' '$work/plain.err'"
check "not a terminal: a line per item start and end" bash -c "[ \$(grep -c ': started (item' '$work/plain.err') -eq 2 ] && [ \$(grep -c 'ms/step' '$work/plain.err') -eq 2 ]"

# --- Ctrl-C from the terminal keeps every measured step -----------------------------------
rm -f "$work/exit"
long="$work/long.json"
/usr/bin/python3 - "$long" <<'PY'
import json, sys
c = json.load(open("configs/p4d_vs_hetero.json"))
c["measure"].update({"max_steps": 100000, "max_seconds": 600, "min_steps": 100000})
json.dump(c, open(sys.argv[1], "w"))
PY
echo '{"an": "earlier results file"}' >"$work/ctrlc.json"
tmux send-keys -t "$session" "clear; '$pperf' run --config '$long' --out '$work/ctrlc.json'; echo EXIT=\$? >'$work/exit'" Enter
for i in $(seq 1 240); do
  sleep 0.5
  tmux capture-pane -p -t "$session" | grep -qE 'round [4-9]|round [1-9][0-9]' && break
done
check "Ctrl-C: the earlier --out untouched while measuring" grep -q 'earlier results file' "$work/ctrlc.json"
check "Ctrl-C: an in-progress file beside it" test -f "$work/ctrlc.json.in-progress"
tmux send-keys -t "$session" C-c
for i in $(seq 1 120); do sleep 0.5; [ -f "$work/exit" ] && break; done
check "Ctrl-C: pperf exits 3 (interrupted)" grep -q 'EXIT=3' "$work/exit"
check "Ctrl-C: the results keep every measured step" json_check "$work/ctrlc.json" '
j["status"] == "interrupted"
len(j["results"]) == 2
all(r["status"] == "ok" for r in j["results"])
all(r["stop_reason"] == "interrupted" for r in j["results"])
all(r["step_time_ms"]["n"] >= 40 and len(r["step_time_ms"]["samples"]) == r["step_time_ms"]["n"] for r in j["results"])
all(r["cost"]["usd_per_step"] > 0 for r in j["results"])'
check "Ctrl-C: the in-progress file removed" test ! -e "$work/ctrlc.json.in-progress"
check "Ctrl-C: no measuring process left" no_process "measure-item --config $long"

# --- a full disk ---------------------------------------------------------------------------
if mkdir -p "$work/full" && mount -t tmpfs -o size=256k tmpfs "$work/full" 2>/dev/null; then
  trap 'tmux kill-session -t "$session" 2>/dev/null; umount "$work/full" 2>/dev/null; [ -n "${KEEP_WORK:-}" ] || rm -rf "$work"' EXIT
  head -c 300k /dev/zero >"$work/full/fill" 2>/dev/null
  check "full disk at the start: refused, exit 2" one_line_error "^--out: cannot write the run's in-progress file: .*No space left on device" \
    "$pperf" run --config configs/smoke.json --out "$work/full/r.json" --quiet
  rm -f "$work/full/fill"
  echo '{"an": "earlier results file"}' >"$work/full/r.json"
  # Room for the in-progress header, not for the finished results.
  avail=$(df -B1 --output=avail "$work/full" | tail -1)
  head -c $((avail - 12288)) /dev/zero >"$work/full/fill"
  TMPDIR="$work" "$pperf" run --config configs/smoke.json --out "$work/full/r.json" >"$work/full.out" 2>&1
  code=$?
  check "full disk at the end: exit 3"               test "$code" -eq 3
  check "  ... the table printed"                    grep -q 'one-loader-thread \*' "$work/full.out"
  check "  ... the earlier --out untouched"          grep -q 'earlier results file' "$work/full/r.json"
  kept="$(sed -n 's/.*; the results are in \(.*\)$/\1/p' "$work/full.out")"
  check "  ... the results kept where it says"       test -n "$kept"
  check "  ... and they are whole"                   json_check "${kept:-/nonexistent}" '
j["status"] == "complete"
len(j["results"]) == 2 and all(r["status"] == "ok" for r in j["results"])'
  umount "$work/full"
else
  echo "skip full disk (cannot mount a tmpfs: not root)"
fi

finish
