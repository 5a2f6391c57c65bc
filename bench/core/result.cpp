#include "bench/core/result.h"

#include <algorithm>

namespace pperf {

std::string to_string(ResultStatus status) {
  switch (status) {
    case ResultStatus::ok: return "ok";
    case ResultStatus::failed: return "failed";
    case ResultStatus::not_run: return "not_run";
  }
  return "failed";
}

std::string to_string(RunStatus status) {
  switch (status) {
    case RunStatus::complete: return "complete";
    case RunStatus::interrupted: return "interrupted";
    case RunStatus::failed: return "failed";
  }
  return "failed";
}

std::string to_string(Market market) { return market == Market::spot ? "spot" : "on_demand"; }

std::optional<ResultStatus> parse_result_status(const std::string& name) {
  for (auto s : {ResultStatus::ok, ResultStatus::failed, ResultStatus::not_run})
    if (to_string(s) == name) return s;
  return std::nullopt;
}

std::optional<RunStatus> parse_run_status(const std::string& name) {
  for (auto s : {RunStatus::complete, RunStatus::interrupted, RunStatus::failed})
    if (to_string(s) == name) return s;
  return std::nullopt;
}

std::optional<Market> parse_market(const std::string& name) {
  for (auto m : {Market::on_demand, Market::spot})
    if (to_string(m) == name) return m;
  return std::nullopt;
}

std::string host_fact(const nlohmann::json& host, std::initializer_list<const char*> path) {
  const nlohmann::json* v = &host;
  for (const char* p : path) {
    if (!v->is_object() || !v->contains(p)) return "unknown";
    v = &(*v)[p];
  }
  return v->is_string() ? v->get<std::string>() : v->dump();
}

RunStatus overall_status(const std::vector<Result>& results, bool interrupted) {
  if (interrupted) return RunStatus::interrupted;
  const bool all_failed = !results.empty() && std::all_of(results.begin(), results.end(), [](const Result& r) {
    return r.status == ResultStatus::failed;
  });
  return all_failed ? RunStatus::failed : RunStatus::complete;
}

}  // namespace pperf
