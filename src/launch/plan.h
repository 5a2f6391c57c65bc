#pragma once
// What `pperf launch` measures on the real instances, before any platform's format: a config's
// configurations grouped into jobs, one per trainer instance (type, and Spot or not), each job's
// configurations measured in turns by its one trainer, with the data instances they stream from.
// Every platform writer (sagemaker.h, skypilot.h, kubernetes.h) starts from these plans; the
// entry points (`pperf sagemaker-entry`, `pperf node-entry`) carry them out. Pure: no files.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/config/config.h"
#include "src/core/node_contract.h"

namespace pperf {

/// A job's data group: one instance type, as many instances as its most demanding configuration.
struct LaunchDataGroup {
  std::string type;      // as the config names it
  int64_t count = 0;
  int64_t workers = 1;   // preprocessing threads per instance: its vCPUs from the price table
};

struct LaunchJobPlan {
  std::string key;           // the trainer's type, "-spot" appended when Spot
  std::string trainer_type;  // as the config names it
  bool spot = false;
  std::vector<std::string> configurations;  // measured in this job, in turns, in config order
  std::vector<LaunchDataGroup> data_groups;
  /// configuration -> (index into data_groups, instances it streams from: the group's first N)
  std::map<std::string, std::pair<size_t, int64_t>> data_of;
  int64_t items = 0;  // (workload x configuration) pairs measured
};

struct LaunchSelection {
  std::vector<std::string> only;  // configuration names (empty: all)
  std::string workload;           // "" = every workload (one needed when data instances serve)
  bool spot = false;              // every job on Spot (else: where the config says spot)
};

/// What every platform's jobs take from `pperf launch`'s common flags.
struct LaunchCommon {
  LaunchSelection selection;
  std::string job_suffix;                // appended to each job's name (e.g. a UTC time)
  std::string token;                     // the data workers' shared secret
  int64_t data_port = 50051;
  int64_t data_wait_s = 600;             // how long the trainer waits for a data host
  std::optional<int64_t> max_runtime_s;  // each job's bound; default launch_max_runtime_s
  bool sagemaker_rates = false;          // SkyPilot, Kubernetes: price a SageMaker-priced config at SageMaker's rates
};

/// The table a job on EC2 instances (SkyPilot, Kubernetes) is priced from: a config priced from
/// SageMaker's table (`aws-sagemaker-REGION`, its `ml.` types) is priced from `aws-ec2-REGION`,
/// each `ml.TYPE` as the EC2 instance `TYPE` it runs on; "" = the config's own table (already
/// EC2's, or `accept_sagemaker_rates`). InputError naming the configuration's type the EC2 table
/// lacks, or --sagemaker-rates when no EC2 table of the region is there.
std::string ec2_price_table(const Config& config, const std::vector<LaunchJobPlan>& jobs, bool accept_sagemaker_rates,
                            const std::string& platform);

/// `job`'s bound in seconds under `common` (InputError on --max-runtime-s below 1 s).
int64_t job_runtime_s(const LaunchCommon& common, const Config& config, const LaunchJobPlan& job);

/// Why a platform cannot launch an instance type ("" when it can), e.g. SageMaker's "ml." rule.
using InstanceTypeRule = std::function<std::string(const std::string& type)>;

/// The jobs of `config` on `platform` (named in messages). InputError naming the config file and
/// the configuration's JSON pointer (or the flag) for what no job can measure: priced-only
/// configs, a type `rule` refuses or the price table lacks, no trainer or a second trainer group,
/// a trainer of more than one instance, launcher-started ranks, data instances of two types or
/// in local mode, Python data workers, sweeps, several workloads without --workload, and what
/// `pperf run --native` would refuse on the trainer instance.
std::vector<LaunchJobPlan> launch_plan(const Config& config, const LaunchSelection& selection, const std::string& platform,
                                       const InstanceTypeRule& rule);

/// Whether the instance has accelerators and they are CUDA GPUs (the device plugin's
/// nvidia.com/gpu) by the price table's accelerator model: Trainium, Inferentia, Gaudi and TPU
/// chips are not (tables name NVIDIA's models with or without "NVIDIA").
bool is_cuda_accelerator(const InstanceSpec& spec);

/// How a job names the config it runs: a shipped config by its name (the image and the bundle
/// ship them), any other by its file name (the job's code directory must hold it).
std::string launch_config_reference(const Config& config);

/// The job's time bound from the measure budget: kJobStartAllowanceS for the data hosts and the
/// first process, then per (workload x configuration) pair its measured phase (max_seconds) and
/// kItemAllowanceS (warm-up, memory probe, start).
int64_t launch_max_runtime_s(const MeasureSettings& measure, int64_t items);
inline constexpr int64_t kJobStartAllowanceS = 900;
inline constexpr int64_t kItemAllowanceS = 300;

/// Free text as a platform name: letters and digits kept (lower-cased when `lower`), every other
/// run of characters one '-', at most `max_length` characters, starting and ending with a
/// letter or digit.
std::string launch_name(const std::string& text, size_t max_length, bool lower = false);

/// A job's name within `max_length` on `platform`: the config's name in whole words (as many as
/// fit, none when none does), then the trainer's `key` and `suffix` whole, each as launch_name
/// makes it. InputError on --job-suffix when the key and suffix alone do not fit.
std::string launch_job_name(const std::string& config_name, const std::string& key, const std::string& suffix,
                            size_t max_length, bool lower, const std::string& platform);

/// Why `bucket` is not a name S3 allows a general purpose bucket ("" when it is): 3 to 63
/// characters of lower-case letters, digits, '.' and '-', beginning and ending with a letter or
/// digit, no "..", not an IPv4 address, none of S3's reserved prefixes ("xn--", "sthree-",
/// "amzn-s3-demo-") and suffixes ("-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3").
std::string s3_bucket_problem(const std::string& bucket);

/// InputError on `flag` unless `uri` is s3://BUCKET[/KEY] with a bucket S3 allows.
void check_s3_uri(const std::string& flag, const std::string& uri);

/// The instance type the cloud launches for a config's type: SageMaker's "ml." prefix removed
/// (`ml.p4d.24xlarge` runs as the EC2 instance `p4d.24xlarge`).
std::string cloud_instance_type(const std::string& type);

/// `names` joined with `sep`.
std::string join_names(const std::vector<std::string>& names, const std::string& sep);

}  // namespace pperf

