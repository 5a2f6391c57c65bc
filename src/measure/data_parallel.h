#pragma once
// Data-parallel training as PyTorch's DistributedDataParallel does it, on torch's own engine
// (c10d): a process group (Gloo over TCP here; NCCL with a CUDA libtorch), parameters broadcast
// from rank 0 at start, and c10d's Reducer averaging gradients in size-bounded buckets whose
// all-reduce starts from autograd hooks while backward still runs and is waited on before the
// optimizer step. The workload is not told: the harness wraps its step.
#include <memory>
#include <string>
#include <vector>

#include "src/measure/distributed.h"
#include "workloads/workload.h"

namespace pperf {

struct GroupSettings {
  std::string backend = "gloo";
  double timeout_s = 300;  // rendezvous, store reads and every collective
  /// What every rank must agree on (e.g. the config's SHA-256 and the item): a rank that
  /// joins with another identity is refused, naming it.
  std::string identity;
  /// Where this rank's collectives run: "cpu" for Gloo, the rank's "cuda:N" for NCCL (which
  /// takes CUDA tensors only). join_group makes it the thread's current device.
  std::string device = "cpu";
};

/// A joined process group (c10d store + process group), opaque outside this library.
class ProcessGroupHandle;

/// Joins the group of `context` (making settings.device the current device): TCPStore client at store_host:store_port, keys under
/// store_prefix, then the process group. Gloo binds to GLOO_SOCKET_IFNAME when set, else to the
/// local address that routes to store_host. Throws std::runtime_error (naming the address and
/// the timeout) when the group does not form within the timeout.
std::shared_ptr<ProcessGroupHandle> join_group(const RankContext& context, const GroupSettings& settings);

/// The group's ranks agree on a code after each step: the maximum of what each proposes
/// (0 go on, 1 rank 0's stop rule fired, 2 interrupted). One tiny all-reduce, outside the
/// timed step.
int agree_on(ProcessGroupHandle& group, int code);

/// The NCCL version this pperf's libtorch carries ("2.30.7"), "" when built without NCCL.
std::string nccl_version();

/// Sums `tensor` (on the group's device) across the group in place: one c10d all-reduce,
/// waited on (benchmarks).
void allreduce_sum(ProcessGroupHandle& group, torch::Tensor& tensor);

/// How a rank times its gradient all-reduces. Gloo's work completes its future when the
/// all-reduce is done, so the host clock brackets it; NCCL's future completes once the
/// collective is queued on the GPU's stream, and only NCCL's work records CUDA events
/// (Work::getDuration; every other backend's throws).
enum class CollectiveTiming { host_clock, device_events };

/// The timing for `backend` ("gloo", "nccl") on `device`: device events for NCCL on a CUDA
/// device, the host clock for every other pair (Gloo on a CUDA device included).
CollectiveTiming collective_timing(const std::string& backend, const torch::Device& device);

/// The engine that runs the group's collectives, as the backend names itself ("gloo", "nccl").
std::string engine_name(const ProcessGroupHandle& group);

/// Gradient communication of one step, on this rank.
struct CommStep {
  double allreduce_ms = 0;  // time at least one bucket's all-reduce was in flight (union)
  int64_t bytes = 0;        // gradient bytes all-reduced
};

/// `inner`, trained data-parallel as DistributedDataParallel with its defaults trains it:
/// construction broadcasts its parameters and buffers from rank 0 and registers c10d's Reducer
/// on the parameters with one bucket; before every forward the buffers are broadcast from
/// rank 0 again and, once, after the first step, the Reducer re-cuts its buckets in the order
/// the gradients arrived (the first of 1 MiB, the others of at most `bucket_bytes`).
/// train_step runs the inner step with the averaging all-reduces riding its backward.
/// Throws from train_step when a collective fails or times out (a peer died, a link is cut);
/// an out-of-memory error of the inner step comes out as the c10::OutOfMemoryError it is.
/// With PPERF_DDP_DUMP=DIR set, each step appends to DIR/rank<N>.jsonl its batch, bucket
/// layout, averaged gradients and buffers (bench/ddp_parity.sh compares them with DDP's).
class DataParallelWorkload : public Workload {
 public:
  DataParallelWorkload(Workload& inner, std::shared_ptr<ProcessGroupHandle> group, int64_t bucket_bytes);
  ~DataParallelWorkload() override;
  ModelInfo model_info() const override { return inner_.model_info(); }
  std::vector<torch::Tensor> parameters() const override { return inner_.parameters(); }
  std::vector<torch::Tensor> buffers() const override { return inner_.buffers(); }
  double train_step(const Batch& batch) override;
  /// One entry per train_step so far (warmup included).
  const std::vector<CommStep>& comm_steps() const { return comm_steps_; }
  /// The Reducer's buckets in the order they are all-reduced, each as indices into
  /// parameters() in the bucket's order.
  std::vector<std::vector<size_t>> bucket_indices() const;

 private:
  struct Impl;
  Workload& inner_;
  std::unique_ptr<Impl> impl_;
  std::vector<CommStep> comm_steps_;
};

/// One rank's figures, sent to rank 0 once measuring is over.
struct RankSamples {
  int64_t rank = 0;
  std::string host;
  std::vector<int> cpus;
  std::vector<double> step_ms, data_wait_ms, allreduce_ms;
  int64_t bytes_per_step = 0;
  std::string params_sha256;  // of every parameter's bytes: equal on all ranks after a step
};

/// Every rank calls it once; rank 0 gets all ranks' samples in rank order (the others get an
/// empty vector). Rides the store, not the process group: a rank that never sends its samples
/// is named after the group's timeout instead of hanging a collective.
std::vector<RankSamples> gather_on_rank0(ProcessGroupHandle& group, const RankSamples& mine);

/// A TCP port free on rank 0's host, the same number on every rank (rank 0 picks it, the others
/// read it under `key` from the group's store): where a step that forms its own group
/// (python_step's DDP) meets. Throws std::runtime_error when none comes within the timeout.
int shared_free_port(ProcessGroupHandle& group, const std::string& key);

/// SHA-256 of the parameters' bytes, in order.
std::string parameters_sha256(const std::vector<torch::Tensor>& parameters);

}  // namespace pperf
