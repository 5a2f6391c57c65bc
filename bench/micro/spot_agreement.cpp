// The Spot model's first-order expected billed time against its Monte Carlo, over a grid of
// interruption rates and checkpoint costs: where the two agree within 2 % and where the first
// order stops holding. Prints a Markdown table (docs/spot.md quotes it).
//   pperf_spot_agreement [TRIALS]
#include <fmt/format.h>

#include <cstdlib>
#include <iostream>

#include "pricing/spot_model.h"

int main(int argc, char** argv) {
  using namespace pperf;
  const int64_t trials = argc > 1 ? std::atoll(argv[1]) : 20000;
  std::cout << "| group interruptions/h | MTBF h | C s | R s | interval s | lambda x (interval + C + R) | "
               "first-order h | Monte Carlo mean h | MC / first-order - 1 | p95 h |\n"
               "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (double per_hour : {0.001, 0.01, 0.1, 0.5, 1.0, 2.0}) {
    for (double save_s : {10.0, 60.0, 600.0}) {
      for (std::optional<double> interval : {std::optional<double>(), std::optional<double>(3600.0)}) {
        SpotModelInput in;
        in.work_s = 24 * 3600;  // a day of work
        in.step_s = 1;
        in.interruptions_per_hour = per_hour;
        in.checkpoint_save_s = save_s;
        in.checkpoint_restore_s = save_s;  // restores cost about what writes do
        in.checkpoint_interval_s = interval;
        in.usd_per_hour = 1;
        in.on_demand_usd_per_hour = 3;
        in.mc_trials = trials;
        in.seed = 1;
        try {
          const SpotEstimate e = estimate_spot(in);
          const double reach = per_hour / 3600 * (e.checkpoint_interval_s + save_s + save_s);
          std::cout << fmt::format("| {:g} | {:g} | {:g} | {:g} | {:.0f}{} | {:.3f} | {:.4g} | {:.4g} | {:+.2f} % | {:.4g} |\n",
                                   per_hour, 1 / per_hour, save_s, save_s, e.checkpoint_interval_s,
                                   interval ? " (given)" : "", reach, e.expected_hours, e.mc_mean_hours,
                                   (e.mc_mean_hours / e.expected_hours - 1) * 100, e.p95_hours);
        } catch (const std::exception& ex) {
          std::cout << fmt::format("| {:g} | {:g} | {:g} | {:g} | {} | - | not expected to finish | | | |\n", per_hour,
                                   1 / per_hour, save_s, save_s, interval ? "3600 (given)" : "Young/Daly");
        }
      }
    }
  }
}
