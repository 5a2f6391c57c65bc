#include "pricing/price_results.h"

namespace pperf {

namespace {
const Configuration* find_configuration(const Config& config, const std::string& name) {
  for (const auto& c : config.configurations)
    if (c.name == name) return &c;
  return nullptr;
}
}  // namespace

void price_results(std::vector<Result>& results, const Config& config) {
  for (auto& r : results) {
    const Configuration* configuration = find_configuration(config, r.configuration);
    if (!configuration) continue;
    r.instances = price_groups(*configuration, config);
    if (!r.step) continue;
    CostInput input;
    input.groups = r.instances;
    input.discount_pct = config.pricing.discount_pct;
    input.step = *r.step;
    input.samples_per_step = static_cast<double>(r.batch_size);
    input.steps_to_train = config.steps_to_train;
    input.billable_seconds = configuration->billable_seconds;
    r.cost = price(input);
  }
  for (auto& r : results) {
    if (!r.cost) continue;
    const Result* base = nullptr;
    for (const auto& candidate : results)
      if (candidate.baseline && candidate.workload == r.workload && candidate.preset == r.preset &&
          candidate.cost)
        base = &candidate;
    if (!base) {
      r.events.push_back("no priced baseline result for this workload: improvement not computed");
      continue;
    }
    r.comparison = compare(*r.cost, *r.step, *base->cost, *base->step, r.baseline);
  }
}

}  // namespace pperf
