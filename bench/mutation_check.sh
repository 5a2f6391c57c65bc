#!/usr/bin/env bash
# Mutation check (issue 28; the torch libraries since issue 45; not in CI): applies one
# single-point change at a time (bench/mutation/mutants.tsv: file, exact original text,
# replacement, what it models, and optionally the tests that should notice), rebuilds the test
# binary those tests are in, runs them, and reports per mutant whether a test failed (killed) or
# none did (survived), then the score. The file is restored after each mutant, also on error or
# Ctrl-C (trap).
#
# The tests column is BINARY or BINARY:GTEST_FILTER; BINARY is `unit` (pperf_unit_tests, the
# default: every test) or `torch` (pperf_torch_tests, which also rebuilds `pperf`: the executor's
# tests start it; only the filter's tests run, the torch suite being slow). With ccache
# (CMAKE_CXX_COMPILER_LAUNCHER=ccache and a CCACHE_DIR shared with the main build) a torch mutant
# costs its file's compile and two links.
#
#   bench/mutation_check.sh [--build-dir DIR] [--only 3,7,12] [--new-tests GTEST_FILTER]
#
# --new-tests: also score the suite without those tests ("before"): each mutant is run against
#   every other test first; only if it survives them are the named tests run. With the tests
#   added since the commit the suite is compared to, this gives the score before and after in
#   one pass (the libraries and the older test files being unchanged).
# --build-dir: an existing build (e.g. build) saves the first full build of the torch side; no
#   other ninja may run in it meanwhile.
# Environment: MUTANTS (default bench/mutation/mutants.tsv), TEST_TIMEOUT_S (default 600; a
#   mutant that hangs the tests counts as killed), JOBS (ninja -j, default 2).
# Exit status: 0 when every mutant was run (whatever the score), 2 on a usage or setup error.
set -uo pipefail

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$SRC/build-mutation"
ONLY=""
NEW=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) BUILD="$2"; shift 2 ;;
    --only) ONLY=",$2,"; shift 2 ;;
    --new-tests) NEW="$2"; shift 2 ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    *) echo "mutation_check: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
MUTANTS="${MUTANTS:-$SRC/bench/mutation/mutants.tsv}"
TIMEOUT="${TEST_TIMEOUT_S:-600}"
JOBS="${JOBS:-2}"
[[ -f "$MUTANTS" ]] || { echo "mutation_check: no mutants file $MUTANTS" >&2; exit 2; }

WORK="$(mktemp -d)"
APPLIED=""  # the source file currently mutated ("" when none)
restore() {
  if [[ -n "$APPLIED" ]]; then
    cp "$WORK/original" "$SRC/$APPLIED"  # new mtime: the next build recompiles it
    APPLIED=""
  fi
}
trap 'restore; rm -rf "$WORK"' EXIT
trap 'restore; exit 130' INT TERM

# The mutants: one entry per row, split on single tabs by hand (read would merge the two tabs
# around an empty replacement).
FILES=() ORIGINALS=() REPLACEMENTS=() WHATS=() BINARIES=() FILTERS=()
while IFS= read -r line; do
  [[ -z "$line" || "$line" == \#* ]] && continue
  file="${line%%$'\t'*}" rest="${line#*$'\t'}"
  original="${rest%%$'\t'*}" rest="${rest#*$'\t'}"
  replacement="${rest%%$'\t'*}" rest="${rest#*$'\t'}"
  what="${rest%%$'\t'*}" tests="unit"
  [[ "$rest" == *$'\t'* ]] && tests="${rest#*$'\t'}"
  binary="${tests%%:*}" filter="*"
  [[ "$tests" == *:* ]] && filter="${tests#*:}"
  case "$binary" in
    unit) binary=pperf_unit_tests ;;
    torch) binary=pperf_torch_tests ;;
    *) echo "mutation_check: unknown tests '$tests' (unit or torch[:FILTER]) for $file: $what" >&2; exit 2 ;;
  esac
  FILES+=("$file") ORIGINALS+=("$original") REPLACEMENTS+=("$replacement") WHATS+=("$what")
  BINARIES+=("$binary") FILTERS+=("$filter")
done <"$MUTANTS"

selected() { [[ -z "$ONLY" || "$ONLY" == *",$1,"* ]]; }
build() { ninja -C "$BUILD" -j"$JOBS" "$1" >"$WORK/build.log" 2>&1; }
# Runs BINARY's tests matching a gtest filter; 0 when every test passed.
run_tests() {
  timeout "$TIMEOUT" "$BUILD/$1" --gtest_brief=1 --gtest_fail_fast "--gtest_filter=$2" >"$WORK/test.log" 2>&1
}
# A filter without the tests in NEW (gtest: POSITIVE-NEGATIVE).
without_new() { if [[ "$1" == *-* ]]; then echo "$1:$NEW"; else echo "$1-$NEW"; fi; }

