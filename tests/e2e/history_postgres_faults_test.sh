#!/usr/bin/env bash
# Many writers and faults on a real PostgreSQL history (the server this test starts itself:
# tests/e2e/pg_server.sh): 8 concurrent recorders x 25 runs, one file recorded from two
# recorders at once, the server stopped in the middle of `pperf run --history` (exit 5, one
# line, recorded later), a server down or silent at start (bounded by the connect timeout), a
# statement timeout, a wrong password.
# usage: tests/e2e/history_postgres_faults_test.sh PATH/TO/pperf
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$root/tests/e2e/pg_server.sh"
pg_available || { echo "FAIL the PostgreSQL server (Debian's postgresql, scripts/setup-test-tools.sh) and root are needed"; exit 1; }
pg_start || { echo "FAIL could not start PostgreSQL"; exit 1; }
golden=tests/data/results/run_tiny.json

# 200 distinct results files: the golden file's text with another started_at (one python call).
/usr/bin/python3 - "$golden" "$work" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
old = json.loads(text)["started_at"]
assert text.count(old) == 1
for w in range(8):
    for k in range(25):
        new = "2027-%02d-%02dT%02d:00:00Z" % (w + 1, k + 1, w)
        open(f"{sys.argv[2]}/w{w}_{k}.json", "w").write(text.replace(old, new))
PY

# --- 8 concurrent recorders x 25 runs: exactly 200 runs, none partial -----------------------
many="$(pg_newdb many)"
pids=()
for w in $(seq 0 7); do
  "$pperf" history record --db "$many" $(for k in $(seq 0 24); do echo "$work/w${w}_$k.json"; done) >"$work/rec$w.out" 2>&1 &
  pids+=($!)
done
codes=""
for p in "${pids[@]}"; do wait "$p"; codes+="$?"; done
check "8 recorders: all exit 0" test "$codes" = 00000000
check "8 recorders: exactly 200 runs" test "$(pg_sql "$many" 'SELECT count(*) FROM runs')" = 200
check "8 recorders: 200 distinct ids" test "$(pg_sql "$many" 'SELECT count(DISTINCT id) FROM runs')" = 200
check "8 recorders: none partial (3 results each)" test "$(pg_sql "$many" 'SELECT count(*) FROM runs WHERE (SELECT count(*) FROM results WHERE run_id = runs.id) <> 3')" = 0
check "8 recorders: each said its run" test "$(cat "$work"/rec*.out | grep -c ': recorded as run [0-9]* in ')" = 200
check "8 recorders: the files come back byte for byte" bash -c "
  id=\$(grep '/w3_7.json: recorded' '$work/rec3.out' | sed 's/.* run \([0-9]*\) in .*/\1/')
  '$pperf' history show \$id --db '$many' | cmp - '$work/w3_7.json'"

# --- one results file from two recorders at once: recorded once, both told the same id --------
twice="$(pg_newdb twice)"
files=$(for k in $(seq 0 24); do echo "$work/w0_$k.json"; done)
"$pperf" history record --db "$twice" $files >"$work/t1.out" 2>&1 & a=$!
"$pperf" history record --db "$twice" $files >"$work/t2.out" 2>&1 & b=$!
wait $a; sa=$?; wait $b; sb=$?
check "same files from two recorders: both exit 0" test "$sa$sb" = 00
check "... recorded once" test "$(pg_sql "$twice" 'SELECT count(*) FROM runs')" = 25
ids() { sed 's/.* run \([0-9]*\) in .*/\1/' "$1"; }
check "... both name the same run for each file" bash -c "diff <(sed 's/.* run \([0-9]*\) in .*/\1/' '$work/t1.out') <(sed 's/.* run \([0-9]*\) in .*/\1/' '$work/t2.out')"
check "... 25 already-recorded lines between them" test "$(cat "$work/t1.out" "$work/t2.out" | grep -c 'already recorded as run')" = 25
# A recorder that finds its file being recorded by another waits for that commit (same key).
PPERF_HISTORY_TEST_PAUSE_BEFORE_COMMIT_S=2 "$pperf" history record --db "$twice" "$work/w1_0.json" >"$work/p1.out" 2>&1 & a=$!
for _ in $(seq 100); do grep -q "pausing before commit" "$work/p1.out" && break; sleep 0.05; done
"$pperf" history record --db "$twice" "$work/w1_0.json" >"$work/p2.out" 2>&1; sb=$?
wait $a; sa=$?
check "the second recorder of an uncommitted run waits and is told its id" bash -c "
  [ $sa$sb = 00 ] && id=\$(sed -n 's/.*recorded as run \([0-9]*\) in .*/\1/p' '$work/p1.out') &&
  grep -q \"already recorded as run \$id in\" '$work/p2.out'"

# --- a statement timeout bounds every query -----------------------------------------------------
PPERF_HISTORY_TEST_PAUSE_BEFORE_COMMIT_S=30 "$pperf" history record --db "$twice" "$work/w1_1.json" >"$work/hold.out" 2>&1 & hold=$!
for _ in $(seq 100); do grep -q "pausing before commit" "$work/hold.out" && break; sleep 0.05; done
start=$(date +%s%N)
PGOPTIONS="-c statement_timeout=1000" "$pperf" history record --db "$twice" "$work/w1_1.json" >"$work/to.out" 2>&1; st=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "a blocked statement ends at the statement timeout (exit 3, ${ms} ms)" bash -c "[ $st -eq 3 ] && [ $ms -lt 8000 ] &&
  [ \$(wc -l <'$work/to.out') -eq 1 ] && grep -q 'statement timeout' '$work/to.out'"
