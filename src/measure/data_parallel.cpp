// c10d is compiled into Debian's libtorch with Gloo; its Gloo header needs this to declare the
// process group (the issue's -DUSE_C10D_GLOO, kept to this one file so the shared precompiled
// <torch/torch.h> stays valid).
#ifndef USE_C10D_GLOO
#define USE_C10D_GLOO
#endif
#include "src/measure/data_parallel.h"

#include "src/measure/runner.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <mutex>
#include <nlohmann/json.hpp>

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/distributed/c10d/comm.hpp>
#include <torch/csrc/distributed/c10d/reducer.hpp>
#ifdef PPERF_WITH_NCCL
#include <torch/csrc/distributed/c10d/NCCLUtils.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif
#include "workloads/common/torch_compat.h"
#if defined(PPERF_WITH_NCCL) && PPERF_TORCH_NCCL2
#include <torch/csrc/distributed/c10d/nccl2/ProcessGroupNCCL.hpp>
#endif

#include "src/core/crypto.h"
#include "src/core/input_error.h"
#include "workloads/common/torch_compat.h"

namespace pperf {

namespace {
using Millis = std::chrono::milliseconds;

Millis millis(double seconds) { return Millis(static_cast<int64_t>(seconds * 1000)); }

std::vector<uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }
std::string text_of(const std::vector<uint8_t>& b) { return {b.begin(), b.end()}; }

/// The local address this host uses to reach `host` (no packet is sent: a UDP connect only
/// chooses the route), so Gloo listens where the other ranks can reach it.
std::string local_address_towards(const std::string& host) {
  addrinfo hints{}, *found = nullptr;
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  if (getaddrinfo(host.c_str(), "9", &hints, &found) != 0 || !found) return "";
  std::string address;
  const int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
  if (fd >= 0 && ::connect(fd, found->ai_addr, found->ai_addrlen) == 0) {
    sockaddr_in local{};
    socklen_t len = sizeof local;
    char text[INET_ADDRSTRLEN] = {};
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0 &&
        inet_ntop(AF_INET, &local.sin_addr, text, sizeof text))
      address = text;
  }
  if (fd >= 0) ::close(fd);
  freeaddrinfo(found);
  return address;
}

c10::intrusive_ptr<c10d::TCPStore> connect_store(const RankContext& context, bool serve, double timeout_s) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<uint16_t>(context.store_port);
  options.isServer = serve;
  options.waitWorkers = false;
  options.timeout = millis(timeout_s);
  try {
    return c10::make_intrusive<c10d::TCPStore>(context.store_host, options);
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("rendezvous store at {}:{}{} ({} s timeout): {}", context.store_host,
                                         context.store_port, serve ? " cannot be served" : " unreachable", timeout_s,
                                         c10::GetExceptionString(e)));
  }
}

/// Records when each bucket's all-reduce starts and ends during one step. On a CPU backend
/// (Gloo) the work's future completes when the all-reduce is done, so the host clock brackets
/// it. Under NCCL the future completes once the collective is queued on the GPU's stream: there
/// the works are kept and their own CUDA-event timing (Work::getDuration) is read after the step.
struct CommRecorder {
  std::mutex mutex;
  std::vector<std::pair<double, double>> intervals;  // (launched, done) per bucket, ms
  std::vector<c10::intrusive_ptr<c10d::Work>> device_works;  // NCCL: read after the step
  int64_t bytes = 0;
  bool device_timed = false;
  void reset() {
    std::lock_guard<std::mutex> lock(mutex);
    intervals.clear();
    device_works.clear();
    bytes = 0;
  }
  /// NCCL: the step's collectives ran one after another on one stream, so their time in
  /// flight is the sum of their durations. Call after the device is synchronized.
  double device_ms() {
    std::lock_guard<std::mutex> lock(mutex);
    double total = 0;
    for (const auto& work : device_works) total += torch_compat::collective_device_ms(*work);
    return total;
  }
  /// Time at least one bucket was in flight (the union of the intervals), ms.
  double in_flight_ms() {
    std::lock_guard<std::mutex> lock(mutex);
    std::sort(intervals.begin(), intervals.end());
    double total = 0, start = 0, end = -1;
    for (const auto& [a, b] : intervals) {
      if (a > end) {
        total += end > start ? end - start : 0;
        start = a;
        end = b;
      } else {
        end = std::max(end, b);
      }
    }
    return total + (end > start ? end - start : 0);
  }
};

