// Benchmark (not a test) of the data-parallel path, printed side by side:
//
//   pperf_distributed_bench hook [ROUNDS]
//     One rank: a workload's step alone vs the same step wrapped for data-parallel training
//     (c10d Reducer hooks, bucket copies, a 1-rank Gloo all-reduce), in alternating rounds on
//     two identical instances. Target: wrapped / plain <= 1.03.
//   pperf_distributed_bench allreduce RANK WORLD HOST PORT [MIB...]
//     Every rank runs it (RANK 0 serves the store on HOST:PORT): Gloo all-reduce bus bandwidth
//     (bytes x 2(N-1)/N / time, NCCL-tests' definition) at each size (default 1 4 25 MiB),
//     then, between ranks 0 and 1, the raw TCP rate of the same link (one stream, rank 1 sends
//     to rank 0 on PORT+1). Rank 0 prints the table and the ratio. Target: >= 0.7 of raw.
#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <iostream>
#include <thread>

#include "src/measure/data_parallel.h"
#include "src/stats/stats.h"
#include "workloads/workload.h"

using namespace pperf;

namespace {
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int hook(int rounds) {
  RankContext alone;
  RunStore store(alone, true, 30);
  alone.store_port = store.port();
  alone.store_prefix = "hook/";
  auto group = join_group(alone, {"gloo", 30, "hook"});
  fmt::print("{:<22} {:>10} {:>12} {:>7} {:>8} {:>18}\n", "workload (1 rank)", "plain ms", "wrapped ms", "ratio",
             "grad MB", "lone all-reduce ms");
  for (const char* name : {"vit_synthetic", "resnet50_augment"}) {
    const WorkloadDescriptor& d = *builtin_workloads().find(name);
    const WorkloadSpec spec = make_workload_spec(d, "tiny", 0);
    auto pipeline = d.make_pipeline(spec);
    auto plain = d.make_workload(spec);
    auto inner = d.make_workload(spec);
    DataParallelWorkload wrapped(*inner, group, int64_t{25} << 20);
    std::vector<Batch> batches;
    for (int64_t i = 0; i < 4; ++i) batches.push_back(pipeline->make_batch(i));
    std::vector<double> plain_ms, wrapped_ms;
    auto time_steps = [&](Workload& w, std::vector<double>& out) {
      for (const auto& b : batches) {
        const auto start = std::chrono::steady_clock::now();
        w.train_step(b);
        out.push_back(seconds_since(start) * 1000);
      }
    };
    time_steps(*plain, plain_ms);  // warm both up
    time_steps(wrapped, wrapped_ms);
    plain_ms.clear();
    wrapped_ms.clear();
    for (int r = 0; r < rounds; ++r) {  // alternate, so drift of this shared host hits both
      time_steps(*plain, plain_ms);
      time_steps(wrapped, wrapped_ms);
    }
    const double p = median(plain_ms), w = median(wrapped_ms);
    // What the wrapper adds beyond hooks and copies: one all-reduce of the step's gradient
    // bytes, on 1 rank a hand-off to a Gloo thread and back.
    torch::Tensor grads = torch::zeros({wrapped.comm_steps().back().bytes / 4}, torch::kFloat32);
    std::vector<double> lone_ms;
    for (int i = 0; i < 40; ++i) {
      const auto start = std::chrono::steady_clock::now();
      allreduce_sum(*group, grads);
      lone_ms.push_back(seconds_since(start) * 1000);
    }
    fmt::print("{:<22} {:>10.3f} {:>12.3f} {:>7.3f} {:>8.3f} {:>18.3f}\n", std::string(name) + "/tiny", p, w, w / p,
               wrapped.comm_steps().back().bytes / 1e6, median(lone_ms));
  }
  return 0;
}

/// Raw TCP: rank 1 streams `bytes` to rank 0; rank 0 returns the rate it received at (B/s).
double raw_tcp(int64_t rank, const std::string& host, int port, int64_t bytes) {
  std::vector<char> buffer(1 << 20, 1);
  if (rank == 0) {
    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = INADDR_ANY;
    if (::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(listener, 1) != 0)
      throw std::runtime_error("raw TCP: cannot listen");
    const int fd = ::accept(listener, nullptr, nullptr);
    int64_t got = 0;
    ssize_t n = ::recv(fd, buffer.data(), buffer.size(), 0);  // the first bytes start the clock
    const auto start = std::chrono::steady_clock::now();
    while (n > 0 && got < bytes) {
      got += n;
      n = ::recv(fd, buffer.data(), buffer.size(), 0);
    }
    const double s = seconds_since(start);
    ::close(fd);
    ::close(listener);
    return static_cast<double>(got) / s;
  }
  if (rank == 1) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, host.c_str(), &a.sin_addr);
    for (int tries = 0; ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0; ++tries) {
      if (tries > 100) throw std::runtime_error("raw TCP: cannot connect");
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    for (int64_t sent = 0; sent < bytes + static_cast<int64_t>(buffer.size());) {
      const ssize_t n = ::send(fd, buffer.data(), buffer.size(), MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += n;
    }
    ::close(fd);
  }
  return 0;
}

int allreduce(int64_t rank, int64_t world, const std::string& host, int port, std::vector<int64_t> mib) {
  if (mib.empty()) mib = {1, 4, 25};
  RankContext c;
  c.rank = rank;
  c.world_size = world;
  c.store_host = host;
  c.store_port = port;
  c.store_prefix = "bench/";
  c.launcher = Launcher::env;
  std::unique_ptr<RunStore> store;
  if (rank == 0) store = std::make_unique<RunStore>(c, true, 60);
  auto group = join_group(c, {"gloo", 60, "allreduce bench"});
  std::vector<std::pair<int64_t, double>> busbw;
  for (int64_t m : mib) {
    torch::Tensor t = torch::ones({m << 18}, torch::kFloat32);  // m MiB of float32
    for (int i = 0; i < 3; ++i) allreduce_sum(*group, t);
    std::vector<double> s;
    const int reps = m >= 16 ? 10 : 30;
    for (int i = 0; i < reps; ++i) {
      const auto start = std::chrono::steady_clock::now();
      allreduce_sum(*group, t);
      s.push_back(seconds_since(start));
    }
    const double bytes = static_cast<double>(m << 20);
    busbw.emplace_back(m, bytes * 2 * (world - 1) / world / median(s));
  }
  const double raw = raw_tcp(rank, host, port + 1, int64_t{512} << 20);
  if (rank != 0) return 0;
  fmt::print("{:>8} {:>16} {:>16} {:>8}\n", "size", "all-reduce busbw", "raw TCP", "ratio");
  for (const auto& [m, bw] : busbw)
    fmt::print("{:>4} MiB {:>10.0f} MB/s {:>11.0f} MB/s {:>8.2f}\n", m, bw / 1e6, raw / 1e6, bw / raw);
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "hook") return hook(argc > 2 ? std::stoi(argv[2]) : 10);
    if (mode == "allreduce" && argc >= 6) {
      std::vector<int64_t> mib;
      for (int i = 6; i < argc; ++i) mib.push_back(std::stoll(argv[i]));
      return allreduce(std::stoll(argv[2]), std::stoll(argv[3]), argv[4], std::stoi(argv[5]), mib);
    }
    std::cerr << "usage: pperf_distributed_bench hook [ROUNDS] | allreduce RANK WORLD HOST PORT [MIB...]\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "pperf_distributed_bench: " << e.what() << "\n";
    return 3;
  }
}
