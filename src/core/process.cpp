#include "src/core/process.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace pperf {

namespace {
using SteadyClock = std::chrono::steady_clock;

double seconds_since(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}
}  // namespace

ChildProcess::ChildProcess(const SpawnOptions& options) {
  if (options.argv.empty()) throw std::runtime_error("cannot start a process without argv");
  // Everything the child needs is built before fork: between fork and exec only
  // async-signal-safe calls are allowed in a multi-threaded parent.
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    bool dropped = false;
    for (const auto& u : options.unset_env) dropped = dropped || u == name;
    for (const auto& [k, _] : options.set_env) dropped = dropped || k == name;
    if (!dropped) env.push_back(entry);
  }
  for (const auto& [k, v] : options.set_env) env.push_back(k + "=" + v);
  std::vector<std::string> args = options.argv;
  const std::string join_cgroup = options.join_cgroup;
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  int out[2] = {-1, -1};
  if (options.capture_stdout && pipe2(out, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  int in[2] = {-1, -1};
  if (options.pipe_stdin && pipe2(in, O_CLOEXEC) != 0) {
    if (options.capture_stdout) close(out[0]), close(out[1]);
    throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    if (options.die_with_parent) {
      prctl(PR_SET_PDEATHSIG, options.death_signal);
      if (getppid() != parent) _exit(127);  // the parent died before prctl took effect
    }
    if (options.own_process_group) setpgid(0, 0);
    if (!join_cgroup.empty()) {
      const int fd = open(join_cgroup.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0 || write(fd, "0", 1) != 1) _exit(125);
      close(fd);
    }
    if (options.capture_stdout) dup2(out[1], STDOUT_FILENO);  // dup2 clears O_CLOEXEC on the copy
    if (options.pipe_stdin) dup2(in[0], STDIN_FILENO);
    execve(args[0].c_str(), argv.data(), envp.data());
    _exit(127);
  }
  if (options.capture_stdout) close(out[1]);
  if (options.pipe_stdin) close(in[0]);
  if (pid < 0) {
    if (options.capture_stdout) close(out[0]);
    if (options.pipe_stdin) close(in[1]);
    throw std::runtime_error(std::string("cannot start ") + args[0] + ": " + std::strerror(errno));
  }
  pid_ = pid;
  stdout_fd_ = out[0];
  stdin_fd_ = in[1];
}

bool ChildProcess::write_line(const std::string& line) {
  if (stdin_fd_ < 0) return false;
  const std::string text = line + "\n";
  for (size_t done = 0; done < text.size();) {
    // A gone reader: EPIPE where the caller ignores SIGPIPE (measure_interleaved does).
    const ssize_t n = ::write(stdin_fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

void ChildProcess::close_stdin() {
  if (stdin_fd_ >= 0) close(stdin_fd_);
  stdin_fd_ = -1;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      stdout_fd_(std::exchange(other.stdout_fd_, -1)),
      stdin_fd_(std::exchange(other.stdin_fd_, -1)),
      buffered_(std::move(other.buffered_)),
      status_(other.status_) {}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) stop(5);
  if (stdout_fd_ >= 0) close(stdout_fd_);
  close_stdin();
}

std::optional<std::string> ChildProcess::read_line(double timeout_s) {
  const auto start = SteadyClock::now();
  for (;;) {
    const auto newline = buffered_.find('\n');
    if (newline != std::string::npos) {
      std::string line = buffered_.substr(0, newline);
      buffered_.erase(0, newline + 1);
      return line;
    }
    const double left = timeout_s - seconds_since(start);
    if (stdout_fd_ < 0 || left <= 0) return std::nullopt;
    pollfd fd{stdout_fd_, POLLIN, 0};
    const int ready = poll(&fd, 1, static_cast<int>(std::min(left, 0.2) * 1000) + 1);
    if (ready < 0 && errno != EINTR) return std::nullopt;
    if (ready <= 0) continue;
    char buf[512];
    const ssize_t n = ::read(stdout_fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;  // end of output
    buffered_.append(buf, static_cast<size_t>(n));
  }
}

std::optional<int> ChildProcess::wait(double timeout_s) {
  if (status_ || pid_ <= 0) return status_;
  const auto start = SteadyClock::now();
  for (;;) {
    int status = 0;
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_ || (r < 0 && errno == ECHILD)) {
      status_ = r == pid_ ? status : 0;
      return status_;
    }
    if (timeout_s >= 0 && seconds_since(start) >= timeout_s) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void ChildProcess::signal(int sig) const {
  if (pid_ > 0 && !status_) ::kill(pid_, sig);
}

int ChildProcess::stop(double grace_s) {
  if (auto done = wait(0)) return *done;
  signal(SIGTERM);
  if (auto done = wait(grace_s)) return *done;
  signal(SIGKILL);
  return *wait(-1);
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  return "ended with wait status " + std::to_string(status);
}

bool pin_process_to_cpus(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  if (cpus.empty())  // undo an inherited pinning: every CPU of this host
    for (unsigned c = 0; c < std::thread::hardware_concurrency(); ++c) CPU_SET(c, &set);
  // Every existing thread (libtorch's pools included); threads started later inherit it.
  bool ok = true;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task"))
    ok = sched_setaffinity(std::stoi(entry.path().filename().string()), sizeof set, &set) == 0 && ok;
  return ok;
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return {};
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

std::string self_executable() {
  std::error_code ec;
  auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "pperf" : path.string();
}

}  // namespace pperf
