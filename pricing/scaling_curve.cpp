#include "pricing/scaling_curve.h"

#include <fmt/format.h>

#include <algorithm>

#include "src/stats/scaling.h"

namespace pperf {

namespace {
/// The trainer group's instance count of `r` (its role "dnn" group), 0 without one.
int64_t trainer_instances(const Result& r) {
  for (const auto& g : r.instances)
    if (g.role == "dnn") return g.count;
  return 0;
}
std::string trainer_type(const Result& r) {
  for (const auto& g : r.instances)
    if (g.role == "dnn") return g.type;
  return "";
}
bool same_workload(const Result& a, const Result& b) {
  return a.workload == b.workload && a.preset == b.preset && a.batch_size == b.batch_size;
}
bool ok(const Result* r) { return r && r->status == ResultStatus::ok && r->step && r->step->mean_ms > 0 && r->samples_per_step > 0; }

std::array<double, 2> inverted(double numerator, const std::array<double, 2>& range) {
  return {numerator / range[1], numerator / range[0]};
}
/// How the points' ranks ran, from the first data-parallel result.
std::string measured_as(const std::vector<Result>& results) {
  for (const auto& r : results)
    if (r.distributed) {
      if (r.distributed->launcher == Launcher::spawn_local)
        return "one point after another on one host: each point's ranks are processes of their own (spawn_local), one rank "
               "per emulated instance; the link between instances is this host's loopback";
      return "one point after another in the launcher's group (" + to_string(r.distributed->launcher) + ")";
    }
  return "no data-parallel result";
}
}  // namespace

ScalingPoint scaling_point(const Result& r, int64_t instances, const Result* reference, int64_t reference_instances,
                           const ScalingSettings& settings) {
  ScalingPoint p;
  p.configuration = r.configuration;
  p.instances = instances;
  p.world_size = r.distributed ? r.distributed->world_size : 1;
  p.status = to_string(r.status);
  p.reason = r.reason;
  if (r.distributed) {
    p.allreduce_bytes_per_step = r.distributed->bytes_per_step;
    p.allreduce_ms = r.distributed->allreduce_median_ms;
  }
  if (!ok(&r)) return p;
  const double samples = static_cast<double>(r.samples_per_step);
  p.step_ms = r.step->mean_ms;
  p.step_ms_ci95 = r.step->mean_ci95_ms;
  p.samples_per_s = samples * 1000 / r.step->mean_ms;
  if (p.step_ms_ci95) p.samples_per_s_ci95 = inverted(samples * 1000, *p.step_ms_ci95);
  if (ok(reference) && reference_instances > 0) {
    const double k = static_cast<double>(instances) / static_cast<double>(reference_instances);
    const double ref_samples = static_cast<double>(reference->samples_per_step);
    p.efficiency = (samples / r.step->mean_ms) / (k * ref_samples / reference->step->mean_ms);
    if (&r == reference) {
      p.efficiency_ci95 = std::array<double, 2>{1, 1};
    } else if (r.measurement && reference->measurement) {
      if (auto e = scaling_efficiency(reference->measurement->step_ms, ref_samples, r.measurement->step_ms, samples, k))
        p.efficiency_ci95 = std::array<double, 2>{e->lo, e->hi};
    }
  }
  if (r.cost) {
    p.usd_per_hour = r.cost->usd_per_hour;
    p.usd_per_1m_samples = r.cost->usd_per_1m_samples;
  }
  if (settings.epoch_samples) {
    const double e = *settings.epoch_samples;
    p.epoch_hours = e / *p.samples_per_s / 3600;
    if (p.samples_per_s_ci95) p.epoch_hours_ci95 = inverted(e / 3600, *p.samples_per_s_ci95);
    if (p.usd_per_hour) {
      p.epoch_usd = *p.epoch_hours * *p.usd_per_hour;
      if (p.epoch_hours_ci95) p.epoch_usd_ci95 = std::array<double, 2>{(*p.epoch_hours_ci95)[0] * *p.usd_per_hour, (*p.epoch_hours_ci95)[1] * *p.usd_per_hour};
    }
    if (settings.deadline_h) p.meets_deadline = (p.epoch_hours_ci95 ? (*p.epoch_hours_ci95)[1] : *p.epoch_hours) <= *settings.deadline_h;
  }
  return p;
}

std::optional<ScalingRecord> scaling_record(const std::optional<ScalingSettings>& settings, const std::vector<Result>& results) {
  if (!settings || settings->instances.empty()) return std::nullopt;
  const ScalingSettings& s = *settings;
  ScalingRecord record;
  record.measured_as = measured_as(results);
  std::vector<const Result*> heads;  // one result per workload, in order
  for (const auto& r : results)
    if (std::none_of(heads.begin(), heads.end(), [&](const Result* h) { return same_workload(*h, r); })) heads.push_back(&r);
  for (const Result* head : heads) {
    ScalingCurve curve;
    curve.workload = head->workload;
    curve.preset = head->preset;
    curve.batch_size = head->batch_size;
    curve.epoch_samples = s.epoch_samples;
    curve.deadline_h = s.deadline_h;
    // The point of each instance count (the first result with it), in the curve's order.
    std::vector<std::pair<const Result*, int64_t>> points;
    for (int64_t n : s.instances)
      for (const auto& r : results)
        if (same_workload(r, *head) && trainer_instances(r) == n) {
          points.emplace_back(&r, n);
          break;
        }
    if (points.empty()) continue;
    curve.instance_type = trainer_type(*points.front().first);
    const Result* reference = points.front().first;
    const int64_t reference_instances = points.front().second;
    for (const auto& [r, n] : points) curve.points.push_back(scaling_point(*r, n, reference, reference_instances, s));
    // The cheapest epoch among the points that meet the deadline.
    const ScalingPoint* best = nullptr;
    for (const auto& p : curve.points)
      if (p.meets_deadline.value_or(false) && p.epoch_usd && (!best || *p.epoch_usd < *best->epoch_usd)) best = &p;
    if (best) curve.cheapest_instances = best->instances;
    // One sentence: the widest point's efficiency, and the deadline's answer.
    const ScalingPoint* widest = nullptr;
    for (const auto& p : curve.points)
      if (p.efficiency && p.instances > reference_instances) widest = &p;
    std::string summary;
    if (widest)
      summary = fmt::format("{} x {}: scaling efficiency {:.1f} %{} against {} x.", widest->instances, curve.instance_type,
                            *widest->efficiency * 100,
                            widest->efficiency_ci95 ? fmt::format(" (95 % CI {:.1f}-{:.1f} %)", (*widest->efficiency_ci95)[0] * 100,
                                                                  (*widest->efficiency_ci95)[1] * 100)
                                                    : std::string(" (no interval)"),
                            reference_instances);
    else
      summary = "No point beyond the reference measured: no efficiency.";
    if (s.deadline_h) {
      if (best)
        summary += fmt::format(" Cheapest epoch within {:g} h: {} x {}, {:.3g} h at {:.4g} USD per epoch.", *s.deadline_h, best->instances,
                               curve.instance_type, *best->epoch_hours, *best->epoch_usd);
      else
        summary += fmt::format(" No point's epoch is surely within {:g} h (the upper end of its time's 95 % CI).", *s.deadline_h);
    }
    curve.summary = summary;
    record.curves.push_back(std::move(curve));
  }
  return record;
}

}  // namespace pperf
