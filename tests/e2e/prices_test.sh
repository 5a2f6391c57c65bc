#!/usr/bin/env bash
# Price tables through the binary: `pperf prices import` of each format (fixtures in
# tests/data/prices, written for these tests in the providers' formats) priced exactly by
# `pperf cost`, another region, malformed files (exit 2, one line naming file and place), the
# stale-table warning, `prices diff`, a price change as a price event in `history changes`, the
# spot zone spread in the cost interval and in `advise`, and `list instances` filters. The
# providers' real files and the shipped tables' re-import are prices_real_test.sh.
# usage: tests/e2e/prices_test.sh PATH/TO/pperf
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
data=tests/data/prices
mkdir -p "$work/tables" "$work/cfg"

# --- import each format ------------------------------------------------------------------------
check "import aws-offer (EC2)" expect_exit 0 "$work/o" "$pperf" prices import --format aws-offer "$data/ec2-offer.json" \
  --out "$work/tables/offer.json" --imported 2026-11-23
check "import aws-spot-history onto it" expect_exit 0 "$work/o" "$pperf" prices import --format aws-spot-history \
  "$data/spot-history.json" --base "$work/tables/offer.json" --out "$work/tables/ec2.json" --imported 2026-11-23 --name ec2
check "import aws-offer (SageMaker)" expect_exit 0 "$work/o" "$pperf" prices import --format aws-offer "$data/sagemaker-offer.json" \
  --out "$work/tables/sm.json"
check "import skypilot" expect_exit 0 "$work/o" "$pperf" prices import --format skypilot "$data/vms.csv" --published 2026-09-30 \
  --out "$work/tables/sky.json" --provider gcp
check "import spot-advisor" expect_exit 0 "$work/o" "$pperf" prices import --format spot-advisor "$data/spot-advisor.json" \
  --published 2026-11-01 --out "$work/tables/rates.json"
check "provenance: every source with its sha256 and dates" json_check "$work/tables/ec2.json" '
[s["file"] for s in j["sources"]] == ["ec2-offer.json", "spot-history.json"]
j["sources"][0]["sha256"] == __import__("hashlib").sha256(open("tests/data/prices/ec2-offer.json", "rb").read()).hexdigest()
j["sources"][1]["sha256"] == __import__("hashlib").sha256(open("tests/data/prices/spot-history.json", "rb").read()).hexdigest()
[s["published"] for s in j["sources"]] == ["2026-10-15", "2026-10-15"] and j["published"] == "2026-10-15"
all(s["imported"] == "2026-11-23" for s in j["sources"]) and j["retrieved"] == "2026-11-23"
sorted(j["regions"]) == ["eu-west-1", "us-east-1"]'

