#include "src/env/gpu_info.h"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace pperf {

namespace {
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, ',')) {
    const auto first = field.find_first_not_of(' '), last = field.find_last_not_of(' ');
    fields.push_back(first == std::string::npos ? "" : field.substr(first, last - first + 1));
  }
  return fields;
}

std::optional<double> number(const std::string& text) {
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    return used == text.size() ? std::optional<double>(v) : std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

/// Every stdout line of `argv`, waiting at most `timeout_s` for each.
std::vector<std::string> output_lines(const std::vector<std::string>& argv, double timeout_s) {
  SpawnOptions spawn;
  spawn.argv = argv;
  spawn.capture_stdout = true;
  ChildProcess child(spawn);
  std::vector<std::string> lines;
  while (auto line = child.read_line(timeout_s)) lines.push_back(*line);
  child.stop(1);
  return lines;
}
}  // namespace

std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(candidate)) return candidate;
  }
  return "";
}

std::optional<std::pair<double, double>> parse_gpu_sample(const std::string& line) {
  const auto fields = split_csv(line);
  if (fields.size() != 2) return std::nullopt;
  const auto util = number(fields[0]), memory = number(fields[1]);
  if (!util || !memory || *util < 0 || *util > 100 || *memory < 0) return std::nullopt;
  return std::make_pair(*util, *memory);
}

nlohmann::json nvidia_gpu_facts() {
  const std::string smi = find_on_path("nvidia-smi");
  if (smi.empty()) return nullptr;
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& line :
       output_lines({smi, "--query-gpu=index,name,memory.total,driver_version", "--format=csv,noheader,nounits"}, 10)) {
    const auto f = split_csv(line);
    if (f.size() != 4 || !number(f[0]) || !number(f[2])) continue;
    gpus.push_back({{"index", static_cast<int64_t>(*number(f[0]))},
                    {"name", f[1]},
                    {"memory_mib", *number(f[2])},
                    {"driver", f[3]}});
  }
  nlohmann::json facts = {{"gpus", gpus}, {"cuda_driver", nullptr}};
  static const std::regex cuda_version("CUDA Version: *([0-9.]+)");
  for (const auto& line : output_lines({smi}, 10)) {
    std::smatch m;
    if (std::regex_search(line, m, cuda_version)) facts["cuda_driver"] = m[1].str();
  }
  return facts;
}

std::string nvidia_gpu_name(const std::string& id) {
  const std::string smi = find_on_path("nvidia-smi");
  if (smi.empty() || id == "all") return "";
  const auto lines = output_lines({smi, "--query-gpu=name", "--format=csv,noheader", "-i", id}, 10);
  return lines.size() == 1 && lines[0].find("No devices") == std::string::npos ? lines[0] : "";
}

SmiGpuId map_to_nvidia_smi(int ordinal, const char* cuda_visible_devices, const char* cuda_device_order) {
  if (ordinal < 0) return {"all", "no CUDA ordinal"};
  const bool pci_order = cuda_device_order && std::string(cuda_device_order) == "PCI_BUS_ID";
  const std::string order = cuda_device_order ? std::string("CUDA_DEVICE_ORDER=") + cuda_device_order
                                              : std::string("CUDA_DEVICE_ORDER unset (fastest first)");
  const std::string unknown = order + " numbers GPUs in another order than nvidia-smi's PCI order; set "
                                      "CUDA_DEVICE_ORDER=PCI_BUS_ID or list UUIDs in CUDA_VISIBLE_DEVICES";
  if (cuda_visible_devices) {
    std::stringstream in(cuda_visible_devices);
    int i = 0;
    for (std::string item; std::getline(in, item, ','); ++i) {
      item.erase(std::remove_if(item.begin(), item.end(), [](unsigned char c) { return std::isspace(c); }), item.end());
      if (item.empty()) break;  // CUDA stops at the first invalid entry
      if (i != ordinal) continue;
      // An index counts in CUDA's device order; a UUID or MIG id names one GPU in any order.
      const bool index = item.find_first_not_of("0123456789") == std::string::npos;
      if (index && !pci_order) return {"all", unknown};
      return {item, ""};
    }
    return {"all", "cuda:" + std::to_string(ordinal) + " is not in CUDA_VISIBLE_DEVICES=" + cuda_visible_devices};
  }
  if (pci_order) return {std::to_string(ordinal), ""};
  return {"all", unknown};
}

