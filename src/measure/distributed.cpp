#include "src/measure/distributed.h"

#include <cerrno>
#include <cstdlib>
#include <stdexcept>

#include "src/core/input_error.h"

namespace pperf {

namespace {
int64_t env_int(const GetEnv& getenv, const char* name, int64_t min, int64_t max) {
  const char* text = getenv(name);
  if (!text || !*text) throw InputError(name, "", "is not set (the launcher sets it with the others)");
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < min || value > max)
    throw InputError(name, "", "expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
                                   "], got '" + text + "'");
  return value;
}

std::string env_string(const GetEnv& getenv, const char* name) {
  const char* text = getenv(name);
  if (!text || !*text) throw InputError(name, "", "is not set (the launcher sets it with the others)");
  return text;
}

bool is_set(const GetEnv& getenv, const char* name) {
  const char* text = getenv(name);
  return text && *text;
}
}  // namespace

std::string first_slurm_host(const std::string& nodelist) {
  // The first entry ends at a comma outside brackets.
  size_t end = 0;
  int depth = 0;
  for (; end < nodelist.size(); ++end) {
    if (nodelist[end] == '[') ++depth;
    if (nodelist[end] == ']') --depth;
    if (nodelist[end] == ',' && depth == 0) break;
  }
  const std::string first = nodelist.substr(0, end);
  const size_t open = first.find('[');
  if (open == std::string::npos) return first;
  // prefix[03-05,9]: the first number of the range keeps its zero padding.
  const size_t stop = first.find_first_of(",-]", open + 1);
  return first.substr(0, open) + first.substr(open + 1, stop - open - 1);
}

std::optional<RankContext> launcher_from_env(const GetEnv& getenv) {
  RankContext c;
  if (is_set(getenv, "RANK") || is_set(getenv, "WORLD_SIZE")) {
    c.launcher = Launcher::env;
    c.world_size = env_int(getenv, "WORLD_SIZE", 1, 1 << 20);
    c.rank = env_int(getenv, "RANK", 0, c.world_size - 1);
    c.local_rank = is_set(getenv, "LOCAL_RANK") ? env_int(getenv, "LOCAL_RANK", 0, 1 << 20) : 0;
    c.store_host = env_string(getenv, "MASTER_ADDR");
    c.store_port = static_cast<int>(env_int(getenv, "MASTER_PORT", 1, 65535));
    return c;
  }
  if (is_set(getenv, "SLURM_PROCID") && is_set(getenv, "SLURM_NTASKS")) {
    c.launcher = Launcher::slurm;
    c.world_size = env_int(getenv, "SLURM_NTASKS", 1, 1 << 20);
    c.rank = env_int(getenv, "SLURM_PROCID", 0, c.world_size - 1);
    c.local_rank = is_set(getenv, "SLURM_LOCALID") ? env_int(getenv, "SLURM_LOCALID", 0, 1 << 20) : 0;
    c.store_host = is_set(getenv, "MASTER_ADDR") ? env_string(getenv, "MASTER_ADDR")
                                                 : first_slurm_host(env_string(getenv, "SLURM_JOB_NODELIST"));
    if (c.store_host.empty()) throw InputError("SLURM_JOB_NODELIST", "", "names no host");
    c.store_port = is_set(getenv, "MASTER_PORT")
                       ? static_cast<int>(env_int(getenv, "MASTER_PORT", 1, 65535))
                       : static_cast<int>(20000 + env_int(getenv, "SLURM_JOB_ID", 0, int64_t{1} << 62) % 20000);
    return c;
  }
  return std::nullopt;
}

std::optional<RankContext> launcher_from_env() {
  return launcher_from_env([](const char* name) { return std::getenv(name); });
}

int cuda_ordinal_of_rank(int64_t local_rank, int64_t visible_gpus) {
  if (visible_gpus == 1) return 0;
  if (local_rank >= 0 && local_rank < visible_gpus) return static_cast<int>(local_rank);
  throw std::runtime_error("local rank " + std::to_string(local_rank) + " has no GPU: this process sees " +
                           std::to_string(visible_gpus) + " (CUDA_VISIBLE_DEVICES)");
}

std::vector<int> rank_cpus(int64_t rank, int64_t cpus_per_rank, int64_t host_cpus) {
  std::vector<int> cpus;
  if (cpus_per_rank <= 0 || host_cpus <= 0) return cpus;
  for (int64_t i = 0; i < cpus_per_rank && i < host_cpus; ++i)
    cpus.push_back(static_cast<int>((rank * cpus_per_rank + i) % host_cpus));
  return cpus;
}

}  // namespace pperf
