#!/usr/bin/env bash
# The data group's link, emulated (execution.data.link_gbps): spawned data workers behind a veth
# shaped by tc tbf. A tiny MNIST job whose batches take far longer on a slow link than its
# step: the measured step is the link's time per batch (bytes on the wire x 8 / rate), on the
# float32 wire at 20 Mbit/s and on the uint8 wire (a quarter of the bytes) at 2.5 Mbit/s scaled
# by 2 (both about 320 ms a batch, well above the step on loopback); the results say which link
# and how. Where the link cannot be made (no root, or no `ip` or `tc` on PATH) the plan refuses the
# configuration: `validate` and `run` exit 2 naming its link_gbps before anything runs, never run
# unthrottled (checked on every host). Exits 77 (ctest: skipped) after that where this host cannot
# make links.
# usage: tests/e2e/link_emulation_test.sh PATH/TO/pperf
set -uo pipefail
pperf="$1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; [ -f "$work/run.out" ] && tail -20 "$work/run.out"; exit 1; }

python3 - "$work/c.json" <<'PY'
import json, sys
# One batch ahead at most: the batches made while the trainer set up would otherwise be taken
# faster than the link carries them (the head start of a prefetch queue).
link = {"mode": "service", "spawn_local": {"processes": 1, "workers": 2}, "link_gbps": 0.02, "prefetch_batches": 1}
json.dump({
  "name": "link", "pricing": {"table": "aws-ec2-us-east-1"},
  "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 256, "params": {"data": "synthetic"}}],
  "measure": {"warmup_steps": 5, "min_steps": 20, "max_steps": 20, "max_seconds": 60},
  "configurations": [
    {"name": "loopback", "baseline": True, "instances": [{"type": "p3.2xlarge"}, {"type": "c5.9xlarge", "role": "data"}],
     "execution": {"data": {"mode": "service", "spawn_local": {"processes": 1, "workers": 2}, "wire": "float32"}}},
    {"name": "link-f32", "instances": [{"type": "p3.2xlarge"}, {"type": "c5.9xlarge", "role": "data"}],
     "execution": {"data": dict(link, wire="float32")}},
    {"name": "link-u8", "instances": [{"type": "p3.2xlarge"}, {"type": "c5.9xlarge", "role": "data"}],
     "execution": {"data": dict(link, link_gbps=0.0025, link_scale=2)}}]}, open(sys.argv[1], "w"))
PY
# No way to make the link (no `ip` or `tc` on PATH; or not root): refused before anything runs,
# by validate as by run, naming the configuration's link_gbps and why.
mkdir -p "$work/empty"
refused=": not runnable on this host: cannot emulate the"
PATH="$work/empty" "$pperf" validate --config "$work/c.json" >"$work/run.out" 2>&1
status=$?
[ "$status" -eq 2 ] || fail "validate of a link this host cannot make exited $status, not 2"
grep -qF "c.json: /configurations/1/execution/data/link_gbps$refused 0.02 Gbit/s link: " "$work/run.out" ||
  fail "validate did not name the link's key and why"
PATH="$work/empty" "$pperf" run --config "$work/c.json" --only loopback,link-u8 --out "$work/refused.json" --quiet \
  >"$work/run.out" 2>&1
status=$?
[ "$status" -eq 2 ] || fail "run of a link this host cannot make exited $status, not 2"
grep -qF "c.json: /configurations/2/execution/data/link_gbps$refused 0.0025 Gbit/s link: " "$work/run.out" ||
  fail "run did not name the link's key and why"
[ -e "$work/refused.json" ] && fail "a results file was written: something ran"
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
  echo "SKIP: needs root and ip/tc to make network namespaces (the refusal before anything runs passed)"; exit 77
fi
"$pperf" run --config "$work/c.json" --out "$work/r.json" --quiet >"$work/run.out" 2>&1 || fail "the run"
python3 - "$work/r.json" <<'PY' || fail "the emulated link"
import json, sys
results = {r["configuration"]: r for r in json.load(open(sys.argv[1]))["results"]}
def step(name): return results[name]["step_time_ms"]["mean"]
# Bytes a batch puts on the link: 256 samples x bytes per sample (the result's own figure), plus
# gRPC/HTTP2/TCP framing (a few per cent): the link's time per batch is their bits over its rate.
for name, rate, wire, per_sample in (("link-f32", 0.02e9, "float32", 784 * 4 + 8), ("link-u8", 0.005e9, "uint8", 784 + 8)):
    data = results[name]["execution"]["data"]
    assert data["wire"] == {"format": wire, "bytes_per_sample": per_sample}, data["wire"]
    link = data["link"]
    assert abs(link["emulated_gbps"] - rate / 1e9) < 1e-12 and link["source"] == "config", link
    assert f"tbf rate {rate:.0f}bit" in link["how"] and "network namespace pperf-link-" in link["how"], link["how"]
    predicted = 256 * per_sample * 8 / rate * 1000
    print(f"{name}: {step(name):.1f} ms a step, the link alone {predicted:.1f} ms ({step(name) / predicted:.2f}x)")
    assert 0.95 * predicted < step(name) < 1.5 * predicted, (name, step(name), predicted)
assert results["link-u8"]["execution"]["data"]["link"]["scale"] == 2
assert "link" not in results["loopback"]["execution"]["data"]
print(f"loopback: {step('loopback'):.1f} ms a step")
assert step("loopback") < 0.8 * min(step("link-f32"), step("link-u8")), step("loopback")
PY
# Bad figures are bad input.
python3 - "$work/c.json" "$work/bad.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["configurations"][1]["execution"]["data"]["link_gbps"] = 0
json.dump(c, open(sys.argv[2], "w"))
PY
"$pperf" validate --config "$work/bad.json" >"$work/run.out" 2>&1
[ $? -eq 2 ] && grep -q "/configurations/1/execution/data/link_gbps: " "$work/run.out" || fail "link_gbps 0 was not refused naming the key"
echo "PASS: emulated link"