/// DDP's default averaging of a bucket, with the bucket's start and end recorded: NCCL
/// averages in the all-reduce itself (ReduceOp::AVG, no extra pass over the bucket); Gloo has
/// no AVG, so the bucket is divided by the world size first and summed, as torch's
/// allreduce_hook does. The returned future completes after the end is recorded, and the
/// Reducer waits on it before the optimizer step.
class TimedAllReduce : public c10d::CommHookInterface {
 public:
  TimedAllReduce(const c10::intrusive_ptr<c10d::ProcessGroup>& group, std::shared_ptr<CommRecorder> recorder,
                 bool average_in_collective, std::chrono::milliseconds timeout)
      : state_(group), recorder_(std::move(recorder)), average_in_collective_(average_in_collective) {
    options_.timeout = timeout;
    if (average_in_collective_) options_.reduceOp = c10d::ReduceOp::AVG;
  }

  // What libtorch's CppCommHookInterface does (its helper is not exported): an all-reduce's
  // future holds the list of reduced tensors, here one.
  at::Tensor parseHookResult(const c10::IValue& result) override { return result.toTensorVector()[0]; }

  c10::intrusive_ptr<c10::ivalue::Future> runHook(c10d::GradBucket& bucket) override {
    std::vector<at::Tensor> tensors = {bucket.getBufferRef()};
    if (!average_in_collective_) tensors[0].div_(state_->getSize());
    size_t slot = 0;
    {
      std::lock_guard<std::mutex> lock(recorder_->mutex);
      slot = recorder_->intervals.size();
      recorder_->intervals.emplace_back(steady_clock().now_ms(), 0);
      recorder_->bytes += static_cast<int64_t>(tensors[0].numel() * tensors[0].element_size());
    }
    auto work = state_->allreduce(tensors, options_);
    auto future = work->getFuture();
    if (recorder_->device_timed) {
      std::lock_guard<std::mutex> lock(recorder_->mutex);
      recorder_->device_works.push_back(work);
      return future;
    }
    std::shared_ptr<CommRecorder> recorder = recorder_;
    return future->then(
        [recorder, slot](c10::ivalue::Future& done) {
          {
            std::lock_guard<std::mutex> lock(recorder->mutex);
            recorder->intervals[slot].second = steady_clock().now_ms();
          }
          return done.value();  // rethrows a failed all-reduce into the Reducer's wait
        },
        future->elementType());
  }

 private:
  c10::intrusive_ptr<c10d::ProcessGroup> state_;
  std::shared_ptr<CommRecorder> recorder_;
  bool average_in_collective_;
  c10d::AllreduceOptions options_;
};
}  // namespace

class ProcessGroupHandle {
 public:
  ~ProcessGroupHandle() {
    // The item is over: its backends end normally (an NCCL group left to its destructor warns
    // that destroy_process_group() was not called).
    if (!group) return;
    try {
      torch_compat::shutdown_group(*group);
    } catch (const std::exception& e) {
      TORCH_WARN("shutting the process group down: ", e.what());
    }
  }
  RankContext context;
  GroupSettings settings;
  c10::intrusive_ptr<c10d::Store> store;  // this item's keys (PrefixStore over the run's TCPStore)
  c10::intrusive_ptr<c10d::ProcessGroup> group;
  torch::Device device = torch::kCPU;  // where the collectives' tensors live
};

// --- the run's store -----------------------------------------------------------------------

struct RunStore::Impl {
  RankContext context;
  double timeout_s = 0;
  c10::intrusive_ptr<c10d::TCPStore> store;
};

RunStore::RunStore(const RankContext& context, bool serve, double timeout_s) : impl_(std::make_unique<Impl>()) {
  impl_->context = context;
  impl_->timeout_s = timeout_s;
  impl_->store = connect_store(context, serve, timeout_s);
}

RunStore::~RunStore() = default;

int RunStore::port() const { return impl_->store->getPort(); }

