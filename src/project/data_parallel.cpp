#include "src/project/data_parallel.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace pperf::project {

double ring_allreduce_bytes(int64_t n, double bytes) {
  return n <= 1 ? 0 : 2.0 * static_cast<double>(n - 1) / static_cast<double>(n) * bytes;
}

double ring_allreduce_ms(int64_t n, double bytes, double gbps) {
  return gbps > 0 ? ring_allreduce_bytes(n, bytes) * 8 / (gbps * 1e9) * 1e3 : 0;
}

double measured_overlap(double step_one_ms, double step_n_ms, double allreduce_n_ms) {
  if (allreduce_n_ms <= 0) return 0;
  return std::clamp(1 - std::max(0.0, step_n_ms - step_one_ms) / allreduce_n_ms, 0.0, 1.0);
}

namespace {
bool usable(const ScalingPoint& p) { return p.status == "ok" && p.step_ms; }
}  // namespace

DataParallelInputs data_parallel_inputs(const ScalingCurve& curve) {
  DataParallelInputs in;
  const ScalingPoint* first = nullptr;
  for (const auto& p : curve.points)
    if (usable(p)) {
      first = &p;
      break;
    }
  if (!first) return in;
  const double step = *first->step_ms;
  in.step_one_ms = first->step_ms_ci95 ? Range{step, (*first->step_ms_ci95)[0], (*first->step_ms_ci95)[1]} : Range::point(step);
  in.step_source = fmt::format("measured here ({} x, {} rank{})", first->instances, first->world_size, first->world_size == 1 ? "" : "s");
  in.samples_per_step_one = curve.batch_size * first->world_size / std::max<int64_t>(1, first->instances);
  in.bytes_per_step = static_cast<double>(first->allreduce_bytes_per_step);
  const ScalingPoint* widest = nullptr;
  for (const auto& p : curve.points)
    if (usable(p) && p.instances > first->instances && p.allreduce_ms > 0) widest = &p;
  if (widest) {
    in.overlap = measured_overlap(step, *widest->step_ms, widest->allreduce_ms);
    in.overlap_source = fmt::format("measured at {} x: all-reduce in flight {:.3g} ms per step, the step {:.3g} ms over the {} x step",
                                    widest->instances, widest->allreduce_ms, *widest->step_ms - step, first->instances);
  } else {
    in.overlap_source = "none measured (no point beyond the first): 0, the all-reduce taken as not hidden";
  }
  return in;
}

DataParallelPrediction predict_data_parallel(const DataParallelInputs& in, const Candidate& type, int64_t instances,
                                             const std::optional<double>& epoch_samples, const std::optional<double>& deadline_h,
                                             double model_error_pct) {
  DataParallelPrediction p;
  p.type = type.trainer_type;
  p.instances = instances;
  p.link_gbps = type.trainer_link_gbps;
  p.allreduce_ms = p.link_gbps ? ring_allreduce_ms(instances, in.bytes_per_step, *p.link_gbps) : 0;
  p.exposed_ms = (1 - in.overlap) * p.allreduce_ms;
  const double err = model_error_pct / 100;
  const Range& s1 = in.step_one_ms;
  p.step_ms = {s1.value + p.exposed_ms, s1.lo + p.exposed_ms * (1 - err), s1.hi + p.exposed_ms * (1 + err)};
  // efficiency = s1 / (s1 + e): rises with s1, falls with e.
  p.efficiency = {s1.value / p.step_ms.value, s1.lo / (s1.lo + p.exposed_ms * (1 + err)), s1.hi / (s1.hi + p.exposed_ms * (1 - err))};
  p.usd_per_hour = type.trainer_usd_per_hour * static_cast<double>(instances);
  const double samples = static_cast<double>(in.samples_per_step_one * instances);
  auto per_1m = [&](double step_ms) { return p.usd_per_hour * step_ms / 3.6e6 / samples * 1e6; };
  p.usd_per_1m_samples = {per_1m(p.step_ms.value), per_1m(p.step_ms.lo), per_1m(p.step_ms.hi)};
  if (epoch_samples && samples > 0) {
    auto hours = [&](double step_ms) { return *epoch_samples / samples * step_ms / 3.6e6; };
    p.epoch_hours = Range{hours(p.step_ms.value), hours(p.step_ms.lo), hours(p.step_ms.hi)};
    p.epoch_usd = Range{p.epoch_hours->value * p.usd_per_hour, p.epoch_hours->lo * p.usd_per_hour, p.epoch_hours->hi * p.usd_per_hour};
    if (deadline_h) p.meets_deadline = p.epoch_hours->hi <= *deadline_h;
  }
  return p;
}

