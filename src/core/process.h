#pragma once
// Child processes pperf starts (measuring processes, data workers) and CPU affinity.
// Guarantees: a ChildProcess is stopped and reaped when its owner is destroyed (SIGTERM, a
// grace period, then SIGKILL), and with `die_with_parent` the kernel kills it if pperf itself
// dies, however abruptly: no child outlives pperf.
#include <csignal>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pperf {

struct SpawnOptions {
  std::vector<std::string> argv;  // argv[0] is the executable's path
  std::vector<std::pair<std::string, std::string>> set_env;  // added to (or replacing in) ours
  std::vector<std::string> unset_env;
  bool capture_stdout = false;  // read it with read_line()
  bool pipe_stdin = false;      // write to it with write_line(); closed by close_stdin() or on destruction
  bool die_with_parent = true;
  int death_signal = SIGTERM;   // sent by the kernel when pperf dies
  /// A process group of its own: a terminal's Ctrl-C (SIGINT to the foreground group) then
  /// reaches pperf alone, which decides what the child is told.
  bool own_process_group = false;
  /// A memory cgroup's cgroup.procs (MemoryCgroup::procs_path): the child joins it before it
  /// runs anything, so it and all it starts are bound. A child that cannot join exits with 125.
  std::string join_cgroup;
};

class ChildProcess {
 public:
  /// Starts the child. Throws std::runtime_error when it cannot be started (an exec failure
  /// shows as exit code 127).
  explicit ChildProcess(const SpawnOptions& options);
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;
  ChildProcess(const ChildProcess&) = delete;
  ~ChildProcess();  // stop(5)

  int pid() const { return pid_; }
  /// The next line of the child's stdout (without '\n'), nullopt on timeout or end of output.
  std::optional<std::string> read_line(double timeout_s);
  /// Waits up to `timeout_s` (forever when < 0); the wait status once the child has ended.
  std::optional<int> wait(double timeout_s);
  /// Writes `line` and '\n' to the child's stdin (pipe_stdin); false when the child is gone.
  bool write_line(const std::string& line);
  void close_stdin();
  void signal(int sig) const;
  /// SIGTERM, up to `grace_s` to exit, then SIGKILL; returns the wait status. Idempotent.
  int stop(double grace_s);

 private:
  int pid_ = -1;
  int stdout_fd_ = -1;
  int stdin_fd_ = -1;
  std::string buffered_;
  std::optional<int> status_;
};

/// "exited with code 3", "killed by signal 11 (Segmentation fault)".
std::string describe_wait_status(int status);

/// Pins every thread of this process to `cpus` (empty: every CPU of this host, undoing an
/// inherited pinning). Threads started later inherit it. Returns false on failure.
bool pin_process_to_cpus(const std::vector<int>& cpus);

/// The CPUs this process may run on (its affinity mask), ascending; empty when unknown.
std::vector<int> allowed_cpus();

/// This binary's path (/proc/self/exe), to start pperf's own subcommands as children.
std::string self_executable();

}  // namespace pperf
