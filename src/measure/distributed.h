#pragma once
// Data-parallel ranks, the torch-free side: who this process is in a group (from pperf's own
// spawn_local launch, the launcher convention RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT/LOCAL_RANK,
// or Slurm's srun), and the run's rendezvous store (a c10d TCPStore). The training side
// (process group, gradient buckets) is src/measure/data_parallel.h.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/core/kinds.h"

namespace pperf {

/// One rank's place in a group and where the group meets.
struct RankContext {
  int64_t rank = 0, world_size = 1, local_rank = 0;
  std::string store_host = "127.0.0.1";  // MASTER_ADDR
  int store_port = 0;                    // MASTER_PORT
  std::string store_prefix;              // keys of one item's group ("item3/"); set per item
  Launcher launcher = Launcher::spawn_local;
};

using GetEnv = std::function<const char*(const char*)>;

/// The group a launcher started this process in, nullopt when none did. RANK and WORLD_SIZE
/// (torchrun, Kubernetes PyTorchJob, SageMaker) come first, then Slurm's SLURM_PROCID /
/// SLURM_NTASKS / SLURM_LOCALID with the first host of SLURM_JOB_NODELIST and MASTER_PORT or a
/// port from SLURM_JOB_ID. A partial or malformed set is an InputError naming the variable.
std::optional<RankContext> launcher_from_env(const GetEnv& getenv);
std::optional<RankContext> launcher_from_env();

/// The first host of a Slurm node list: "node[03-05,9],gpu1" -> "node03".
std::string first_slurm_host(const std::string& nodelist);

/// The CUDA ordinal a rank trains on: its local rank among the GPUs this process sees (torchrun,
/// pperf's own ranks), or the only one it sees (Slurm's --gpus-per-task=1, a per-rank
/// CUDA_VISIBLE_DEVICES): there every rank's GPU is cuda:0. Throws std::runtime_error when the
/// local rank has no GPU of its own.
int cuda_ordinal_of_rank(int64_t local_rank, int64_t visible_gpus);

/// Rank `rank`'s CPUs when each rank gets `cpus_per_rank` of a host's `host_cpus`: consecutive
/// blocks, wrapping round when the ranks need more CPUs than the host has (then they share).
std::vector<int> rank_cpus(int64_t rank, int64_t cpus_per_rank, int64_t host_cpus);

/// The rendezvous store of a run (c10d TCPStore). The process that coordinates the ranks serves
/// it for the whole run: `pperf run` for spawn_local ranks (on a free port), rank 0's `pperf run`
/// under a launcher (on MASTER_PORT); every measuring process is a client. Under a launcher it
/// also carries rank 0's exit code to the other ranks' `pperf run`. Connecting gives up after
/// `timeout_s` (a runtime_error naming the address).
class RunStore {
 public:
  RunStore(const RankContext& context, bool serve, double timeout_s);
  ~RunStore();
  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;
  int port() const;
  /// Rank 0: publishes `code`, then waits (up to `wait_s`) until every other rank has read it.
  void publish_exit_code(int code, double wait_s);
  /// Other ranks: rank 0's exit code (3 when it never comes within the timeout).
  int wait_exit_code();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pperf