void RunStore::publish_exit_code(int code, double wait_s) {
  impl_->store->set("run/exit_code", bytes_of(std::to_string(code)));
  const double deadline = steady_clock().now_ms() + wait_s * 1000;
  while (impl_->store->add("run/exit_code_read", 0) < impl_->context.world_size - 1 && steady_clock().now_ms() < deadline)
    std::this_thread::sleep_for(Millis(20));
}

int RunStore::wait_exit_code() {
  try {
    impl_->store->setTimeout(millis(impl_->timeout_s));
    const int code = std::stoi(text_of(impl_->store->get("run/exit_code")));
    impl_->store->add("run/exit_code_read", 1);
    return code;
  } catch (const std::exception&) {
    return 3;
  }
}

// --- joining a group -----------------------------------------------------------------------

std::shared_ptr<ProcessGroupHandle> join_group(const RankContext& context, const GroupSettings& settings) {
  auto handle = std::make_shared<ProcessGroupHandle>();
  handle->context = context;
  handle->settings = settings;
  auto tcp = connect_store(context, false, settings.timeout_s);
  handle->store = c10::make_intrusive<c10d::PrefixStore>(context.store_prefix, tcp);
  const std::string where = fmt::format("{}:{}", context.store_host, context.store_port);

  // Every rank says who it is; a rank of another config or item is refused by name, and a
  // rank that never comes ends the rendezvous after the timeout.
  handle->store->set(fmt::format("identity/{}", context.rank), bytes_of(settings.identity));
  for (int64_t r = 0; r < context.world_size; ++r) {
    std::string theirs;
    try {
      theirs = text_of(handle->store->get(fmt::format("identity/{}", r)));
    } catch (const std::exception&) {
      throw std::runtime_error(fmt::format("rank {} of {} did not join the group at {} within {} s", r,
                                           context.world_size, where, settings.timeout_s));
    }
    if (theirs != settings.identity)
      throw std::runtime_error(fmt::format("rank {} joined the group at {} with '{}', this rank has '{}'", r, where,
                                           theirs, settings.identity));
  }

  handle->device = torch::Device(settings.device);
  if (handle->device.is_cuda()) torch_compat::set_current_device(handle->device);
  const int rank = static_cast<int>(context.rank), size = static_cast<int>(context.world_size);
  if (settings.backend == "gloo") {
    auto options = c10d::ProcessGroupGloo::Options::create(millis(settings.timeout_s));
    if (const char* interface = std::getenv("GLOO_SOCKET_IFNAME"); interface && *interface) {
      options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(interface));
    } else {
      const std::string address = local_address_towards(context.store_host);
      options->devices.push_back(address.empty() ? c10d::ProcessGroupGloo::createDefaultDevice()
                                                 : c10d::ProcessGroupGloo::createDeviceForHostname(address));
    }
    options->threads = 2;
    try {
      auto gloo_store = c10::make_intrusive<c10d::PrefixStore>("gloo/", handle->store);
      handle->group = torch_compat::process_group_of<c10d::ProcessGroup>(
          c10::make_intrusive<c10d::ProcessGroupGloo>(gloo_store, rank, size, options), gloo_store, rank, size,
          handle->device.is_cuda() ? std::vector{c10::DeviceType::CPU, c10::DeviceType::CUDA}
                                   : std::vector{c10::DeviceType::CPU},
          "gloo");
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("the Gloo group at {} did not form within {} s: {}", where,
                                           settings.timeout_s, c10::GetExceptionString(e)));
    }
  } else if (settings.backend == "nccl") {
#ifdef PPERF_WITH_NCCL
    if (!handle->device.is_cuda())
      throw std::runtime_error("backend nccl: the rank's device is " + settings.device + ", NCCL needs a CUDA device");
    auto options = c10d::ProcessGroupNCCL::Options::create();
    options->timeout = millis(settings.timeout_s);
    auto nccl_store = c10::make_intrusive<c10d::PrefixStore>("nccl/", handle->store);
    // The engine a user's init_process_group("nccl") gets on this torch.
#if PPERF_TORCH_NCCL2
    if (torch_compat::nccl_is_nccl2()) {
      auto nccl = c10::make_intrusive<c10d::nccl2::ProcessGroupNCCL>(nccl_store, rank, size, options);
      nccl->setBoundDeviceId(handle->device);  // nccl2 forms its communicator on binding
      torch_compat::enable_collective_timing(*nccl);
      handle->group = torch_compat::process_group_of<c10d::ProcessGroup>(nccl, nccl_store, rank, size,
                                                                          {c10::DeviceType::CUDA}, "nccl");
      return handle;
    }
#endif
    auto nccl = c10::make_intrusive<c10d::ProcessGroupNCCL>(nccl_store, rank, size, options);
    torch_compat::enable_collective_timing(*nccl);  // CUDA events around each collective
    handle->group =
        torch_compat::process_group_of<c10d::ProcessGroup>(nccl, nccl_store, rank, size, {c10::DeviceType::CUDA}, "nccl");
#else
    throw std::runtime_error("backend nccl: this pperf is built without NCCL (its libtorch has no CUDA)");
#endif
  } else {
    throw std::runtime_error("unknown backend '" + settings.backend + "'");
  }
  return handle;
}

