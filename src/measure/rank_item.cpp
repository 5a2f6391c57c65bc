#include "src/measure/rank_item.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <set>
#include <stdexcept>

#include "src/env/gpu_info.h"
#include "src/env/host_info.h"
#include "src/env/placement.h"
#include "src/stats/stats.h"

namespace pperf {

std::vector<int> cpus_of_rank(const ExecutionSettings& exec, const RankContext& rank, std::optional<int> gpu_ordinal) {
  const DistributedSettings& d = *exec.distributed;
  if (rank.launcher == Launcher::spawn_local && d.spawn_local && d.cpus_per_rank > 0)
    return rank_cpus(rank.rank, d.cpus_per_rank, HostCapacity::here().logical_cpus);
  // One rank per GPU: unless told otherwise, a rank runs on the CPUs of its GPU's NUMA node.
  if (gpu_ordinal && exec.cpus.empty())
    if (const auto node = gpu_numa_cpus(*gpu_ordinal, std::getenv("CUDA_VISIBLE_DEVICES"), std::getenv("CUDA_DEVICE_ORDER"))) {
      const std::vector<int> allowed = allowed_cpus();
      std::vector<int> usable;
      std::set_intersection(node->begin(), node->end(), allowed.begin(), allowed.end(), std::back_inserter(usable));
      if (!usable.empty()) return usable;
    }
  return exec.cpus;
}

std::string rank_identity(const Config& config, const PlanItem& item) {
  return fmt::format("{} workload {} configuration {}", config.sha256.substr(0, 16), item.workload_index,
                     item.configuration_index);
}

void merge_ranks(Result& r, Measurement& m, ProcessGroupHandle& group, const DataParallelWorkload* parallel,
                 const RankContext& rank, const std::vector<int>& cpus, const DistributedSettings& settings) {
  RankSamples mine;
  mine.rank = rank.rank;
  mine.host = hostname();
  mine.cpus = cpus;
  mine.step_ms = m.step_ms;
  mine.data_wait_ms = m.data_wait_ms;
  // Without pperf's data-parallel (a step with its own group) there is nothing of pperf's to
  // time or compare: the step's communication is inside its step time.
  static const std::vector<CommStep> no_comm;
  const auto& comm = parallel ? parallel->comm_steps() : no_comm;
  for (size_t i = comm.size() - std::min(comm.size(), m.step_ms.size()); i < comm.size(); ++i)
    mine.allreduce_ms.push_back(comm[i].allreduce_ms);
  mine.bytes_per_step = comm.empty() ? 0 : comm.back().bytes;
  if (parallel) mine.params_sha256 = parameters_sha256(parallel->parameters());
  const std::vector<RankSamples> all = gather_on_rank0(group, mine);
  if (rank.rank != 0) return;
  DistributedReport d;
  d.world_size = rank.world_size;
  d.backend = parallel ? settings.backend : kStepOwnBackend;
  if (parallel) d.engine = engine_name(group);
  d.launcher = rank.launcher;
  d.bytes_per_step = mine.bytes_per_step;
  size_t steps = m.step_ms.size();
  double comm_sum = 0;
  for (const auto& s : all) {
    if (s.params_sha256 != mine.params_sha256)
      throw std::runtime_error(fmt::format("ranks diverged: rank {}'s parameters differ from rank 0's after {} steps",
                                           s.rank, comm.size()));
    steps = std::min(steps, s.step_ms.size());
    Measurement own;
    own.step_ms = s.step_ms;
    own.data_wait_ms = s.data_wait_ms;
    d.ranks.push_back({s.rank, s.host, s.cpus, s.step_ms.empty() ? 0 : median(s.step_ms), own.data_wait_fraction()});
    double step_sum = 0, allreduce_sum = 0;
    for (double t : s.step_ms) step_sum += t;
    for (double t : s.allreduce_ms) allreduce_sum += t;
    comm_sum += step_sum > 0 ? allreduce_sum / step_sum : 0;
  }
  d.comm_fraction = comm_sum / static_cast<double>(all.size());
  if (!mine.allreduce_ms.empty()) {
    d.allreduce_median_ms = median(mine.allreduce_ms);
    d.allreduce_p95_ms = percentile(mine.allreduce_ms, 95);
  }
  // A step ends when its slowest rank is done; its wait is that rank's.
  m.step_ms.resize(steps);
  m.data_wait_ms.resize(steps);
  for (size_t i = 0; i < steps; ++i)
    for (const auto& s : all)
      if (s.step_ms[i] > m.step_ms[i]) {
        m.step_ms[i] = s.step_ms[i];
        m.data_wait_ms[i] = s.data_wait_ms[i];
      }
  r.events.push_back(describe(d));
  std::set<int> distinct;
  size_t pinned = 0;
  for (const auto& s : all) {
    distinct.insert(s.cpus.begin(), s.cpus.end());
    pinned += s.cpus.size();
  }
  if (distinct.size() < pinned)
    r.events.push_back(fmt::format("ranks share CPUs: {} ranks pinned to {} distinct CPUs (this host has fewer than "
                                   "they ask for), so they slow each other down",
                                   all.size(), distinct.size()));
  r.distributed = std::move(d);
}

}  // namespace pperf
