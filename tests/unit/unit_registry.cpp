#include "unit_registry.h"

namespace pperf::testing {

const WorkloadRegistry& fixture_workloads() {
  static const WorkloadRegistry registry = [] {
    WorkloadRegistry r;
    WorkloadDescriptor d;
    d.name = "mnist_heavy";
    d.description = "fixture: the names, presets and params config validation is tested against";
    d.presets = {{"full", "", 256}, {"tiny", "", 64}};
    d.params = {{"data", "string", "fashion-mnist", "", {"fashion-mnist", "synthetic"}},
                {"data_dir", "string", "/usr/share/datasets/fashion-mnist", "", {}},
                {"lr", "number", 1.0, "", {}},
                {"sizes", "integer_list", nlohmann::json::array({1, 2}), "", {}}};
    d.capabilities = {/*data_parallel=*/true, /*checkpoint=*/true, /*data_workers=*/true, /*model_flops=*/true};
    d.capabilities.wires = {"uint8"};
    r.add(d);
    return r;
  }();
  return registry;
}

}  // namespace pperf::testing
