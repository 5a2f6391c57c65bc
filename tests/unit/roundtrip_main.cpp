// pperf_results_roundtrip FILE...: each results file, read and written again, must be
// byte-identical. The CLI test runs it on every results file it produces.
#include <fstream>
#include <iostream>
#include <sstream>

#include "src/core/input_error.h"
#include "src/core/results_json.h"

int main(int argc, char** argv) {
  int failures = 0;
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i]);
    std::stringstream text;
    text << in.rdbuf();
    try {
      if (pperf::results_file_text(pperf::read_results_file(argv[i])) != text.str()) {
        std::cerr << argv[i] << ": written back differently\n";
        ++failures;
      }
    } catch (const pperf::InputError& e) {
      std::cerr << e.what() << "\n";
      ++failures;
    }
  }
  return failures ? 1 : 0;
}