DataParallelValidation validate_on_curve(const ScalingCurve& curve, const DataParallelInputs& in) {
  DataParallelValidation v;
  const ScalingPoint* first = nullptr;
  std::vector<const ScalingPoint*> beyond;
  for (const auto& p : curve.points) {
    if (!usable(p)) continue;
    if (!first) first = &p;
    else if (p.allreduce_ms > 0) beyond.push_back(&p);
  }
  if (!first || beyond.empty() || in.bytes_per_step <= 0) {
    v.note = "not checked: the curve has no measured point beyond the first with an all-reduce";
    return v;
  }
  // Fitted on the first point beyond the first: the link its all-reduce implies.
  const ScalingPoint& fit = *beyond.front();
  v.host_link_gbps = ring_allreduce_bytes(fit.instances, in.bytes_per_step) * 8 / (fit.allreduce_ms / 1e3) / 1e9;
  const double overlap = measured_overlap(*first->step_ms, *fit.step_ms, fit.allreduce_ms);
  for (const ScalingPoint* p : beyond) {
    DataParallelCheck c;
    c.instances = p->instances;
    c.fitted = p == &fit;
    c.predicted_allreduce_ms = ring_allreduce_ms(p->instances, in.bytes_per_step, *v.host_link_gbps);
    c.measured_allreduce_ms = p->allreduce_ms;
    c.predicted_step_ms = *first->step_ms + (1 - overlap) * c.predicted_allreduce_ms;
    c.measured_step_ms = *p->step_ms;
    c.error_pct = (c.predicted_step_ms - c.measured_step_ms) / c.measured_step_ms * 100;
    v.checks.push_back(c);
  }
  v.note = beyond.size() < 2
               ? fmt::format("only one point beyond the first ({} x): the link and the overlap are fitted on it, so its error (0 unless "
                             "the overlap is clamped to 0 or 1) says nothing; measure a third point to check the model",
                             fit.instances)
               : fmt::format("link ({:.3g} Gbit/s between ranks here) and overlap ({:.0f} %) fitted on {} x; the other points predicted "
                             "from them",
                             *v.host_link_gbps, overlap * 100, fit.instances);
  return v;
}

DataParallelProjection project_data_parallel(const ScalingCurve& curve, const DataParallelInputs& inputs,
                                             const std::vector<Candidate>& types, const std::vector<int64_t>& instances,
                                             double model_error_pct) {
  DataParallelProjection out;
  out.workload = curve.workload;
  out.inputs = inputs;
  out.instances = instances;
  out.epoch_samples = curve.epoch_samples;
  out.deadline_h = curve.deadline_h;
  for (const auto& t : types) {
    if (t.data_count != 0) continue;
    for (int64_t n : instances)
      out.predictions.push_back(predict_data_parallel(inputs, t, n, curve.epoch_samples, curve.deadline_h, model_error_pct));
  }
  for (size_t i = 0; i < out.predictions.size(); ++i) {
    const auto& p = out.predictions[i];
    if (p.meets_deadline.value_or(false) && p.epoch_usd &&
        (!out.cheapest || p.epoch_usd->value < out.predictions[*out.cheapest].epoch_usd->value))
      out.cheapest = i;
  }
  out.validation = validate_on_curve(curve, inputs);
  return out;
}

}  // namespace pperf::project
