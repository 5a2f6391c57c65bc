#!/usr/bin/env bash
# Data-parallel ranks through the binary: spawn_local ranks on this host (1 and 2 ranks, scaling
# efficiency), a rank killed mid-run, the launcher convention (RANK, WORLD_SIZE, MASTER_ADDR,
# MASTER_PORT set by hand, as torchrun would), and bad input.
# usage: tests/e2e/distributed_test.sh PATH/TO/pperf
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# make_config OUT MAX_SECONDS NAME:WORLD... : the tiny MNIST job, one configuration per NAME:WORLD
make_config() {
  /usr/bin/python3 - "$@" <<'PY'
import json, sys
out, max_seconds, configs = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
c = json.load(open("tests/data/tiny_run.json"))
c["workloads"][0]["batch_size"] = 64
steps = 12 if max_seconds <= 30 else 100000
c["measure"] = {"warmup_steps": 2, "min_steps": steps, "max_steps": steps, "max_seconds": max_seconds}
c["configurations"] = []
for i, spec in enumerate(configs):
    name, world = spec.split(":")
    c["configurations"].append({
        "name": name, "baseline": i == 0,
        "instances": [{"type": "g5.xlarge", "count": int(world), "market": "spot"}],
        "execution": {"threads": 1, "data": {"mode": "local", "workers": 1},
                      "distributed": {"world_size": int(world), "timeout_s": 30,
                                      "spawn_local": {"cpus_per_rank": 1}}}})
json.dump(c, open(out, "w"), indent=1)
PY
}
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
no_pperf_left() {  # no process of this test's configs is left behind
  sleep 0.5
  ! pgrep -f "$work/" >/dev/null || { echo "  left running:"; pgrep -af "$work/"; return 1; }
}

# --- spawn_local: 1 and 2 ranks ------------------------------------------------------------------
make_config "$work/scale.json" 30 one-rank:1 two-ranks:2 four-ranks:4
check "spawn_local 1, 2 and 4 ranks run" expect_exit 0 "$work/scale.out" "$pperf" run --config "$work/scale.json" --out "$work/scale-res.json"
check "two ranks: the group, its ranks and the all-reduce in the result" json_check "$work/scale-res.json" '
[r["status"] for r in j["results"]] == ["ok", "ok", "ok"]
j["results"][1]["distributed"]["world_size"] == 2 and j["results"][1]["distributed"]["backend"] == "gloo"
j["results"][1]["distributed"]["launcher"] == "spawn_local"
[x["rank"] for x in j["results"][1]["distributed"]["ranks"]] == [0, 1]
[x["cpus"] for x in j["results"][1]["distributed"]["ranks"]] == [[0], [1]]
all(x["median_ms"] > 0 for x in j["results"][1]["distributed"]["ranks"])
j["results"][1]["distributed"]["allreduce_ms"]["median"] > 0
0 < j["results"][1]["distributed"]["comm_fraction"] < 1
j["results"][1]["distributed"]["bytes_per_step"] == 4 * j["results"][1]["model"]["params"]
j["results"][0]["samples_per_step"] == 64 and j["results"][1]["samples_per_step"] == 128
abs(j["results"][1]["cost"]["usd_per_1m_samples"] - j["results"][1]["cost"]["usd_per_step"] / 128 * 1e6) < 1e-12
j["results"][0]["distributed"]["scaling_efficiency"] is None
0 < j["results"][1]["distributed"]["scaling_efficiency"] < 2
any("2 ranks (gloo, spawn_local)" in e for e in j["results"][1]["events"])
j["results"][2]["samples_per_step"] == 256 and j["results"][2]["distributed"]["scaling_efficiency"] > 0
any("ranks share CPUs" in e for e in j["results"][2]["events"]) == (__import__("os").cpu_count() < 4)
not any("ranks share CPUs" in e for e in j["results"][1]["events"])
'
check "data-parallel results and configs are valid against the schemas" bash -c \
  "/usr/bin/python3 tests/e2e/validate_schema.py schemas/results.schema.json $work/scale-res.json &&
   /usr/bin/python3 tests/e2e/validate_schema.py schemas/config.schema.json $work/scale.json"
