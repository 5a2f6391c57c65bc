#include "src/project/projection.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pperf::project {

std::string family_of(const std::string& type) {
  std::string t = type.rfind("ml.", 0) == 0 ? type.substr(3) : type;
  return t.substr(0, t.find('.'));
}

SpeedFactor unmeasured_factor(const std::string& family, double error_pct) {
  const double e = error_pct / 100;
  return {family, {1, 1 - e, 1 + e},
          "no measurement of this family: 1, ±" + std::to_string(static_cast<int>(std::lround(error_pct))) + " % stated"};
}

namespace {
/// The step's terms at one set of input values.
struct Terms {
  double usable = 0, pipeline_ms = 0;
  std::optional<double> trainer_ms;
};

Terms terms(const Measured& m, const Candidate& c, double cost_per_sample, double f_trainer, double f_data,
            double efficiency, std::optional<double> trainer_ms) {
  Terms t;
  const double trainer_cores = c.pooled ? static_cast<double>(c.trainer_count * c.trainer_vcpus) * f_trainer : 0;
  t.usable = efficiency * (trainer_cores + static_cast<double>(c.data_count * c.data_vcpus) * f_data);
  const double work_s = static_cast<double>(m.samples_per_step) * cost_per_sample + (c.pooled ? m.trainer_cpu_s_per_step : 0);
  t.pipeline_ms = t.usable > 0 ? 1000 * work_s / t.usable : std::numeric_limits<double>::infinity();
  t.trainer_ms = trainer_ms;
  return t;
}

double step_of(const Terms& t, std::optional<double> link_ms) {
  double step = t.pipeline_ms;
  if (t.trainer_ms) step = std::max(step, *t.trainer_ms);
  if (link_ms) step = std::max(step, *link_ms);
  return step;
}
}  // namespace

Prediction predict(const Measured& m, const Candidate& c, const SpeedFactor& trainer_speed,
                   const SpeedFactor& data_speed, const ModelSettings& settings) {
  Prediction p;
  p.candidate = c;
  p.trainer_speed = trainer_speed;
  p.data_speed = data_speed;
  const auto trainer_at = [&](int end) -> std::optional<double> {
    if (!m.trainer_step_ms) return std::nullopt;
    return end < 0 ? m.trainer_step_ms->lo : end > 0 ? m.trainer_step_ms->hi : m.trainer_step_ms->value;
  };
  if (settings.link_gbit_per_s) p.link_gbps = settings.link_gbit_per_s, p.link_source = "--link-gbps";
  else if (const auto table_link = settings.table_links ? candidate_link_gbps(c) : std::nullopt)
    p.link_gbps = table_link, p.link_source = "price table";
  if (m.bytes_per_batch && p.link_gbps && *p.link_gbps > 0 && c.data_count > 0)
    p.link_ms = 1000 * *m.bytes_per_batch * 8 / (*p.link_gbps * 1e9);
  else
    p.link_gbps.reset(), p.link_source.clear();
  const Range& cost = m.pipeline_cpu_s_per_sample;
  const Range& eff = m.scaling_efficiency;
  // Slow end: the dearest pipeline, the slowest cores, the worst scaling, the slowest trainer.
  const Terms mid = terms(m, c, cost.value, trainer_speed.factor.value, data_speed.factor.value, eff.value, trainer_at(0));
  const Terms fast = terms(m, c, cost.lo, trainer_speed.factor.hi, data_speed.factor.hi, eff.hi, trainer_at(-1));
  const Terms slow = terms(m, c, cost.hi, trainer_speed.factor.lo, data_speed.factor.lo, eff.lo, trainer_at(1));
  p.usable_cores = mid.usable;
  p.pipeline_ms = mid.pipeline_ms;
  p.trainer_ms = mid.trainer_ms;
  const double e = settings.model_error_pct / 100;
  p.step_ms = {step_of(mid, p.link_ms), step_of(fast, p.link_ms) * (1 - e), step_of(slow, p.link_ms) * (1 + e)};
  p.bound = "pipeline";
  if (p.trainer_ms && *p.trainer_ms >= p.step_ms.value) p.bound = "trainer";
  if (p.link_ms && *p.link_ms >= p.step_ms.value && *p.link_ms > p.pipeline_ms) p.bound = "link";
  const double usd_h = static_cast<double>(c.trainer_count) * c.trainer_usd_per_hour +
                       static_cast<double>(c.data_count) * c.data_usd_per_hour;
  p.usd_per_hour = Range::point(usd_h);
  const auto per_step = [&](double ms) { return ms / 1000 * usd_h / 3600; };
  p.usd_per_step = {per_step(p.step_ms.value), per_step(p.step_ms.lo), per_step(p.step_ms.hi)};
  const double per_m = 1e6 / static_cast<double>(std::max<int64_t>(1, m.samples_per_step));
  p.usd_per_1m_samples = {p.usd_per_step.value * per_m, p.usd_per_step.lo * per_m, p.usd_per_step.hi * per_m};
  const double accelerators = static_cast<double>(c.trainer_count) * c.trainer_accelerators;
  const double vcpus = static_cast<double>(c.trainer_count * c.trainer_vcpus + c.data_count * c.data_vcpus);
  p.vcpus_per_accelerator = accelerators > 0 ? vcpus / accelerators : vcpus;
  return p;
}

