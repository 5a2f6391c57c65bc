#!/usr/bin/env bash
# End-to-end tests of the history, on either backend: `pperf run --history`, PPERF_HISTORY,
# `history record|list|show|changes|mark|copy`, two recorders at once, a recorder killed inside
# its transaction, plain-SQL queries a dashboard would make, and `compare --against-history`
# with too little history. With `postgresql` the test starts its own server (pg_server.sh:
# initdb in a temp dir, own port on loopback, stopped and removed by a trap) and also checks
# that both backends give the same outputs for the same history, and that `history copy`
# round-trips SQLite -> PostgreSQL -> SQLite.
# usage: tests/e2e/history_test.sh PATH/TO/pperf [sqlite|postgresql]
set -uo pipefail
backend="${2:-sqlite}"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
golden=tests/data/results/run_tiny.json
case "$backend" in
  sqlite)
    newdb() { echo "$work/$1.sqlite"; }
    sql() { sqlite3 "$1" "$2"; }
    schema_version() { sqlite3 "$1" 'PRAGMA user_version'; }
    json_field() { sqlite3 "$1" "SELECT json_extract(results_json, '\$.$3') FROM runs WHERE id = $2"; } ;;
  postgresql)
    source "$root/tests/e2e/pg_server.sh"
    pg_available || { echo "FAIL the PostgreSQL server (Debian's postgresql, scripts/setup-test-tools.sh) and root are needed"; exit 1; }
    pg_start || { echo "FAIL could not start PostgreSQL"; exit 1; }
    export -f pg_sql
    newdb() { pg_newdb "$1"; }
    sql() { pg_sql "$1" "$2"; }
    schema_version() { pg_sql "$1" 'SELECT schema_version FROM pperf_meta'; }
    json_field() { pg_sql "$1" "SELECT (results_json::json) #>> '{$(echo "$3" | sed 's/\[\([0-9]*\)\]/,\1/g; s/\./,/g')}' FROM runs WHERE id = $2"; } ;;
  *) echo "usage: $0 PPERF [sqlite|postgresql]"; exit 2 ;;
esac
echo "backend: $backend"
db="$(newdb h)"

# --- recording from pperf run and from files ------------------------------------------------
check "run --history FILE" expect_exit 0 "$work/run.out" "$pperf" run --config tests/data/tiny_run.json --out "$work/r1.json" --history "$db"
check "run says where it recorded" grep -q "^history: recorded as run 1 in $db$" "$work/run.out"
check "show gives the file back byte for byte" bash -c "'$pperf' history show 1 --db '$db' | cmp - '$work/r1.json'"
check "show --out" bash -c "'$pperf' history show 1 --db '$db' --out '$work/shown.json' && cmp '$work/shown.json' '$work/r1.json'"
check "record files" expect_exit 0 "$work/rec.out" "$pperf" history record --db "$db" "$golden" tests/data/results/cost_seed000_ex1.json
check "record says the ids" bash -c "grep -q 'run_tiny.json: recorded as run 2' '$work/rec.out' && grep -q 'cost_seed000_ex1.json: recorded as run 3' '$work/rec.out'"
check "record twice: the first id" bash -c "'$pperf' history record --db '$db' '$golden' | grep -q 'already recorded as run 2'"
check "list" bash -c "'$pperf' history list --db '$db' | grep -q '^3 run(s) in '"
check "list --json: an array of runs with ids" bash -c "'$pperf' history list --db '$db' --json >'$work/list.json'"
check "list --json fields" json_check "$work/list.json" '
sorted(r["id"] for r in j) == [1, 2, 3] and [r["started_at"] for r in j] == sorted(r["started_at"] for r in j)
all(k in r for r in j for k in ("id", "started_at", "config_name", "config_sha256", "git_sha", "host_fingerprint", "status"))
sorted(r["config_name"] for r in j) == ["seed000-ex1-resnet50-hetero-cost", "tiny-run", "tiny-run"]'
check "list --config --last" bash -c "'$pperf' history list --db '$db' --config tiny-run --last 1 --json | /usr/bin/python3 -c 'import json,sys; j=json.load(sys.stdin); assert [r[\"id\"] for r in j] == [1]'"