# --- pperf cost prices imported tables exactly (a relative table path is from the config's directory) ---
cost_config() {  # cost_config FILE TABLE REGION TYPE [EXTRA-PRICING-JSON]
  cat >"$1" <<JSON
{"name": "imported", "steps_to_train": 36000,
 "pricing": {"table": "$2", "region": "$3", "max_age_days": 100000 ${5:-}},
 "workloads": [{"name": "x", "batch_size": 8}],
 "configurations": [{"name": "od", "baseline": true, "step_time_ms": 1000, "instances": [{"type": "$4"}]}]}
JSON
}
cost_config "$work/cfg/use1.json" ../tables/ec2.json us-east-1 g6e.xlarge
cost_config "$work/cfg/euw1.json" ../tables/ec2.json eu-west-1 g6e.xlarge
cost_config "$work/cfg/sm.json" ../tables/sm.json eu-west-1 ml.g6e.xlarge
cost_config "$work/cfg/gcp.json" ../tables/sky.json us-central1 a2-highgpu-1g
for c in use1:18.61 euw1:20.93 sm:23.33 gcp:36.73; do
  name=${c%%:*} usd=${c#*:}
  check "cost $name: $usd USD to train, to the cent" bash -c "\"$pperf\" cost --config \"$work/cfg/$name.json\" --out \"$work/$name.out.json\" >\"$work/$name.log\" 2>&1 \
    && /usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if \"%.2f\" % j[\"results\"][0][\"to_train\"][\"usd\"] == sys.argv[2] else 1)' \"$work/$name.out.json\" $usd"
done
check "another region is priced from the same table" json_check "$work/euw1.out.json" '
j["pricing"]["region"] == "eu-west-1" and j["results"][0]["instances"][0]["usd_per_hour"] == 2.093
j["pricing"]["published"] == "2026-10-15" and len(j["pricing"]["sha256"]) == 64'
check "console shows the table's publication date" grep -q "published 2026-10-15" "$work/euw1.log"
cost_config "$work/cfg/noregion.json" ../tables/ec2.json us-east-1 g6e.xlarge
sed -i 's/"region": "us-east-1", //' "$work/cfg/noregion.json"
check "a table of two regions without pricing.region: exit 2" one_line_error \
  "noregion.json: /pricing/table: price table '.*ec2.json': .*ec2.json: /regions: holds 2 regions \(eu-west-1, us-east-1\): choose one" \
  "$pperf" cost --config "$work/cfg/noregion.json" --out "$work/x.json"
cost_config "$work/cfg/badregion.json" ../tables/ec2.json eu-west-2 g6e.xlarge
check "an unknown region: exit 2 naming /pricing/region" one_line_error \
  "badregion.json: /pricing/region: .*no region 'eu-west-2' in price table ec2 \(it has eu-west-1, us-east-1\)" \
  "$pperf" cost --config "$work/cfg/badregion.json" --out "$work/x.json"

# --- malformed files: exit 2, one line naming the file and the place ------------------------------
bad() {  # bad NAME PATTERN ARGS...
  local name="$1" pattern="$2"; shift 2
  check "malformed: $name" one_line_error "$pattern" "$pperf" prices import "$@" --out "$work/bad.json"
}
bad "offer price" "bad-offer-price.json: /terms/OnDemand/TESTEC2A0000003/TESTEC2A0000003.JRTCKXETXF/priceDimensions/TESTEC2A0000003.JRTCKXETXF.6YS6EN2CT7/pricePerUnit/USD: expected a price in USD as a positive decimal string, got '55,04'$" \
  --format aws-offer "$data/bad-offer-price.json"
bad "offer region" "bad-offer-no-region.json: /products/TESTEC2A0000004/attributes: no regionCode" --format aws-offer "$data/bad-offer-no-region.json"
bad "offer code" "bad-offer-code.json: /offerCode: 'AmazonS3' is not one of" --format aws-offer "$data/bad-offer-code.json"
bad "not JSON" "bad-not-json.json: not JSON: .*line 2" --format aws-offer "$data/bad-not-json.json"
bad "spot price" "bad-spot-history-price.json: /SpotPriceHistory/4/SpotPrice: expected a spot price in USD/h as a positive decimal string, got '-0.76'$" \
  --format aws-spot-history "$data/bad-spot-history-price.json" --base "$work/tables/offer.json"
bad "spot zone" "bad-spot-history-zone.json: /SpotPriceHistory/2/AvailabilityZone: expected an availability zone name" \
  --format aws-spot-history "$data/bad-spot-history-zone.json" --base "$work/tables/offer.json"
bad "spot without specs" "spot-history.json: /SpotPriceHistory: spot prices for g6e.xlarge in us-east-1, which the base table does not describe" \
  --format aws-spot-history "$data/spot-history.json"
bad "csv number, --strict" "bad-vms-number.csv: line 6, column 29 \(SpotPrice\): expected a number, got '0.03.50' \(without --strict such rows are skipped and counted\)$" \
  --format skypilot "$data/bad-vms-number.csv" --published 2026-01-01 --strict
bad "csv quote" "bad-vms-quote.csv: line 4, column 30: a quoted field is never closed$" --format skypilot "$data/bad-vms-quote.csv" --published 2026-01-01
bad "csv header" "bad-vms-header.csv: line 1: no column SpotPrice in the header$" --format skypilot "$data/bad-vms-header.csv" --published 2026-01-01
bad "no --published" "^--published: vms.csv: a skypilot file records no publication date" --format skypilot "$data/vms.csv"
bad "advisor range" "bad-spot-advisor-range.json: /spot_advisor/eu-west-1/Linux/g6e.xlarge/r: range index 7 is not in /ranges$" \
  --format spot-advisor "$data/bad-spot-advisor-range.json" --published 2026-01-01
bad "unknown format" "^pperf prices import: --format: unknown format 'aws-offers'.*did you mean 'aws-offer'" --format aws-offers "$data/vms.csv"
check "nothing written on a mistake" test ! -e "$work/bad.json"
check "csv number without --strict: the row skipped, one warning line naming it" bash -c "\"$pperf\" prices import --format skypilot \
  '$data/bad-vms-number.csv' --published 2026-01-01 --out '$work/skip.json' 2>'$work/skip.err' >/dev/null && [ \$(wc -l <'$work/skip.err') -eq 1 ] && \
  grep -qx \"pperf prices import: warning: bad-vms-number.csv: skipped 1 row with a malformed number, e.g. line 6, column 29 (SpotPrice): expected a number, got '0.03.50'\" '$work/skip.err'"
check "the skipped row is recorded in the table's sources" json_check "$work/skip.json" '
j["sources"][0]["notes"] == ["skipped 1 row with a malformed number, e.g. line 6, column 29 (SpotPrice): expected a number, got \x270.03.50\x27"]
j["regions"]["us-east-1"]["c7i.large"]["spot"]["zones"] == {"use1-az2": 0.037}'
bad "a --region in no file, among several" "^pperf prices import: --region: 'us-east-l' is in none of the files \(3 regions\).*did you mean 'us-east-1'" \
  --format skypilot "$data/vms.csv" --published 2026-01-01 --region eu-west-1 --region us-east-l

# aws pricing get-products prints the bulk offer's products as a PriceList of JSON texts; jq -c
# '.PriceList[] | fromjson' prints them one per line. Both are read as the offer they came from.
/usr/bin/python3 - "$data/ec2-offer.json" "$work/products.json" "$work/products.jsonl" "$work/upcoming.json" <<'PY'
import copy, json, sys
offer = json.load(open(sys.argv[1]))
items = [{"product": p, "serviceCode": offer["offerCode"], "terms": {"OnDemand": offer["terms"]["OnDemand"].get(sku, {})},
          "version": offer["version"], "publicationDate": offer["publicationDate"]} for sku, p in offer["products"].items()]
json.dump({"FormatVersion": "aws_v1", "PriceList": [json.dumps(i) for i in items]}, open(sys.argv[2], "w"), indent=2)
open(sys.argv[3], "w").write("".join(json.dumps(i) + "\n" for i in items))
# The same products as other JSON text sequences: pretty-printed one after another (jq's
# default), all on one line, and RFC 7464's (a record separator before each, a newline after).
base = sys.argv[3][:-len(".jsonl")]
open(base + ".pretty.json", "w").write("".join(json.dumps(i, indent=2) + "\n" for i in items))
open(base + ".oneline.json", "w").write(" ".join(json.dumps(i) for i in items))
open(base + ".rs.json", "w").write("".join("\x1e" + json.dumps(i, indent=1) + "\n" for i in items))
# A sequence whose second text breaks off on its fourth line (file line 6 + 3).
pretty = [json.dumps(i, indent=2) for i in items[:2]]
open(base + ".broken.json", "w").write(pretty[0] + "\n" + "\n".join(pretty[1].splitlines()[:3]) + "\n")
# An upcoming price: a second on-demand term for g6e.xlarge in us-east-1 from 2027-01-01.
up = copy.deepcopy(offer)
terms = up["terms"]["OnDemand"]["TESTEC2A0000001"]
code, term = next(iter(terms.items()))
later = copy.deepcopy(term)
later["effectiveDate"] = "2027-01-01T00:00:00Z"
for dim in later["priceDimensions"].values(): dim["pricePerUnit"]["USD"] = "1.5000000000"
terms[code + "X"] = later
json.dump(up, open(sys.argv[4], "w"), indent=1)
PY
for f in products.json products.jsonl products.pretty.json products.oneline.json products.rs.json; do
  check "get-products output ($f) imports as its offer" bash -c "\"$pperf\" prices import --format aws-offer '$work/$f' --out '$work/tables/$f.t.json' \
    --imported 2026-11-23 >/dev/null && \"$pperf\" prices diff '$work/tables/offer.json' '$work/tables/$f.t.json' | grep -q 'no price changed'"
done
lines=$(/usr/bin/python3 -c "import json,sys; print(len(json.dumps(json.loads(open(sys.argv[1]).readline() or '{}'), indent=2).splitlines()))" "$work/products.jsonl")
bad "a JSON text sequence cut off in its second text: the file's line" \
  "products.broken.json: not JSON: line $((lines + 4)), column 1: syntax error while parsing object key - unexpected end of input" \
  --format aws-offer "$work/products.broken.json"
check "an upcoming term: the price in effect on the import date, the upcoming one noted" bash -c "\"$pperf\" prices import --format aws-offer \
  '$work/upcoming.json' --out '$work/tables/up.json' --imported 2026-11-23 2>'$work/up.err' >/dev/null \
  && grep -q 'left out 1 upcoming hourly prices .* g6e.xlarge in us-east-1: 1.5 USD/h from 2027-01-01' '$work/up.err' \
  && \"$pperf\" prices diff '$work/tables/offer.json' '$work/tables/up.json' | grep -q 'no price changed' \
  && \"$pperf\" prices import --format aws-offer '$work/upcoming.json' --out '$work/tables/up2.json' --imported 2027-01-02 >/dev/null 2>&1 \
  && /usr/bin/python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))[\"regions\"][\"us-east-1\"][\"g6e.xlarge\"][\"on_demand\"] == 1.5 else 1)' '$work/tables/up2.json'"
check "a CSV with a UTF-8 byte-order mark reads as without" bash -c "printf '\\xef\\xbb\\xbf' | cat - '$data/vms.csv' > '$work/bom.csv' && \"$pperf\" prices import --format skypilot \
  '$work/bom.csv' --published unknown --out '$work/tables/bom.json' >/dev/null && /usr/bin/python3 -c 'import json,sys; a,b=(json.load(open(f))[\"regions\"] for f in sys.argv[1:]); sys.exit(0 if a==b else 1)' '$work/tables/bom.json' '$work/tables/sky.json'"

# --- the stale-table warning ------------------------------------------------------------------------
cost_config "$work/cfg/stale.json" ../tables/ec2.json us-east-1 g6e.xlarge
sed -i 's/"max_age_days": 100000/"max_age_days": 10/' "$work/cfg/stale.json"
check "stale table: cost warns, still exit 0" expect_exit 0 "$work/stale.log" "$pperf" cost --config "$work/cfg/stale.json" --out "$work/x.json"
check "stale warning names the table, its date and the limit" grep -qE \
  "^pperf: warning: price table ec2 was published 2026-10-15 \([0-9]+ days ago, more than pricing.max_age_days 10\)" "$work/stale.log"
check "fresh enough: no warning" bash -c "! grep -q warning '$work/use1.log'"
check "shipped EC2 table: its age is unknown, said so" bash -c "\"$pperf\" cost --config configs/seed000_ex2_mnist_cost.json --out '$work/x.json' 2>&1 >/dev/null | grep -q 'does not record when its prices were published\|was published'"

# --- spot: the zone spread in the cost interval and in advise ----------------------------------------
cat >"$work/cfg/spot.json" <<'JSON'
{"name": "spot-spread", "seed": 3, "steps_to_train": 36000,
 "pricing": {"table": "../tables/ec2.json", "region": "us-east-1", "interruptions": "../tables/rates.json", "max_age_days": 100000},
 "workloads": [{"name": "x", "batch_size": 8}],
 "configurations": [
   {"name": "od", "baseline": true, "step_time_ms": 1000, "instances": [{"type": "g6e.xlarge"}]},
   {"name": "spot", "step_time_ms": 1000, "instances": [{"type": "g6e.xlarge", "count": 2, "market": "spot"}],
    "spot": {"checkpoint_save_s": 10, "checkpoint_restore_s": 20}}]}
JSON
check "cost with a spot spread" expect_exit 0 "$work/o" "$pperf" cost --config "$work/cfg/spot.json" --out "$work/spot.json"
check "spot: median price, range and zones; interval spans the zones" json_check "$work/spot.json" '
j["results"][1]["instances"][0]["price_basis"] == "spot_median" and j["results"][1]["instances"][0]["usd_per_hour"] == 0.68
j["results"][1]["instances"][0]["usd_per_hour_range"] == [0.61, 1.9]
j["results"][1]["instances"][0]["zones"] == {"cheapest": "us-east-1a", "dearest": "us-east-1c"}
j["results"][1]["cost"]["usd_per_hour_range"] == [1.22, 3.8]
abs(j["results"][1]["cost"]["usd_per_step_ci95"][0] - 1.22 / 3600) < 1e-15 and abs(j["results"][1]["cost"]["usd_per_step_ci95"][1] - 3.8 / 3600) < 1e-15
j["results"][1]["cost"]["usd_per_step_ci95"][0] < j["results"][1]["cost"]["usd_per_step"] < j["results"][1]["cost"]["usd_per_step_ci95"][1]
"%.2f" % j["results"][1]["to_train"]["usd"] == "13.60"
abs(j["results"][1]["improvement_pct_ci95"][0] - (1 - 3.8 / 1.861) * 100) < 1e-9 and abs(j["results"][1]["improvement_pct_ci95"][1] - (1 - 1.22 / 1.861) * 100) < 1e-9
j["results"][0]["cost"]["usd_per_step_ci95"] is None and "usd_per_hour_range" not in j["results"][0]["instances"][0]
abs(j["results"][1]["spot"]["interruptions_per_hour"] - 2 * -__import__("math").log(1 - 0.175) / 730) < 1e-12'
check "advise names the cheapest and dearest zone" bash -c "\"$pperf\" advise '$work/spot.json' | grep -q 'cheapest zone us-east-1a, dearest us-east-1c'"
check "results match schemas/results.schema.json" /usr/bin/python3 tests/e2e/validate_schema.py schemas/results.schema.json \
  "$work/spot.json" "$work/euw1.out.json" "$work/gcp.out.json"

# --- list instances filters -----------------------------------------------------------------------
check "list: CPU-only" bash -c "\"$pperf\" list instances --pricing '$work/tables/ec2.json' --region us-east-1 --accelerator none | awk 'f; /^type /{f=1}' | cut -d' ' -f1 | tr '\n' ' ' | grep -qx 'c7i.large '"
check "list: price cap and accelerator text" bash -c "\"$pperf\" list instances --pricing '$work/tables/sky.json' --region us-east-1 --accelerator l40s --max-usd-per-hour 2 | awk 'f; /^type /{f=1}' | cut -d' ' -f1 | tr '\n' ' ' | grep -qx 'g6e.xlarge '"
check "list: min vCPUs leaves none" bash -c "\"$pperf\" list instances --pricing '$work/tables/ec2.json' --region us-east-1 --min-vcpus 500 | grep -q 'no instance type matches'"
check "list: bad flag value is exit 2" one_line_error "^pperf list: --min-vcpus: expected a whole number > 0, got 'x'" \
  "$pperf" list instances --pricing "$work/tables/ec2.json" --region us-east-1 --min-vcpus x

# --- prices diff and a price change in the history ---------------------------------------------------
/usr/bin/python3 - "$work/tables/ec2.json" "$work/tables/ec2-new.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["regions"]["us-east-1"]["g6e.xlarge"]["on_demand"] = 1.5; t["published"] = "2026-11-20"
json.dump(t, open(sys.argv[2], "w"), indent=2)
PY
check "prices diff lists the change with units" bash -c "\"$pperf\" prices diff '$work/tables/ec2.json' '$work/tables/ec2-new.json' > '$work/diff.out' && \
  grep -qE '^us-east-1 +g6e.xlarge +on_demand +1.861 USD/h +1.5 USD/h +-19.4 %$' '$work/diff.out' && grep -q '^1 price(s) changed' '$work/diff.out'"
check "prices diff of a table with itself" bash -c "\"$pperf\" prices diff '$work/tables/ec2.json' '$work/tables/ec2.json' | grep -q 'no price changed'"
cp "$work/cfg/use1.json" "$work/cfg/hist.json"
for i in 1 2 3 4 5 6; do
  [ "$i" -eq 4 ] && sed -i 's#../tables/ec2.json#../tables/ec2-new.json#' "$work/cfg/hist.json"
  "$pperf" cost --config "$work/cfg/hist.json" --out "$work/hist$i.json" --history "$work/h.sqlite" --quiet >/dev/null 2>&1 || echo "  cost $i failed"
done
check "history changes: exit 0" expect_exit 0 "$work/changes.out" "$pperf" history changes --db "$work/h.sqlite"
check "history changes: the table change is a price event" grep -qE \
  "price table changed at run 4 .*: ec2 \(published 2026-10-15, .*\) -> ec2 \(published 2026-11-20, .*\) \(a price event, not a performance change\)" "$work/changes.out"
check "history changes: no usd_per_step change point from it" bash -c "! grep -q usd_per_step '$work/changes.out'"
check "history changes --json: metric price_table" bash -c "\"$pperf\" history changes --db '$work/h.sqlite' --json > '$work/changes.json'"
check "history changes --json: one price event" json_check "$work/changes.json" '
[c["metric"] for c in j] == ["price_table"] and j[0]["run_id"] == 4'
check "history list records the table identity" bash -c "\"$pperf\" history list --db '$work/h.sqlite' --json > '$work/list.json'"
check "history list: sha256 and published per run" json_check "$work/list.json" '
[r["pricing_published"] for r in j] == ["2026-10-15"] * 3 + ["2026-11-20"] * 3
len({r["pricing_sha256"] for r in j}) == 2'
check "compare names the price table change" bash -c "\"$pperf\" compare '$work/hist1.json' '$work/hist4.json' --out '$work/cmp.json' >/dev/null 2>&1; \
  /usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); f=[w[\"field\"] for w in j[\"warnings\"]]; sys.exit(0 if \"pricing.sha256\" in f and \"pricing.published\" in f and all(p[\"verdict\"] != \"regressed\" for p in j[\"pairs\"]) else 1)' '$work/cmp.json'"

finish
