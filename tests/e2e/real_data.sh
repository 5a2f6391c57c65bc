# Where the real files others wrote live (DESIGN.md §9), for every shell script that reads them
# (sourced by lib.sh, pricing/sources/reimport.sh and bench/): $real_data is $PPERF_REAL_DATA, else
# ../shared/real-data; a relative folder is taken from the project root. Defines nothing else
# and changes nothing.
real_data="${PPERF_REAL_DATA:-../shared/real-data}"
[[ "$real_data" = /* ]] || real_data="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/$real_data"

need_real_data() {  # a script that reads them: exit 77 (ctest: skipped) with one line naming the folder when it is absent
  [ -d "$real_data" ] || { echo "SKIP: needs the real files in $real_data (PPERF_REAL_DATA)"; exit 77; }
}
