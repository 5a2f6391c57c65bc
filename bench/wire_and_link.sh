#!/usr/bin/env bash
# Benchmark (not a test): issue 61's wire formats and links, each comparison side by side in one
# run. (1) Bytes per sample on each wire, per workload, as the results record them. (2) The main
# job (configs/p4d_vs_hetero.json, ResNet tiny; its heterogeneous configuration) with its data
# workers behind an emulated 25 Gbit/s link (one c5.18xlarge's) scaled to this host: the scale is
# this host's uint8 byte demand over the real job's (seed 000 at 224 px on a p4d: 20,000
# samples/s x 150,536 bytes = 24.1 Gbit/s, just under the link; 96 Gbit/s on float32), so the
# emulated job is link-bound where the real one is; float32 and uint8 wires and no link, in turns.
# (3) pperf project's prediction for seed 000's job (configs/seed000_ex1_resnet50_cost.json,
# cifar, and the same at 224 px) with the tables' link figures and without the link term.
# Needs root with ip/tc for (2).
# usage: bench/wire_and_link.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(PPERF_TORCH=debian "$root/scripts/setup.sh")"
pperf="$build/pperf"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# (1) and the host's step: the heterogeneous job on each wire without a link.
python3 - "$root/configs/p4d_vs_hetero.json" "$work/probe.json" <<'PY'
import copy, json, sys
c = json.load(open(sys.argv[1]))
het = next(x for x in c["configurations"] if x["name"] == "heterogeneous")
out = []
for wire in ("float32", "uint8"):
    x = copy.deepcopy(het); x["name"] = f"hetero-{wire}"; x["execution"]["data"]["wire"] = wire; out.append(x)
out[1]["baseline"] = True
c["configurations"] = out
c["measure"] = {"warmup_steps": 3, "min_steps": 20, "max_steps": 400, "max_seconds": 20, "target_rel_ci": 0.03}
c["workloads"].append({"name": "mnist_heavy", "preset": "full", "batch_size": 256})
json.dump(c, open(sys.argv[2], "w"))
PY
"$pperf" run --config "$work/probe.json" --out "$work/probe-results.json" --quiet >/dev/null
python3 - "$work/probe-results.json" "$work/link.json" "$root/configs/p4d_vs_hetero.json" <<'PY'
import copy, json, sys
rs = json.load(open(sys.argv[1]))["results"]
print("| workload | preset | batch | wire | bytes per sample | mean step ms |")
print("|---|---|---|---|---|---|")
for r in rs:
    w = r["execution"]["data"]["wire"]
    print(f"| {r['workload']} | {r['preset']} | {r['batch_size']} | {w['format']} | {w['bytes_per_sample']:,} | {r['step_time_ms']['mean']:.1f} |")
u8 = next(r for r in rs if r["workload"] == "resnet50_augment" and r["execution"]["data"]["wire"]["format"] == "uint8")
demand = u8["execution"]["data"]["wire"]["bytes_per_sample"] * u8["batch_size"] / (u8["step_time_ms"]["mean"] / 1000) * 8
real = 20000 * 150536 * 8
scale = demand / real
print(f"\nhost uint8 demand {demand / 1e6:.2f} Mbit/s; the real job's {real / 1e9:.1f} Gbit/s; link_scale {scale:.3g}: "
      f"25 Gbit/s runs at {25e3 * scale:.2f} Mbit/s here")
c = json.load(open(sys.argv[3]))
het = next(x for x in c["configurations"] if x["name"] == "heterogeneous")
out = []
for name, wire, link in (("uint8-no-link", "uint8", False), ("uint8-25G", "uint8", True), ("float32-25G", "float32", True)):
    x = copy.deepcopy(het); x["name"] = name; x["execution"]["data"]["wire"] = wire
    if link: x["execution"]["data"].update(link_gbps=25, link_scale=scale)
    out.append(x)
out[0]["baseline"] = True
c["configurations"] = out
c["measure"] = {"warmup_steps": 3, "min_steps": 20, "max_steps": 400, "max_seconds": 20, "target_rel_ci": 0.03}
json.dump(c, open(sys.argv[2], "w"))
PY
# (2) the three side by side (pperf's turns).
"$pperf" run --config "$work/link.json" --out "$work/link-results.json" --quiet >/dev/null || true
python3 - "$work/link-results.json" <<'PY'
import json, sys
print("\n| configuration | wire | link (emulated) | mean step ms | the link's time per batch ms | status |")
print("|---|---|---|---|---|---|")
for r in json.load(open(sys.argv[1]))["results"]:
    d = r["execution"]["data"]
    link = d.get("link")
    per_batch = d["wire"]["bytes_per_sample"] * r["batch_size"] * 8 / (link["emulated_gbps"] * 1e9) * 1e3 if link else None
    step = (r.get("step_time_ms") or {}).get("mean")
    print(f"| {r['configuration']} | {d['wire']['format']} | {'%g Gbit/s (%.3g Mbit/s)' % (link['gbps'], link['emulated_gbps'] * 1e3) if link else 'loopback'} | "
          f"{'%.1f' % step if step else '-'} | {'%.1f' % per_batch if per_batch else '-'} | {r['status']} {(r.get('reason') or '')[:80]} |")
PY
# (3) the projection of seed 000's job, with the tables' links and without.
python3 - "$root/configs/seed000_ex1_resnet50_cost.json" "$work/full.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["workloads"][0]["preset"] = "full"; c["name"] += "-224px"
json.dump(c, open(sys.argv[2], "w"))
PY
# The trainer's own step: the seed's heterogeneous 86 ms at 32 px; at 224 px the issue's 20,000
# samples/s on a p4d (1024 samples: 51.2 ms).
for case in "seed000_ex1_resnet50_cost.json:$root/configs/seed000_ex1_resnet50_cost.json:86" "224px:$work/full.json:51.2"; do
  IFS=: read -r label config step <<<"$case"
  for flags in "" "--no-link"; do
    echo; echo "== $label: pperf project --config CONFIG --trainer-step-ms $step --max-data 4 $flags"
    "$pperf" project --config "$config" --trainer-step-ms "$step" --max-data 4 $flags --out "$work/p.json" >/dev/null 2>&1 || true
    python3 - "$work/p.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
w = p["workloads"][0]
print(f"bytes per batch on the link: {w['inputs']['bytes_per_batch'] / 1e6:.2f} MB; trainer step {w['inputs']['trainer_step_ms']}")
rows = [x for x in w["predictions"] if x["trainer"]["type"] == "ml.p4d.24xlarge" and (x["data"] is None or x["data"]["type"] == "ml.c5.18xlarge")]
print("| data instances | step ms | bound | link ms | USD per 1M samples |")
print("|---|---|---|---|---|")
for x in sorted(rows, key=lambda x: x["data"]["count"] if x["data"] else 0):
    print(f"| {x['data']['count'] if x['data'] else 0} x c5.18xlarge | {x['step_ms']['value']:.1f} | {x['bound']} | "
          f"{'%.1f' % x['link_ms'] if x.get('link_ms') is not None else '-'} | {x['usd_per_1m_samples']['value']:.3f} |")
PY
  done
done