check "spawn_local: nothing left running" no_pperf_left

# --- a rank killed mid-run -------------------------------------------------------------------------
make_config "$work/kill.json" 40 killed:2 after:1
kill_rank() {
  "$pperf" run --config "$work/kill.json" --out "$work/kill-res.json" >"$work/kill.out" 2>&1 &
  local run=$! victim=""
  for _ in $(seq 300); do
    victim=$(pgrep -f "measure-item --config $work/kill.json.* --rank 1 " | head -1)
    [ -n "$victim" ] && break
    sleep 0.1
  done
  [ -n "$victim" ] || { echo "  rank 1 never started"; kill "$run"; return 1; }
  sleep 3  # measuring by now
  local start=$SECONDS
  kill -KILL "$victim"
  for _ in $(seq 600); do grep -q "on killed: failed" "$work/kill.out" && break; sleep 0.1; done
  local took=$((SECONDS - start))
  wait "$run"
  local code=$?
  echo "  the configuration failed $took s after rank 1 was killed (timeout_s 30); run exit $code"
  [ "$code" -eq 1 ] && [ "$took" -lt 30 ]
}
check "a killed rank ends the run of its configuration" kill_rank
check "the killed configuration is failed naming the rank; the next one still ran" json_check "$work/kill-res.json" '
j["results"][0]["status"] == "failed"
"rank 1 of 2" in j["results"][0]["reason"] and "signal 9" in j["results"][0]["reason"]
j["results"][1]["status"] == "ok"
'
check "killed rank: nothing left running" no_pperf_left

# --- the launcher convention ------------------------------------------------------------------------
make_config "$work/env.json" 30 env-ranks:2
launch_two() {
  local port; port=$(free_port)
  RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
    "$pperf" run --config "$work/env.json" --out "$work/env-rank1.json" >"$work/env1.out" 2>&1 &
  local one=$!
  RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
    "$pperf" run --config "$work/env.json" --out "$work/env-res.json" >"$work/env0.out" 2>&1
  local code0=$?
  wait "$one"
  local code1=$?
  echo "  rank 0 exit $code0, rank 1 exit $code1"
  [ "$code0" -eq 0 ] && [ "$code1" -eq 0 ] || { cat "$work/env0.out" "$work/env1.out"; return 1; }
  [ ! -e "$work/env-rank1.json" ] || { echo "  rank 1 wrote its --out"; return 1; }
}
check "RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT: two pperf runs form one group" launch_two
check "launcher: rank 0's result names the launcher" json_check "$work/env-res.json" '
j["results"][0]["status"] == "ok"
j["results"][0]["distributed"]["launcher"] == "env" and j["results"][0]["distributed"]["world_size"] == 2
j["results"][0]["samples_per_step"] == 128
'
check "launcher: nothing left running" no_pperf_left

# --- bad input ------------------------------------------------------------------------------------------
/usr/bin/python3 - "$work/env.json" "$work/bad.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["configurations"][0]["execution"]["data"] = {"mode": "service", "spawn_local": {"processes": 1}}
json.dump(c, open(sys.argv[2], "w"))
PY
check "ranks with a data service are refused naming the pointer" one_line_error \
  "bad.json: /configurations/0/execution/distributed: .*local" "$pperf" run --config "$work/bad.json"
check "a malformed RANK is refused naming the variable" one_line_error "^.*RANK: expected an integer" \
  env RANK=x WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=1 "$pperf" run --config "$work/env.json"
check "a launcher without MASTER_PORT is refused naming it" one_line_error "MASTER_PORT: is not set" \
  env RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 "$pperf" run --config "$work/env.json"
finish
