// Benchmark (not a test): batches/s and MB/s delivered to a trainer by the local loader vs the
// data service on loopback, with 1 and 2 data-worker processes, measured side by side in one
// run. The consumer only takes batches (no training), so this is the data path's ceiling.
// Preprocessing runs on CPU 1 in every case (loader thread or data workers); the consumer runs
// on CPU 0 — so each rate is per preprocessing core. It also counts the CPU seconds the data
// side spent (the loader's threads: the process's CPU time less the consumer thread's; a
// worker: its whole process, transport included) and prints batches per CPU-second of
// preprocessing: the data service's goal is >= 0.9x the local loader's with as many workers (1 or
// 2 threads against 1 or 2 processes, all on one preprocessing core; issues 41, 46). Rates
// per core need an idle host; per CPU-second hold up on a shared one. The service runs on every
// wire the workload declares (float32, and uint8 for the image pipelines: the worker skips the
// last conversion, which the trainer makes on its device, and sends a quarter of the bytes;
// issue 61's goal: uint8 >= 1.0x the local loader per CPU-second).
//
// With CERT KEY CA (PEM files for 127.0.0.1, e.g. from bench/tls_cost.sh) it also measures one
// worker serving over TLS against one in plaintext: the price of encryption on the data path.
//
// usage: pperf_data_bench PPERF_BINARY CONFIG [BATCHES [CERT KEY CA]]
#include <fmt/format.h>

#include <malloc.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <fstream>
#include <sstream>

#include "src/config/config.h"
#include "src/core/atomic_file.h"
#include "src/core/process.h"
#include "src/measure/data_sources.h"
#include "workloads/common/local_loader.h"
#include "workloads/workload.h"

using namespace pperf;

namespace {
struct Rate {
  double batches_per_s = 0, mb_per_s = 0;
  double batches_per_cpu_s = 0;  // per CPU-second of the data side (loader threads or workers)
};

double seconds(const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; }

/// CPU seconds of the data side so far: `worker_pids`' whole processes, or with none, this
/// process less the calling (consumer) thread.
double data_side_cpu_s(const std::vector<int>& worker_pids) {
  if (worker_pids.empty()) {
    rusage self{};
    getrusage(RUSAGE_SELF, &self);
    timespec consumer{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &consumer);
    return seconds(self.ru_utime) + seconds(self.ru_stime) - (consumer.tv_sec + consumer.tv_nsec / 1e9);
  }
  double total = 0;
  for (int pid : worker_pids) {
    std::ifstream file("/proc/" + std::to_string(pid) + "/stat");  // size 0: read as a stream
    std::string stat;
    std::getline(file, stat);
    std::istringstream fields(stat.substr(stat.rfind(')') + 2));  // after "pid (comm) "
    std::string field;
    double ticks = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i)
      if (i == 14 || i == 15) ticks += std::stod(field);  // utime, stime
    total += ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
  }
  return total;
}

/// Drains `batches` batches after one per worker (`workers` loader threads or data-worker
/// processes): batch i comes from worker i mod workers, so no worker's first, cold batch is
/// counted on either side.
Rate drain(DataSource& source, int64_t batches, int64_t workers, const std::vector<int>& worker_pids = {}) {
  for (int64_t i = 0; i < workers; ++i) source.next();
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = data_side_cpu_s(worker_pids);
  double bytes = 0;
  for (int64_t i = 0; i < batches; ++i) {
    Batch b = *source.next();
    bytes += b.inputs.nbytes() + b.targets.nbytes();
  }
  const double cpu_s = data_side_cpu_s(worker_pids) - cpu_start;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {batches / s, bytes / s / 1e6, batches / cpu_s};
}
}  // namespace

