#include "src/core/distributed.h"

#include <fmt/format.h>

#include "src/core/result.h"

namespace pperf {

using nlohmann::json;

json to_json(const DistributedReport& d) {
  json ranks = json::array();
  for (const auto& r : d.ranks)
    ranks.push_back({{"rank", r.rank}, {"host", r.host}, {"cpus", r.cpus}, {"median_ms", r.median_ms},
                     {"data_wait_fraction", r.data_wait_fraction}});
  return {{"world_size", d.world_size},
          {"backend", d.backend},
          {"engine", d.engine.empty() ? json(nullptr) : json(d.engine)},
          {"launcher", to_string(d.launcher)},
          {"ranks", ranks},
          {"allreduce_ms", {{"median", d.allreduce_median_ms}, {"p95", d.allreduce_p95_ms}}},
          {"comm_fraction", d.comm_fraction},
          {"bytes_per_step", d.bytes_per_step},
          {"scaling_efficiency", d.scaling_efficiency ? json(*d.scaling_efficiency) : json(nullptr)}};
}

DistributedReport read_distributed(const JsonView& v) {
  DistributedReport d;
  d.world_size = v.at("world_size").as_positive_int();
  d.backend = v.at("backend").as_string();
  if (auto e = v.find_value("engine")) d.engine = e->as_string();
  // Files from before the launcher was recorded: pperf spawned every rank then.
  if (auto l = v.find_value("launcher")) d.launcher = read_enum<Launcher>(*l);
  for (const auto& item : v.at("ranks").items()) {
    RankReport r;
    r.rank = item.at("rank").as_non_negative_int();
    r.host = item.at("host").as_string();
    for (const auto& c : item.at("cpus").items()) r.cpus.push_back(static_cast<int>(c.as_non_negative_int()));
    r.median_ms = item.at("median_ms").as_number();
    r.data_wait_fraction = item.at("data_wait_fraction").as_number();
    d.ranks.push_back(std::move(r));
  }
  d.allreduce_median_ms = v.at("allreduce_ms").at("median").as_number();
  d.allreduce_p95_ms = v.at("allreduce_ms").at("p95").as_number();
  d.comm_fraction = v.at("comm_fraction").as_number();
  d.bytes_per_step = v.at("bytes_per_step").as_non_negative_int();
  if (auto e = v.find_value("scaling_efficiency")) d.scaling_efficiency = e->as_number();
  return d;
}

void fill_scaling_efficiency(std::vector<Result>& results) {
  for (auto& r : results) {
    if (!r.distributed || r.distributed->world_size < 2 || !r.samples_per_s) continue;
    for (const auto& one : results)
      if (one.distributed && one.distributed->world_size == 1 && one.status == ResultStatus::ok && one.samples_per_s &&
          one.workload == r.workload && one.preset == r.preset && one.batch_size == r.batch_size)
        r.distributed->scaling_efficiency =
            *r.samples_per_s / (static_cast<double>(r.distributed->world_size) * *one.samples_per_s);
  }
}

std::string describe(const DistributedReport& d) {
  std::string text =
      d.backend == kStepOwnBackend
          ? fmt::format("{} rank{} ({}): data-parallel is the step's own, its communication inside the step time",
                        d.world_size, d.world_size == 1 ? "" : "s", to_string(d.launcher))
          : fmt::format("{} rank{} ({}, {}): gradient all-reduce {:.3g} ms median per step ({:.3g} MB), "
                                 "{:.0f} % of the step",
                                 d.world_size, d.world_size == 1 ? "" : "s", d.backend, to_string(d.launcher),
                                 d.allreduce_median_ms, d.bytes_per_step / 1e6, d.comm_fraction * 100);
  if (d.scaling_efficiency) text += fmt::format("; scaling efficiency {:.0f} %", *d.scaling_efficiency * 100);
  return text;
}

}  // namespace pperf
