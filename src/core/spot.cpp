#include "src/core/spot.h"

#include "src/core/json_view.h"

namespace pperf {

using nlohmann::json;

json to_json(const CheckpointCost& c) {
  return {{"bytes", c.bytes},
          {"save_ms", {{"median", c.save_ms}}},
          {"restore_ms", {{"median", c.restore_ms}}},
          {"repetitions", c.repetitions},
          {"path", c.path}};
}

json to_json(const SpotEstimate& s) {
  return {{"interruptions_per_hour", s.interruptions_per_hour},
          {"mtbf_h", s.mtbf_h ? json(*s.mtbf_h) : json(nullptr)},
          {"checkpoint_interval_s", s.checkpoint_interval_s},
          {"interval_basis", s.interval_basis},
          {"checkpoint_save_s", s.checkpoint_save_s},
          {"checkpoint_restore_s", s.checkpoint_restore_s},
          {"restart_overhead_s", s.restart_overhead_s},
          {"checkpoint_basis", s.checkpoint_basis},
          {"work_hours", s.work_hours},
          {"expected_interruptions", s.expected_interruptions},
          {"expected_hours", s.expected_hours},
          {"expected_wall_hours", s.expected_wall_hours},
          {"expected_usd", s.expected_usd},
          {"monte_carlo", {{"trials", s.mc_trials}, {"seed", s.mc_seed}, {"mean_hours", s.mc_mean_hours},
                           {"p50_hours", s.p50_hours}, {"p95_hours", s.p95_hours}, {"mean_usd", s.mc_mean_usd}}},
          {"p50_usd", s.p50_usd},
          {"p95_usd", s.p95_usd},
          {"on_demand_usd", s.on_demand_usd},
          {"savings_pct", s.savings_pct},
          {"break_even_interruptions_per_month",
           s.break_even_interruptions_per_month ? json(*s.break_even_interruptions_per_month) : json(nullptr)},
          {"break_even_is_lower_bound", s.break_even_is_lower_bound}};
}

json to_json(const SpotDrill& d) {
  return {{"killed_at_step", d.killed_at_step}, {"resumed_from_step", d.resumed_from_step},
          {"measured_lost_s", d.measured_lost_s}, {"predicted_lost_s", d.predicted_lost_s},
          {"restart_s", d.restart_s}, {"restore_s", d.restore_s}, {"rework_s", d.rework_s}};
}

CheckpointCost read_checkpoint_cost(const JsonView& v) {
  CheckpointCost c;
  c.bytes = v.at("bytes").as_non_negative_int();
  c.save_ms = v.at("save_ms").at("median").as_number();
  c.restore_ms = v.at("restore_ms").at("median").as_number();
  c.repetitions = v.at("repetitions").as_non_negative_int();
  c.path = v.at("path").as_string();
  return c;
}

SpotEstimate read_spot_estimate(const JsonView& v) {
  SpotEstimate s;
  s.interruptions_per_hour = v.at("interruptions_per_hour").as_number();
  if (auto m = v.find_value("mtbf_h")) s.mtbf_h = m->as_number();
  s.checkpoint_interval_s = v.at("checkpoint_interval_s").as_number();
  s.interval_basis = v.at("interval_basis").as_string();
  s.checkpoint_save_s = v.at("checkpoint_save_s").as_number();
  s.checkpoint_restore_s = v.at("checkpoint_restore_s").as_number();
  s.restart_overhead_s = v.at("restart_overhead_s").as_number();
  s.checkpoint_basis = v.at("checkpoint_basis").as_string();
  s.work_hours = v.at("work_hours").as_number();
  s.expected_interruptions = v.at("expected_interruptions").as_number();
  s.expected_hours = v.at("expected_hours").as_number();
  s.expected_wall_hours = v.at("expected_wall_hours").as_number();
  s.expected_usd = v.at("expected_usd").as_number();
  const JsonView mc = v.at("monte_carlo");
  s.mc_trials = mc.at("trials").as_non_negative_int();
  s.mc_seed = static_cast<uint64_t>(mc.at("seed").as_non_negative_int());
  s.mc_mean_hours = mc.at("mean_hours").as_number();
  s.p50_hours = mc.at("p50_hours").as_number();
  s.p95_hours = mc.at("p95_hours").as_number();
  s.mc_mean_usd = mc.at("mean_usd").as_number();
  s.p50_usd = v.at("p50_usd").as_number();
  s.p95_usd = v.at("p95_usd").as_number();
  s.on_demand_usd = v.at("on_demand_usd").as_number();
  s.savings_pct = v.at("savings_pct").as_number();
  if (auto b = v.find_value("break_even_interruptions_per_month")) s.break_even_interruptions_per_month = b->as_number();
  s.break_even_is_lower_bound = v.bool_or("break_even_is_lower_bound", false);
  return s;
}

SpotDrill read_spot_drill(const JsonView& v) {
  SpotDrill d;
  d.killed_at_step = v.at("killed_at_step").as_non_negative_int();
  d.resumed_from_step = v.at("resumed_from_step").as_non_negative_int();
  d.measured_lost_s = v.at("measured_lost_s").as_number();
  d.predicted_lost_s = v.at("predicted_lost_s").as_number();
  d.restart_s = v.at("restart_s").as_number();
  d.restore_s = v.at("restore_s").as_number();
  d.rework_s = v.at("rework_s").as_number();
  return d;
}

}  // namespace pperf
