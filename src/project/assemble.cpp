#include "src/project/assemble.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "src/core/input_error.h"

namespace pperf::project {

double relative_ci(const Result& r) {
  if (!r.step || r.step->mean_ms <= 0) return 0;
  if (r.step->mean_ci95_ms) return ((*r.step->mean_ci95_ms)[1] - (*r.step->mean_ci95_ms)[0]) / 2 / r.step->mean_ms;
  if (!r.spread || !r.measurement || r.measurement->step_ms.size() < 2) return 0;
  const double rho = std::clamp(r.step->lag1_autocorrelation.value_or(0), 0.0, 0.9);
  return 1.96 * r.spread->cv / std::sqrt(static_cast<double>(r.measurement->step_ms.size())) * std::sqrt((1 + rho) / (1 - rho));
}

Measured measured_from(const Result& r, const WorkloadCapabilities* workload, int64_t logical_cpus, const std::string& file,
                       double* data_cores) {
  if (!r.measurement || !r.step || !r.bottleneck || !r.execution || r.measurement->step_ms.empty())
    throw InputError(file, "", "result " + r.workload + " x " + r.configuration + " has no measurement to project from");
  const ExecutionReport& e = *r.execution;
  const double steps = static_cast<double>(r.measurement->step_ms.size());
  const double wall_s = r.measurement->elapsed_s;
  const auto size_of = [&](const std::vector<int>& set) { return static_cast<double>(set.empty() ? logical_cpus : static_cast<int64_t>(set.size())); };
  const double data_set = e.data_mode == DataMode::local ? size_of(e.cpus) : size_of(e.data_cpus);
  const double capacity = std::min(static_cast<double>(std::max<int64_t>(1, e.data_workers)), data_set);
  const double data_cpu_s = r.bottleneck->data_cpu_pct.value_or(0) / 100 * wall_s * capacity;
  if (data_cores) *data_cores = capacity;
  const double trainer_cpu_s = r.bottleneck->trainer_cpu_pct / 100 * wall_s * size_of(e.cpus);
  Measured m;
  m.workload = r.workload;
  m.samples_per_step = r.samples_per_step;
  const double rel = relative_ci(r);
  m.pipeline_cpu_s_per_sample = Range::relative(data_cpu_s / (steps * static_cast<double>(r.samples_per_step)), rel);
  m.trainer_cpu_s_per_step = trainer_cpu_s / steps;
  const WorkloadCapabilities* d = workload;
  const bool own_process = d && d->steps_as_own_ranks;  // its CPU time is not this process's
  const bool on_cpu = e.device == "cpu" && !own_process;
  const double trainer_ms = on_cpu ? 1000 * m.trainer_cpu_s_per_step / static_cast<double>(std::max<int64_t>(1, e.threads_effective))
                                   : r.step->mean_ms * (1 - r.data_wait_fraction.value_or(0));
  m.trainer_step_ms = Range::relative(trainer_ms, rel);
  m.pipeline_source = fmt::format("measured here: {} ({:.3g} data CPU-s over {:.0f} steps of {})", r.configuration, data_cpu_s, steps,
                                  r.samples_per_step);
  if (d && !d->data_workers) {
    m.pipeline_absent = fmt::format("workload {} has no input pipeline a data worker can run (its step makes its own input)", r.workload);
    m.pipeline_source = "not measured: " + m.pipeline_absent;
    m.pipeline_cpu_s_per_sample = Range::point(0);
  } else if (!r.bottleneck->data_cpu_pct) {
    m.pipeline_absent = fmt::format("{} ran no pipeline pperf can time apart (the step makes its own input, or its workers are remote)",
                                    r.configuration);
    m.pipeline_source = "not measured: " + m.pipeline_absent;
  }
  m.trainer_source = own_process ? fmt::format("measured here ({}): its mean step (the step runs in a process of its own)", r.configuration)
                   : on_cpu ? fmt::format("measured here on the CPU ({}): its CPU time per step / {} thread(s)", r.configuration,
                                          e.threads_effective)
                            : fmt::format("measured on {} ({}): mean step less its data wait", e.device, r.configuration);
  return m;
}

void scaling_from_results(Measured& m, const WorkloadCapabilities* workload, double reference_cores, const std::vector<Result>& results,
                          const std::string& reference, int64_t logical_cpus, const std::string& file) {
  for (const auto& r : results) {
    double cores = 0;
    if (r.workload != m.workload || r.configuration == reference || r.status != ResultStatus::ok || !r.bottleneck ||
        !r.bottleneck->data_cpu_pct)
      continue;
    Measured wide;
    try {
      wide = measured_from(r, workload, logical_cpus, file, &cores);
    } catch (const InputError&) {
      continue;
    }
    if (cores <= reference_cores || cores <= static_cast<double>(m.scaling_cores) || wide.pipeline_cpu_s_per_sample.value <= 0) continue;
    const Range& one = m.pipeline_cpu_s_per_sample;
    const Range& all = wide.pipeline_cpu_s_per_sample;
    m.scaling_efficiency = {one.value / all.value, one.lo / all.hi, std::max(one.value / all.value, one.hi / std::max(all.lo, 1e-12))};
    m.scaling_cores = static_cast<int64_t>(cores);
    m.pipeline_source += fmt::format("; scaling from {:g} to {:g} cores: {} ({:.4g} CPU-ms/sample)", reference_cores, cores, r.configuration,
                                     all.value * 1e3);
  }
}

std::optional<double> layout_bytes(const std::vector<TensorDecl>& layout, int64_t batch_size) {
  const std::map<std::string, double> size = {{"float32", 4}, {"int64", 8}, {"int32", 4}, {"uint8", 1}, {"bfloat16", 2}};
  double per_sample = 0;
  for (const auto& t : layout) {
    const auto it = size.find(t.dtype);
    if (it == size.end()) return std::nullopt;
    double n = it->second;
    for (int64_t dim : t.shape) n *= static_cast<double>(dim);
    per_sample += n;
  }
  return layout.empty() ? std::nullopt : std::optional<double>(per_sample * static_cast<double>(batch_size));
}

WorkloadProjection project_workload(const WorkloadInputs& in, const PriceTable& table, const FactorInputs& factor_inputs) {
  WorkloadProjection wp;
  wp.trainer_type = in.trainer.type;
  wp.trainer_count = in.trainer.count;
  wp.measured = in.measured;
  const Measured& m = wp.measured;
  // Speed factors: the reference family is 1 exactly when the pipeline cost is in its cores.
  std::map<std::string, SpeedFactor> factors = factor_inputs.measured;
  const auto factor_of = [&](const std::string& type) {
    const std::string family = family_of(type);
    auto it = factors.find(family);
    if (it != factors.end()) return it->second;
    SpeedFactor f = factor_inputs.reference_family_exact && family == factor_inputs.reference_family
                        ? SpeedFactor{family, Range::point(1), "reference: the given step's own cores"}
                        : unmeasured_factor(family);
    if (factor_inputs.relative_to_host) f.source = "relative to this host; " + f.source;
    return factors[family] = f;
  };
  // Data instances are projected only when the pipeline's cost is known. Each trainer given its
  // own step: each configuration's trainer (and its scale-ups) with its own step.
  const int64_t data_max = m.pipeline_absent.empty() ? in.max_data : 0;
  std::set<std::string> seen;
  for (const auto& c : in.configurations) {
    if (!c.trainer || (!in.each_trainer && !c.reference)) continue;
    Measured mc = m;
    if (in.each_trainer && c.given_step_ms) mc.trainer_step_ms = Range::point(*c.given_step_ms);
    for (const auto& cand : catalog_candidates(table, c.trainer->type, c.trainer->count, data_max, in.market))
      if (seen.insert(fmt::format("{}x{}+{}x{}", cand.trainer_count, cand.trainer_type, cand.data_count, cand.data_type)).second)
        wp.predictions.push_back(predict(mc, cand, factor_of(cand.trainer_type), factor_of(cand.data_count ? cand.data_type : cand.trainer_type),
                                         in.settings));
  }
  std::stable_sort(wp.predictions.begin(), wp.predictions.end(), [](const Prediction& a, const Prediction& b) {
    return a.usd_per_1m_samples.value < b.usd_per_1m_samples.value;
  });
  wp.knee_vcpus_per_accelerator = knee_vcpus_per_accelerator(m, static_cast<double>(in.trainer.count) * in.trainer_accelerators);
  if (m.pipeline_absent.empty()) wp.knee_data_instances = knee_data_instances(wp.predictions, in.trainer.type);
  // The config's own configurations: on this host by their CPU sets, or in the catalog.
  for (const auto& c : in.configurations) {
    if (!c.trainer) continue;
    const InstanceGroup& t = *c.trainer;
    const InstanceSpec* ts = table.find(t.type);
    const InstanceSpec* ds = c.data ? table.find(c.data->type) : nullptr;
    Candidate cand;
    cand.trainer_type = t.type;
    cand.trainer_count = t.count;
    cand.trainer_vcpus = ts->vcpus;
    cand.trainer_accelerators = ts->accelerators;
    cand.trainer_usd_per_hour = quote(*ts, in.market) ? quote(*ts, in.market)->usd_per_hour : 0;
    cand.trainer_link_gbps = ts->link_gbps;
    if (c.data) {
      cand.data_link_gbps = ds->link_gbps;
      cand.data_type = c.data->type;
      cand.data_count = c.data->count;
      cand.data_vcpus = ds->vcpus;
      cand.data_usd_per_hour = quote(*ds, in.market) ? quote(*ds, in.market)->usd_per_hour : 0;
    }
    SpeedFactor tf = factor_of(t.type), df = factor_of(c.data ? c.data->type : t.type);
    Measured mc = m;
    if (in.each_trainer && c.given_step_ms) mc.trainer_step_ms = Range::point(*c.given_step_ms);
    if (c.host) {  // emulated here: the CPUs the config pins, at this host's speed
      cand.trainer_count = 1;
      cand.trainer_vcpus = c.host->trainer_vcpus;
      cand.pooled = c.host->pooled;
      cand.data_count = cand.pooled ? 0 : 1;
      cand.data_vcpus = c.host->data_vcpus;
      cand.trainer_link_gbps.reset(), cand.data_link_gbps.reset();  // loopback here, not the instances' links
      tf = df = SpeedFactor{"host", Range::point(1), "this host"};
    }
    ConfigurationCheck check;
    check.configuration = c.name;
    check.reference = c.reference;
    check.predicted = predict(mc, cand, tf, df, in.settings);
    check.actual_ms = c.actual_ms;
    check.actual_source = c.actual_source;
    wp.checks.push_back(check);
  }
  // Measured here: the other configurations run on this same host, under the same contention
  // and overlap as the reference did; its measured / projected step carries them over.
  const auto ref_check = std::find_if(wp.checks.begin(), wp.checks.end(), [](const ConfigurationCheck& c) { return c.reference; });
  if (in.calibrate_to_host && ref_check != wp.checks.end() && ref_check->actual_ms) {
    const double k = *ref_check->actual_ms / ref_check->predicted.step_ms.value;
    wp.host_calibration = k;
    for (auto& c : wp.checks) {
      for (Range* r : {&c.predicted.step_ms, &c.predicted.usd_per_step, &c.predicted.usd_per_1m_samples})
        r->value *= k, r->lo *= k, r->hi *= k;
    }
  }
  for (const auto& entry : factors) wp.speed_factors.push_back(entry.second);
  return wp;
}

}  // namespace pperf::project