# PPERF_HISTORY: the default database, and recording turned on.
envdb="$(newdb env)"
(cd "$work" && PPERF_HISTORY="$envdb" "$pperf" cost --config "$root/configs/seed000_ex1_resnet50_cost.json" --out "$work/c.json" >"$work/env.out" 2>&1)
check "PPERF_HISTORY records" grep -q "recorded as run 1 in $envdb$" "$work/env.out"
check "PPERF_HISTORY is the default --db" bash -c "PPERF_HISTORY='$envdb' '$pperf' history list | grep -q '^1 run(s)'"
(cd "$work" && "$pperf" cost --config "$root/configs/seed000_ex1_resnet50_cost.json" --out "$work/c2.json" --history >"$work/def.out" 2>&1)
check "--history alone: results/history.sqlite" bash -c "grep -q 'in results/history.sqlite' '$work/def.out' && [ -f '$work/results/history.sqlite' ]"

# --- the database: version, WAL, plain SQL for dashboards -----------------------------------
check "schema version" test "$(schema_version "$db")" = 4
if [ "$backend" = sqlite ]; then
  check "WAL" test "$(sql "$db" 'PRAGMA journal_mode')" = wal
else
  check "pperf_meta: one row, the marker" test "$(sql "$db" 'SELECT count(*) FROM pperf_meta')" = 1
  check "run ids from the server (identity)" test "$(sql "$db" "SELECT is_identity FROM information_schema.columns WHERE table_name = 'runs' AND column_name = 'id'")" = YES
fi
check "SQL: medians per configuration" test "$(sql "$db" "SELECT count(*) FROM results JOIN runs ON runs.id = results.run_id WHERE runs.config_name = 'tiny-run' AND results.median_ms > 0 AND results.usd_per_step > 0")" -eq 6
check "SQL: the whole JSON is kept" bash -c "[[ '$(json_field "$db" 1 'results[0].step_time_ms.n')' =~ ^[0-9]+$ ]]"

# --- bad input: one line, exit 2 ----------------------------------------------------------------
check "show unknown id" one_line_error "^pperf history show: RUN_ID: no run 99 in $db$" "$pperf" history show 99 --db "$db"
check "show not an id" one_line_error "^pperf history show: RUN_ID: expected a positive run id, got 'x'$" "$pperf" history show x --db "$db"
check "a malformed URI is bad input: exit 2 naming --db, not the URI" one_line_error \
  "^--db: not a PostgreSQL URI libpq can read: invalid percent-encoded token$" "$pperf" history list --db 'postgresql://%%%'
if [ "$backend" = sqlite ]; then
  check "list without a database" one_line_error "^$work/none.sqlite: no history database here" "$pperf" history list --db "$work/none.sqlite"
else
  check "list without a database" one_line_error "^postgresql://pperf@127.0.0.1:$pg_port/none: cannot connect: .*database \"none\" does not exist" \
    "$pperf" history list --db "postgresql://pperf@127.0.0.1:$pg_port/none"
  check "list on an empty database" one_line_error "^$(newdb blank): no pperf history in this database" "$pperf" history list --db "$(newdb blank)"
fi
check "unknown subcommand" one_line_error "unknown subcommand 'lst' \(did you mean 'list'\?\)" "$pperf" history lst
edit "$golden" "$work/bad.json" 'del j["results"][0]["workload"]'
check "record a bad file: nothing recorded" bash -c "
  '$pperf' history record --db '$db' '$work/r1.json' '$work/bad.json' >'$work/o' 2>'$work/e'; [ \$? -eq 2 ] &&
  grep -q '^$work/bad.json: /results/0/workload: missing required field' '$work/e' && [ \$(wc -l <'$work/e') -eq 1 ]"