CollectiveTiming collective_timing(const std::string& backend, const torch::Device& device) {
  return backend == "nccl" && device.is_cuda() ? CollectiveTiming::device_events : CollectiveTiming::host_clock;
}

std::string engine_name(const ProcessGroupHandle& group) { return torch_compat::engine_name(*group.group); }

std::string nccl_version() {
#ifdef PPERF_WITH_NCCL
  return c10d::getNcclVersion();
#else
  return "";
#endif
}

int agree_on(ProcessGroupHandle& group, int code) {
  std::vector<at::Tensor> flag = {torch::full({1}, code, torch::TensorOptions(torch::kInt32).device(group.device))};
  c10d::AllreduceOptions options;
  options.reduceOp = c10d::ReduceOp::MAX;
  options.timeout = millis(group.settings.timeout_s);
  auto work = group.group->allreduce(flag, options);
  work->wait(millis(group.settings.timeout_s));
  return flag[0].item<int>();
}

void allreduce_sum(ProcessGroupHandle& group, torch::Tensor& tensor) {
  std::vector<at::Tensor> tensors = {tensor};
  c10d::AllreduceOptions options;
  options.timeout = millis(group.settings.timeout_s);
  group.group->allreduce(tensors, options)->wait(millis(group.settings.timeout_s));
}

// --- the wrapped step -------------------------------------------------------------------------

namespace {
constexpr size_t kBroadcastBucketBytes = size_t{250} << 20;  // DDP's broadcast_bucket_size

/// DDP's _sync_module_states / _sync_buffers: rank 0's values in every rank's tensors.
void broadcast_from_rank0(const c10::intrusive_ptr<c10d::ProcessGroup>& group, std::vector<torch::Tensor> tensors) {
  if (tensors.empty()) return;
  torch::NoGradGuard no_grad;
  c10d::broadcast_coalesced(group, tensors, kBroadcastBucketBytes, 0);
}

nlohmann::json values_of(const torch::Tensor& t) {
  const torch::Tensor flat = t.detach().cpu().contiguous().reshape({-1});
  if (flat.is_floating_point()) {
    const torch::Tensor d = flat.to(torch::kDouble);
    return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
  }
  const torch::Tensor i = flat.to(torch::kLong);
  return std::vector<int64_t>(i.data_ptr<int64_t>(), i.data_ptr<int64_t>() + i.numel());
}
}  // namespace

struct DataParallelWorkload::Impl {
  std::shared_ptr<ProcessGroupHandle> group;
  std::shared_ptr<CommRecorder> recorder = std::make_shared<CommRecorder>();
  std::unique_ptr<c10d::Reducer> reducer;
  std::vector<torch::Tensor> params;
  std::string dump_path;  // PPERF_DDP_DUMP's file for this rank; empty: no dump
};

