#pragma once
// A data-parallel item's ranks as the in-process measurement sees them: each rank's CPUs, what
// the group's ranks must share, rank 0's merge of every rank's samples. Internal to src/measure
// (measure_here.cpp).
#include <optional>
#include <string>
#include <vector>

#include "src/config/plan.h"
#include "src/core/result.h"
#include "src/measure/data_parallel.h"
#include "src/measure/distributed.h"

namespace pperf {

/// A spawn_local rank's CPUs: its own block of cpus_per_rank (the emulation of one instance).
/// `gpu_ordinal`: the CUDA device a rank of "device": "cuda" trains on (cuda:0 under Slurm's
/// --gpus-per-task=1, whatever its local rank); nullopt otherwise.
std::vector<int> cpus_of_rank(const ExecutionSettings& exec, const RankContext& rank, std::optional<int> gpu_ordinal);

/// What every rank of one item's group must share: the config's bytes and the item.
std::string rank_identity(const Config& config, const PlanItem& item);

/// Rank 0 gathers every rank's samples (once, at the end): a step takes as long as its slowest
/// rank; under pperf's data-parallel (`parallel` non-null) the ranks' parameters must be
/// identical. Other ranks only send theirs.
void merge_ranks(Result& r, Measurement& m, ProcessGroupHandle& group, const DataParallelWorkload* parallel,
                 const RankContext& rank, const std::vector<int>& cpus, const DistributedSettings& settings);

}  // namespace pperf