check "... nothing recorded" test "$(sql "$db" 'SELECT count(*) FROM runs')" -eq 3
if [ "$backend" = sqlite ]; then
  notdb="$work/text.sqlite"; printf 'hello' >"$notdb"
  newer="$work/newer.sqlite"; cp "$db" "$newer"; newer_runs=3; sql "$newer" 'PRAGMA user_version = 7'
else
  notdb="$(newdb other)"; sql "$notdb" 'CREATE TABLE invoices (id integer)'
  newer="$(newdb newer)"; "$pperf" history record --db "$newer" "$golden" >/dev/null; newer_runs=1
  sql "$newer" 'UPDATE pperf_meta SET schema_version = 7'
fi
check "not a database" one_line_error "^$notdb: not a pperf history database" "$pperf" history list --db "$notdb"
check "not a database: record writes nothing" one_line_error "^$notdb: not a pperf history database" "$pperf" history record --db "$notdb" "$work/r1.json"
if [ "$backend" = postgresql ]; then
  check "... no pperf table made" test "$(sql "$notdb" "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")" = 1
fi
check "newer schema" one_line_error "history schema version 7 is newer than this pperf reads \(4\)" "$pperf" history list --db "$newer"
check "newer schema: record writes nothing" one_line_error "history schema version 7 is newer" "$pperf" history record --db "$newer" "$work/r1.json"
check "... no run added" test "$(sql "$newer" 'SELECT count(*) FROM runs')" = "$newer_runs"
check "--history on a bad database fails before the run" one_line_error "^$notdb: not a pperf history database" \
  "$pperf" run --config tests/data/tiny_run.json --out "$work/never.json" --history "$notdb"
check "... and nothing ran" test ! -e "$work/never.json"

# --- two recorders at once both land; a killed recorder leaves nothing ------------------------
for i in 1 2 3 4; do edit "$golden" "$work/n$i.json" "j['started_at'] = '2026-12-0${i}T01:00:00Z'"; done
cdb2="$(newdb c)"
PPERF_HISTORY_TEST_PAUSE_BEFORE_COMMIT_S=1 "$pperf" history record --db "$cdb2" "$work/n1.json" "$work/n2.json" >"$work/c1.out" 2>&1 &
p1=$!
PPERF_HISTORY_TEST_PAUSE_BEFORE_COMMIT_S=1 "$pperf" history record --db "$cdb2" "$work/n3.json" "$work/n4.json" >"$work/c2.out" 2>&1 &
p2=$!
wait $p1; s1=$?; wait $p2; s2=$?
check "two recorders at once: both exit 0" test "$s1$s2" = 00
check "two recorders at once: all four runs" test "$(sql "$cdb2" 'SELECT count(*) FROM runs')" = 4
check "two recorders at once: all results" test "$(sql "$cdb2" 'SELECT count(*) FROM results')" = 12
PPERF_HISTORY_TEST_PAUSE_BEFORE_COMMIT_S=60 "$pperf" history record --db "$db" "$work/n1.json" >"$work/k.out" 2>&1 &
pk=$!
for _ in $(seq 100); do grep -q "pausing before commit" "$work/k.out" && break; sleep 0.1; done
check "recorder paused inside its transaction" grep -q "pausing before commit" "$work/k.out"
kill -KILL "$pk"; wait "$pk" 2>/dev/null
check "killed recorder: no run" test "$(sql "$db" 'SELECT count(*) FROM runs')" = 3
check "killed recorder: no result rows" test "$(sql "$db" 'SELECT count(*) FROM results WHERE run_id NOT IN (SELECT id FROM runs)')" = 0
if [ "$backend" = sqlite ]; then
  check "killed recorder: database intact" test "$(sql "$db" 'PRAGMA integrity_check')" = ok