DataParallelWorkload::DataParallelWorkload(Workload& inner, std::shared_ptr<ProcessGroupHandle> group,
                                           int64_t bucket_bytes)
    : inner_(inner), impl_(std::make_unique<Impl>()) {
  impl_->group = std::move(group);
  impl_->params = inner_.parameters();
  const std::vector<torch::Tensor>& params = impl_->params;
  if (params.empty()) throw std::runtime_error("this workload does not expose its parameters: it cannot run data-parallel");
  const c10::intrusive_ptr<c10d::ProcessGroup>& pg = impl_->group->group;
  // Every rank starts from rank 0's parameters and buffers (DDP's _sync_module_states).
  broadcast_from_rank0(pg, params);
  broadcast_from_rank0(pg, inner_.buffers());
  const std::vector<bool> sparse(params.size(), false);  // DDP's default: dense gradients
  constexpr int64_t kFirstBucketBytes = int64_t{1} << 20;  // dist._DEFAULT_FIRST_BUCKET_BYTES
  // DDP (find_unused_parameters=False) starts from one bucket: the parameters' order need not
  // be the gradients' order. The Reducer records the order the first backward produces them in
  // and rebuild_buckets (before the second forward) cuts the buckets in that order, the first
  // of 1 MiB and the others of at most bucket_bytes.
  auto [buckets, limits] = c10d::compute_bucket_assignment_by_size(
      params, {std::numeric_limits<size_t>::max()}, sparse);
  impl_->reducer = torch_compat::make_reducer<c10d::Reducer>(params, std::move(buckets), std::move(limits), pg,
                                                             bucket_bytes, kFirstBucketBytes);
  const GroupSettings& settings = impl_->group->settings;
  impl_->recorder->device_timed =
      collective_timing(settings.backend, impl_->group->device) == CollectiveTiming::device_events;
  // NCCL averages in the collective; Gloo (no ReduceOp::AVG) divides first.
  impl_->reducer->register_comm_hook(std::make_unique<TimedAllReduce>(pg, impl_->recorder, settings.backend == "nccl",
                                                                      millis(settings.timeout_s)));
  if (const char* dir = std::getenv("PPERF_DDP_DUMP"); dir && *dir)
    impl_->dump_path = fmt::format("{}/rank{}.jsonl", dir, impl_->group->context.rank);
}

DataParallelWorkload::~DataParallelWorkload() = default;

std::vector<std::vector<size_t>> DataParallelWorkload::bucket_indices() const {
  std::vector<std::vector<size_t>> out;
  for (const c10d::GradBucket& bucket : impl_->reducer->get_grad_buckets(/*return_zero_tensors=*/true)) {
    std::vector<size_t> indices;
    for (const at::Tensor& p : bucket.getParameters()) {
      size_t i = 0;
      while (i < impl_->params.size() && !impl_->params[i].is_same(p)) ++i;
      indices.push_back(i);
    }
    out.push_back(std::move(indices));
  }
  return out;
}

double DataParallelWorkload::train_step(const Batch& batch) {
  const c10::intrusive_ptr<c10d::ProcessGroup>& pg = impl_->group->group;
  impl_->recorder->reset();
  // DDP's _pre_forward, in its order.
  impl_->reducer->prepare_for_forward();
  impl_->reducer->rebuild_buckets();  // once, before the second forward; false after
  broadcast_from_rank0(pg, inner_.buffers());
  impl_->reducer->prepare_for_backward({});
  double loss = 0;
  try {
    loss = inner_.train_step(batch);
  } catch (const c10::OutOfMemoryError&) {
    throw;  // the executor reports it as the device's out-of-memory, with its figures
  } catch (const c10::Error& e) {
    throw std::runtime_error(std::string("data-parallel step: ") + e.what_without_backtrace());
  }
  CommStep step;
  if (impl_->recorder->device_timed) {
    // NCCL's futures completed when the collectives were queued: wait for each with the
    // group's timeout, so a lost peer ends the step instead of blocking until the watchdog.
    std::vector<c10::intrusive_ptr<c10d::Work>> works;
    {
      std::lock_guard<std::mutex> lock(impl_->recorder->mutex);
      works = impl_->recorder->device_works;
    }
    try {
      for (const auto& work : works) work->wait(millis(impl_->group->settings.timeout_s));
    } catch (const std::exception& e) {
      torch_compat::abort_group(*pg);
      throw std::runtime_error(fmt::format("data-parallel step: a gradient all-reduce did not finish within {} s: {}",
                                           impl_->group->settings.timeout_s, c10::GetExceptionString(e)));
    }
    // The collectives' end events must have happened before their durations can be read; the
    // runner synchronizes right after the step anyway, so this adds no wait to the step.
    torch::cuda::synchronize(impl_->group->device.index());
    step.allreduce_ms = impl_->recorder->device_ms();
  } else {
    step.allreduce_ms = impl_->recorder->in_flight_ms();
  }
  step.bytes = impl_->recorder->bytes;
  comm_steps_.push_back(step);
  if (!impl_->dump_path.empty()) {
    // What DDP must reproduce from the same batches (bench/peers/ddp_parity.py).
    nlohmann::json grads = nlohmann::json::array(), buffers = nlohmann::json::array();
    for (const auto& p : impl_->params) grads.push_back(p.grad().defined() ? values_of(p.grad()) : nlohmann::json());
    for (const auto& b : inner_.buffers()) buffers.push_back(values_of(b));
    const nlohmann::json line = {{"rank", impl_->group->context.rank},
                                 {"step", comm_steps_.size() - 1},
                                 {"inputs_shape", batch.inputs.sizes().vec()},
                                 {"inputs", values_of(batch.inputs)},
                                 {"targets", values_of(batch.targets)},
                                 {"loss", loss},
                                 {"buckets", bucket_indices()},
                                 {"grads", grads},
                                 {"buffers", buffers}};
    std::ofstream(impl_->dump_path, std::ios::app) << line.dump() << '\n';
  }
  return loss;
}