namespace {
/// A `utilization.gpu, memory.used` line whose utilization nvidia-smi cannot give ("[N/A]" on
/// MIG instances, "[Not Supported]").
bool utilization_not_available(const std::string& line) {
  const auto fields = split_csv(line);
  return fields.size() == 2 && !fields[0].empty() && fields[0].front() == '[' && number(fields[1]).has_value();
}

double steady_now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

std::optional<GpuUtilization> summarize_gpu_samples(const std::vector<GpuSample>& samples, const std::string& gpu,
                                                    const std::vector<TimeWindow>* windows) {
  GpuUtilization u;
  u.gpu = gpu;
  double sum = 0;
  for (const GpuSample& s : samples) {
    if (windows && std::none_of(windows->begin(), windows->end(), [&](const TimeWindow& w) {
          return s.at_ms >= w.start_ms && s.at_ms <= w.end_ms;
        }))
      continue;
    ++u.samples;
    sum += s.utilization_pct;
    u.max_pct = std::max(u.max_pct, s.utilization_pct);
    u.max_memory_used_mib = std::max(u.max_memory_used_mib, s.memory_mib);
  }
  if (u.samples == 0) return std::nullopt;
  u.mean_pct = sum / static_cast<double>(u.samples);
  return u;
}

GpuSampler::GpuSampler(int period_ms, std::string gpu) : gpu_(std::move(gpu)), period_ms_(period_ms) {
  const std::string smi = find_on_path("nvidia-smi");
  if (smi.empty()) return;
  SpawnOptions spawn;
  spawn.argv = {smi, "--query-gpu=utilization.gpu,memory.used", "--format=csv,noheader,nounits",
                "-lms", std::to_string(period_ms)};
  if (gpu_ != "all") spawn.argv.insert(spawn.argv.end(), {"-i", gpu_});
  spawn.capture_stdout = true;
  child_.emplace(spawn);
  // The child is touched by the reader alone until finish() has joined it.
  reader_ = std::thread([this] {
    while (!stop_) {
      if (auto line = child_->read_line(0.2)) {
        take(*line);
      } else if (child_->wait(0)) {
        return;  // nvidia-smi ended (e.g. no GPU after all)
      }
    }
  });
}

void GpuSampler::take(const std::string& line) {
  // Stamped as it arrives: nvidia-smi prints each reading as it takes it.
  if (auto sample = parse_gpu_sample(line)) samples_.push_back({steady_now_ms(), sample->first, sample->second});
  else if (utilization_not_available(line)) ++unavailable_;
  else if (first_other_.empty() && line.find_first_not_of(' ') != std::string::npos) first_other_ = line;
}

GpuSampler::~GpuSampler() { finish(); }

std::optional<GpuUtilization> GpuSampler::finish(const std::vector<TimeWindow>* own_windows) {
  if (!child_) return std::nullopt;
  stop_ = true;
  if (reader_.joinable()) reader_.join();
  child_->stop(1);
  // What it printed before it stopped and the reader had not read yet (then end of output).
  while (auto line = child_->read_line(1)) take(*line);
  child_.reset();
  std::optional<GpuUtilization> u = summarize_gpu_samples(samples_, gpu_, own_windows);
  if (u) return u;
  if (!samples_.empty())
    why_none_ = fmt::format("GPU utilization not recorded: none of nvidia-smi's {} readings of GPU {} (one every {} ms) "
                            "fell in this configuration's own rounds",
                            samples_.size(), gpu_, period_ms_);
  else if (unavailable_ > 0)
    why_none_ = fmt::format("GPU utilization not recorded: nvidia-smi gives utilization.gpu of GPU {} as N/A ({} "
                            "readings), as it does for MIG instances and GPUs that do not report it",
                            gpu_, unavailable_);
  else
    why_none_ = fmt::format("GPU utilization not recorded: nvidia-smi printed no reading of GPU {}{}", gpu_,
                            first_other_.empty() ? "" : " (it said: " + first_other_ + ")");
  return std::nullopt;
}

std::optional<std::vector<int>> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  std::stringstream in(text);
  std::string range;
  while (std::getline(in, range, ',')) {
    while (!range.empty() && std::isspace(static_cast<unsigned char>(range.back()))) range.pop_back();
    if (range.empty() || range.back() == '-' || range.find_first_not_of("0123456789-") != std::string::npos)
      return std::nullopt;
    int first = 0, last = 0;
    char tail = 0;
    const int fields = std::sscanf(range.c_str(), "%d-%d%c", &first, &last, &tail);
    if (fields == 1) last = first;
    if ((fields != 1 && fields != 2) || first < 0 || last < first || last > 1 << 20) return std::nullopt;
    for (int c = first; c <= last; ++c) cpus.push_back(c);
  }
  if (cpus.empty()) return std::nullopt;
  return cpus;
}

std::optional<std::vector<int>> gpu_numa_cpus(int ordinal, const char* cuda_visible_devices,
                                              const char* cuda_device_order, const std::string& root) {
  // CUDA's default order is fastest first, which /proc cannot tell.
  if (!cuda_device_order || std::string(cuda_device_order) != "PCI_BUS_ID") return std::nullopt;
  std::error_code error;
  std::vector<std::string> buses;  // PCI order: the driver names them by bus id
  for (auto it = std::filesystem::directory_iterator(root + "/proc/driver/nvidia/gpus", error);
       !error && it != std::filesystem::directory_iterator(); it.increment(error))
    buses.push_back(it->path().filename().string());
  std::sort(buses.begin(), buses.end());
  int physical = ordinal;
  if (cuda_visible_devices) {
    std::vector<int> visible;
    std::stringstream in(cuda_visible_devices);
    for (std::string item; std::getline(in, item, ',');) {
      if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;  // UUIDs, MIG
      visible.push_back(std::stoi(item.substr(0, 6)));
    }
    if (ordinal < 0 || ordinal >= static_cast<int>(visible.size())) return std::nullopt;
    physical = visible[ordinal];
  }
  if (physical < 0 || physical >= static_cast<int>(buses.size())) return std::nullopt;
  std::string bus = buses[physical];
  std::transform(bus.begin(), bus.end(), bus.begin(), [](unsigned char c) { return std::tolower(c); });
  int node = -1;
  std::ifstream(root + "/sys/bus/pci/devices/" + bus + "/numa_node") >> node;
  if (node < 0) return std::nullopt;
  std::string cpulist;
  std::getline(std::ifstream(root + "/sys/devices/system/node/node" + std::to_string(node) + "/cpulist"), cpulist);
  return parse_cpu_list(cpulist);
}

}  // namespace pperf