namespace pperf {

/// One host's part in a launched job, as node_entry_arguments writes it into NodeEntryArgs
/// (src/core/node_contract.h).
struct NodeEntryRole {
  std::string platform;       // "skypilot" or "kubernetes"
  std::string job;            // the job's name on the platform
  std::string group;          // "trainer", or the data group's name on the platform
  std::string instance_type;  // as the platform launches it (e.g. without SageMaker's "ml.")
  int64_t data_workers = 1;   // data group: preprocessing threads per instance
  std::string out_dir;        // trainer: results.json, report, checkpoints/
  std::string tls_dir;        // "" = plaintext; else where the job puts kTlsCertFile, kTlsKeyFile (and kTlsCaFile)
  /// "" = the data hosts by the names the platform resolves; else a directory every host of the
  /// job sees (SkyPilot: under the mounted bucket): each data host publishes its address there as
  /// TASK-RANK, the trainer its start as kTrainerPeer.
  std::string peers_dir;
  std::string price_table;    // trainer: "" = the config's table; else the results are priced from it (ml. types as EC2's)
};

/// `pperf node-entry ...` (argv after the binary, node_entry_argv) for `role` in `job`: the config
/// reference and its SHA-256, the configurations, the workload, and for the trainer each
/// configuration's data group (`--data CONF=GROUP:COUNT`, group names from `group_names`, one per
/// job.data_groups).
std::vector<std::string> node_entry_arguments(const Config& config, const LaunchJobPlan& job, const NodeEntryRole& role,
                                              const std::vector<std::string>& group_names, const std::string& workload,
                                              int64_t data_port, int64_t data_wait_s, int64_t max_runtime_s);

/// Whether `word` means the same to every shell unquoted, double-quoted or single-quoted: letters,
/// digits and -_./:=,@%+ only (not empty).
bool shell_plain(const std::string& word);

/// `argv` as one line of POSIX shell (each word single-quoted where it needs it).
std::string shell_line(const std::vector<std::string>& argv);

}  // namespace pperf
