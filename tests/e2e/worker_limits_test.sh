#!/usr/bin/env bash
# A data worker probed from outside on loopback (issue 26):
# 1. idle TCP connections: the worker runs with 64 descriptors (prlimit); while a client keeps
#    ~100 silent connections open (reopening those the worker closes), a real trainer
#    (`pperf run` against the worker) still gets in and finishes, and every silent connection
#    is closed by the worker within its 5 s handshake deadline (bound checked: 30 s);
# 4. a TLS worker probed with plaintext connections and broken TLS records prints a bounded
#    number of stderr lines, and a summary of the rest when it stops;
# 5. --stall-timeout-s 3 at the shipped configs' batch sizes (256 and 1024 samples): readers taking
#    one batch every 1.5 s, with the trainer's receive window and with grpcio's (which reads ahead
#    and opens its window every few batches), are never cut; readers that stop are, with ABORTED.
#    All readers run at once: the section takes about 11 s.
# usage: tests/e2e/worker_limits_test.sh PATH/TO/pperf
set -uo pipefail
pperf="$1"
command -v prlimit >/dev/null || { echo "SKIP: no prlimit"; exit 77; }
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
failed=0
check() { local name="$1"; shift; if "$@"; then echo "ok   $name"; else echo "FAIL $name"; failed=$((failed + 1)); fi; }
wait_listening() {  # FILE -> prints HOST:PORT once the worker says it listens (up to 60 s)
  for _ in $(seq 600); do grep -q "listening on" "$1" && break; sleep 0.1; done
  sed -n 's/.*listening on //p' "$1"
}

cat >"$work/worker.json" <<'JSON'
{"name": "limits", "pricing": {"table": "aws-ec2-us-east-1"},
 "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 8, "params": {"data": "synthetic"}}],
 "configurations": [{"name": "a", "baseline": true, "instances": [{"type": "p3.2xlarge"}]}]}
JSON

# --- 1. silent connections beyond the descriptor limit ------------------------------------
prlimit --nofile=64:64 "$pperf" data-worker --config "$work/worker.json" >"$work/w.out" 2>"$work/w.err" &
wpid=$!
endpoint=$(wait_listening "$work/w.out")
check "worker under a 64-descriptor limit starts" test -n "$endpoint"
python3 - "$work/worker.json" "$work/trainer.json" "$endpoint" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["measure"] = {"warmup_steps": 1, "min_steps": 5, "max_steps": 5, "max_seconds": 60}
c["configurations"][0]["execution"] = {"threads": 1, "data": {"mode": "service", "endpoints": [sys.argv[3]]}}
json.dump(c, open(sys.argv[2], "w"))
PY
python3 - "$endpoint" "$pperf" "$work/trainer.json" "$work/r.json" >"$work/flood.log" 2>&1 <<'PY'
import socket, subprocess, sys, threading, time
host, port = sys.argv[1].rsplit(":", 1)
HELD, DEADLINE_S = 100, 30  # silent connections kept open; bound on the worker closing one
opened = closed_late = reopened = 0
stop = threading.Event()
socks = []  # (socket, opened_at)

def open_one():
    global opened
    s = socket.create_connection((host, int(port)), timeout=5)
    s.setblocking(False)
    socks.append((s, time.monotonic()))
    opened += 1

def closed_by_worker(s):
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True  # reset

def flood():  # keep HELD silent connections open: reopen what the worker closes
    global closed_late, reopened
    while not stop.is_set():
        now = time.monotonic()
        for entry in list(socks):
            s, t = entry
            if closed_by_worker(s):
                socks.remove(entry); s.close(); reopened += 1
            elif now - t > DEADLINE_S:
                closed_late += 1; socks.remove(entry); s.close()
        while len(socks) < HELD and not stop.is_set():
            open_one()
        time.sleep(0.2)

for _ in range(HELD):
    open_one()
flooder = threading.Thread(target=flood); flooder.start()
start = time.monotonic()
try:
    trainer = subprocess.run([sys.argv[2], "run", "--config", sys.argv[3], "--out", sys.argv[4]],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=180)
    code, err = trainer.returncode, trainer.stderr
except subprocess.TimeoutExpired:
    code, err = "timeout", ""
took = time.monotonic() - start
stop.set(); flooder.join()
# The last silent connections: each must be closed by the worker within the bound.
end = time.monotonic() + DEADLINE_S
while socks and time.monotonic() < end:
    for entry in list(socks):
        if closed_by_worker(entry[0]):
            socks.remove(entry); entry[0].close()
    time.sleep(0.2)
print(f"trainer exit {code} after {took:.1f} s while {HELD} silent connections were held; "
      f"{opened} opened, {reopened} closed by the worker, {closed_late + len(socks)} still open after {DEADLINE_S} s")
