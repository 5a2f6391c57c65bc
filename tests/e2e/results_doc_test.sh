#!/usr/bin/env bash
# docs/results.md's field tables are made from schemas/results.schema.json (scripts/results_doc.py):
# the committed doc matches the schema; a field added to the schema without a description is
# refused naming its JSON pointer; a described one becomes a row once the script has run, and the
# check fails until it has.
# usage: tests/e2e/results_doc_test.sh   (no binary: the schema and the doc only)
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" /dev/null
doc() { /usr/bin/python3 scripts/results_doc.py "$@"; }

check "the committed doc matches the schema" doc --check
mkdir -p "$work/repo/schemas" "$work/repo/docs"
cp docs/results.md "$work/repo/docs/" && cp schemas/results.schema.json "$work/repo/schemas/"
add_field() {  # add_field JSON: a member `usd_per_epoch` of the result's cost object
  /usr/bin/python3 - "$work/repo/schemas/results.schema.json" "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["$defs"]["result"]["properties"]["cost"]["oneOf"][1]["properties"]["usd_per_epoch"] = json.loads(sys.argv[2])
json.dump(s, open(sys.argv[1], "w"), indent=1)
PY
}
add_field '{"type": ["number", "null"]}'
check "an undescribed field is refused, naming it" bash -c \
  "! /usr/bin/python3 scripts/results_doc.py '$work/repo' 2>'$work/err' &&
   grep -qF '\`usd_per_epoch\` of #/\$defs/result/properties/cost has no description' '$work/err'"
add_field '{"type": ["number", "null"], "x-unit": "currency", "description": "One pass over `data.samples`."}'
check "a described field: the check fails until the doc is made" bash -c \
  "! /usr/bin/python3 scripts/results_doc.py --check '$work/repo' 2>'$work/err' && grep -q 'run scripts/results_doc.py' '$work/err'"
check "made, the doc has its row in the cost table" bash -c \
  "/usr/bin/python3 scripts/results_doc.py '$work/repo' && /usr/bin/python3 scripts/results_doc.py --check '$work/repo' &&
   sed -n '/fields: #\/\$defs\/result\/properties\/cost -->/,/end fields/p' '$work/repo/docs/results.md' |
     grep -qF '| \`usd_per_epoch\` | number \\| null | currency | One pass over \`data.samples\`. |'"
check "only that row changed" bash -c \
  "[ \"\$(diff docs/results.md '$work/repo/docs/results.md' | grep -c '^[<>]')\" -eq 1 ]"
finish
