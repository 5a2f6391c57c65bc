#pragma once
// A launched host's processes: the platform's stop signal caught once, and the child that does
// the host's work (`pperf data-worker` or `pperf run`) run to its end, stopped at the job's
// bound or when the caller gives up.
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pperf::node {

/// Catches SIGTERM and SIGINT (the platform's stop): stop_signal() then says which came.
void catch_stop_signals();
/// The stop signal caught, 0 while none.
int stop_signal();

/// The exit code of a wait status: the process's own, or kExitSignalBase + the signal that ended it.
int exit_code_of(int status);

/// Runs `argv` (with `env` set, a launcher's rank variables unset) in its own process group to its
/// end, forwarding the platform's stop to it and stopping it at `deadline`, or when `give_up` (asked every half
/// second) gives a reason. Its exit code; std::runtime_error when the deadline (`bound_s`, named)
/// or `give_up` stopped it.
int run_child(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env,
              std::optional<std::chrono::steady_clock::time_point> deadline, int64_t bound_s,
              const std::function<std::string()>& give_up = {});

}  // namespace pperf::node