if [[ ! -f "$BUILD/build.ninja" ]]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >"$WORK/cmake.log" 2>&1 ||
    { cat "$WORK/cmake.log" >&2; exit 2; }
fi
# Each binary the selected mutants need, built and passing unmutated (on the union of their filters).
declare -A NEEDED=()
for i in "${!FILES[@]}"; do
  selected $((i + 1)) || continue
  b="${BINARIES[$i]}" f="${FILTERS[$i]}"
  if [[ -z "${NEEDED[$b]:-}" ]]; then NEEDED[$b]="$f"; elif [[ ":${NEEDED[$b]}:" != *":$f:"* ]]; then NEEDED[$b]+=":$f"; fi
done
for b in "${!NEEDED[@]}"; do
  [[ "${NEEDED[$b]}" == *'*'* && "$b" == pperf_unit_tests ]] && NEEDED[$b]="*"
  echo "mutation_check: building the unmutated $b in $BUILD"
  build "$b" || { tail -30 "$WORK/build.log" >&2; exit 2; }
  if ! run_tests "$b" "${NEEDED[$b]}"; then
    tail -30 "$WORK/test.log" >&2
    echo "mutation_check: the unmutated $b (${NEEDED[$b]}) fails; fix it first" >&2
    exit 2
  fi
done

REPORT="$BUILD/mutation-report.tsv"
printf 'id\tfile\tresult\tbefore\twhat\n' >"$REPORT"
total=0 killed=0 killed_before=0 stillborn=0
survivors=() survivors_before=()
for i in "${!FILES[@]}"; do
  id=$((i + 1))
  selected "$id" || continue
  file="${FILES[$i]}" original="${ORIGINALS[$i]}" replacement="${REPLACEMENTS[$i]}" what="${WHATS[$i]}"
  binary="${BINARIES[$i]}" filter="${FILTERS[$i]}"
  cp "$SRC/$file" "$WORK/original"
  APPLIED="$file"
  if ! python3 - "$SRC/$file" "$original" "$replacement" <<'EOF'; then
import sys
path, original, replacement = sys.argv[1:]
text = open(path).read()
if text.count(original) != 1:
    sys.exit(f"found {text.count(original)} times, not once: {original}")
open(path, "w").write(text.replace(original, replacement))
EOF
    restore
    echo "mutation_check: mutant $id ($file) does not apply: fix $MUTANTS" >&2
    exit 2
  fi
  if ! build "$binary"; then
    restore
    stillborn=$((stillborn + 1))
    printf '#%-3s %-9s %s: %s\n' "$id" "no-build" "$file" "$what"
    printf '%s\t%s\tno-build\t-\t%s\n' "$id" "$file" "$what" >>"$REPORT"
    continue
  fi
  total=$((total + 1))
  before="-"
  if [[ -n "$NEW" ]]; then
    if run_tests "$binary" "$(without_new "$filter")"; then
      before="survived"
      survivors_before+=("#$id $file: $what")
      if run_tests "$binary" "$NEW"; then result="survived"; else result="killed"; fi
    else
      before="killed" result="killed"
      killed_before=$((killed_before + 1))
    fi
  else
    if run_tests "$binary" "$filter"; then result="survived"; else result="killed"; fi
  fi
  restore
  if [[ "$result" == "killed" ]]; then killed=$((killed + 1)); else survivors+=("#$id $file: $what"); fi
  printf '#%-3s %-9s %s%s: %s\n' "$id" "$result" "$file" "$([[ -n "$NEW" ]] && echo " (before: $before)")" "$what"
  printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$file" "$result" "$before" "$what" >>"$REPORT"
done

# Leave the build dir matching the restored sources.
for b in "${!NEEDED[@]}"; do build "$b" >/dev/null 2>&1 || true; done
pct() { [[ $2 -gt 0 ]] && awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f %%", 100 * a / b }' || echo "n/a"; }
echo
echo "mutants run: $total (did not build: $stillborn)"
[[ -n "$NEW" ]] && echo "killed without the tests '$NEW': $killed_before / $total ($(pct "$killed_before" "$total"))"
echo "killed: $killed / $total ($(pct "$killed" "$total"))"
if [[ ${#survivors[@]} -gt 0 ]]; then
  echo "survivors:"
  printf '  %s\n' "${survivors[@]}"
fi
echo "per mutant: $REPORT"
exit 0
