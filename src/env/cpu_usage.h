#pragma once
// CPU time from /proc: of this process's threads (split by thread name) and of other processes
// with their descendants (a Python worker's preprocessing processes), and the load average.
#include <string>
#include <utility>
#include <vector>

namespace pperf {

/// CPU seconds (user + system) used so far by this process's threads: {the others, those whose
/// name starts with `prefix`}. Threads that have ended are not counted, so sample while the
/// threads of interest live.
std::pair<double, double> own_threads_cpu_s(const std::string& prefix);

/// CPU seconds used so far by `pids` and every live descendant of them.
double processes_cpu_s(const std::vector<int>& pids);

/// CPU seconds every process on the host has used since boot (/proc/stat: all but idle and
/// iowait); 0 when it cannot be read.
double host_busy_cpu_s();

/// The host's 1-minute load average; 0 when /proc/loadavg cannot be read.
double load_average_1m();

}  // namespace pperf
