#pragma once
// The one record every writer consumes: a (workload x configuration) result as it flows
// measure -> price -> compare -> report, plus the run-level facts around it.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "bench/runner/measurement.h"
#include "pricing/cost_model.h"
#include "workloads/registry.h"

namespace pperf {

/// What execution settings were asked for and what actually took effect.
struct ExecutionReport {
  int64_t threads_requested = 0, threads_effective = 0;
  int64_t interop_threads_requested = 0, interop_threads_effective = 0;
  std::string data_mode;
  int64_t data_workers = 0;
  bool emulated = true;                     // ran on this host, not on the named instances
  std::vector<int> cpus;                    // the trainer's CPU set (empty: not pinned)
  std::vector<int> data_cpus;               // spawned data workers' CPU set
  std::vector<std::string> data_endpoints;  // service mode: where batches came from
};

struct Result {
  std::string workload, preset;
  int64_t batch_size = 0;
  std::string configuration;
  bool baseline = false;
  bool measured = false;
  std::string status = "ok";  // "ok" | "failed" | "not_run"
  std::string reason;         // why failed / not run
  std::vector<PricedGroup> instances;
  std::optional<Measurement> measurement;  // measured results only
  std::optional<StepTimeEstimate> step;    // measured or given; absent when not ok
  std::optional<Cost> cost;
  Comparison comparison;
  std::optional<ModelInfo> model;
  std::optional<DataInfo> data;
  std::optional<ExecutionReport> execution;
  std::vector<std::string> events;
};

struct RunReport {
  std::string tool_version, git_sha;
  std::string config_name, config_path, config_sha256;
  nlohmann::json host;
  std::string started_at, finished_at;
  std::string status = "complete";  // "complete" | "interrupted" | "failed"
  std::string command;              // "run" | "cost"
  // pricing provenance
  std::string pricing_table, pricing_source, pricing_retrieved, pricing_region, pricing_currency,
      pricing_market;
  double discount_pct = 0;
  std::vector<Result> results;
};

}  // namespace pperf
