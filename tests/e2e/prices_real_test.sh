#!/usr/bin/env bash
# Price tables imported from the providers' own files (verbatim excerpts of public catalogs in
# $PPERF_REAL_DATA/prices/excerpts, origin in the README files there; real files beside them):
# GCP's GPU machines priced with their GPUs, AWS's fractional GPUs and Local Zones, --strict on a
# real catalog, `aws pricing get-products` output as people save it (a JSON text sequence of any
# layout), and the shipped tables re-imported from their sources byte for byte. Skipped
# (exit 77, one line naming the folder) where the real files are absent.
# usage: tests/e2e/prices_real_test.sh PATH/TO/pperf
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_real_data
real=$real_data/prices/excerpts
mkdir -p "$work/tables"

# --- the providers' real files ----------------------------------------------------------------
check "real GCP catalog imports whole" expect_exit 0 "$work/gcp.err" "$pperf" prices import --format skypilot "$real/gcp-vms.csv" \
  --published unknown --out "$work/tables/gcp.json" --provider gcp
check "GCP: a2-highgpu-8g in us-central1 at its full price, with its 8 A100s" bash -c "\"$pperf\" list instances --pricing '$work/tables/gcp.json' \
  --region us-central1 --accelerator a100 > '$work/a100.out' && grep -qE '^a2-highgpu-8g +96 +680 +8x NVIDIA A100 40GB +- +29.3871 ' '$work/a100.out' \
  && grep -qE '^a2-ultragpu-8g +96 +1360 +8x NVIDIA A100 80GB +- +23.5666 ' '$work/a100.out' && ! grep -q '^n2-' '$work/a100.out'"
check "GCP: the join is said once and recorded in the table's sources" bash -c "grep -c 'as the machine.s row plus the row of the GPUs' '$work/gcp.err' | grep -qx 1 \
  && /usr/bin/python3 -c 'import json,sys; n=json.load(open(sys.argv[1]))[\"sources\"][0][\"notes\"]; sys.exit(0 if any(\"a2-highgpu-1g in us-central1-a: 0.73948 + 2.93391 USD/h\" in x for x in n) else 1)' '$work/tables/gcp.json'"
check "real AWS, Azure, Vast and Lambda catalogs import" bash -c "for f in aws-vms aws-v8-vms azure-vms vast-vms lambda-vms; do \
  \"$pperf\" prices import --format skypilot '$real/'\$f.csv --published unknown --out '$work/tables/'\$f.json 2>/dev/null >/dev/null || { echo \$f; exit 1; }; done"
check "AWS: a quarter of an L4 is a quarter" json_check "$work/tables/aws-v8-vms.json" '
j["regions"]["us-east-1"]["g6f.2xlarge"]["accelerators"] == 0.25 and j["regions"]["us-east-1"]["g6f.2xlarge"]["on_demand"] == 0.475
j["regions"]["us-east-1-atl-2"]["m6id.32xlarge"]["spot"]["zones"] == {"use1-atl2-az1": 9.4918}
j["regions"]["us-east-1"]["m6id.32xlarge"]["spot"]["max"] == 2.6608'
check "AWS: --market spot --max-usd-per-hour is not met through a Local Zone" bash -c "\"$pperf\" list instances --pricing '$work/tables/aws-v8-vms.json' \
  --region us-east-1 --market spot --max-usd-per-hour 0.3 | awk 'f; /^type /{f=1}' | cut -d' ' -f1 | tr '\n' ' ' | grep -qx 'g6f.2xlarge '"
check "--strict refuses the real GCP catalog at its first unusable row" one_line_error \
  "gcp-vms.csv: line [0-9]+: .*\(without --strict such rows are skipped and counted\)$" \
  "$pperf" prices import --format skypilot "$real/gcp-vms.csv" --published unknown --out "$work/bad.json" --strict

# --- aws pricing get-products output as people save it: 380 Dedicated Host products, Reserved only ---
products=$real_data/prices/as-scripts-getproducts-x.jsonl
/usr/bin/python3 - "$products" "$work/x" <<'PY'
import json, sys
decoder, text, items, at = json.JSONDecoder(), open(sys.argv[1]).read(), [], 0
while text[at:].strip():
    at += len(text[at:]) - len(text[at:].lstrip())
    item, at = decoder.raw_decode(text, at)
    items.append(item)
open(sys.argv[2] + ".oneline.json", "w").write("".join(json.dumps(i) for i in items))  # no separator at all
open(sys.argv[2] + ".rs.json", "w").write("".join("\x1e" + json.dumps(i) + "\n" for i in items))
PY
for f in "$products" "$work/x.oneline.json" "$work/x.rs.json"; do
  check "get-products output, $(basename "$f"): read whole, no on-demand row said in one line" one_line_error \
    "^$f: /products: no on-demand Linux, shared-tenancy instance without pre-installed software in any region \(380 products read\)$" \
    "$pperf" prices import --format aws-offer "$f" --out "$work/bad.json"
done

# --- the shipped tables are the importer's output ---------------------------------------------------
check "re-import the shipped tables" pricing/sources/reimport.sh "$pperf" "$work/shipped"
for t in aws-ec2-us-east-1 aws-sagemaker-us-east-1 aws-spot-interruptions; do
  check "re-imported $t is byte-identical" cmp "$work/shipped/$t.json" "pricing/tables/$t.json"
done
finish
