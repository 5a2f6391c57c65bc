// The comparison and the advice as JSON (the run's is src/core/results_json.h).
#include "reports/formats.h"

#include "src/stats/compare_stats.h"
#include "reports/columns.h"
#include "reports/page_text.h"

namespace pperf {

namespace {
using nlohmann::json;
constexpr int kCompareSchemaVersion = 2;

json or_null(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json figures_json(const std::optional<PairFigures>& f) {
  if (!f) return nullptr;
  return {{"status", to_string(f->status)},
          {"reason", f->reason.empty() ? json(nullptr) : json(f->reason)},
          {"measured", f->measured},
          {"n", f->n},
          {"median_ms", or_null(f->median_ms)},
          {"mean_ms", or_null(f->mean_ms)},
          {"usd_per_hour", or_null(f->usd_per_hour)},
          {"usd_per_step", or_null(f->usd_per_step)}};
}

json side_json(const CompareSide& s) {
  json runs = json::array();
  for (const auto& r : s.runs)
    runs.push_back({{"id", r.id ? json(r.id) : json(nullptr)}, {"started_at", r.started_at},
                    {"git_sha", r.git_sha}, {"config_sha256", r.config_sha256}});
  return {{"source", s.file},
          {"description", s.description},
          {"config", {{"name", s.report.config_name}, {"sha256", s.report.config_sha256}}},
          {"git_sha", s.report.git_sha},
          {"started_at", s.report.started_at},
          {"status", to_string(s.report.status)},
          {"command", s.report.command},
          {"pricing", {{"table", s.report.pricing_table}, {"retrieved", s.report.pricing_retrieved},
                       {"currency", s.report.pricing_currency}}},
          {"runs", runs}};
}
nlohmann::json to_json(const project::Range& r) { return {{"value", r.value}, {"lo", r.lo}, {"hi", r.hi}}; }

nlohmann::json optional_number(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

nlohmann::json to_json(const project::SpeedFactor& f) {
  return {{"family", f.family}, {"factor", to_json(f.factor)}, {"source", f.source}};
}

nlohmann::json to_json(const project::Prediction& p) {
  const project::Candidate& c = p.candidate;
  return {{"cluster", cluster_text(c)},
          {"trainer", {{"type", c.trainer_type}, {"count", c.trainer_count}, {"vcpus_each", c.trainer_vcpus},
                       {"accelerators_each", c.trainer_accelerators}, {"usd_per_hour_each", c.trainer_usd_per_hour},
                       {"speed_factor", to_json(p.trainer_speed.factor)}}},
          {"data", c.data_count == 0 ? nlohmann::json()
                                     : nlohmann::json{{"type", c.data_type}, {"count", c.data_count}, {"vcpus_each", c.data_vcpus},
                                                      {"usd_per_hour_each", c.data_usd_per_hour},
                                                      {"speed_factor", to_json(p.data_speed.factor)}}},
          {"pooled", c.pooled},
          {"usable_cores", p.usable_cores},
          {"vcpus_per_accelerator", p.vcpus_per_accelerator},
          {"pipeline_ms", std::isfinite(p.pipeline_ms) ? nlohmann::json(p.pipeline_ms) : nlohmann::json()},
          {"trainer_ms", optional_number(p.trainer_ms)},
          {"link_ms", optional_number(p.link_ms)},
          {"bound", p.bound},
          {"step_ms", to_json(p.step_ms)},
          {"usd_per_hour", p.usd_per_hour.value},
          {"usd_per_step", to_json(p.usd_per_step)},
          {"usd_per_1m_samples", to_json(p.usd_per_1m_samples)}};
}
}  // namespace

json compare_to_json(const CompareReport& r) {
  json pairs = json::array();
  for (const auto& p : r.pairs) {
    const auto ci = p.change_pct_ci95;
    pairs.push_back({{"workload", p.workload},
                     {"preset", p.preset},
                     {"batch_size", p.batch_size},
                     {"configuration", p.configuration},
                     {"verdict", to_string(p.verdict)},
                     {"compared_by", p.compared_by.empty() ? json(nullptr) : json(p.compared_by)},
                     {"reasons", p.reasons},
                     {"baseline", figures_json(p.baseline)},
                     {"candidate", figures_json(p.candidate)},
                     {"change_pct", or_null(p.change_pct)},
                     {"change_pct_ci95", ci ? json::array({(*ci)[0], (*ci)[1]}) : json(nullptr)},
                     {"median_change_pct", or_null(p.median_change_pct)},
                     {"p_value", or_null(p.p_value)},
                     {"dof", or_null(p.dof)},
                     {"baseline_runs", p.baseline_runs},
                     {"q_value", or_null(p.q_value)},
                     {"significant", p.significant},
                     {"cost_change_pct", or_null(p.cost_change_pct)},
                     {"cost_change_time_part_pct", or_null(p.cost_time_part_pct)},
                     {"cost_change_price_part_pct", or_null(p.cost_price_part_pct)},
                     {"usd_per_step_change", or_null(p.usd_per_step_change)},
                     {"price_moved", p.price_moved}});
  }
  json warnings = json::array();
  for (const auto& w : r.warnings)
    warnings.push_back({{"field", w.field}, {"baseline", w.baseline}, {"candidate", w.candidate},
                        {"message", w.message()}});
  json summary = {{"pairs", r.pairs.size()}, {"tested_pairs", r.tested_pairs}, {"exit_code", r.exit_code()},
                  {"min_baseline_runs", kMinBaselineRuns}};
  for (Verdict v : {Verdict::regressed, Verdict::improved, Verdict::unchanged, Verdict::undecided, Verdict::added,
                    Verdict::missing, Verdict::failed})
    summary[to_string(v)] = r.count(v);
  return {{"schema_version", kCompareSchemaVersion},
          {"kind", "pperf-compare"},
          {"options", {{"alpha", r.options.alpha},
                       {"max_slowdown_pct", r.options.max_slowdown_pct},
                       {"max_cost_increase_pct", r.options.max_cost_increase_pct}}},
          {"methods", {{"change", "relative change of the mean step time"},
                       {"test_one_run", "Welch t on the log ratio of means, standard errors from batch means"},
                       {"test_runs", "prediction interval of one more run from the baseline runs' log means, t with k - 1 dof"},
                       {"correction", "benjamini_hochberg"}}},
          {"currency", r.currency},
          {"baseline", side_json(r.baseline)},
          {"candidate", side_json(r.candidate)},
          {"warnings", warnings},
          {"notes", r.notes},
          {"summary", summary},
          {"pairs", pairs}};
}

nlohmann::json advice_json(const Advice& advice) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : advice.rows)
    rows.push_back({{"rank", r.rank}, {"workload", r.workload}, {"configuration", r.configuration}, {"file", r.file},
                    {"market", r.market}, {"instances", instances_by_role(r.instances)}, {"steps", r.steps}, {"usd", r.usd},
                    {"hours", r.hours}, {"wall_hours", r.wall_hours},
                    {"p95_usd", r.p95_usd ? nlohmann::json(*r.p95_usd) : nlohmann::json(nullptr)},
                    {"expected_interruptions", r.expected_interruptions}, {"decision", advice_decision_text(r)}, {"reason", advice_reason(advice, r)}});
  return {{"market", advice.market}, {"rows", rows}, {"notes", advice.notes}};
}

/// A workload's data-parallel projection (src/project/data_parallel.h).
nlohmann::json to_json(const project::DataParallelProjection& d) {
  nlohmann::json predictions = nlohmann::json::array(), checks = nlohmann::json::array();
  for (const auto& p : d.predictions)
    predictions.push_back({{"type", p.type}, {"instances", p.instances}, {"link_gbps", optional_number(p.link_gbps)},
                           {"allreduce_ms", p.allreduce_ms}, {"exposed_ms", p.exposed_ms}, {"step_ms", to_json(p.step_ms)},
                           {"efficiency", to_json(p.efficiency)}, {"usd_per_hour", p.usd_per_hour},
                           {"usd_per_1m_samples", to_json(p.usd_per_1m_samples)},
                           {"epoch_hours", p.epoch_hours ? to_json(*p.epoch_hours) : nlohmann::json()},
                           {"epoch_usd", p.epoch_usd ? to_json(*p.epoch_usd) : nlohmann::json()},
                           {"meets_deadline", p.meets_deadline ? nlohmann::json(*p.meets_deadline) : nlohmann::json()}});
  for (const auto& c : d.validation.checks)
    checks.push_back({{"instances", c.instances}, {"predicted_allreduce_ms", c.predicted_allreduce_ms},
                      {"measured_allreduce_ms", c.measured_allreduce_ms}, {"predicted_step_ms", c.predicted_step_ms},
                      {"measured_step_ms", c.measured_step_ms}, {"error_pct", c.error_pct}, {"fitted", c.fitted}});
  const project::DataParallelInputs& in = d.inputs;
  return {{"workload", d.workload},
          {"formula", "step(N) = step(1) + (1 - overlap) x 2(N-1)/N x gradient bytes / link"},
          {"inputs",
           {{"step_one_ms", to_json(in.step_one_ms)}, {"step_source", in.step_source}, {"samples_per_step_one", in.samples_per_step_one},
            {"bytes_per_step", in.bytes_per_step}, {"overlap", in.overlap}, {"overlap_source", in.overlap_source}}},
          {"instances", d.instances},
          {"epoch_samples", optional_number(d.epoch_samples)},
          {"deadline_h", optional_number(d.deadline_h)},
          {"cheapest", d.cheapest ? predictions[*d.cheapest] : nlohmann::json()},
          {"predictions", predictions},
          {"validation", {{"host_link_gbps", optional_number(d.validation.host_link_gbps)}, {"checks", checks}, {"note", d.validation.note}}}};
}

nlohmann::json projection_json(const project::Projection& p) {
  nlohmann::json workloads = nlohmann::json::array();
  for (const auto& w : p.workloads) {
    const project::Measured& m = w.measured;
    nlohmann::json factors = nlohmann::json::array(), predictions = nlohmann::json::array(), checks = nlohmann::json::array();
    for (const auto& f : w.speed_factors) factors.push_back(to_json(f));
    for (const auto& pr : w.predictions) predictions.push_back(to_json(pr));
    for (const auto& c : w.checks)
      checks.push_back({{"configuration", c.configuration}, {"reference", c.reference}, {"predicted", to_json(c.predicted)},
                        {"actual_ms", optional_number(c.actual_ms)},
                        {"actual_source", c.actual_source.empty() ? nlohmann::json() : nlohmann::json(c.actual_source)},
                        {"error_pct", c.actual_ms ? nlohmann::json(project::error_pct(c)) : nlohmann::json()},
                        {"actual_inside_interval", c.actual_ms ? nlohmann::json(*c.actual_ms >= c.predicted.step_ms.lo &&
                                                                                *c.actual_ms <= c.predicted.step_ms.hi)
                                                               : nlohmann::json()}});
    workloads.push_back(
        {{"workload", m.workload},
         {"samples_per_step", m.samples_per_step},
         {"inputs",
          {{"pipeline_cpu_s_per_sample", to_json(m.pipeline_cpu_s_per_sample)},
           {"scaling_efficiency", to_json(m.scaling_efficiency)},
           {"scaling_cores", m.scaling_cores},
           {"trainer_cpu_s_per_step", m.trainer_cpu_s_per_step},
           {"trainer_step_ms", m.trainer_step_ms ? to_json(*m.trainer_step_ms) : nlohmann::json()},
           {"bytes_per_batch", optional_number(m.bytes_per_batch)},
           {"pipeline_source", m.pipeline_source},
           {"pipeline_absent", m.pipeline_absent.empty() ? nlohmann::json() : nlohmann::json(m.pipeline_absent)},
           {"trainer_source", m.trainer_source}}},
         {"trainer", {{"type", w.trainer_type}, {"count", w.trainer_count}}},
         {"knee_vcpus_per_accelerator", optional_number(w.knee_vcpus_per_accelerator)},
         {"knee_data_instances", w.knee_data_instances ? nlohmann::json(*w.knee_data_instances) : nlohmann::json()},
         {"host_calibration", optional_number(w.host_calibration)},
         {"cheapest", w.predictions.empty() ? nlohmann::json() : to_json(w.predictions[0])},
         {"speed_factors", factors},
         {"predictions", predictions},
         {"configurations", checks}});
  }
  nlohmann::json out = {{"kind", "pperf-projection"},
          {"schema_version", 1},
          {"config", {{"path", p.config_path}, {"name", p.config_name}}},
          {"pricing", {{"table", p.table}, {"path", p.table_path}, {"region", p.region}, {"market", p.market}}},
          {"model",
           {{"formula", "step = max(trainer step, pipeline CPU-seconds per step / usable core-equivalents, batch bytes / link bandwidth)"},
            {"model_error_pct", p.settings.model_error_pct},
            {"link_gbit_per_s", optional_number(p.settings.link_gbit_per_s)}}},
          {"reference", p.reference_host},
          {"next_config", p.next_config_path.empty() ? nlohmann::json() : nlohmann::json(p.next_config_path)},
          {"workloads", workloads}};
  if (!p.data_parallel.empty()) {
    out["data_parallel"] = nlohmann::json::array();
    for (const auto& d : p.data_parallel) out["data_parallel"].push_back(to_json(d));
  }
  return out;
}

}  // namespace pperf
