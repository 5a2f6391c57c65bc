#include "reports/advise_writers.h"

#include <fmt/format.h>

#include "reports/console.h"
#include "reports/markup.h"

namespace pperf {

namespace {
std::string market_name(const std::string& market) { return market == "spot" ? "Spot" : "On-Demand"; }
std::string p95(const AdviceRow& r) { return r.p95_usd ? significant(*r.p95_usd, 4) + " USD" : "-"; }
}  // namespace

std::string advice_console(const Advice& advice) {
  std::string out;
  std::string workload;
  for (const auto& r : advice.rows) {
    if (r.workload != workload) {
      workload = r.workload;
      out += fmt::format("{}{} — expected cost to train {} steps, cheapest first:\n", out.empty() ? "" : "\n", workload,
                         r.steps);
    }
    out += fmt::format("#{:<2} {:<28} {:<9} {:>12} USD  p95 {:>14}  {:>7} h billed  {:>7} h wall  {:>5} interruptions\n",
                       r.rank, r.configuration, market_name(r.market), significant(r.usd, 4), p95(r),
                       significant(r.hours, 3), significant(r.wall_hours, 3), fmt::format("{:.2g}", r.expected_interruptions));
    out += "    " + r.reason + "\n";
  }
  if (advice.rows.empty()) out += "nothing to rank: no priced configuration\n";
  for (const auto& n : advice.notes) out += "note: " + n + "\n";
  return out;
}

std::string advice_markdown(const Advice& advice) {
  std::string out = "# Expected cost to train\n";
  std::string workload;
  for (const auto& r : advice.rows) {
    if (r.workload != workload) {
      workload = r.workload;
      out += fmt::format("\n## {} ({} steps)\n\n", markdown_escape(workload), r.steps);
      out += "| rank | configuration | instances | market | expected USD | p95 USD | billed h | wall h | expected interruptions | why |\n";
      out += "|---:|---|---|---|---:|---:|---:|---:|---:|---|\n";
    }
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {:.2g} | {} |\n", r.rank, markdown_escape(r.configuration),
                       markdown_escape(r.instances), market_name(r.market), significant(r.usd, 4),
                       r.p95_usd ? significant(*r.p95_usd, 4) : "-", significant(r.hours, 3), significant(r.wall_hours, 3),
                       r.expected_interruptions, markdown_escape(r.reason));
  }
  if (!advice.notes.empty()) out += "\n";
  for (const auto& n : advice.notes) out += "- " + markdown_escape(n) + "\n";
  return out;
}

nlohmann::json advice_json(const Advice& advice) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : advice.rows)
    rows.push_back({{"rank", r.rank}, {"workload", r.workload}, {"configuration", r.configuration}, {"file", r.file},
                    {"market", r.market}, {"instances", r.instances}, {"steps", r.steps}, {"usd", r.usd},
                    {"hours", r.hours}, {"wall_hours", r.wall_hours},
                    {"p95_usd", r.p95_usd ? nlohmann::json(*r.p95_usd) : nlohmann::json(nullptr)},
                    {"expected_interruptions", r.expected_interruptions}, {"decision", r.decision}, {"reason", r.reason}});
  return {{"market", advice.market}, {"rows", rows}, {"notes", advice.notes}};
}

}  // namespace pperf
