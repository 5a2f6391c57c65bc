#!/usr/bin/env bash
# scripts/nightly.sh over four nights: the first is recorded and not compared (exit 0), the
# second and third have too few earlier runs to test against (undecided, exit 0), the fourth
# carries a 10 % slowdown (exit 1, failures in junit.xml, regressions first in summary.md). Real `pperf run`s of the tiny config;
# a wrapper then sets each night's step times (100 samples around a chosen level) so the
# verdicts do not depend on this host's drift, and records the run as `run --history` would.
# usage: tests/e2e/nightly_test.sh PATH/TO/pperf
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The wrapper: `run ... --out F --history DB` runs the real pperf without --history, rewrites F's
# samples with NIGHT_LEVEL (ms), then records F; every other command goes to the real pperf.
cat >"$work/pperf-night" <<EOF
#!/usr/bin/env bash
[ "\$1" = run ] || exec "$pperf" "\$@"
args=() out="" db=""
while [ \$# -gt 0 ]; do
  case "\$1" in
    --history) db="\$2"; shift 2 ;;
    --out) out="\$2"; args+=("\$1" "\$2"); shift 2 ;;
    *) args+=("\$1"); shift ;;
  esac
done
"$pperf" "\${args[@]}" || exit \$?
/usr/bin/python3 "$root/tests/e2e/edit_results.py" "\$out" "\$out" \
  "for k, r in enumerate(j['results']): synth(r, \$NIGHT_LEVEL * (1 + k), 100, 0.03, \$NIGHT_SEED + k)"
"$pperf" history record --db "\$db" "\$out"
EOF
chmod +x "$work/pperf-night"
night() {  # night N LEVEL: scripts/nightly.sh once; its exit code in $work/exitN
  NIGHT_LEVEL="$2" NIGHT_SEED="$((100 * $1))" scripts/nightly.sh --pperf "$work/pperf-night" --db "$work/h.sqlite" \
    --out-dir "$work/out$1" tests/data/tiny_run.json >"$work/night$1.log" 2>&1
  echo $? >"$work/exit$1"
}

check "--help" bash -c "scripts/nightly.sh --help 2>&1 | grep -q 'usage: scripts/nightly.sh'"
check "no config: exit 2" bash -c "scripts/nightly.sh --db '$work/x.sqlite' >/dev/null 2>&1; [ \$? -eq 2 ]"

night 1 10
check "night 1: exit 0" test "$(cat "$work/exit1")" = 0
check "night 1: every file" bash -c "cd '$work/out1' && test -s report.html && test -s summary.md && test -s junit.xml && test -s tiny-run.json && test -s compare-tiny-run.json"
check "night 1: recorded" test "$(sqlite3 "$work/h.sqlite" 'SELECT count(*) FROM runs')" = 1
check "night 1: not compared, and says so" grep -q "not enough history" "$work/out1/summary.md"
check "night 1: junit is XML with no testcase" /usr/bin/python3 -c "
import xml.etree.ElementTree as ET; t = ET.parse('$work/out1/junit.xml').getroot()
assert t.tag == 'testsuites' and t.get('tests') == '0' and not t.findall('.//testcase')"

night 2 10
check "night 2: exit 0" test "$(cat "$work/exit2")" = 0
check "night 2: one earlier run is too few to test against" json_check "$work/out2/compare-tiny-run.json" '
[r["id"] for r in j["baseline"]["runs"]] == [1] and j["summary"]["pairs"] == 3 and j["summary"]["undecided"] == 3'
check "night 2: report has trends" bash -c "grep -q 'id=\"trends\"' '$work/out2/report.html' && grep -q 'data-runs=\"2\"' '$work/out2/report.html'"
night 3 10
check "night 3: exit 0, undecided against 2 runs" bash -c "[ \$(cat '$work/exit3') = 0 ] && grep -q '🟡 undecided' '$work/out3/summary.md'"

night 4 11
check "night 4 (+10 %): exit 1" test "$(cat "$work/exit4")" = 1
check "night 4: against nights 1 to 3" json_check "$work/out4/compare-tiny-run.json" '
[r["id"] for r in j["baseline"]["runs"]] == [1, 2, 3] and j["summary"]["regressed"] == 3'
check "night 4: junit failures" /usr/bin/python3 -c "
import xml.etree.ElementTree as ET; t = ET.parse('$work/out4/junit.xml').getroot()
assert t.get('tests') == '3' and t.get('failures') == '3' and len(t.findall('.//failure')) == 3"
check "night 4: summary starts with the regressions" bash -c "grep -m1 '^| ' '$work/out4/summary.md' >/dev/null && grep '^| 🔴 regressed' '$work/out4/summary.md' | wc -l | grep -q '^3$'"
check "four runs recorded" test "$(sqlite3 "$work/h.sqlite" 'SELECT count(*) FROM runs')" = 4

# A config that does not exist: exit 2.
check "bad config: exit 2" bash -c "scripts/nightly.sh --pperf '$pperf' --db '$work/h.sqlite' --out-dir '$work/bad' '$work/none.json' >/dev/null 2>&1; [ \$? -eq 2 ]"

finish
