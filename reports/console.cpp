#include "reports/console.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "reports/writers.h"

namespace pperf {

std::string significant(double value, int digits) {
  if (value == 0 || !std::isfinite(value)) return fmt::format("{}", value);
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  const int decimals = std::max(0, digits - 1 - magnitude);
  return fmt::format("{:.{}f}", value, decimals);
}

namespace {

struct Column {
  std::string header;
  int priority;  // 0: always shown; higher numbers are dropped first when space runs out
  bool left_aligned = false;
  std::vector<std::string> cells;
};

/// USD per how many steps: the smallest of 100, 1k, ... 1M steps at which the cheapest row's
/// cost reads at least 0.01, so no figure prints as zero.
std::pair<double, std::string> money_scale(const std::vector<Result>& results) {
  double cheapest = 0;
  for (const auto& r : results)
    if (r.cost && r.cost->usd_per_step > 0) cheapest = cheapest == 0 ? r.cost->usd_per_step : std::min(cheapest, r.cost->usd_per_step);
  const std::vector<std::pair<double, std::string>> scales = {
      {100, "100 steps"}, {1e3, "1k steps"}, {1e4, "10k steps"}, {1e5, "100k steps"}, {1e6, "1M steps"}};
  for (const auto& s : scales)
    if (cheapest * s.first >= 0.01) return s;
  return scales.back();
}

bool inconclusive(const Result& r) {
  const auto& ci = r.comparison.improvement_pct_ci95;
  return ci && (*ci)[0] < 0 && (*ci)[1] > 0;
}

/// Priced for more dnn instances than processes measured (data-parallel ranks are one process).
bool measured_as_fewer_processes(const Result& r) {
  if (r.distributed) return false;  // measured as data-parallel ranks
  for (const auto& g : r.instances)
    if (g.role == "dnn" && g.count > 1) return true;
  return false;
}

std::vector<std::string> notes_of(const Result& r) {
  std::vector<std::string> notes;
  if (r.status != ResultStatus::ok) notes.push_back(to_string(r.status));
  if (r.partial) notes.push_back("partial");
  if (r.measurement && r.measurement->interrupted) notes.push_back("interrupted");
  if (r.converged && !*r.converged) notes.push_back("unconverged");
  if (std::any_of(r.events.begin(), r.events.end(), [](const std::string& e) { return e.rfind("still warming up", 0) == 0; }))
    notes.push_back("warming up");
  if (inconclusive(r)) notes.push_back("inconclusive");
  if (r.status == ResultStatus::ok && measured_as_fewer_processes(r)) notes.push_back("1 process");
  return notes;
}

std::string cpu_list(const std::vector<int>& cpus) {
  if (cpus.empty()) return "any CPU";
  return fmt::format("{} {}", cpus.size() == 1 ? "CPU" : "CPUs", fmt::join(cpus, ","));
}

std::string render(const std::vector<Column>& columns, size_t rows) {
  std::vector<size_t> width;
  for (const auto& c : columns) {
    size_t w = c.header.size();
    for (const auto& cell : c.cells) w = std::max(w, cell.size());
    width.push_back(w);
  }
  auto line = [&](auto cell_of) {
    std::string out;
    for (size_t c = 0; c < columns.size(); ++c) {
      const std::string cell = cell_of(c);
      const bool last = c + 1 == columns.size();
      if (c) out += "  ";
      if (columns[c].left_aligned) out += last ? cell : fmt::format("{:<{}}", cell, width[c]);
      else out += fmt::format("{:>{}}", cell, width[c]);
    }
    return out + "\n";
  };
  std::string out = line([&](size_t c) { return columns[c].header; });
  size_t total = 0;
  for (auto w : width) total += w + 2;
  out += std::string(total >= 2 ? total - 2 : 0, '-') + "\n";
  for (size_t r = 0; r < rows; ++r) out += line([&](size_t c) { return columns[c].cells[r]; });
  return out;
}

/// `text`'s lines wrapped at spaces to `width` columns (0: as is); continuation lines are
/// indented like their first line, plus two spaces.
std::string wrap(const std::string& text, size_t width) {
  if (width == 0) return text;
  std::string out;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t indent = line.find_first_not_of(' ') == std::string::npos ? 0 : line.find_first_not_of(' ');
    while (line.size() > width) {
      size_t cut = line.rfind(' ', width);
      if (cut == std::string::npos || cut <= indent + 2) break;
      out += line.substr(0, cut) + "\n";
      line = std::string(indent + 2, ' ') + line.substr(cut + 1);
    }
    out += line + "\n";
  }
  return out;
}

size_t table_width(const std::vector<Column>& columns) {
  size_t total = 0;
  for (const auto& c : columns) {
    size_t w = c.header.size();
    for (const auto& cell : c.cells) w = std::max(w, cell.size());
    total += w + 2;
  }
  return total >= 2 ? total - 2 : 0;
}

std::string summary_sentence(const Result& r, const Result& base) {
  const double imp = *r.comparison.improvement_pct;
  const auto& ci = r.comparison.improvement_pct_ci95;
  std::string speed;
  if (r.comparison.speedup) {
    const double s = *r.comparison.speedup;
    speed = s >= 1 ? fmt::format(", {:.2f}x faster", s) : fmt::format(", {:.2f}x slower", 1 / s);
  }
  if (ci && inconclusive(r))
    return fmt::format("{} vs {}: inconclusive, {:+.1f} % cost per step (95 % CI {:+.1f} to {:+.1f}){}; "
                       "measure longer to decide.",
                       r.configuration, base.configuration, -imp, -(*ci)[1], -(*ci)[0], speed);
  const std::string interval =
      ci && r.measured ? (imp >= 0 ? fmt::format(" (95 % CI {:.1f}-{:.1f})", (*ci)[0], (*ci)[1])
                     : fmt::format(" (95 % CI {:.1f}-{:.1f})", -(*ci)[1], -(*ci)[0]))
         : "";
  return fmt::format("{} is {:.1f} % {} per step than {}{}{}.", r.configuration, std::fabs(imp),
                     imp >= 0 ? "cheaper" : "more expensive", base.configuration, interval, speed);
}

}  // namespace