if code != 0: print(err[-2000:])
sys.exit(0 if code == 0 and closed_late == 0 and not socks else 1)
PY
flood=$?
cat "$work/flood.log"
check "a trainer gets in while silent connections hold the cap, and they are closed" test "$flood" -eq 0
check "worker alive after the flood" kill -0 "$wpid"
check "worker never ran out of descriptors" bash -c "! grep -q 'Too many open files' '$work/w.err'"
kill -TERM "$wpid"; wait "$wpid"
code=$?
check "worker exits 0 on SIGTERM after the flood (exit $code)" test "$code" -eq 0; [ "$code" -eq 0 ] || tail -3 "$work/w.err"

# --- 4. a TLS worker probed with plaintext --------------------------------------------------
if openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" -days 1 \
     -subj "/CN=127.0.0.1" >/dev/null 2>&1; then
  "$pperf" data-worker --config "$work/worker.json" --tls-cert "$work/cert.pem" --tls-key "$work/key.pem" \
    >"$work/t.out" 2>"$work/t.err" &
  tpid=$!
  tls_endpoint=$(wait_listening "$work/t.out")
  check "TLS worker starts" test -n "$tls_endpoint"
  python3 - "$tls_endpoint" <<'PY'
import socket, sys, time
host, port = sys.argv[1].rsplit(":", 1)
# Plaintext HTTP/2 clients of a TLS worker (closed by its gate, which wants a TLS record first),
# then clients whose TLS record is garbage (gRPC's TLS handshake fails: its lines are summarized).
for opening in [b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\0" * 64] * 20 + [b"\x16\x03\x01\x00\x40" + b"\0" * 64] * 40:
    s = socket.create_connection((host, int(port)), timeout=5)
    s.sendall(opening)
    try:
        s.recv(100)
    except OSError:
        pass
    s.close()
time.sleep(1)
PY
  lines=$(wc -l <"$work/t.err")
  echo "     20 plaintext and 40 bad TLS connections to a TLS worker: $lines stderr lines"
  check "plaintext connections to a TLS worker do not flood stderr" test "$lines" -le 4
  kill -TERM "$tpid"; wait "$tpid"
  check "the rest are summarized when the worker stops" grep -q "more connections failed their handshake" "$work/t.err"
else
  echo "skip TLS part: openssl cannot make a certificate"
fi

# --- 5. the stall timeout at the shipped configs' batch sizes -----------------------------------
if /usr/bin/python3 -c 'import grpc' 2>/dev/null; then
  here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  build="$(cd "$(dirname "$pperf")" && pwd)"
  declare -A endpoints pids
  for batch in 256 1024; do
    sed "s/\"batch_size\": 8/\"batch_size\": $batch/" "$work/worker.json" >"$work/worker$batch.json"
    "$pperf" data-worker --config "$work/worker$batch.json" --stall-timeout-s 3 >"$work/s$batch.out" 2>"$work/s$batch.err" &
    pids[$batch]=$!
  done
  for batch in 256 1024; do endpoints[$batch]=$(wait_listening "$work/s$batch.out"); done
  readers=()  # all at once: the section takes as long as its slowest reader
  for batch in 256 1024; do
    for window in 16384 0; do  # the trainer's receive window (kTrainerWindowBytes); grpcio's own
      timeout 60 /usr/bin/python3 "$here/worker_slow_reader.py" --batch-size "$batch" "$build" "${endpoints[$batch]}" 1.5 7 "$window" \
        >"$work/steady-$batch-$window.log" 2>&1 &
      readers+=("$!:steady-$batch-$window:0")
    done
    # A reader that stops after 2 batches for 8 s, with the trainer's window (one batch at a time:
    # cut after 3 s). grpcio's window reads ahead n batches, so such a reader is cut after n x 3 s.
    for window in 16384; do
      timeout 60 /usr/bin/python3 "$here/worker_slow_reader.py" --batch-size "$batch" "$build" "${endpoints[$batch]}" 0.5 100 "$window" 2 8 \
        >"$work/stop-$batch-$window.log" 2>&1 &
      readers+=("$!:stop-$batch-$window:3")
    done
  done
  for r in "${readers[@]}"; do
    IFS=: read -r pid name expected <<<"$r"
    wait "$pid"; code=$?
    echo "     $name: $(cat "$work/$name.log")"
    if [ "$expected" = 0 ]; then
      check "$name: a reader taking a batch every 1.5 s is not cut under --stall-timeout-s 3" test "$code" -eq 0
    else
      check "$name: a reader that stops is cut, ABORTED, naming the bound" \
        bash -c "[ $code -eq 3 ] && grep -q 'ABORTED stream cancelled by the data worker: no batch read for' '$work/$name.log'"
    fi
  done
  for batch in 256 1024; do kill -TERM "${pids[$batch]}"; wait "${pids[$batch]}"; done
else
  echo "skip the stall timeout: no python3-grpcio for /usr/bin/python3"
fi

echo "$failed failed"
[ "$failed" -eq 0 ]
