#include "pricing/advise.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>

#include "src/core/input_error.h"
#include "pricing/spot_model.h"

namespace pperf {

namespace {

bool has_spot_group(const Result& r) {
  return std::any_of(r.instances.begin(), r.instances.end(), [](const PricedGroup& g) { return g.market == Market::spot; });
}

/// For a Spot row priced as a range: the expected USD at the Spot groups' cheapest and dearest
/// table prices, with the zones named where the table has them.
std::optional<SpotPriceSpread> spot_spread(const Result& r, double expected_usd) {
  if (!r.cost->usd_per_hour_range || r.cost->usd_per_hour <= 0) return std::nullopt;
  const auto& range = *r.cost->usd_per_hour_range;
  SpotPriceSpread out;
  out.usd = {expected_usd * range[0] / r.cost->usd_per_hour, expected_usd * range[1] / r.cost->usd_per_hour};
  out.usd_per_hour = range;
  for (const auto& g : r.instances)
    if (g.market == Market::spot && !g.cheapest_zone.empty()) out.zones.push_back({g.type, g.cheapest_zone, g.dearest_zone});
  return out;
}

}  // namespace

SpotEstimate respot(const Result& r, int64_t steps) {
  const SpotEstimate& s = *r.spot;
  SpotModelInput in;
  in.step_s = r.step->mean_ms / 1000;
  in.work_s = static_cast<double>(steps) * in.step_s;
  in.interruptions_per_hour = s.interruptions_per_hour;
  in.checkpoint_save_s = s.checkpoint_save_s;
  in.checkpoint_restore_s = s.checkpoint_restore_s;
  in.restart_overhead_s = s.restart_overhead_s;
  if (s.interval_basis == "config") in.checkpoint_interval_s = s.checkpoint_interval_s;
  in.usd_per_hour = r.cost->usd_per_hour;
  in.on_demand_usd_per_hour = s.work_hours > 0 ? s.on_demand_usd / s.work_hours : 0;
  in.spot_instances = 0;
  for (const auto& g : r.instances)
    if (g.market == Market::spot) in.spot_instances += g.count;
  in.mc_trials = s.mc_trials;
  in.seed = s.mc_seed;
  SpotEstimate e = estimate_spot(in);
  e.checkpoint_basis = s.checkpoint_basis;
  return e;
}

Advice advise(const std::vector<std::pair<std::string, RunReport>>& runs, const AdviseOptions& options) {
  Advice advice;
  advice.market = options.market;
  const bool want_od = options.market != "spot", want_spot = options.market != "on_demand";
  std::map<std::string, std::vector<AdviceRow>> by_workload;
  for (const auto& [file, report] : runs) {
    for (const Result& r : report.results) {
      if (!r.cost || !r.step) continue;
      const std::string where = fmt::format("{} ({})", r.configuration, file);
      const std::optional<int64_t> steps = options.steps ? options.steps : r.cost->to_train ? r.cost->to_train->steps : std::nullopt;
      if (!steps)
        throw InputError("--steps", "", file + " has no steps_to_train for " + r.configuration + ": give --steps N");
      AdviceRow row;
      row.workload = fmt::format("{}/{}, batch {}", r.workload, r.preset, r.batch_size);
      row.configuration = r.configuration;
      row.file = file;
      row.instances = r.instances;
      if (r.decision && r.comparison.improvement_pct)
        row.decision = AdviceDecision{r.decision->verdict, r.decision->equivalence_pct, *r.comparison.improvement_pct,
                                      r.decision->confidence, report.command == "decide"};
      row.steps = *steps;
      const double work_h = static_cast<double>(*steps) * r.step->mean_ms / 3.6e6;  // billed: the mean
      const bool spot_config = has_spot_group(r);
      std::optional<SpotEstimate> spot;
      if (spot_config && r.spot) spot = options.steps ? respot(r, *steps) : *r.spot;
      if (spot_config && !spot) {
        advice.notes.push_back(where + ": Spot groups without a Spot estimate (no checkpoint cost): left out");
        continue;
      }
      if (want_od) {
        AdviceRow od = row;
        od.market = "on_demand";
        od.hours = od.wall_hours = work_h;
        od.usd = spot ? spot->on_demand_usd : work_h * r.cost->usd_per_hour;
        by_workload[row.workload].push_back(od);
      }
      if (want_spot && spot) {
        AdviceRow sp = row;
        sp.market = "spot";
        sp.hours = spot->expected_hours;
        sp.wall_hours = spot->expected_wall_hours;
        sp.usd = spot->expected_usd;
        sp.p95_usd = spot->p95_usd;
        sp.expected_interruptions = spot->expected_interruptions;
        sp.price_spread = spot_spread(r, sp.usd);
        by_workload[row.workload].push_back(sp);
      }
    }
  }
  // Configurations of one workload from separate runs (other hosts, other times) ranked side by
  // side: a ranking of two numbers, no interval; `pperf decide` decides them (issue 60).
  for (const auto& [workload, rows] : by_workload) {
    std::vector<std::string> files;
    for (const auto& row : rows)
      if (std::find(files.begin(), files.end(), row.file) == files.end()) files.push_back(row.file);
    if (files.size() < 2) continue;
    std::string list;
    for (const auto& f : files) list += (list.empty() ? "" : " ") + f;
    advice.notes.push_back(fmt::format("{}: ranked from {} runs measured apart (other hosts or times, never in turns): the "
                                       "ranking has no interval; `pperf decide {}` decides them with the host-to-host spread",
                                       workload, files.size(), list));
  }
  for (auto& [workload, rows] : by_workload) {
    std::stable_sort(rows.begin(), rows.end(), [](const AdviceRow& a, const AdviceRow& b) {
      return a.usd != b.usd ? a.usd < b.usd : a.wall_hours < b.wall_hours;
    });
    for (size_t i = 0; i < rows.size(); ++i) {
      AdviceRow& row = rows[i];
      row.rank = static_cast<int>(i + 1);
      advice.rows.push_back(row);
    }
  }
  return advice;
}

}  // namespace pperf
