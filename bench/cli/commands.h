#pragma once
// The pperf command line: `pperf run|cost|validate|list`. Exit codes (DESIGN.md §4):
// 0 ok, 1 some result failed, 2 bad input, 3 runtime failure or interrupted.
namespace pperf {
int run_cli(int argc, char** argv);
}  // namespace pperf
