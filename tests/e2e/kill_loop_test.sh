#!/usr/bin/env bash
# Kill loop (issue 13): SIGKILL `pperf run` at random moments, at least 10 times, and check the
# results file is then absent or valid JSON that the results reader accepts, never truncated;
# and that no measuring child or data worker outlives the killed run.
# Usage: kill_loop_test.sh PPERF [ROUNDS]
source "$(dirname "$0")/lib.sh"
rounds="${2:-12}"

# A run that keeps writing: per-item results land after each item, so kills hit writes.
python3 -c "
import json; c = json.load(open('tests/data/tiny_run.json'))
c['measure'] = {'warmup_steps': 0, 'min_steps': 6, 'max_steps': 8, 'max_seconds': 5, 'target_rel_ci': 1e-9}
json.dump(c, open('$work/kill.json', 'w'))"

RANDOM=13  # reproducible moments
for i in $(seq 1 "$rounds"); do
  rm -f "$work/out.json"
  "$pperf" run --config "$work/kill.json" --out "$work/out.json" --quiet >/dev/null 2>&1 &
  pid=$!
  delay_ms=$((100 + RANDOM % 3900))
  sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  if [ -e "$work/out.json" ]; then
    check "round $i (killed at ${delay_ms} ms): the file is valid JSON" /usr/bin/python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$work/out.json"
    check "round $i: the results reader accepts it" expect_exit 0 "$work/o" "$pperf" export "$work/out.json" --format csv --out "$work/out.csv"
  else
    check "round $i (killed at ${delay_ms} ms): no file yet" true
  fi
  # Children die with their parent (PR_SET_PDEATHSIG); give the kernel a moment.
  for _ in 1 2 3 4 5 6 7 8 9 10; do no_process "$work/kill.json" && break; sleep 0.2; done
  check "round $i: no child outlives the run" no_process "$work/kill.json"
done
finish