int main(int argc, char** argv) {
  mallopt(M_MMAP_THRESHOLD, 256 << 20);  // as pperf itself does (see run_cli)
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  if (argc < 3) {
    std::cerr << "usage: pperf_data_bench PPERF_BINARY CONFIG [BATCHES [CERT KEY CA]]\n";
    return 2;
  }
  const std::string pperf = argv[1], config_path = argv[2];
  const int64_t batches = argc > 3 ? std::stoll(argv[3]) : 200;
  const Config config = load_config(config_path, builtin_workloads());
  const WorkloadSpec& spec = config.workloads.front();
  const WorkloadDescriptor& descriptor = *builtin_workloads().find(spec.name);

  // Local: N loader threads on CPU 1 (threads inherit the pinning), consumer moved to CPU 0. Each
  // service case is compared with the loader that has as many workers (threads) as it has
  // processes: both then share CPU 1 among as many workers.
  std::vector<Rate> local;
  for (int64_t threads : {1, 2}) {
    pin_process_to_cpus({1});
    LocalLoader loader(descriptor.make_pipeline(spec), threads, 4);
    pin_process_to_cpus({0});
    local.push_back(drain(loader, batches, threads));
  }
  struct ServiceRate {
    std::string wire;
    int64_t processes;
    Rate rate;
  };
  std::vector<ServiceRate> service;
  for (const std::string& wire : exact_wires(descriptor.capabilities))
    for (int64_t processes : {1, 2}) {
      WorkloadSpec on_wire = spec;
      on_wire.wire = wire;
      LocalDataGroup group({pperf, "data-worker", "--config", config_path, "--workload", spec.name, "--wire", wire}, processes, 1,
                           std::getenv("NOPIN") ? std::vector<int>{} : std::vector<int>{1}, "");
      ServiceSourceOptions options;
      options.endpoints = group.endpoints();
      service.push_back({wire, processes, drain(*connect_service(on_wire, options), batches, processes, group.pids())});
    }
  std::optional<Rate> tls;
  if (argc > 6) {
    SpawnOptions spawn;
    spawn.argv = {pperf, "data-worker", "--config", config_path, "--cpus", "1", "--tls-cert", argv[4], "--tls-key", argv[5]};
    spawn.capture_stdout = true;
    spawn.unset_env = {"PPERF_DATA_TOKEN"};
    ChildProcess worker(spawn);
    const auto line = worker.read_line(60);
    if (!line || line->find("listening on ") == std::string::npos) throw std::runtime_error("TLS worker did not start");
    ServiceSourceOptions options;
    options.endpoints = {line->substr(line->find("listening on ") + 13)};
    options.tls_ca_pem = read_text_file(argv[6]);
    WorkloadSpec served = spec;
    served.wire = default_wire(descriptor.capabilities);  // a worker without --wire sends its default
    tls = drain(*connect_service(served, options), batches, 1, {worker.pid()});
  }
  fmt::print("{} / {} / batch {}: {} batches each, preprocessing on 1 core, consumer on another\n", spec.name,
             spec.preset, spec.batch_size, batches);
  fmt::print("{:<34} {:>12} {:>10} {:>16} {:>18} {:>20}\n", "data path", "batches/s", "MB/s", "vs local loader",
             "batches/CPU-s", "per CPU-s vs local");
  for (size_t i = 0; i < local.size(); ++i)
    fmt::print("{:<34} {:>12.1f} {:>10.1f} {:>16} {:>18.1f} {:>20}\n", fmt::format("local loader, {} thread(s)", i + 1),
               local[i].batches_per_s, local[i].mb_per_s, "1.00x", local[i].batches_per_cpu_s, "1.00x");
  for (const ServiceRate& s : service) {
    const Rate& l = local[static_cast<size_t>(s.processes - 1)];
    fmt::print("{:<34} {:>12.1f} {:>10.1f} {:>15.2f}x {:>18.1f} {:>19.2f}x\n",
               fmt::format("service, {} process(es), {} wire", s.processes, s.wire), s.rate.batches_per_s, s.rate.mb_per_s,
               s.rate.batches_per_s / l.batches_per_s, s.rate.batches_per_cpu_s, s.rate.batches_per_cpu_s / l.batches_per_cpu_s);
  }
  if (tls)
    fmt::print("{:<34} {:>12.1f} {:>10.1f} {:>21.2f}x   (TLS / plaintext, 1 process: {:.2f}x)\n", "service over TLS, 1 process",
               tls->batches_per_s, tls->mb_per_s, tls->batches_per_s / local[0].batches_per_s,
               tls->batches_per_s / service.back().rate.batches_per_s);
  return 0;
}
