#pragma once
// The one record that flows measure -> price -> report, and that every reader and writer of a
// results file shares: a (workload x configuration) Result, and the RunReport around them.
// Plain data: stages fill their part (measure: measurement, step, spread; price: instances'
// prices, cost, comparison), writers only format it.
#include <nlohmann/json.hpp>

#include <array>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/core/bottleneck.h"
#include "src/core/distributed.h"
#include "src/core/json_fields.h"
#include "src/core/kinds.h"
#include "src/core/sweep_record.h"
#include "src/core/measurement.h"
#include "src/core/scaling_curve.h"
#include "src/core/spot.h"
#include "src/core/workload_registry.h"

namespace pperf {

enum class ResultStatus { ok, failed, not_run };
enum class RunStatus { complete, interrupted, failed };
enum class Market { on_demand, spot };

std::string to_string(ResultStatus status);
std::string to_string(RunStatus status);
std::string to_string(Market market);
/// nullopt for a name that is not one of the enum's strings.
std::optional<ResultStatus> parse_result_status(const std::string& name);
std::optional<RunStatus> parse_run_status(const std::string& name);
std::optional<Market> parse_market(const std::string& name);

/// One instance group with its hourly price per instance already quoted.
struct PricedGroup {
  std::string type;
  int count = 1;
  std::string role;  // "dnn" | "data"
  Market market = Market::on_demand;
  double usd_per_hour_each = 0;
  std::string price_basis;  // "on_demand" | "spot_avg" | "spot_median" | "spot_mid" | "override"
  /// Spot from the table: the lowest and highest price it holds for the type (across zones and
  /// its history window), and the zones at those ends ("" when the table names none). Null for
  /// a point price (on-demand, an override, a spot row with one figure).
  std::optional<std::array<double, 2>> usd_per_hour_range;
  std::string cheapest_zone, dearest_zone;
};

/// What pricing reads of a step time (ms). Produced by the measure stage (or given in a
/// priced-only config); pricing never sees a timer. The mean (total time / steps) is what a job
/// is billed for and what cost is priced on; the median is the robust typical step. Each CI is
/// labeled 95 % and computed at `ci_nominal_level` (0.975 after the run stopped on its precision
/// target, to correct for optional stopping), widened for lag-1 autocorrelation; null below 6
/// measured steps and for a given step time.
struct StepTimeEstimate {
  double median_ms = 0;
  std::optional<std::array<double, 2>> ci95_ms;
  double mean_ms = 0;
  std::optional<std::array<double, 2>> mean_ci95_ms;
  double ci_nominal_level = 0.95;
  std::optional<double> lag1_autocorrelation;  // of log step times; measured only
};

/// The spread of measured step times (ms); absent for a given step time.
struct StepTimeSpread {
  double mean_ms = 0, stdev_ms = 0, cv = 0, p5_ms = 0, p95_ms = 0;
};

struct ToTrain {
  std::optional<int64_t> steps;
  double hours = 0;
  double usd = 0;
};

struct Cost {
  double usd_per_hour = 0;
  double usd_per_step = 0;
  /// From the mean's CI and, with Spot groups priced as a range, the range's ends: null when
  /// there is neither (a given step time at point prices).
  std::optional<std::array<double, 2>> usd_per_step_ci95;
  /// The hourly price at the Spot groups' cheapest and dearest table prices; null at point prices.
  std::optional<std::array<double, 2>> usd_per_hour_range;
  double usd_per_1m_samples = 0;
  /// usd_per_step_ci95 per 1M samples; empty where that is.
  std::optional<std::array<double, 2>> usd_per_1m_samples_ci95;
  double samples_per_usd = 0;
  std::optional<ToTrain> to_train;
};
/// The `cost` object's plain members (src/core/json_fields.h: a plain figure is a member and a
/// row). By hand in result.cpp: usd_per_hour_range (absent at point prices) and to_train (the
/// result's own `to_train`).
inline constexpr auto kCostFields = std::make_tuple(
    json_field("usd_per_hour", &Cost::usd_per_hour), json_field("usd_per_step", &Cost::usd_per_step),
    json_field("usd_per_step_ci95", &Cost::usd_per_step_ci95), json_field("usd_per_1m_samples", &Cost::usd_per_1m_samples),
    json_field_added("usd_per_1m_samples_ci95", &Cost::usd_per_1m_samples_ci95), json_field("samples_per_usd", &Cost::samples_per_usd));

struct Comparison {
  std::optional<double> improvement_pct;  // null on the baseline itself
  std::optional<std::array<double, 2>> improvement_pct_ci95;  // in turns: the decision's anytime bounds; else from the two means' intervals
  std::optional<double> speedup;          // mean t_baseline / mean t; null when not priced
  std::optional<std::array<double, 2>> speedup_ci95;
};

/// A configuration's cost per step against its workload's baseline, decided (src/stats/decision.h).
struct Decision {
  CostVerdict verdict = CostVerdict::undecided;
  double confidence = 0.95;
  double equivalence_pct = 2;  // |improvement| within this is "equivalent"
  int64_t looks = 0;           // how often the rule looked (interleaved: once per round)
  /// "confidence sequence over paired rounds" (interleaved, valid however often it looks) or
  /// "fixed-sample interval" (sequential: one look, drift between the two not cancelled).
  std::string method;
  /// The improvement's interval the verdict was read from (anytime-valid when interleaved), %.
  std::optional<std::array<double, 2>> improvement_pct_bounds;
  std::string reason;  // one sentence: why this verdict, or what would decide it
  /// Undecided: the measured seconds per configuration that would likely decide it (null when unknown).
  std::optional<double> seconds_to_decide;
};
/// The `decision` object's plain members; verdict and looks by hand.
inline constexpr auto kDecisionFields = std::make_tuple(
    json_field("confidence", &Decision::confidence), json_field("equivalence_pct", &Decision::equivalence_pct),
    json_field("method", &Decision::method), json_field("improvement_pct_bounds", &Decision::improvement_pct_bounds),
    json_field("reason", &Decision::reason), json_field("seconds_to_decide", &Decision::seconds_to_decide));

/// `pperf decide`: how a configuration's step time was pooled over the hosts that measured it
/// apart (src/decide/decide.h), and what the between-host variance in its interval rests on.
struct HostPooling {
  int64_t replicates = 1;              // results pooled: one per host
  std::vector<std::string> host_ids;   // placement.host_id of each (its hostname in files without one)
  std::vector<std::string> sources;    // the results file or history run of each
  /// "replicates" (estimated from these hosts), "history" (hosts of the instance type in the
  /// history), "not_included" (one host and no history: the interval is the host's own).
  std::string between_host = "not_included";
  std::optional<double> between_host_cv;     // the between-host spread used (sd of log mean step)
  std::optional<int64_t> between_host_hosts; // hosts it was estimated from
  /// Not included: the stated prior (kPriorBetweenHostCv) and the improvement's interval with it.
  std::optional<double> prior_cv;
  std::optional<std::array<double, 2>> improvement_pct_ci95_with_prior;
  /// Candidates: seconds between the baseline's runs and this one's (latest start minus earliest).
  std::optional<double> apart_s;
  /// Undecided candidates: more hosts (replicates) of this configuration and of the baseline
  /// that would likely decide it at the present estimate; null when no number up to 20 a side would.
  std::optional<int64_t> more_hosts, more_baseline_hosts;
};
inline constexpr auto kHostPoolingFields = std::make_tuple(
    json_field("replicates", &HostPooling::replicates), json_field("host_ids", &HostPooling::host_ids),
    json_field("sources", &HostPooling::sources), json_field("between_host", &HostPooling::between_host),
    json_field("between_host_cv", &HostPooling::between_host_cv), json_field("between_host_hosts", &HostPooling::between_host_hosts),
    json_field("prior_cv", &HostPooling::prior_cv),
    json_field("improvement_pct_ci95_with_prior", &HostPooling::improvement_pct_ci95_with_prior),
    json_field("apart_s", &HostPooling::apart_s), json_field("more_hosts", &HostPooling::more_hosts),
    json_field("more_baseline_hosts", &HostPooling::more_baseline_hosts));

/// GPU load while the measured steps ran, sampled by nvidia-smi (every GPU of the host).
struct GpuUtilization {
  std::string gpu = "all";  // which GPU was sampled (nvidia-smi -i: index or UUID); "all": every GPU of the host
  int64_t samples = 0;
  double mean_pct = 0, max_pct = 0;  // utilization.gpu: % of time a kernel was running
  double max_memory_used_mib = 0;
};
/// `execution.gpu_utilization`'s plain members; gpu by hand ("all" in files from before it).
inline constexpr auto kGpuUtilizationFields = std::make_tuple(
    json_field("samples", &GpuUtilization::samples), json_field("mean_pct", &GpuUtilization::mean_pct),
    json_field("max_pct", &GpuUtilization::max_pct), json_field("max_memory_used_mib", &GpuUtilization::max_memory_used_mib));

/// A GPU's measured GEMM rates (src/measure/peak_flops.h): MFU's denominators for results on
/// it, the one of the precision the model's math ran in (src/core/mfu.h).
struct DevicePeak {
  double fp32_gflops = 0;             // float32 GEMMs with TF32 off (older files: as the run's matmul setting was)
  std::optional<double> bf16_gflops;  // absent where the device cannot run bf16 GEMMs
  std::string gemm;                   // "NxNxN"
  std::string model;                  // the GPU's name ("NVIDIA A100-SXM4-40GB"); "" when unknown
  /// The run's float32 math: matmuls in TF32 (torch's allow_tf32 for cuBLAS, off by default)
  /// and cuDNN convolutions in TF32 (on by default).
  bool matmul_tf32 = false, cudnn_tf32 = false;
  /// The vendor's dense peaks for this model (GFLOP/s, per GPU), shown beside the measured
  /// ones; absent for models pperf's table lacks, and tf32 and bf16 on GPUs without them.
  std::optional<double> datasheet_fp32_gflops, datasheet_bf16_gflops;
  /// float32 GEMMs with TF32 on; absent in files from before it was measured apart.
  std::optional<double> tf32_gflops;
  std::optional<double> datasheet_tf32_gflops;
};

/// The math settings torch ran the item's steps under (on a GPU).
struct MathSettings {
  bool cudnn_benchmark = false;  // at::globalContext().benchmarkCuDNN(): cuDNN picks its algorithms by timing them
  bool tf32_matmul = false;      // allowTF32CuBLAS
  bool tf32_cudnn = false;       // allowTF32CuDNN
};
inline constexpr auto kMathSettingsFields = std::make_tuple(
    json_field("cudnn_benchmark", &MathSettings::cudnn_benchmark), json_field("tf32_matmul", &MathSettings::tf32_matmul),
    json_field("tf32_cudnn", &MathSettings::tf32_cudnn));

/// What execution settings were asked for and what actually took effect.
/// The data group's link as a run emulated it (execution.data.link_gbps).
struct DataLinkReport {
  double gbps = 0;            // the real instances' link, Gbit/s
  std::string source;         // "config" | "price table"
  double scale = 1;           // execution.data.link_scale: real trainer step / emulated trainer step
  double emulated_gbps = 0;   // gbps x scale: the rate the shaped link ran at
  std::string how;            // the tc qdisc and where
};

struct ExecutionReport {
  int64_t threads_requested = 0, threads_effective = 0;
  int64_t interop_threads_requested = 0, interop_threads_effective = 0;
  DataMode data_mode = DataMode::local;
  int64_t data_workers = 0;
  bool emulated = true;                     // ran on this host, not on the named instances
  std::vector<int> cpus;                    // the trainer's CPU set (empty: not pinned)
  std::vector<int> data_cpus;               // spawned data workers' CPU set
  std::vector<std::string> data_endpoints;  // service mode: where batches came from
  std::string data_wire;                    // service mode: how batches travelled (wire_formats())
  int64_t data_wire_bytes_per_sample = 0;   // ... and their bytes per sample (0: not declared)
  std::optional<DataLinkReport> data_link;  // spawned workers behind an emulated link
  std::string device = "cpu";               // where the model trained: "cpu", "cuda:0", ...
  std::optional<GpuUtilization> gpu;        // on a GPU, when nvidia-smi could sample it
  std::optional<DevicePeak> device_peak;    // on a GPU: its measured peak, per GPU
  std::optional<MathSettings> math;         // on a GPU: cudnn.benchmark and TF32, as the steps ran
};

/// One process's peak resident memory while its item ran (VmHWM, from its start or the item's).
struct ProcessMemory {
  std::string process;  // "trainer", "data worker 2"
  int64_t pid = 0;
  int64_t peak_rss_bytes = 0;
};

/// A GPU's peak memory while the item ran, by torch's caching allocator's own counters.
struct DeviceMemory {
  std::string device;  // "cuda:0"
  int64_t peak_allocated_bytes = 0, peak_reserved_bytes = 0;
};

/// What an item's processes held at their peak, and the bound they ran under
/// (src/env/memory_cgroup.h).
struct MemoryReport {
  std::optional<int64_t> limit_bytes;  // null: the item ran unbounded (measured in pperf's own process)
  std::string bound = "none";          // "cgroup v1", "cgroup v2", "polled" (no cgroup here), "none"
  /// The cgroup's own peak: every process of the item together, the page cache charged to them included.
  std::optional<int64_t> group_peak_bytes;
  std::vector<ProcessMemory> processes;  // the measuring process first, then its data workers
  std::vector<DeviceMemory> devices;     // on a GPU: the measuring process's device
  /// The item's peak: the sum of its processes' peaks (each may peak at a different moment,
  /// so this bounds their peak together from above), or the group's when no process reported.
  int64_t peak_bytes() const;
};

/// `pperf run --trace DIR`: the trace of a few extra steps after the measured ones
/// (src/measure/trace.h). Their times are the runner's, apart from the measured samples.
struct TraceReport {
  std::string path;                     // the Chrome/Perfetto trace file
  std::string profiler;                 // "kineto" or "autograd-legacy"
  std::vector<std::string> activities;  // "cpu", and "cuda" where the GPU's kernels are traced
  int64_t first_step = 0;               // the first traced step's index in the item's run
  std::vector<double> step_ms;          // each traced step as the runner timed it
};
nlohmann::json to_json(const TraceReport& t);
TraceReport read_trace_report(const JsonView& v);

struct Result {
  std::string workload, preset;
  int64_t batch_size = 0;
  /// `pperf run`: the workload's params (defaults applied) and seed, so results measured apart
  /// can be matched (null / empty in files from before them).
  nlohmann::json params;
  std::optional<int64_t> seed;
  int64_t samples_per_step = 0;  // all ranks together (batch_size x ranks), from the plan item
  std::string configuration;
  bool baseline = false;
  bool measured = false;
  ResultStatus status = ResultStatus::ok;
  std::string reason;  // why failed / not run
  std::vector<PricedGroup> instances;
  std::optional<Measurement> measurement;  // measured results only
  std::optional<StepTimeEstimate> step;    // measured or given; absent when not ok
  std::optional<StepTimeSpread> spread;    // measured only
  std::optional<double> samples_per_s;
  std::optional<double> data_wait_fraction;
  /// Measured: stopped on the precision target (true), or on max_steps / max_seconds first.
  std::optional<bool> converged;
  /// Model FLOPs utilization (0..1) against host.peak_gflops: src/core/mfu.h.
  std::optional<double> mfu;
  /// On a GPU: the same against the vendor's datasheet peak of the precision (src/core/mfu.h).
  std::optional<double> mfu_datasheet;
  /// Measured results: where the time went and the verdict (src/core/bottleneck.h).
  std::optional<Bottleneck> bottleneck;
  /// Measured steps kept after the data source failed mid-run.
  bool partial = false;
  std::optional<Cost> cost;
  Comparison comparison;
  /// Non-baseline results with a priced baseline: the verdict the run leads with.
  std::optional<Decision> decision;
  std::optional<ModelInfo> model;
  std::optional<DataInfo> data;
  std::optional<ExecutionReport> execution;
  /// Measured items: peak memory and the bound it ran under.
  std::optional<MemoryReport> memory;
  std::vector<std::string> events;
  /// Data-parallel items only (src/core/distributed.h).
  std::optional<DistributedReport> distributed;
  // Spot (src/core/spot.h): measured checkpoint cost, expected cost to train, drill.
  std::optional<CheckpointCost> checkpoint;
  std::optional<SpotEstimate> spot;
  std::optional<SpotDrill> spot_drill;
  /// `pperf run --trace`: the traced steps (not among the measured ones).
  std::optional<TraceReport> trace;
  /// `pperf decide`: the hosts this result pools (absent elsewhere).
  std::optional<HostPooling> hosts;
  /// Fields of a read results file this version does not know, written back unchanged.
  nlohmann::json unknown_fields = nlohmann::json::object();
};
/// The result's plain members (src/core/json_fields.h): a new plain figure is a member above
/// and a row here; to_json and read_result write and read the rest by hand.
inline constexpr auto kResultFields = std::make_tuple(
    json_field("workload", &Result::workload), json_field("configuration", &Result::configuration),
    json_field("baseline", &Result::baseline), json_field("measured", &Result::measured),
    json_field("data_wait_fraction", &Result::data_wait_fraction), json_field("converged", &Result::converged),
    json_field("mfu", &Result::mfu), json_field_added("mfu_datasheet", &Result::mfu_datasheet),
    json_field_added("seed", &Result::seed));

/// Where a run was measured: the platform and job that placed it and the machine it got. `pperf
/// run` fills it from the PPERF_* variables a launcher sets (src/env/placement.h); `pperf decide`
/// tells a configuration's replicates apart by host_id. An empty optional: the platform did not say.
struct Placement {
  std::string platform = "local";                         // PPERF_PLATFORM
  std::optional<std::string> job_name, job_id;            // PPERF_JOB_NAME, PPERF_JOB_ID
  std::optional<std::string> instance_type, instance_id;  // PPERF_INSTANCE_TYPE, PPERF_INSTANCE_ID
  std::optional<std::string> group;                       // PPERF_HOST_GROUP: the job's instance group
  std::string host_id;           // PPERF_HOST_ID, else host_fingerprint
  std::string host_fingerprint;  // of this machine's stable facts (src/env/placement.h)
};
inline constexpr auto kPlacementFields = std::make_tuple(
    json_field("platform", &Placement::platform), json_field("job_name", &Placement::job_name),
    json_field("job_id", &Placement::job_id), json_field("instance_type", &Placement::instance_type),
    json_field("instance_id", &Placement::instance_id), json_field("group", &Placement::group),
    json_field("host_id", &Placement::host_id), json_field("host_fingerprint", &Placement::host_fingerprint));

struct DecideRecord;  // src/core/decide_record.h (it holds Placements)

struct RunReport {
  std::string tool_version, git_sha;
  std::string config_name, config_path, config_sha256;
  nlohmann::json host = nlohmann::json::object();
  /// `pperf run`: where it ran (absent in files from before it and from `pperf cost`).
  std::optional<Placement> placement;
  std::string started_at, finished_at;
  RunStatus status = RunStatus::complete;
  std::string command;  // "run" | "cost"
  // pricing provenance
  std::string pricing_table, pricing_source, pricing_retrieved, pricing_region, pricing_currency,
      pricing_market;
  std::string pricing_published;  // the table's publication date, "" when it records none
  std::string pricing_sha256;     // of the table file: with its name and date, the table's identity
  double discount_pct = 0;
  std::vector<Result> results;
  /// A sweep's race (src/core/sweep_record.h; docs/results.md "sweep"); none without a sweep.
  std::optional<SweepRecord> sweep;
  /// A scaling curve (src/core/scaling_curve.h; docs/scaling.md); none without one.
  std::optional<ScalingRecord> scaling;
  /// `pperf decide`: its inputs, the table it priced with, what was accepted (src/core/decide_record.h,
  /// made by src/decide/decide.h, never changed after); null elsewhere.
  std::shared_ptr<const DecideRecord> decide;
  /// `pperf run --replicates N` (and `pperf decide` of later runs in turns on one host): every
  /// replicate and the pooled verdicts (src/stats/replicates.h); null elsewhere.
  nlohmann::json replicates;
  nlohmann::json unknown_fields = nlohmann::json::object();
};

// Each record's JSON (docs/results.md), beside it; the results file (src/core/results_json.h)
// is the run's provenance around to_json(Result)s. Readers take a JsonView, so every mistake
// names the file and the JSON pointer, and keep what they did not read in unknown_fields.
nlohmann::json to_json(const PricedGroup& g);
PricedGroup read_priced_group(const JsonView& v);
/// The `cost` object; `to_train` is the result's own member (read_result reads it back into Cost).
nlohmann::json to_json(const Cost& c);
Cost read_cost(const JsonView& v);
nlohmann::json to_json(const Decision& d);
Decision read_decision(const JsonView& v);
nlohmann::json to_json(const GpuUtilization& g);
GpuUtilization read_gpu_utilization(const JsonView& v);
nlohmann::json to_json(const DevicePeak& p);
DevicePeak read_device_peak(const JsonView& v);
nlohmann::json to_json(const MemoryReport& m);
MemoryReport read_memory(const JsonView& v);
nlohmann::json to_json(const ExecutionReport& e);
ExecutionReport read_execution(const JsonView& v);
nlohmann::json to_json(const Result& r);
Result read_result(const JsonView& v);
nlohmann::json to_json(const Placement& p);
Placement read_placement(const JsonView& v);

/// A fact of RunReport::host at `path` (e.g. {"blas", "library"}) as text; "unknown" when absent.
std::string host_fact(const nlohmann::json& host, std::initializer_list<const char*> path);

/// complete, unless `interrupted`; failed when there were results and every one failed.
RunStatus overall_status(const std::vector<Result>& results, bool interrupted);

}  // namespace pperf
