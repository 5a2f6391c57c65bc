#include "pricing/pricing_stage.h"

#include <algorithm>
#include <stdexcept>

#include "src/core/mfu.h"
#include "pricing/cost_model.h"
#include "pricing/spot_model.h"
#include "src/stats/replicates.h"

namespace pperf {

std::vector<PricedGroup> price_groups(const std::vector<InstanceGroup>& groups, const PriceTable& table) {
  std::vector<PricedGroup> priced;
  for (const auto& g : groups) {
    PricedGroup p{g.type, static_cast<int>(g.count), g.role, g.market, 0, "", std::nullopt, "", ""};
    if (g.usd_per_hour) {
      p.usd_per_hour_each = *g.usd_per_hour;
      p.price_basis = "override";
    } else {
      const InstanceSpec* spec = table.find(g.type);
      const std::optional<Quote> q = spec ? quote(*spec, g.market) : std::nullopt;
      if (!q) throw std::invalid_argument("price table " + table.name + " has no " + to_string(g.market) + " price for " + g.type);
      p.usd_per_hour_each = q->usd_per_hour;
      p.price_basis = q->basis;
      p.usd_per_hour_range = q->range;
      p.cheapest_zone = q->cheapest_zone;
      p.dearest_zone = q->dearest_zone;
    }
    priced.push_back(std::move(p));
  }
  return priced;
}

namespace {

/// Expected cost to train on Spot for a priced result of a Spot configuration; a reason in the
/// result's events when it cannot be estimated.
void estimate_spot_cost(Result& r, const ConfigurationPricing& configuration, const PricingInputs& inputs) {
  const SpotSettings& spot = *configuration.spot;
  const std::optional<double> save_s =
      spot.checkpoint_save_s ? spot.checkpoint_save_s : r.checkpoint ? std::optional(r.checkpoint->save_ms / 1000) : std::nullopt;
  // R is billed restore + restart of the training process: the measured restore, plus the
  // process restart a drill measured (without a drill, the restart is not known: 0).
  const std::optional<double> restore_s =
      spot.checkpoint_restore_s ? spot.checkpoint_restore_s
      : r.checkpoint ? std::optional(r.checkpoint->restore_ms / 1000 + (r.spot_drill ? r.spot_drill->restart_s : 0))
                     : std::nullopt;
  if (!save_s || !restore_s) {
    r.events.push_back("spot: no checkpoint cost (not measured; give spot.checkpoint_save_s and checkpoint_restore_s): "
                       "expected cost to train not computed");
    return;
  }
  SpotModelInput in;
  in.step_s = r.step->mean_ms / 1000;  // what is billed, as cost and to_train
  in.work_s = static_cast<double>(*inputs.steps_to_train) * in.step_s;
  in.checkpoint_save_s = *save_s;
  in.checkpoint_restore_s = *restore_s;
  in.restart_overhead_s = spot.restart_overhead_s;
  in.checkpoint_interval_s = spot.checkpoint_interval_s;
  in.usd_per_hour = r.cost->usd_per_hour;
  in.seed = inputs.seed;
  in.spot_instances = 0;
  std::vector<InstanceGroup> on_demand = configuration.instances;
  for (size_t i = 0; i < on_demand.size(); ++i) {
    if (on_demand[i].market == Market::spot) {
      in.interruptions_per_hour += static_cast<double>(on_demand[i].count) * spot.group_interruptions_per_month[i] / kHoursPerMonth;
      in.spot_instances += static_cast<double>(on_demand[i].count);
      on_demand[i].usd_per_hour.reset();  // a negotiated Spot price says nothing of On-Demand
    }
    on_demand[i].market = Market::on_demand;
  }
  try {
    in.on_demand_usd_per_hour = group_usd_per_hour(price_groups(on_demand, inputs.table), inputs.discount_pct);
    SpotEstimate e = estimate_spot(in);
    e.checkpoint_basis = spot.checkpoint_save_s && spot.checkpoint_restore_s ? "config"
                         : r.checkpoint && !spot.checkpoint_save_s && !spot.checkpoint_restore_s ? "measured"
                                                                                                 : "measured+config";
    if (r.spot_drill && !spot.checkpoint_restore_s) e.checkpoint_basis += "+drill";
    r.spot = e;
  } catch (const std::invalid_argument& e) {
    r.events.push_back(std::string("spot: expected cost to train not computed: ") + e.what());
  }
}

/// A measurement in turns as the decision reads it: its steps, round by round.
RoundSteps timed_rounds(const Measurement& m) { return RoundSteps{m.step_ms, m.turns.round_steps}; }

/// The verdict against the baseline: from the paired rounds when the two took turns, else once
/// from the fixed-sample interval of the ratio of means (a given step time has none).
Decision decide_against(const Result& r, const Result& base, bool paired, const DecisionSettings& settings) {
  const PriceRatio price_ratio = price_ratio_of(*r.cost, *base.cost);
  if (paired) {
    // One configuration's measured seconds per round, the two averaged.
    const double seconds_per_round = (r.measurement->elapsed_s + base.measurement->elapsed_s) / 2 /
                                     static_cast<double>(std::max<int64_t>(1, r.measurement->turns.rounds));
    // One run's verdict covers its host state; a contended run's is widened (src/stats/replicates.h).
    const auto others = [](const Result& x) { return x.bottleneck ? x.bottleneck->others_cpu_pct / 100 : 0.0; };
    return with_contention(decide_interleaved(timed_rounds(*base.measurement), timed_rounds(*r.measurement), price_ratio,
                                              settings, seconds_per_round),
                           r.bottleneck || base.bottleneck ? std::optional<double>(std::max(others(r), others(base))) : std::nullopt,
                           price_ratio, settings);
  }
  std::optional<std::array<double, 2>> time_ratio;
  const bool given = !r.measured && !base.measured;
  if (given && r.comparison.speedup) time_ratio = std::array<double, 2>{1 / *r.comparison.speedup, 1 / *r.comparison.speedup};
  if (const auto& speedup = r.comparison.speedup_ci95) time_ratio = std::array<double, 2>{1 / (*speedup)[1], 1 / (*speedup)[0]};
  return decide_fixed(time_ratio, price_ratio, settings, given);
}
}  // namespace

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
    if (configuration->second.spot && inputs.steps_to_train && !input.billable_seconds)
      estimate_spot_cost(r, configuration->second, inputs);
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
    const bool paired = took_turns(r, *base);
    // What the run stopped on: the same settings its turns were decided with.
    const DecisionSettings& settings = paired ? inputs.turns_decision.value_or(inputs.decision) : inputs.decision;
    // In turns the run may have stopped on its decision: the one interval printed is the
    // anytime one (the confidence sequence's), valid under that stop; none without spread.
    const auto paired_ratio =
        paired ? anytime_time_ratio_interval(timed_rounds(*base->measurement), timed_rounds(*r.measurement), settings)
               : std::nullopt;
    r.comparison = compare({*r.cost, *r.step, samples(r)}, {*base->cost, *base->step, samples(*base)}, r.baseline, paired_ratio);
    if (paired && !paired_ratio) r.comparison.improvement_pct_ci95.reset(), r.comparison.speedup_ci95.reset();
    if (!r.baseline && base->cost->usd_per_hour > 0) {
      r.decision = decide_against(r, *base, paired, settings);
      // One interval: the table's is the decision's, bit for bit.
      if (paired) r.comparison.improvement_pct_ci95 = r.decision->improvement_pct_bounds;
    }
  }
}

std::map<std::string, PriceRatio> price_ratios(const PricingInputs& inputs, const std::string& baseline) {
  std::map<std::string, PriceRatio> ratios;
  const auto base = inputs.configurations.find(baseline);
  if (base == inputs.configurations.end()) return ratios;
  // Each configuration's $/h at both ends of its range (the point price twice without one).
  const auto usd_per_hour = [&](const ConfigurationPricing& c) {
    const auto groups = price_groups(c.instances, inputs.table);
    const double point = group_usd_per_hour(groups, inputs.discount_pct);
    return group_usd_per_hour_range(groups, inputs.discount_pct).value_or(std::array<double, 2>{point, point});
  };
  const auto base_usd = usd_per_hour(base->second);
  if (!(base_usd[0] > 0)) return ratios;
  for (const auto& [name, c] : inputs.configurations) {
    const auto usd = usd_per_hour(c);
    ratios[name] = {usd[0] / base_usd[1], usd[1] / base_usd[0]};
  }
  return ratios;
}

void price_and_rate(std::vector<Result>& results, const PricingInputs& inputs, const nlohmann::json& host) {
  for (auto& r : results) set_mfu(r, host);
  price_results(results, inputs);
}

}  // namespace pperf
