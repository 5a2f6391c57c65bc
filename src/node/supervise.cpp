#include "src/node/supervise.h"

#include <fmt/format.h>
#include <sys/wait.h>

#include <atomic>
#include <csignal>
#include <stdexcept>

#include "src/core/exit_codes.h"
#include "src/core/process.h"

namespace pperf::node {

namespace {
std::atomic<int> g_stop_signal{0};
void on_entry_stop_signal(int sig) { g_stop_signal = sig; }
}  // namespace

void catch_stop_signals() {
  std::signal(SIGTERM, on_entry_stop_signal);
  std::signal(SIGINT, on_entry_stop_signal);
}

int stop_signal() { return g_stop_signal.load(); }

int exit_code_of(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : kExitSignalBase + (WIFSIGNALED(status) ? WTERMSIG(status) : 0); }

int run_child(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env,
              std::optional<std::chrono::steady_clock::time_point> deadline, int64_t bound_s,
              const std::function<std::string()>& give_up) {
  SpawnOptions spawn;
  spawn.argv = argv;
  spawn.set_env = env;
  // The launcher's variables describe this host in the job (the training operator's RANK = 0 of a
  // one-pod world), not ranks for pperf to join: a launched job's ranks are pperf's own
  // ("spawn_local"), and `pperf run` would otherwise wait for a store at MASTER_ADDR.
  spawn.unset_env = {"RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"};
  // Its own process group: a stop sent to the entry point's group (SageMaker framework mode's
  // PID 1 passes it so) reaches the child once, from this process, not twice.
  spawn.own_process_group = true;
  ChildProcess child(spawn);
  bool forwarded = false, expired = false;
  std::string gave_up;
  for (;;) {
    if (const auto status = child.wait(0.5)) {
      if (expired) throw std::runtime_error(fmt::format("stopped at the job's bound of {} s (--max-runtime-s)", bound_s));
      if (!gave_up.empty()) throw std::runtime_error(gave_up);
      return exit_code_of(*status);
    }
    if (forwarded) continue;
    if (!g_stop_signal && give_up) gave_up = give_up();
    if (g_stop_signal || !gave_up.empty() || (deadline && std::chrono::steady_clock::now() > *deadline)) {
      expired = !g_stop_signal && gave_up.empty();
      child.signal(SIGTERM);
      forwarded = true;
    }
  }
}

}  // namespace pperf::node
