#include "src/core/measurement.h"

#include <numeric>

#include "src/core/json_view.h"

namespace pperf {

nlohmann::json to_json(const Measurement& m) {
  nlohmann::json j = {{"warmup_steps", m.warmup_steps}, {"stop_reason", m.stop.text}, {"elapsed_s", m.elapsed_s},
                      {"interrupted", m.interrupted()},   {"data_wait_ms", m.data_wait_ms}, {"first_loss", m.first_loss},
                      {"last_loss", m.last_loss},       {"executor", m.executor},
                      {"schedule", to_string(m.turns.schedule)}};
  if (m.warmup_s) j["warmup_s"] = *m.warmup_s;
  if (m.turns.schedule == Schedule::interleaved) {
    j["round_steps"] = m.turns.round_steps;
    j["untimed_steps_per_round"] = m.turns.most_untimed_steps;
    if (m.turns.untimed_steps) j["untimed_steps"] = *m.turns.untimed_steps;
    if (m.turns.untimed_s) j["untimed_s"] = *m.turns.untimed_s;
    j["rounds"] = m.turns.rounds;
    j["turns_with"] = m.turns.configurations;
    if (m.turns.wall_s) j["turns_wall_s"] = *m.turns.wall_s;
  }
  return j;
}

Measurement read_measurement(const JsonView& v) {
  Measurement m;
  m.data_wait_ms = v.at("data_wait_ms").as_numbers();
  m.warmup_steps = v.at("warmup_steps").as_non_negative_int();
  if (auto w = v.find("warmup_s")) m.warmup_s = w->as_number();
  m.stop.text = v.at("stop_reason").as_string();
  m.elapsed_s = v.at("elapsed_s").as_number();
  if (v.at("interrupted").as_bool()) m.stop.code = StopReason::interrupted;
  m.first_loss = v.at("first_loss").as_number();
  m.last_loss = v.at("last_loss").as_number();
  m.executor = v.string_or("executor", "in_process");
  // Files from before interleaving have no schedule: they were all sequential.
  if (v.has("schedule")) m.turns.schedule = read_enum<Schedule>(v.at("schedule"));
  if (m.turns.schedule == Schedule::interleaved) {
    m.turns.round_steps = v.at("round_steps").as_non_negative_int();
    m.turns.most_untimed_steps = v.at("untimed_steps_per_round").as_non_negative_int();
    m.turns.rounds = v.at("rounds").as_non_negative_int();
    if (v.has("untimed_steps")) m.turns.untimed_steps = v.at("untimed_steps").as_non_negative_int();
    if (auto u = v.find("untimed_s")) m.turns.untimed_s = u->as_number();
    m.turns.configurations = v.at("turns_with").as_strings();
    if (auto w = v.find("turns_wall_s")) m.turns.wall_s = w->as_number();
  }
  return m;
}

std::vector<double> round_means(const std::vector<double>& step_ms, int64_t round_steps) {
  std::vector<double> means;
  if (round_steps <= 0) return means;
  const size_t r = static_cast<size_t>(round_steps);
  for (size_t from = 0; from + r <= step_ms.size(); from += r)
    means.push_back(std::accumulate(step_ms.begin() + from, step_ms.begin() + from + r, 0.0) / static_cast<double>(r));
  return means;
}

std::vector<double> Measurement::round_means_ms() const {
  if (turns.schedule != Schedule::interleaved) return {};
  return round_means(step_ms, turns.round_steps);
}

double Measurement::data_wait_fraction() const {
  const double total = std::accumulate(step_ms.begin(), step_ms.end(), 0.0);
  const double waited = std::accumulate(data_wait_ms.begin(), data_wait_ms.end(), 0.0);
  return total > 0 ? waited / total : 0;
}

double Measurement::samples_per_s(int64_t samples_per_step) const {
  const double total_ms = std::accumulate(step_ms.begin(), step_ms.end(), 0.0);
  return total_ms > 0 ? static_cast<double>(samples_per_step) * step_ms.size() / (total_ms / 1000) : 0;
}

}  // namespace pperf
