// libFuzzer target: the config parser and validator (load_config), then the plan and the
// pricing inputs of whatever it accepts. Bad input must be an InputError, never a crash, a
// leak, undefined behaviour or a hang.
#include <cstdint>
#include <exception>

#include "src/config/config.h"
#include "src/config/plan.h"
#include "fuzz_input_file.h"
#include "unit_registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = pperf::fuzz::write_input("config", data, size);
  try {
    const pperf::Config config = pperf::load_config(path, pperf::testing::fixture_workloads());
    (void)pperf::make_plan(config, {}, pperf::HostCapacity{2});
    (void)pperf::pricing_inputs(config);
  } catch (const std::exception&) {
    // Refused input: what a user sees as one line, exit 2.
  }
  return 0;
}
