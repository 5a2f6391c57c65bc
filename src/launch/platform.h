#pragma once
// `pperf launch`'s platforms, listed in one place (launch_platforms(), as reports/writer.h lists
// the writers), and the one job loop they share (launch_jobs): the plan, each job's name within
// the platform's limits, its time bound, the data token, its data groups' names, TLS, and each
// host's `pperf node-entry` arguments are made once here; a platform says only what differs
// (LaunchRules) and renders its files from the jobs. Adding a platform: docs/architecture.md.
// Pure but for the local files a flag names (--tls DIR, --bundle), read with the options.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "src/config/config.h"
#include "src/launch/plan.h"

namespace pperf {

/// What launch_jobs asks of a platform: how it names a job and its data groups, and where its
/// hosts find what the job brings.
struct LaunchRules {
  std::string title;  // "SageMaker": in messages
  /// Why the platform cannot launch `type` for `config` ("" when it can).
  std::function<std::string(const Config& config, const std::string& type)> type_rule;
  size_t max_name_length = 63;  // a job's name, and what the platform derives from it
  bool lower_case_names = false;
  bool cloud_type_names = false;  // the trainer's type in the name as the cloud runs it (no "ml.")
  /// A data group's name on the platform: the `index`-th of `groups` groups of job `job`.
  std::function<std::string(const std::string& job, const LaunchDataGroup& group, size_t index, size_t groups)> group_name;
  bool ec2_priced = false;  // the hosts are EC2 instances: a SageMaker-priced config priced from EC2's table
  /// The hosts start with `pperf node-entry --platform node_platform` ("" = an entry point of the
  /// platform's own: SageMaker's reads its container contract).
  std::string node_platform;
  std::string output_dir;  // node-entry: where the results land on the hosts (OUTPUT_DIR/JOB)
  std::string tls_dir;     // node-entry: where the hosts find the TLS files
  bool peers = false;      // node-entry: the hosts find each other under OUTPUT_DIR/JOB/peers
};

/// One job as every platform shares it, made once by launch_jobs.
struct LaunchJob {
  LaunchJobPlan plan;
  std::string name;  // within the platform's limits
  int64_t runtime_s = 0;
  std::vector<std::string> group_names;  // one per plan.data_groups, as the platform names them
  bool with_data = false;                // data groups: the job carries the data token
  bool tls = false;                      // with data, and TLS material given
  std::string tls_dir, peers_dir;        // node-entry: on the hosts ("" = none)
  /// node-entry: each host's arguments (after the binary): the trainer's, and each data group's.
  std::vector<std::string> trainer_entry;
  std::vector<std::vector<std::string>> data_entries;
};

/// The jobs of `config` on the platform `rules` describe. InputError for what launch_plan
/// refuses, a type the rule refuses, a name the platform cannot hold (--job-suffix), a bound
/// below 1 s, a job with data and no token, an EC2 table that does not price a type.
std::vector<LaunchJob> launch_jobs(const Config& config, const LaunchCommon& common, const LaunchRules& rules, bool tls_given);

/// `configurations` as a job's summary says it measures them: the one, or "in turns: A, B".
std::string measures_text(const std::vector<std::string>& configurations);

/// `prefix` (a bucket URI) and `rest` joined by one '/'.
std::string bucket_path(const std::string& prefix, const std::string& rest);

/// `--tls DIR`'s files (name -> PEM text): kTlsCertFile and kTlsKeyFile, kTlsCaFile when present;
/// InputError on --tls for a file missing or not PEM.
std::map<std::string, std::string> read_tls_files(const std::string& dir);

/// A flag of one platform's `pperf launch` (beyond the common ones).
struct LaunchFlag {
  std::string name;  // without "--"
  std::string help;
  bool integer = false;  // a whole number (else text)
  bool required = false;
  std::optional<std::string> default_text;
  bool on_off = false;  // a switch, given or not (no value)
};
/// The platform's flags as given (a flag with a default has it).
struct LaunchFlagValues {
  std::map<std::string, std::string> text;
  std::map<std::string, int64_t> integers;
  std::set<std::string> switches;  // the on_off flags given
  bool has(const std::string& flag) const { return text.count(flag) || integers.count(flag) || switches.count(flag); }
  const std::string& string(const std::string& flag) const { return text.at(flag); }
  int64_t integer(const std::string& flag) const { return integers.at(flag); }
};

/// A file `pperf launch` writes beside a job's (SageMaker: JOB.token, the data token), and the
/// command that must run on it before the job starts.
struct LaunchedSideFile {
  std::string file_name;  // in --out
  std::string text;
  std::function<std::string(const std::string& path)> before_start;  // given the file's path
};

/// One job as `pperf launch` writes it and says so.
struct LaunchedJob {
  std::string name;
  std::string file_name;   // in --out
  std::string text;        // the file's
  std::string summary;     // what it measures where, after "NAME: "
  std::string results_at;  // where its results land
  std::string fetch;       // the command that fetches them as NAME.json
  std::vector<LaunchedSideFile> side_files;
};

/// One platform of `pperf launch NAME`.
struct LaunchPlatform {
  std::string name;   // `pperf launch NAME`
  std::string usage;  // its usage lines ("pperf launch NAME ...", each ending in "\n")
  std::vector<LaunchFlag> flags;
  LaunchRules rules;
  /// Its flags read into the platform's options (refusals first), launch_jobs, and the files.
  std::function<std::vector<LaunchedJob>(const Config& config, const LaunchCommon& common, const LaunchFlagValues& flags)>
      launch;
  /// The command that starts job `job` from its file at `path`.
  std::function<std::string(const std::string& job, const std::string& path)> start_command;
};

/// Every platform, in the order usage lists them.
const std::vector<LaunchPlatform>& launch_platforms();
/// The platform named `name`; nullptr when there is none.
const LaunchPlatform* find_launch_platform(const std::string& name);

}  // namespace pperf
