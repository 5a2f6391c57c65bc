#include "pricing/pricing_stage.h"

#include <stdexcept>

#include "pricing/cost_model.h"

namespace pperf {

std::vector<PricedGroup> price_groups(const std::vector<InstanceGroup>& groups, const PriceTable& table) {
  std::vector<PricedGroup> priced;
  for (const auto& g : groups) {
    PricedGroup p{g.type, static_cast<int>(g.count), g.role, g.market, 0, ""};
    if (g.usd_per_hour) {
      p.usd_per_hour_each = *g.usd_per_hour;
      p.price_basis = "override";
    } else {
      const InstanceSpec* spec = table.find(g.type);
      const std::optional<Quote> q = spec ? quote(*spec, g.market) : std::nullopt;
      if (!q) throw std::invalid_argument("price table " + table.name + " has no " + to_string(g.market) + " price for " + g.type);
      p.usd_per_hour_each = q->usd_per_hour;
      p.price_basis = q->basis;
    }
    priced.push_back(std::move(p));
  }
  return priced;
}

void price_results(std::vector<Result>& results, const PricingInputs& inputs) {
  for (auto& r : results) {
    auto configuration = inputs.configurations.find(r.configuration);
    if (configuration == inputs.configurations.end()) continue;
    r.instances = price_groups(configuration->second.instances, inputs.table);
    if (!r.step) continue;
    CostInput input;
    input.groups = r.instances;
    input.discount_pct = inputs.discount_pct;
    input.step = *r.step;
    input.samples_per_step = static_cast<double>(r.samples_per_step);
    input.steps_to_train = inputs.steps_to_train;
    input.billable_seconds = configuration->second.billable_seconds;
    r.cost = price(input);
  }
  for (auto& r : results) {
    if (!r.cost) continue;
    const Result* base = nullptr;
    for (const auto& candidate : results)
      if (candidate.baseline && candidate.workload == r.workload && candidate.preset == r.preset &&
          candidate.batch_size == r.batch_size && candidate.cost)
        base = &candidate;
    if (!base) {
      r.events.push_back("no priced baseline result for this workload: improvement not computed");
      continue;
    }
    const auto samples = [](const Result& x) { return x.measurement ? &x.measurement->step_ms : nullptr; };
    r.comparison = compare({*r.cost, *r.step, samples(r)}, {*base->cost, *base->step, samples(*base)}, r.baseline);
  }
}

}  // namespace pperf
