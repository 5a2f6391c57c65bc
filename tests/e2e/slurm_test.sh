#!/usr/bin/env bash
# Data-parallel ranks under a real Slurm: a private one-node cluster from Debian's slurmctld,
# slurmd, slurm-client and munge (its own munge socket and key, free ports, proctrack/linuxproc,
# task/none, all state in a temp dir), then `srun -n 2 pperf run --config ...`: the two tasks
# find each other from SLURM_PROCID / SLURM_NTASKS / SLURM_JOB_NODELIST alone. Stops what it
# started. Exits 77 (ctest: skipped) without Slurm or root.
# usage: tests/e2e/slurm_test.sh PATH/TO/pperf
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
for tool in slurmctld slurmd srun munged; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (scripts/setup-test-tools.sh)"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "SKIP: a private Slurm cluster needs root here"; exit 77; }

s="$work/slurm"
mkdir -p "$s/state" "$s/spool"
pids=()
stop_cluster() {
  local pid
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
  done
  [ -n "${KEEP_WORK:-}" ] || rm -rf "$work"
}
trap stop_cluster EXIT
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# munge: a key and a socket of its own
dd if=/dev/urandom of="$s/munge.key" bs=1024 count=1 2>/dev/null && chmod 400 "$s/munge.key"
munged --socket="$s/munge.sock" --key-file="$s/munge.key" --pid-file="$s/munged.pid" --seed-file="$s/munge.seed" \
  --log-file="$s/munged.log" --force --foreground >"$s/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$s/munge.sock" ] && break; sleep 0.1; done
[ -S "$s/munge.sock" ] || { echo "FAIL: munged did not start"; cat "$s/munged.log"; exit 1; }

node=$(hostname -s)
cat >"$s/slurm.conf" <<CONF
ClusterName=pperftest
SlurmctldHost=$node(127.0.0.1)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$s/munge.sock
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$s/state
SlurmdSpoolDir=$s/spool
SlurmctldPidFile=$s/slurmctld.pid
SlurmdPidFile=$s/slurmd.pid
SlurmctldLogFile=$s/slurmctld.log
SlurmdLogFile=$s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=pperf Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$s/slurm.conf"
slurmctld -D -i -f "$SLURM_CONF" >"$s/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$node" >"$s/slurmd.out" 2>&1 &
pids+=($!)
cluster_up() {
  for _ in $(seq 100); do sinfo -h -o %t 2>/dev/null | grep -qE "^idle" && return 0; sleep 0.2; done
  echo "  cluster did not come up:"; sinfo 2>&1; tail -5 "$s/slurmctld.log" "$s/slurmd.log"; return 1
}
check "a private one-node Slurm cluster comes up" cluster_up || exit 1

/usr/bin/python3 - "$work/ranks.json" <<'PY'
import json, sys
c = json.load(open("tests/data/tiny_run.json"))
c["workloads"][0]["batch_size"] = 64
c["measure"] = {"warmup_steps": 2, "min_steps": 10, "max_steps": 10, "max_seconds": 30}
c["configurations"] = [{"name": "two-tasks", "baseline": True,
                        "instances": [{"type": "g5.xlarge", "count": 2, "market": "spot"}],
                        "execution": {"threads": 1, "data": {"mode": "local", "workers": 1},
                                      "distributed": {"world_size": 2, "timeout_s": 60}}}]
json.dump(c, open(sys.argv[1], "w"))
PY
check "srun -n 2 pperf run: the two tasks form one group" expect_exit 0 "$work/srun.out" \
  timeout 300 srun -n 2 --kill-on-bad-exit=1 "$pperf" run --config "$work/ranks.json" --out "$work/ranks-res.json" --quiet
check "rank 0 wrote the result: 2 ranks launched by Slurm" json_check "$work/ranks-res.json" '
j["results"][0]["status"] == "ok"
j["results"][0]["distributed"]["launcher"] == "slurm" and j["results"][0]["distributed"]["world_size"] == 2
[r["rank"] for r in j["results"][0]["distributed"]["ranks"]] == [0, 1]
j["results"][0]["samples_per_step"] == 128
'
finish
