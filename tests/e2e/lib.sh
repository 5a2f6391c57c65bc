# What the end-to-end test scripts share (sourced first thing, with the script's own arguments):
# $pperf (the binary given as $1, made absolute), $root (the source tree, the working
# directory), $work (a temporary directory removed at exit unless KEEP_WORK is set), $real_data
# and need_real_data (tests/e2e/real_data.sh: the real files others wrote), and helpers: one line
# per check, a count at the end.
pperf="$(readlink -f "$1")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$work"' EXIT
cd "$root"
source tests/e2e/real_data.sh
passed=0 failed=0

edit() { /usr/bin/python3 tests/e2e/edit_results.py "$@"; }  # see tests/e2e/edit_results.py

check() {  # check NAME COMMAND...: the command must succeed
  local name="$1"; shift
  if "$@"; then passed=$((passed + 1)); echo "ok   $name"; else failed=$((failed + 1)); echo "FAIL $name"; fi
}

expect_exit() {  # expect_exit CODE OUTFILE COMMAND...: stdout and stderr go to OUTFILE
  local code="$1" out="$2"; shift 2
  "$@" >"$out" 2>&1
  local got=$?
  [ "$got" -eq "$code" ] || { echo "  exit $got, expected $code: $*"; cat "$out"; return 1; }
}

one_line_error() {  # one_line_error PATTERN COMMAND...: exit 2, exactly one line matching PATTERN
  local pattern="$1"; shift
  expect_exit 2 "$work/err" "$@" || return 1
  [ "$(wc -l <"$work/err")" -eq 1 ] && grep -qE -- "$pattern" "$work/err" || { echo "  got:"; cat "$work/err"; return 1; }
}

json_check() {  # json_check FILE PYTHON-EXPRESSIONS (one per line, each must be true; `j` is the doc)
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for line in sys.argv[2].strip().splitlines():
    try:
        ok = eval(line)
    except Exception as e:
        ok = False
        print("  error:", type(e).__name__, e)
    if not ok:
        print("  false:", line.strip()); sys.exit(1)
PY
}

no_process() {  # no_process PATTERN: no process's command line matches PATTERN (pgrep -f)
  ! pgrep -f -- "$1" >/dev/null
}

finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}

# Sets $venv_python to the launch platforms' venv (scripts/setup-launch-venv.sh: botocore, moto,
# sagemaker, sagemaker-training, skypilot, kubernetes, jsonschema), or skips the test (exit 77) saying why.
launch_venv_or_skip() {
  if ! venv_python="$(scripts/setup-launch-venv.sh 2>"$work/venv.log")"; then
    echo "SKIP: the launch platforms' packages (scripts/setup-launch-venv.sh) could not be installed: $(tail -1 "$work/venv.log")"
    exit 77
  fi
  export SAGEMAKER_SUPPRESS_V2_WARNING=1
}

# Writes OUT: seed 000's shipped config (configs/p4d_vs_hetero.json) at a size this host measures
# in seconds: the tiny preset as its native size, a budget of seconds, and a CPU trainer instance
# (this host has no GPU; the seed's p4d trains on its A100s there, and --native checks that priced
# GPUs are trained on). The launched jobs' one-host tests run it.
ci_seed000_config() {
  /usr/bin/python3 - configs/p4d_vs_hetero.json "$1" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["name"] = "seed000-ci"
c["workloads"][0]["native"] = {"preset": "tiny", "batch_size": 8}
c["measure"] = {"warmup_steps": 1, "min_steps": 6, "max_steps": 30, "max_seconds": 3, "target_rel_ci": 0.5}
for conf in c["configurations"]:
    conf.pop("native", None)
    for g in conf["instances"]:
        if g["role"] == "dnn":
            g["type"] = "ml.c5.9xlarge"
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY
}

# Writes DIR/cert.pem and DIR/key.pem: a self-signed certificate for the one-host harnesses' data
# hosts (127.0.0.2-9, the addresses they are played on), as `pperf launch --tls` takes.
tls_dir_for_harness() {  # tls_dir_for_harness DIR [DNS-NAME...]: also the names the trainer dials
  local dir="$1" names=""; shift
  for n in "$@"; do names+=",DNS:$n"; done
  mkdir -p "$dir"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj "/CN=pperf-data" \
    -addext "subjectAltName=$(seq -s, -f 'IP:127.0.0.%g' 2 9)$names" -keyout "$dir/key.pem" -out "$dir/cert.pem" >/dev/null 2>&1
}