std::string to_console(const RunReport& report, const ConsoleOptions& options) {
  const std::vector<Result>& results = report.results;
  std::set<std::string> workloads;
  for (const auto& r : results) workloads.insert(fmt::format("{}/{}, batch {}", r.workload, r.preset, r.batch_size));
  // Named members, not a structured binding: a lambda below uses them (C++17 clang refuses that).
  const auto scale = money_scale(results);
  const double money_per = scale.first;
  const std::string& money_unit = scale.second;
  const std::string currency = report.pricing_currency.empty() ? "USD" : report.pricing_currency;

  std::vector<Column> columns = {
      {"workload", 1, true, {}},
      {"configuration", 0, true, {}},
      {"instances", 3, true, {}},
      {"median ms", 0, false, {}},
      {"median 95% CI", 4, false, {}},
      {"mean ms", 1, false, {}},
      {"samples/s", 3, false, {}},
      {"data wait %", 3, false, {}},
      {currency + "/h", 2, false, {}},
      {currency + "/" + money_unit, 0, false, {}},
      {currency + "/" + money_unit + " 95% CI", 5, false, {}},
      {"improvement %", 0, false, {}},
      {"improvement % 95% CI", 2, false, {}},
      {"speedup x", 1, false, {}},
      {"MFU %", 3, false, {}},
      {"notes", 0, true, {}}};
  enum { kWorkload, kConfiguration, kInstances, kStep, kStepCi, kMean, kRate, kWait, kHourly, kMoney, kMoneyCi, kImprovement,
         kImprovementCi, kSpeedup, kMfu, kNotes };
  auto number = [](const std::optional<double>& v, int digits) { return v ? fmt::format("{:.{}f}", *v, digits) : "-"; };
  auto money = [&](double usd_per_step) { return significant(usd_per_step * money_per, 3); };
  bool any_baseline = false;
  for (const auto& r : results) {
    any_baseline = any_baseline || r.baseline;
    const bool ok = r.status == ResultStatus::ok && r.step;
    std::vector<std::string> cells(columns.size(), "-");
    cells[kWorkload] = r.workload + "/" + r.preset;
    cells[kConfiguration] = r.configuration + (r.baseline ? " *" : "");
    cells[kInstances] = instances_label(r.instances);
    cells[kNotes] = fmt::to_string(fmt::join(notes_of(r), ", "));
    if (ok) {
      cells[kStep] = significant(r.step->median_ms, 4);
      if (const auto& ci = r.step->ci95_ms) cells[kStepCi] = significant((*ci)[0], 4) + ".." + significant((*ci)[1], 4);
      cells[kMean] = significant(r.step->mean_ms, 4);
      cells[kRate] = number(r.samples_per_s, 1);
      if (r.data_wait_fraction) cells[kWait] = number(*r.data_wait_fraction * 100, 1);
      if (r.cost) {
        cells[kHourly] = significant(r.cost->usd_per_hour, 4);
        cells[kMoney] = money(r.cost->usd_per_step);
        if (const auto& ci = r.cost->usd_per_step_ci95) cells[kMoneyCi] = money((*ci)[0]) + ".." + money((*ci)[1]);
      }
      cells[kImprovement] = r.baseline ? "baseline" : number(r.comparison.improvement_pct, 1);
      if (const auto& ci = r.comparison.improvement_pct_ci95; ci && r.measured)
        cells[kImprovementCi] = fmt::format("{:.1f}..{:.1f}", (*ci)[0], (*ci)[1]);
      if (r.comparison.speedup) cells[kSpeedup] = fmt::format("{:.2f}", *r.comparison.speedup);
      if (r.mfu) cells[kMfu] = fmt::format("{:.1f}{}", *r.mfu * 100, *r.mfu > 1 ? "!" : "");  // impossible: see its event
    }
    for (size_t c = 0; c < columns.size(); ++c) columns[c].cells.push_back(cells[c]);
  }
  // One workload: say it once above the table instead of in every row.
  std::string out;
  if (workloads.size() == 1) {
    out += *workloads.begin() + "\n";
    columns.erase(columns.begin() + kWorkload);
  }
  if (options.width > 0 && !options.wide) {
    for (int priority = 5; priority > 0 && table_width(columns) > options.width; --priority)
      for (size_t c = columns.size(); c-- > 0;)
        if (columns[c].priority == priority && table_width(columns) > options.width) columns.erase(columns.begin() + c);
  }
  out += render(columns, results.size());
  std::string prose;  // everything under the table, wrapped to the width

  // Why rows failed, in full (the notes column only says that they did).
  for (const auto& r : results)
    if (r.status != ResultStatus::ok) prose += fmt::format("{} {}: {}\n", r.configuration, to_string(r.status), r.reason);

  // What ran where.
  const auto& host = report.host;
  const bool emulated = std::any_of(results.begin(), results.end(),
                                    [](const Result& r) { return r.execution && r.execution->emulated; });
  bool measured = false;
  for (const auto& r : results) measured = measured || r.measured;
  if (measured) {
    const std::string cpu = host_fact(host, {"cpu_model"}), cpus = host_fact(host, {"logical_cpus"});
    prose += emulated ? fmt::format("Measured on this host ({}, {} logical CPUs), not on the priced instances: "
                                  "step times are this host's (emulated).\n", cpu, cpus)
                    : fmt::format("Measured natively on the priced instances ({}, {} logical CPUs).\n", cpu, cpus);
    for (const auto& r : results) {
      if (!r.execution) continue;
      const ExecutionReport& e = *r.execution;
      std::string data;
      const bool python = r.data && r.data->source.rfind("python:", 0) == 0;
      if (e.data_mode == "local" && python)
        data = fmt::format("Python worker on the trainer's CPUs ({}), {} process{}", r.data->source.substr(7),
                           e.data_workers, e.data_workers == 1 ? "" : "es");
      else if (e.data_mode == "local")
        data = fmt::format("local loader, {} thread{}", e.data_workers, e.data_workers == 1 ? "" : "s");
      else if (!e.data_cpus.empty() || e.data_endpoints.size() > 0)
        data = fmt::format("{} data worker{} ({}), {} thread{} each", e.data_endpoints.size(),
                           e.data_endpoints.size() == 1 ? "" : "s",
                           e.data_cpus.empty() ? fmt::to_string(fmt::join(e.data_endpoints, ", ")) : "spawned here on " + cpu_list(e.data_cpus),
                           e.data_workers, e.data_workers == 1 ? "" : "s") +
               (python ? fmt::format(", Python ({})", r.data->source.substr(7)) : "");
      prose += fmt::format("  {}: trainer on {}, {} thread{}, 1 process; data: {}\n", r.configuration, cpu_list(e.cpus),
                         e.threads_effective, e.threads_effective == 1 ? "" : "s", data);
      if (r.distributed) prose += "    " + describe(*r.distributed) + " (trainer line: rank 0)\n";
      if (r.bottleneck) prose += fmt::format("    {}: {}\n", r.bottleneck->verdict, r.bottleneck->evidence);
    }
  }

  prose += "Cost, samples/s and improvement are priced on the mean step time (total time / steps, what is billed); "
           "median ms is the typical step. Intervals: 95 % (t for the mean, order statistics for the median, "
           "bootstrap for improvement), widened for step-to-step correlation.\n";
  // Legend of the notes that appear.
  std::set<std::string> seen;
  for (const auto& r : results)
    for (const auto& n : notes_of(r)) seen.insert(n);
  const std::map<std::string, std::string> legend = {
      {"partial", "a data source failed mid-run; the steps measured before are kept"},
      {"interrupted", "stopped by Ctrl-C/SIGTERM before its stop rule fired"},
      {"unconverged", "stopped on max_steps/max_seconds before the CI reached target_rel_ci"},
      {"inconclusive", "the improvement's 95 % CI includes 0"},
      {"warming up", "step times still fall over the measured steps (Mann-Kendall trend); raise warmup_steps"},
      {"1 process", "priced for several dnn instances but measured as one process"}};
  for (const auto& [note, meaning] : legend)
    if (seen.count(note)) prose += fmt::format("{}: {}.\n", note, meaning);

  // One sentence per non-baseline configuration.
  for (const auto& r : results) {
    if (r.baseline || !r.comparison.improvement_pct) continue;
    const auto base = std::find_if(results.begin(), results.end(), [&](const Result& b) {
      return b.baseline && b.workload == r.workload && b.preset == r.preset && b.batch_size == r.batch_size;
    });
    if (base != results.end()) prose += summary_sentence(r, *base) + "\n";
  }

  std::vector<std::string> to_train;
  for (const auto& r : results)
    if (r.cost && r.cost->to_train)
      to_train.push_back(fmt::format("  {}: {} h, {} {} to train{}", r.configuration, significant(r.cost->to_train->hours, 4),
                                     significant(r.cost->to_train->usd, 4), currency,
                                     r.cost->to_train->steps ? fmt::format(" ({} steps)", *r.cost->to_train->steps) : ""));
  if (!to_train.empty()) prose += "time and cost to train:\n" + fmt::to_string(fmt::join(to_train, "\n")) + "\n";
  // Spot: the expected cost to train beside the same group On-Demand (bench/core/spot.h).
  std::vector<std::string> spot;
  for (const auto& r : results) {
    if (r.checkpoint)
      spot.push_back(fmt::format("  {}: checkpoint {} MB, save {} ms, restore {} ms (median of {})", r.configuration,
                                 significant(static_cast<double>(r.checkpoint->bytes) / 1e6), significant(r.checkpoint->save_ms),
                                 significant(r.checkpoint->restore_ms), r.checkpoint->repetitions));
    if (r.spot)
      spot.push_back(fmt::format(
          "  {}: {} {} expected on Spot (p50 {}, p95 {} {}), {} h billed, {} h wall, {} expected interruptions; "
          "the same group On-Demand {} {} (Spot {:+.1f} %); Spot stays cheaper below {}{} interruptions per instance-month",
          r.configuration, significant(r.spot->expected_usd, 4), currency, significant(r.spot->p50_usd, 4),
          significant(r.spot->p95_usd, 4), currency, significant(r.spot->expected_hours, 4),
          significant(r.spot->expected_wall_hours, 4), significant(r.spot->expected_interruptions, 2),
          significant(r.spot->on_demand_usd, 4), currency, -r.spot->savings_pct,
          r.spot->break_even_is_lower_bound ? "at least " : "",
          r.spot->break_even_interruptions_per_month ? significant(*r.spot->break_even_interruptions_per_month, 3) : "0"));
    if (r.spot_drill)
      spot.push_back(fmt::format("  {}: spot drill: killed at step {}, resumed from step {}; lost {} s measured vs {} s predicted",
                                 r.configuration, r.spot_drill->killed_at_step, r.spot_drill->resumed_from_step,
                                 significant(r.spot_drill->measured_lost_s), significant(r.spot_drill->predicted_lost_s)));
  }
  if (!spot.empty()) prose += "Spot:\n" + fmt::to_string(fmt::join(spot, "\n")) + "\n";
  const std::string prices = fmt::format("Prices: {} ({}, published {}, retrieved {}), market {}{}.", report.pricing_table,
                                         report.pricing_region, report.pricing_published.empty() ? "unknown" : report.pricing_published,
                                         report.pricing_retrieved, report.pricing_market,
                                         report.discount_pct > 0 ? fmt::format(", discount {:g} %", report.discount_pct) : "");
  prose += any_baseline ? "* baseline. " + prices + "\n"
                      : "No baseline in this run (not selected with --only, or none priced): improvements not computed. " +
                            prices + "\n";
  return out + wrap(prose, options.wide ? 0 : options.width);
}

}  // namespace pperf
