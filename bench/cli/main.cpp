#include "bench/cli/commands.h"

int main(int argc, char** argv) { return pperf::run_cli(argc, argv); }
