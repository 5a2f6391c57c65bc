#!/usr/bin/env bash
# `pperf project` on every shipped config (configs/*.json), against its shipped price table and
# against the same table freshly re-imported from its sources (pricing/sources/reimport.sh, which
# reads $PPERF_REAL_DATA). A runnable
# config measures its baseline here, so each is run from a copy beside it with
# measure.max_seconds set to SECONDS (default 10). Prints one Markdown row per (config, table):
# exit code, the cheapest cluster, what data instances do, and whether `pperf validate` accepts
# the configuration to measure next (or the one-line reason when project could not run).
# usage: [CONFIGS="configs/a.json ..."] bench/project_shipped_configs.sh PPERF [SECONDS] [OUT_DIR]
set -uo pipefail
pperf=$(realpath "$1") seconds=${2:-10} out=${3:-$(mktemp -d)}
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD/python/examples${PYTHONPATH:+:$PYTHONPATH}"  # the shipped Python steps and datasets (as their configs say)
mkdir -p "$out/tables"
bash pricing/sources/reimport.sh "$pperf" "$out/tables" || { echo "re-import failed" >&2; exit 1; }
copies=()
trap 'rm -f "${copies[@]}"' EXIT
echo "| config | table | exit | cheapest | data instances | next config validates |"
echo "|---|---|---|---|---|---|"
for config in ${CONFIGS:-configs/*.json}; do  # CONFIGS: a space-separated subset
  name=$(basename "$config" .json)
  run_config=$config
  if ! grep -q '"step_time_ms"' "$config"; then  # runnable: a short copy beside it (relative paths hold)
    run_config=configs/.project-$name.json
    copies+=("$run_config")
    /usr/bin/python3 -c "
import json, sys
c = json.load(open(sys.argv[1])); c.setdefault('measure', {})['max_seconds'] = $seconds
json.dump(c, open(sys.argv[2], 'w'), indent=1)" "$config" "$run_config"
  fi
  shipped=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['pricing']['table'])" "$config")
  for table in "$shipped" "$out/tables/$shipped.json"; do
    label=$([ "$table" = "$shipped" ] && echo "shipped $shipped" || echo "re-imported $shipped")
    tag=$name-$([ "$table" = "$shipped" ] && echo shipped || echo imported)
    "$pperf" project --config "$run_config" --table "$table" --out "$out/$tag.json" --next "$out/$tag.next.json" >"$out/$tag.txt" 2>"$out/$tag.err"
    rc=$?
    if [ $rc -eq 0 ]; then
      cheapest=$(grep -m1 '^  cheapest:' "$out/$tag.txt" | sed 's/^  cheapest: //')
      data=$(grep -m1 '^  data instances:' "$out/$tag.txt" | sed 's/^  data instances: //; s/|/\\|/g')
      [ -z "$data" ] && data="some pay (the cheapest has data instances)"
      valid=$("$pperf" validate --config "$out/$tag.next.json" >/dev/null 2>&1 && echo yes || echo "no: $("$pperf" validate --config "$out/$tag.next.json" 2>&1 | tail -1)")
    else
      cheapest="—" data=$(tail -1 "$out/$tag.err" | sed 's/|/\\|/g') valid="—"
    fi
    echo "| $name | $label | $rc | $cheapest | $data | $valid |"
  done
done
echo "outputs: $out" >&2