std::optional<double> knee_vcpus_per_accelerator(const Measured& m, double accelerators) {
  if (!m.trainer_step_ms || m.trainer_step_ms->value <= 0) return std::nullopt;
  const double work_s = static_cast<double>(m.samples_per_step) * m.pipeline_cpu_s_per_sample.value + m.trainer_cpu_s_per_step;
  const double cores = 1000 * work_s / m.trainer_step_ms->value / m.scaling_efficiency.value;
  return cores / std::max(1.0, accelerators);
}

std::optional<int64_t> knee_data_instances(const std::vector<Prediction>& predictions, const std::string& trainer_type) {
  std::optional<int64_t> knee;
  for (const Prediction& p : predictions)
    if (p.candidate.trainer_type == trainer_type && p.bound == "trainer" && (!knee || p.candidate.data_count < *knee))
      knee = p.candidate.data_count;
  return knee;
}

double pipeline_cost_from_bound_step(double step_ms, int64_t vcpus, int64_t samples_per_step) {
  return step_ms / 1000 * static_cast<double>(vcpus) / static_cast<double>(std::max<int64_t>(1, samples_per_step));
}

std::optional<double> candidate_link_gbps(const Candidate& c) {
  if (c.data_count <= 0 || !c.data_link_gbps) return std::nullopt;
  double link = static_cast<double>(c.data_count) * *c.data_link_gbps;
  if (c.trainer_link_gbps) link = std::min(link, static_cast<double>(c.trainer_count) * *c.trainer_link_gbps);
  return link;
}

std::vector<Candidate> catalog_candidates(const PriceTable& table, const std::string& trainer_type,
                                          int64_t trainer_count, int64_t max_data, Market market) {
  std::vector<Candidate> out;
  const InstanceSpec* trainer = table.find(trainer_type);
  if (!trainer) return out;
  std::vector<const InstanceSpec*> trainers, data;
  for (const auto& [type, spec] : table.instances) {
    if (!quote(spec, market)) continue;
    if (spec.accelerators == 0) data.push_back(&spec);
    if (type == trainer_type || (spec.accelerators == trainer->accelerators && spec.accelerators > 0 &&
                                 spec.accelerator_model == trainer->accelerator_model))
      trainers.push_back(&spec);
  }
  for (const InstanceSpec* t : trainers) {
    Candidate base;
    base.trainer_type = t->type;
    base.trainer_count = trainer_count;
    base.trainer_vcpus = t->vcpus;
    base.trainer_accelerators = t->accelerators;
    base.trainer_usd_per_hour = quote(*t, market)->usd_per_hour;
    base.trainer_link_gbps = t->link_gbps;
    out.push_back(base);
    for (const InstanceSpec* d : data)
      for (int64_t n = 1; n <= max_data; ++n) {
        Candidate c = base;
        c.data_type = d->type;
        c.data_count = n;
        c.data_vcpus = d->vcpus;
        c.data_usd_per_hour = quote(*d, market)->usd_per_hour;
        c.data_link_gbps = d->link_gbps;
        out.push_back(c);
      }
  }
  return out;
}

}  // namespace pperf::project
