#pragma once
// The data-parallel term of a projection (docs/projection.md "Data-parallel instances"): a
// workload trained on N instances of a type averages its gradients every step with a ring
// all-reduce, each instance sending and receiving 2(N-1)/N x the gradient bytes over its link
// (the price table's link_gbps); the part of it that backward does not hide is added to the
// one-instance step:
//   allreduce(N) = 2(N-1)/N x bytes x 8 / link bit/s
//   step(N)      = step(1) + (1 - overlap) x allreduce(N),   efficiency(N) = step(1) / step(N)
// `overlap` is measured: on a point of the measured curve, the share of its in-flight all-reduce
// time that did not lengthen the step over the one-instance step. Pure: no timer, no files.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pricing/price_table.h"
#include "src/core/scaling_curve.h"
#include "src/project/projection.h"

namespace pperf::project {

/// Bytes each of `n` ranks sends (and receives) in a ring all-reduce of `bytes`: 2(n-1)/n x bytes.
double ring_allreduce_bytes(int64_t n, double bytes);
/// Its time over a link of `gbps` Gbit/s, ms (0 for one rank).
double ring_allreduce_ms(int64_t n, double bytes, double gbps);

/// The share of a measured point's all-reduce that backward hid: 1 - max(0, step_n - step_1) /
/// allreduce_n, within [0, 1]; 0 when no all-reduce time was measured.
double measured_overlap(double step_one_ms, double step_n_ms, double allreduce_n_ms);

/// What the measured curve gives the term.
struct DataParallelInputs {
  Range step_one_ms;            // the one-instance step (mean, its CI)
  std::string step_source;      // "measured here" | "--trainer-step-ms"
  int64_t samples_per_step_one = 0;  // samples one instance trains per step
  double bytes_per_step = 0;    // gradient bytes each rank all-reduces per step
  double overlap = 0;
  std::string overlap_source;   // which point it was measured on, or why none
};

/// The curve's inputs from its measured points: the first point's step and bytes, the overlap
/// measured on the widest ok point beyond it (none: 0, stated).
DataParallelInputs data_parallel_inputs(const ScalingCurve& curve);

struct DataParallelPrediction {
  std::string type;
  int64_t instances = 1;
  std::optional<double> link_gbps;  // the table's figure; none: no link term (unknown)
  double allreduce_ms = 0, exposed_ms = 0;
  Range step_ms, efficiency;
  double usd_per_hour = 0;           // all instances
  Range usd_per_1m_samples;
  std::optional<Range> epoch_hours, epoch_usd;
  std::optional<bool> meets_deadline;  // the epoch's upper end within the deadline
};

/// `instances` of `type` (one candidate's price and link): the formula above, its interval the
/// step's measured interval with the all-reduce term widened by +-model_error_pct.
DataParallelPrediction predict_data_parallel(const DataParallelInputs& in, const Candidate& type, int64_t instances,
                                             const std::optional<double>& epoch_samples, const std::optional<double>& deadline_h,
                                             double model_error_pct);

/// The model against the measured curve: the link fitted on the first measured point beyond the
/// first (its in-flight all-reduce time is 2(N-1)/N x bytes / link), each measured point's
/// all-reduce and step then predicted from it and the overlap, and the error.
struct DataParallelCheck {
  int64_t instances = 1;
  double predicted_allreduce_ms = 0, measured_allreduce_ms = 0;
  double predicted_step_ms = 0, measured_step_ms = 0;
  double error_pct = 0;   // (predicted - measured) / measured step, %
  bool fitted = false;    // the point the link and the overlap were fitted on (its error 0 unless the overlap clamps)
};
struct DataParallelValidation {
  std::optional<double> host_link_gbps;  // fitted: this host's effective link between ranks
  std::vector<DataParallelCheck> checks;
  std::string note;  // one sentence: what the check can and cannot say here
};
DataParallelValidation validate_on_curve(const ScalingCurve& curve, const DataParallelInputs& in);

/// A workload's data-parallel projection.
struct DataParallelProjection {
  std::string workload;
  DataParallelInputs inputs;
  std::vector<int64_t> instances;
  std::vector<DataParallelPrediction> predictions;  // per type, per instance count
  DataParallelValidation validation;
  std::optional<double> epoch_samples, deadline_h;
  /// The cheapest prediction per epoch whose epoch surely meets the deadline (index into predictions).
  std::optional<size_t> cheapest;
};

/// The curve projected to `instances` of every candidate (trainer types with the same
/// accelerator: catalog_candidates without data instances).
DataParallelProjection project_data_parallel(const ScalingCurve& curve, const DataParallelInputs& inputs,
                                             const std::vector<Candidate>& types, const std::vector<int64_t>& instances,
                                             double model_error_pct);

}  // namespace pperf::project
