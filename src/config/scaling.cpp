// A config's `scaling` (docs/scaling.md): its one configuration trained on each of a list of
// trainer instance counts, one configuration per point.
#include <algorithm>

#include "src/config/config_parse.h"
#include "src/core/input_error.h"
#include "src/core/json_view.h"

namespace pperf {
namespace config_detail {

/// Most points a curve may have.
constexpr size_t kMaxScalingPoints = 16;

void expand_scaling(const JsonView& scaling, Config& config) {
  scaling.expect_object({"instances", "epoch_samples", "deadline_h"});
  if (config.sweep) scaling.fail("a config has a sweep or a scaling curve, not both");
  if (config.priced_only) scaling.fail("a scaling curve measures its points: its configuration must not give step_time_ms");
  if (config.configurations.size() != 1)
    scaling.fail("a scaling curve varies one configuration's instance count, and this config has " +
                 std::to_string(config.configurations.size()) + ": give exactly one under /configurations");
  const Configuration base = config.configurations.front();
  const std::string at_base = base.pointer + "/execution/distributed";
  if (!base.execution.distributed)
    throw InputError(config.path, base.pointer + "/execution",
                     "a scaling curve trains data-parallel: give execution.distributed (world_size, spawn_local) to the configuration");
  auto dnn = std::find_if(base.instances.begin(), base.instances.end(), [](const InstanceGroup& g) { return g.role == "dnn"; });
  if (dnn == base.instances.end())
    throw InputError(config.path, base.pointer + "/instances", "a scaling curve counts the trainer group (role \"dnn\"): there is none");
  const int64_t world = base.execution.distributed->world_size;
  if (world % dnn->count != 0)
    throw InputError(config.path, at_base + "/world_size",
                     "world_size " + std::to_string(world) + " is not a whole number of ranks per trainer instance (" +
                         std::to_string(dnn->count) + " instances)");
  const int64_t ranks_per_instance = world / dnn->count;

  ScalingSettings s;
  const JsonView list = scaling.at("instances");
  for (const auto& item : list.items()) {
    const int64_t n = item.as_positive_int();
    if (!s.instances.empty() && n <= s.instances.back())
      item.fail("instance counts must be ascending and distinct (" + std::to_string(n) + " after " + std::to_string(s.instances.back()) +
                ")");
    s.instances.push_back(n);
  }
  if (s.instances.size() < 2) list.fail("a curve needs at least two instance counts, e.g. [1, 2, 4]");
  if (s.instances.size() > kMaxScalingPoints) list.fail("more than " + std::to_string(kMaxScalingPoints) + " points");
  if (auto e = scaling.find("epoch_samples")) s.epoch_samples = e->as_positive_number();
  if (auto d = scaling.find("deadline_h")) {
    s.deadline_h = d->as_positive_number();
    if (!s.epoch_samples) d->fail("a deadline is for an epoch: give epoch_samples too");
  }

  std::vector<Configuration> points;
  for (size_t i = 0; i < s.instances.size(); ++i) {
    Configuration c = base;
    c.baseline = i == 0;
    c.name = "instances=" + std::to_string(s.instances[i]);
    for (auto& g : c.instances)
      if (g.role == "dnn") g.count = s.instances[i];
    c.execution.distributed->world_size = s.instances[i] * ranks_per_instance;
    c.sweep_pointers.push_back({"/instances", list.items()[i].pointer()});
    c.priced_gpus = priced_gpus(c.instances, config.price_table);
    points.push_back(std::move(c));
  }
  config.configurations = std::move(points);
  config.scaling = std::move(s);
}

}  // namespace config_detail
}  // namespace pperf