// --- at the end ---------------------------------------------------------------------------------

std::vector<RankSamples> gather_on_rank0(ProcessGroupHandle& group, const RankSamples& mine) {
  const nlohmann::json j = {{"rank", mine.rank},         {"host", mine.host},
                            {"cpus", mine.cpus},         {"step_ms", mine.step_ms},
                            {"data_wait_ms", mine.data_wait_ms}, {"allreduce_ms", mine.allreduce_ms},
                            {"bytes_per_step", mine.bytes_per_step}, {"params_sha256", mine.params_sha256}};
  group.store->set(fmt::format("samples/{}", mine.rank), bytes_of(j.dump()));
  std::vector<RankSamples> all;
  if (mine.rank != 0) return all;
  for (int64_t r = 0; r < group.context.world_size; ++r) {
    nlohmann::json theirs;
    try {
      theirs = nlohmann::json::parse(text_of(group.store->get(fmt::format("samples/{}", r))));
    } catch (const std::exception&) {
      throw std::runtime_error(fmt::format("rank {} sent no samples within {} s", r, group.settings.timeout_s));
    }
    RankSamples s;
    s.rank = theirs.at("rank").get<int64_t>();
    s.host = theirs.at("host").get<std::string>();
    s.cpus = theirs.at("cpus").get<std::vector<int>>();
    s.step_ms = theirs.at("step_ms").get<std::vector<double>>();
    s.data_wait_ms = theirs.at("data_wait_ms").get<std::vector<double>>();
    s.allreduce_ms = theirs.at("allreduce_ms").get<std::vector<double>>();
    s.bytes_per_step = theirs.at("bytes_per_step").get<int64_t>();
    s.params_sha256 = theirs.at("params_sha256").get<std::string>();
    all.push_back(std::move(s));
  }
  return all;
}

int shared_free_port(ProcessGroupHandle& group, const std::string& key) {
  if (group.context.rank == 0) {
    // The kernel's pick of a free port, released at once for the step's group to bind: the
    // same race any launcher that picks MASTER_PORT has, and the step's rendezvous names it.
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    socklen_t length = sizeof address;
    const bool picked = fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
    if (fd >= 0) ::close(fd);
    if (!picked) throw std::runtime_error("no free TCP port for the step's own group on rank 0's host");
    const int port = ntohs(address.sin_port);
    group.store->set(key, bytes_of(std::to_string(port)));
    return port;
  }
  try {
    return std::stoi(text_of(group.store->get(key)));
  } catch (const std::exception&) {
    throw std::runtime_error(fmt::format("rank 0 shared no port for the step's own group within {} s", group.settings.timeout_s));
  }
}

std::string parameters_sha256(const std::vector<torch::Tensor>& parameters) {
  std::string bytes;
  for (const auto& p : parameters) {
    const torch::Tensor t = p.detach().contiguous().cpu();
    bytes.append(static_cast<const char*>(t.data_ptr()), t.numel() * t.element_size());
  }
  return sha256_hex(bytes);
}

}  // namespace pperf
