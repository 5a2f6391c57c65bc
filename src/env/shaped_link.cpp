#include "src/env/shaped_link.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "src/core/process.h"

namespace pperf {

namespace {

/// `program`'s path on PATH ("" when it is not there): children are started with execve.
std::string on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    if (!dir.empty() && ::access((std::filesystem::path(dir) / program).c_str(), X_OK) == 0)
      return (std::filesystem::path(dir) / program).string();
  return "";
}

/// Runs `argv` (stdout and stderr discarded); "" on exit 0, else the command and how it ended.
std::string run(const std::vector<std::string>& argv) {
  SpawnOptions spawn;
  spawn.argv = argv;
  spawn.capture_stdout = true;
  ChildProcess child(spawn);
  std::string out;
  while (auto line = child.read_line(10)) out += *line + " ";
  const std::optional<int> status = child.wait(10);
  if (status && *status == 0) return "";
  std::string command;
  for (const auto& a : argv) command += (command.empty() ? "" : " ") + a;
  return command + ": " + (status ? describe_wait_status(*status) : std::string("did not finish")) +
         (out.empty() ? "" : ": " + out);
}

std::atomic<int> g_links{0};

}  // namespace

std::string shaped_link_obstacle() {
  if (::geteuid() != 0) return "making a network namespace and shaping it with tc needs root (this process is not)";
  for (const char* program : {"ip", "tc"})
    if (on_path(program).empty()) return std::string("'") + program + "' is not on PATH (iproute2)";
  return "";
}

ShapedLink::ShapedLink(double rate_bit_per_s) : rate_(rate_bit_per_s) {
  if (const std::string why = shaped_link_obstacle(); !why.empty()) throw std::runtime_error(why);
  ip_ = on_path("ip");
  const std::string tc = on_path("tc");
  if (!(rate_bit_per_s >= 8000)) throw std::runtime_error(fmt::format("a link of {:g} bit/s is below what tbf shapes", rate_bit_per_s));
  // Names and a /30 of their own per process and link: several runs on one host never collide.
  const int k = g_links++;
  const unsigned id = (static_cast<unsigned>(::getpid()) * 7 + static_cast<unsigned>(k)) % 16000;
  name_ = fmt::format("pperf-link-{}-{}", ::getpid(), k);
  veth_outside_ = fmt::format("pplo{}", id);  // interface names: at most 15 characters
  veth_inside_ = fmt::format("ppli{}", id);
  const unsigned subnet = id * 4;
  outside_ = fmt::format("10.{}.{}.{}", 200 + subnet / 65536, (subnet / 256) % 256, subnet % 256 + 1);
  inside_ = fmt::format("10.{}.{}.{}", 200 + subnet / 65536, (subnet / 256) % 256, subnet % 256 + 2);
  // tbf: its bucket holds one 64 KiB GSO segment, or 5 ms at the rate if more (a larger bucket
  // lets a burst through faster than the link: a head start); packets wait up to 200 ms for
  // tokens (the queue), so a TCP sender is paced, not dropped.
  const double burst = std::max(64.0 * 1024, rate_bit_per_s / 8 * 0.005);
  tbf_ = fmt::format("rate {:.0f}bit burst {:.0f} latency 200ms", rate_bit_per_s, burst);
  const std::vector<std::vector<std::string>> steps = {
      {ip_, "netns", "add", name_},
      {ip_, "link", "add", veth_outside_, "type", "veth", "peer", "name", veth_inside_},
      {ip_, "link", "set", veth_inside_, "netns", name_},
      {ip_, "addr", "add", outside_ + "/30", "dev", veth_outside_},
      {ip_, "link", "set", veth_outside_, "up"},
      {ip_, "-n", name_, "addr", "add", inside_ + "/30", "dev", veth_inside_},
      {ip_, "-n", name_, "link", "set", veth_inside_, "up"},
      {ip_, "-n", name_, "link", "set", "lo", "up"},
      {tc, "-n", name_, "qdisc", "add", "dev", veth_inside_, "root", "tbf", "rate", fmt::format("{:.0f}bit", rate_bit_per_s),
       "burst", fmt::format("{:.0f}", burst), "latency", "200ms"},
  };
  for (const auto& step : steps)
    if (const std::string failed = run(step); !failed.empty()) {
      run({ip_, "link", "del", veth_outside_});
      run({ip_, "netns", "del", name_});
      throw std::runtime_error("cannot make the shaped link: " + failed);
    }
}

ShapedLink::~ShapedLink() {
  // Its end of the veth goes with the namespace, and the pair with it.
  if (!run({ip_, "netns", "del", name_}).empty()) run({ip_, "link", "del", veth_outside_});
}

std::vector<std::string> ShapedLink::exec_prefix() const { return {ip_, "netns", "exec", name_}; }

std::string ShapedLink::how() const {
  return fmt::format("tc qdisc tbf {} on veth {} of network namespace {} (the data workers' side; the trainer at {})", tbf_,
                     veth_inside_, name_, outside_);
}

}  // namespace pperf