start=$(date +%s%N)
PPERF_HISTORY_STATEMENT_TIMEOUT_S=1 "$pperf" history record --db "$twice" "$work/w1_1.json" >"$work/to2.out" 2>&1; st=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "without a bound of its own, pperf sets one (PPERF_HISTORY_STATEMENT_TIMEOUT_S; ${ms} ms)" bash -c "[ $st -eq 3 ] &&
  [ $ms -lt 8000 ] && [ \$(wc -l <'$work/to2.out') -eq 1 ] && grep -q 'statement timeout' '$work/to2.out'"
check "a bad PPERF_HISTORY_STATEMENT_TIMEOUT_S: exit 2" one_line_error "^PPERF_HISTORY_STATEMENT_TIMEOUT_S: expected seconds > 0, got 'soon'" \
  env PPERF_HISTORY_STATEMENT_TIMEOUT_S=soon "$pperf" history list --db "$twice"
kill -KILL "$hold"; wait "$hold" 2>/dev/null

# --- bad credentials or databases: exit 2, one line, nothing written ----------------------------
before=$(pg_sql "$twice" 'SELECT count(*) FROM runs')
wrong="postgresql://pperf:not-the-password@127.0.0.1:$pg_port/twice"
check "wrong password: exit 2, one line" one_line_error "^postgresql://pperf@127.0.0.1:$pg_port/twice: cannot connect: .*password authentication failed" \
  "$pperf" history record --db "$wrong" "$work/w2_0.json"
check "... the password is not in it" bash -c "! grep -q not-the-password '$work/err'"
check "... nothing written" test "$(pg_sql "$twice" 'SELECT count(*) FROM runs')" = "$before"
check "wrong password: run --history refuses before running" one_line_error "password authentication failed" \
  "$pperf" run --config tests/data/tiny_run.json --out "$work/never.json" --history "$wrong"
check "... and nothing ran" test ! -e "$work/never.json"

# --- the server stopped mid-run: the results file stands, one line, exit 5, recorded later ------
mid="$(pg_newdb mid)"
"$pperf" run --config tests/data/tiny_run.json --out "$work/mid.json" --history "$mid" >"$work/mid.out" 2>"$work/mid.err" & run=$!
for _ in $(seq 300); do grep -q "started (item 1" "$work/mid.out" "$work/mid.err" 2>/dev/null && break; sleep 0.1; done
pg_stop
wait "$run"; code=$?
check "server stopped mid-run: exit 5" test "$code" = 5
check "... one line says the history was not recorded" bash -c "[ \$(grep -c '^history not recorded: ' '$work/mid.err') -eq 1 ] &&
  grep -q '^history not recorded: postgresql://pperf@127.0.0.1:$pg_port/mid: .*record them later: pperf history record $work/mid.json' '$work/mid.err'"
check "... the results file is written" json_check "$work/mid.json" 'j["status"] == "complete" and len(j["results"]) == 3'

# --- a server down or silent at start: bounded by the connect timeout, one line -----------------
start=$(date +%s%N)
"$pperf" history list --db "$mid" >"$work/down.out" 2>&1; st=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "server down: exit 3, one line, at once (${ms} ms)" bash -c "[ $st -eq 3 ] && [ \$(wc -l <'$work/down.out') -eq 1 ] &&
  grep -q 'cannot connect: .*Connection refused' '$work/down.out' && [ $ms -lt 5000 ]"
check "server down: run --history fails before running" bash -c "
  '$pperf' run --config tests/data/tiny_run.json --out '$work/never2.json' --history '$mid' >/dev/null 2>'$work/e2'; [ \$? -eq 3 ] &&
  grep -q 'cannot connect' '$work/e2' && [ ! -e '$work/never2.json' ]"
silent_port=$(pg_free_port)
/usr/bin/python3 -c "
import socket, time, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1', $silent_port)); s.listen(8)
print('ready', flush=True)
conns = []
end = time.time() + 30
while time.time() < end:
    s.settimeout(end - time.time())
    try: conns.append(s.accept()[0])
    except OSError: break
" >"$work/silent.out" & silent=$!
for _ in $(seq 50); do grep -q ready "$work/silent.out" && break; sleep 0.1; done
start=$(date +%s%N)
PGCONNECT_TIMEOUT=2 "$pperf" history list --db "postgresql://pperf@127.0.0.1:$silent_port/x" >"$work/silent.err" 2>&1; st=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "a server that accepts and never answers: exit 3 within the connect timeout (${ms} ms)" bash -c "
  [ $st -eq 3 ] && [ \$(wc -l <'$work/silent.err') -eq 1 ] && grep -q 'cannot connect: .*timeout' '$work/silent.err' && [ $ms -lt 8000 ]"
kill "$silent"; wait "$silent" 2>/dev/null

pg_restart
check "recorded later with history record" bash -c "'$pperf' history record --db '$mid' '$work/mid.json' | grep -q 'mid.json: recorded as run 1 in'"
check "... byte for byte" bash -c "'$pperf' history show 1 --db '$mid' | cmp - '$work/mid.json'"

finish