else
  for _ in $(seq 50); do [ "$(sql "$db" "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pperf'")" = 0 ] && break; sleep 0.1; done
  check "killed recorder: its session is gone, its transaction rolled back" test "$(sql "$db" "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pperf'")" = 0
fi
# SQLite reuses the rolled-back rowid; PostgreSQL's identity never hands out id 4 again.
after_kill=4; [ "$backend" = postgresql ] && after_kill=5
check "recording after the kill works" bash -c "'$pperf' history record --db '$db' '$work/n1.json' | grep -q 'recorded as run $after_kill in'"

# --- compare --against-history: not enough history is its own outcome ---------------------------
check "first night: a note, exit 0" expect_exit 0 "$work/first.out" "$pperf" compare --against-history 3 --db "$(newdb empty)" "$work/r1.json" \
  --out "$work/first.json" --markdown "$work/first.md"
check "first night: says so" grep -q "^note: not enough history: no history database at $(newdb empty)" "$work/first.out"
check "no run yet: a note, exit 0" expect_exit 0 "$work/zero.out" "$pperf" compare --against-history 3 --db "$db" "$golden"
check "no run yet: says so" grep -q "^note: not enough history: 0 complete run(s) of config 'tiny-run' on host [0-9a-f]* in $db before the candidate (need 1)" "$work/zero.out"
check "first night: outputs say so" bash -c "grep -q 'not enough history' '$work/first.md' && grep -q 'not enough history' '$work/first.json'"
check "--require-history: exit 2" one_line_error "^pperf compare: --against-history: not enough history: .*\(--require-history\)$" \
  "$pperf" compare --against-history 3 --require-history --db "$db" "$golden"
check "--min-history above what there is" one_line_error "need 4\) \(--require-history\)$" \
  "$pperf" compare --against-history 5 --min-history 4 --require-history --db "$cdb2" "$work/n4.json"
check "--against-history with two files" one_line_error "^pperf compare: --against-history: expected only CANDIDATE.json" \
  "$pperf" compare --against-history 3 --db "$db" "$golden" "$golden"
check "the candidate is never its own baseline" expect_exit 0 "$work/o" "$pperf" compare --against-history 5 --db "$cdb2" "$work/n4.json" --out "$work/own.json"
check "... only runs started before it" json_check "$work/own.json" '[r["id"] for r in j["baseline"]["runs"]] == [1, 2, 3] or sorted(r["started_at"] for r in j["baseline"]["runs"]) == ["2026-12-01T01:00:00Z", "2026-12-02T01:00:00Z", "2026-12-03T01:00:00Z"]'
# --- change points: `history changes`, `history mark`, and pooling only after the last change ----
# Fourteen nights of 100 steps per pair: ten at 10 ms, then four 12 % slower (git shas name them).
for i in $(seq 1 15); do
  d=$(printf '%02d' "$i"); level=10; [ "$i" -gt 10 ] && level=11.2
  edit "$golden" "$work/night$i.json" "j['started_at'] = '2027-01-${d}T02:00:00Z'" "j['tool']['git_sha'] = 'night${d}' + 'b' * 33" \
    "for k, r in enumerate(j['results']): synth(r, $level * (1 + k), 100, 0.03, 1000 * $i + k)"
done
cdb="$(newdb changes)"
"$pperf" history record --db "$cdb" $(for i in $(seq 1 10); do echo "$work/night$i.json"; done) >/dev/null
check "the night of the change: regressed" expect_exit 1 "$work/o" "$pperf" compare --against-history 5 --db "$cdb" "$work/night11.json" --out "$work/night11c.json"
check "... against 5 runs as clusters" json_check "$work/night11c.json" '
all(p["verdict"] == "regressed" and p["compared_by"] == "runs" and p["baseline_runs"] == 5 and p["dof"] == 4 for p in j["pairs"])
all(10 < p["change_pct"] < 14 and p["change_pct_ci95"][0] > 5 for p in j["pairs"])'

"$pperf" history record --db "$cdb" "$work/night11.json" "$work/night12.json" "$work/night13.json" >/dev/null
check "history changes" expect_exit 0 "$work/ch.out" "$pperf" history changes --db "$cdb"
check "... names the run where each series changes" bash -c "[ \$(grep -c 'from run 11 (git night11bbbbb, 2027-01-11T02:00:00Z)' '$work/ch.out') -eq 6 ] && grep -q '^6 change point(s) detected in 6 series' '$work/ch.out'"
check "... and stores them for SQL" test "$(sql "$cdb" "SELECT count(*) FROM change_points WHERE source = 'detected' AND run_id = 11")" = 6
check "history changes --json" bash -c "'$pperf' history changes --db '$cdb' --config tiny-run --json >'$work/ch.json'"
check "... fields" json_check "$work/ch.json" '
len(j) == 6 and all(c["run_id"] == 11 and c["git_sha"].startswith("night11") and 10 < c["change_pct"] < 14 for c in j)
sorted(set(c["metric"] for c in j)) == ["median_ms", "usd_per_step"]'
check "--config unknown" one_line_error "^pperf history changes: --config: no runs of config 'tiny-rn'.*did you mean 'tiny-run'" "$pperf" history changes --db "$cdb" --config tiny-rn
check "after the change: pooled only from it, unchanged" expect_exit 0 "$work/o" "$pperf" compare --against-history 5 --db "$cdb" "$work/night14.json" --out "$work/after.json"
check "... the baseline is runs 11-13" json_check "$work/after.json" '
all(p["baseline_runs"] == 3 and p["verdict"] == "unchanged" for p in j["pairs"])
"3 pair(s) only from their last change point on" in j["baseline"]["description"]'
# A change marked by hand counts at once (here: one night after it, too early to be detected).
mdb="$(newdb marked)"
"$pperf" history record --db "$mdb" $(for i in $(seq 1 11); do echo "$work/night$i.json"; done) >/dev/null
"$pperf" compare --against-history 5 --db "$mdb" "$work/night12.json" --out "$work/unmarked.json" >/dev/null
check "without a mark, night 12 pools both levels (runs 7-11)" json_check "$work/unmarked.json" 'all(p["baseline_runs"] == 5 for p in j["pairs"])'

check "history mark" bash -c "'$pperf' history mark 11 --db '$mdb' --note 'new BLAS' | grep -q '^marked a change at run 11 (2027-01-11T02:00:00Z, git night11bbbbb) for every pair'"
check "with the mark: undecided, exit 0" expect_exit 0 "$work/o" "$pperf" compare --against-history 5 --db "$mdb" "$work/night12.json" --out "$work/marked.json"
check "... baseline is run 11 alone, too little to test against" json_check "$work/marked.json" '
all(p["baseline_runs"] == 1 and p["verdict"] == "undecided" and p["p_value"] is None for p in j["pairs"])
j["summary"]["undecided"] == 3 and j["summary"]["min_baseline_runs"] == 3'
check "history changes lists the mark" bash -c "'$pperf' history changes --db '$mdb' | grep -q 'every pair .*marked by hand at run 11 .*: new BLAS'"
check "mark an unknown pair" one_line_error "^pperf history mark: --pair: run 11 has no pair 'mnist_heavy/tiny/32 ondemnd' \(did you mean 'mnist_heavy/tiny/32 ondemand'\?\)" \
  "$pperf" history mark 11 --db "$mdb" --pair "mnist_heavy/tiny/32 ondemnd"

# --- dashboards: the views and the Grafana dashboard's queries ------------------------------------
check "view history_pairs: one row per run x pair" test "$(sql "$cdb" 'SELECT count(*) FROM history_pairs')" = "$(sql "$cdb" 'SELECT count(*) FROM results')"
check "... mean and median with CIs, USD per step inside its CI" test "$(sql "$cdb" "SELECT count(*) FROM history_pairs WHERE status = 'ok' AND
  mean_ci95_lo_ms <= mean_ms AND mean_ms <= mean_ci95_hi_ms AND median_ci95_lo_ms <= median_ms AND median_ms <= median_ci95_hi_ms AND
  usd_per_step_ci95_lo <= usd_per_step AND usd_per_step <= usd_per_step_ci95_hi AND started_epoch_s > 1700000000 AND pair <> ''")" = 39
check "... change points on the runs where they begin" test "$(sql "$cdb" 'SELECT sum(change_points) FROM history_pairs WHERE run_id = 11')" = 6
check "view history_events: the detected change points" test "$(sql "$cdb" "SELECT count(*) FROM history_events WHERE kind = 'detected' AND run_id = 11")" = 6
host=$("$pperf" history list --db "$cdb" --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["host_fingerprint"])')
nq=0 qbad=0
while IFS= read -r -d '' q; do
  nq=$((nq + 1))
  sql "$cdb" "$q" >"$work/dash$nq.out" 2>&1 && [ -s "$work/dash$nq.out" ] || { qbad=$((qbad + 1)); echo "  query $nq:"; head -3 "$work/dash$nq.out"; }
done < <(/usr/bin/python3 tests/e2e/dashboard_queries.py docs/dashboards/pperf-history.json config=tiny-run host="$host")
check "the dashboard's 7 queries run and return rows" test "$nq/$qbad" = 7/0
check "... cost per step: 13 runs x 3 pairs" test "$(wc -l <"$work/dash1.out")" = 39
check "... decisions: the 2 non-baseline pairs of 13 runs" test "$(wc -l <"$work/dash3.out")" = 26
check "... events: the 6 change points" test "$(wc -l <"$work/dash4.out")" = 6

# --- history copy: every run and marked change point, idempotent, ids' order and bytes kept ------
copied="$work/copied.sqlite"; back="$(newdb back)"
check "copy a history" bash -c "'$pperf' history copy '$cdb' '$copied' | grep -q '^copied 13 run(s) (0 already there) and 0 marked'"
check "copy again: nothing doubled" bash -c "'$pperf' history copy '$cdb' '$copied' | grep -q '^copied 0 run(s) (13 already there)'"
check "copy back" bash -c "'$pperf' history copy '$copied' '$back' | grep -q '^copied 13 run(s) (0 already there)'"
ids_and_shas() { "$pperf" history list --db "$1" --json | /usr/bin/python3 -c 'import json,sys; [print(r["results_sha256"]) for r in sorted(json.load(sys.stdin), key=lambda r: r["id"])]'; }
export -f ids_and_shas; export pperf
check "copies keep the ids' order" bash -c "[ \$(ids_and_shas '$cdb' | sort -u | wc -l) -eq 13 ] && diff <(ids_and_shas '$cdb') <(ids_and_shas '$copied') && diff <(ids_and_shas '$cdb') <(ids_and_shas '$back')"
same_files() {  # every run's results file, byte for byte (sha256), in all three
  for i in $(seq 1 13); do
    a=$("$pperf" history show "$i" --db "$1" | sha256sum) b=$("$pperf" history show "$i" --db "$2" | sha256sum)
    [ "$a" = "$b" ] || { echo "  run $i differs"; return 1; }
  done
}
check "copied results files are byte-identical" same_files "$cdb" "$copied"
check "... and back again" same_files "$cdb" "$back"
mcopy="$work/mcopy.sqlite"
check "copy carries marked change points" bash -c "'$pperf' history copy '$mdb' '$mcopy' | grep -q 'and 1 marked change point(s) (0 already there)' &&
  '$pperf' history copy '$mdb' '$mcopy' | grep -q 'and 0 marked change point(s) (1 already there)' &&
  '$pperf' history changes --db '$mcopy' | grep -q 'every pair .*marked by hand at run 11 .*: new BLAS'"
check "copy from a missing database" one_line_error "^$work/nowhere.sqlite: no history database here" "$pperf" history copy "$work/nowhere.sqlite" "$work/x.sqlite"

if [ "$backend" = postgresql ]; then
  # --- the same history on both backends gives the same outputs --------------------------------
  lite="$work/same.sqlite"; pg="$(newdb same)"
  nights=$(for i in $(seq 1 13); do echo "$work/night$i.json"; done)
  "$pperf" history record --db "$lite" $nights >/dev/null; "$pperf" history record --db "$pg" $nights >/dev/null
  "$pperf" history mark 11 --db "$lite" --note 'new BLAS' >/dev/null; "$pperf" history mark 11 --db "$pg" --note 'new BLAS' >/dev/null
  both_same() {  # both_same NAME ARGS...: `pperf ARGS --db X` alike on both (the database's name aside)
    local name="$1"; shift
    "$pperf" "$@" --db "$lite" 2>&1 | sed "s|$lite|DB|g" | grep -v recorded_at >"$work/$name.lite"
    "$pperf" "$@" --db "$pg" 2>&1 | sed "s|$pg|DB|g" | grep -v recorded_at >"$work/$name.pg"
    cmp "$work/$name.lite" "$work/$name.pg" || { diff "$work/$name.lite" "$work/$name.pg" | head -5; return 1; }
  }
  check "same outputs: history list" both_same list history list
  check "same outputs: history list --json (recorded_at aside)" both_same listj history list --json
  check "same outputs: history changes" both_same changes history changes
  check "same outputs: history changes --json" both_same changesj history changes --json
  check "same outputs: history show" both_same show history show 7
  check "same outputs: compare --against-history" both_same cmp compare --against-history 5 "$work/night14.json" --markdown /dev/stdout
  "$pperf" compare --against-history 5 --db "$lite" "$work/night14.json" --out "$work/x.lite.json" >/dev/null
  "$pperf" compare --against-history 5 --db "$pg" "$work/night14.json" --out "$work/x.pg.json" >/dev/null
  check "same outputs: compare --out JSON" bash -c "cmp <(sed 's|$lite|DB|g' '$work/x.lite.json') <(sed 's|$pg|DB|g' '$work/x.pg.json')"
  "$pperf" report "$work/night14.json" --history "$lite" --html "$work/r.lite.html" --markdown "$work/r.lite.md" >/dev/null 2>&1
  "$pperf" report "$work/night14.json" --history "$pg" --html "$work/r.pg.html" --markdown "$work/r.pg.md" >/dev/null 2>&1
  check "same outputs: report --history (Markdown)" bash -c "cmp <(sed 's|$lite|DB|g' '$work/r.lite.md') <(sed 's|$pg|DB|g' '$work/r.pg.md')"
  check "same outputs: report --history (HTML)" bash -c "cmp <(sed 's|$lite|DB|g' '$work/r.lite.html') <(sed 's|$pg|DB|g' '$work/r.pg.html')"
  ndb="$(newdb nightly)"
  check "scripts/nightly.sh on PostgreSQL: first night recorded, not compared" expect_exit 0 "$work/nightly.out" \
    scripts/nightly.sh --pperf "$pperf" --db "$ndb" --out-dir "$work/nightly" tests/data/tiny_run.json
  check "... the run is in the shared history, the report read it" bash -c "[ \$(pg_sql '$ndb' 'SELECT count(*) FROM runs') = 1 ] &&
    grep -q 'recorded as run 1 in $ndb' '$work/nightly.out' && [ -s '$work/nightly/report.html' ] && [ -s '$work/nightly/junit.xml' ]"
  check "a URI's password is never printed" bash -c "! '$pperf' history list --db 'postgresql://pperf:s3cr3t-pw@127.0.0.1:$pg_port/nowhere' 2>&1 | grep -q s3cr3t"
fi

check "results files match schemas/results.schema.json" /usr/bin/python3 tests/e2e/validate_schema.py schemas/results.schema.json \
  "$work/r1.json" "$work/shown.json" "$work/c.json" "$work/c2.json"
check "compare outputs match schemas/compare.schema.json" /usr/bin/python3 tests/e2e/validate_schema.py schemas/compare.schema.json \
  "$work/first.json" "$work/own.json" "$work/night11c.json" "$work/after.json" "$work/marked.json"

finish
