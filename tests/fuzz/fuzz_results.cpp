// libFuzzer target: the results reader (read_results_file), then writing back what it read
// and reading that again (the round trip every reader of results files relies on).
#include <cstdint>
#include <cstdlib>
#include <exception>

#include "src/core/results_json.h"
#include "fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = pperf::fuzz::write_input("results", data, size);
  pperf::RunReport report;
  try {
    report = pperf::read_results_file(path);
  } catch (const std::exception&) {
    return 0;  // refused input
  }
  // What was accepted must write and read back to the same text.
  const std::string text = pperf::results_file_text(report);
  const std::string again = pperf::results_file_text(pperf::results_from_json(nlohmann::json::parse(text), path));
  if (again != text) std::abort();
  return 0;
}
