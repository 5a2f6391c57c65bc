#!/usr/bin/env bash
# What a user's terminal shows (issue 66): each command a test can run here, in a tmux window 80
# and then 100 columns wide (stdout and stderr on the terminal, COLUMNS unset: pperf asks the
# terminal), captured with wrapped lines joined; no line may be wider than the window (a line the
# terminal wraps is one pperf did not fit). Also: the stale-price warning is one line.
# usage: tests/e2e/terminal_width_test.sh PATH/TO/pperf
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v tmux >/dev/null || { echo "SKIP: tmux is not installed"; exit 77; }
socket="pperf-width-$$"
tm() { tmux -L "$socket" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; [ -n "${KEEP_WORK:-}" ] || rm -rf "$work"' EXIT

# in_tmux WIDTH OUT COMMAND...: runs COMMAND in a fresh tmux window WIDTH columns wide, waits for
# it, and writes the window's whole history (wrapped lines joined: -J) to OUT.
in_tmux() {
  local width="$1" out="$2"; shift 2
  { printf 'cd %q\n' "$root"; printf '%q ' "$@"; printf '\ntmux -L %q wait-for -S done\nsleep 600\n' "$socket"; } >"$work/cmd.sh"
  tm start-server \; set -g history-limit 20000 \; new-session -d -s w -x "$width" -y 40 "env -u COLUMNS bash $work/cmd.sh" &&
    timeout 300 tmux -L "$socket" wait-for done &&
    tm capture-pane -p -J -S - -E - -t w >"$out"
  local rc=$?
  tm kill-session -t w 2>/dev/null
  return $rc
}

# fits WIDTH FILE: no line of FILE (as the window showed it) is wider than WIDTH columns.
fits() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import sys
width, lines = int(sys.argv[1]), open(sys.argv[2], encoding="utf-8").read().rstrip("\n").splitlines()
wide = [l for l in lines if len(l.rstrip()) > width]
for l in wide:
    print(f"  {len(l.rstrip())} > {width}: {l}")
if not "".join(lines).strip():
    print("  nothing captured"); sys.exit(1)
sys.exit(1 if wide else 0)
PY
}

# The commands: the list, every command's and subcommand's --help, and what each prints.
commands=("help")
for c in run cost validate list launch data-worker compare history export report decide advise prices project; do
  commands+=("$c --help")
done
for s in sagemaker skypilot kubernetes; do commands+=("launch $s --help"); done
for s in record list show changes mark copy; do commands+=("history $s --help"); done
for s in import diff; do commands+=("prices $s --help"); done
commands+=("list" "list workloads" "list configs" "list instances" "list instances --pricing aws-ec2-us-east-1"
           "validate --config smoke"
           "cost --config seed000_ex2_mnist_cost --out $work/cost.json"
           "project --config seed000_ex1_resnet50_cost --out $work/project.json"
           "export tests/data/results/run_tiny.json --format console")

on_screen() {  # on_screen WIDTH ARGS...: pperf ARGS fits a window WIDTH columns wide
  local width="$1"; shift
  in_tmux "$width" "$work/screen" "$pperf" "$@" && fits "$width" "$work/screen"
}
for width in 80 100; do
  for c in "${commands[@]}"; do
    read -r -a words <<<"$c"
    check "$width columns: pperf $c" on_screen "$width" "${words[@]}"
  done
done

# The stale-price warning on one line (the SageMaker table was published in 2024), not three.
one_warning_line() {
  in_tmux 80 "$work/screen" "$pperf" cost --config seed000_ex2_mnist_cost --out "$work/cost.json" || return 1
  grep "^pperf: warning: " "$work/screen" | grep -qE "^pperf: warning: aws-sagemaker-us-east-1: prices [0-9]+ days old" &&
    ! grep -A1 "^pperf: warning: " "$work/screen" | tail -n 1 | grep -q "^  " || { cat "$work/screen"; return 1; }
}
check "80 columns: the stale-price warning is one line" one_warning_line
finish
