#pragma once
// A config as SageMaker training jobs (`pperf launch sagemaker`): one CreateTrainingJob request
// per trainer instance, every configuration on that trainer measured in turns in the one job
// (a heterogeneous configuration's data instances as ResourceConfig.InstanceGroups beside the
// trainer's group), and the container contract the job's entry point reads back
// (`pperf sagemaker-entry`: resourceconfig.json, hyperparameters.json). Pure but for the
// --framework bundle's files: no network; what SageMaker would refuse is an InputError naming
// the configuration.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/config/config.h"
#include "src/launch/plan.h"
#include "src/launch/platform.h"

namespace pperf {

/// The hyperparameter keys the entry point reads (HyperParameters of the request).
namespace sagemaker_keys {
inline constexpr const char* kConfig = "pperf_config";                  // a shipped config's name, or a file in the source dir
inline constexpr const char* kConfigSha256 = "pperf_config_sha256";     // the file launch read
inline constexpr const char* kConfigurations = "pperf_configurations";  // --only of the job's `pperf run`
inline constexpr const char* kWorkload = "pperf_workload";              // "" or the one workload
inline constexpr const char* kTrainerGroup = "pperf_trainer_group";     // the instance group that measures
inline constexpr const char* kDataGroups = "pperf_data_groups";         // JSON: configuration -> [group, count]
inline constexpr const char* kDataPort = "pperf_data_port";
inline constexpr const char* kDataWorkers = "pperf_data_workers";       // JSON: group -> preprocessing threads
inline constexpr const char* kDataWaitS = "pperf_data_wait_s";          // how long the trainer waits for a data host
inline constexpr const char* kTlsChannel = "pperf_tls_channel";         // "" or the input channel of the TLS files
inline constexpr const char* kTokenChannel = "pperf_token_channel";     // "" or the input channel of the data token
}  // namespace sagemaker_keys

struct SageMakerLaunchOptions : LaunchCommon {
  std::string role_arn;               // the job's execution role
  std::string output_s3;              // s3://bucket/prefix: model.tar.gz, output.tar.gz, checkpoints
  std::string image;                  // a custom image with pperf (ContainerEntrypoint runs it)
  std::string framework_version;      // or AWS's PyTorch training image of this torch
  std::string source_s3;              // framework: s3://.../sourcedir.tar.gz (the GPU bundle)
  std::string entry_point = "sagemaker-entry.sh";  // framework: the bundle's entry script
  std::optional<int64_t> max_wait_s;     // Spot: default 2 x max runtime
  std::string tls_s3;                 // "" = plaintext; else s3://... holding kTlsCertFile, kTlsKeyFile (kTlsCaFile): channel kSageMakerTlsChannel
  int64_t volume_gb = 50;
  std::string bundle_dir;             // framework: the bundle's folder before packing (check_framework_bundle)
  // Request options (add_request_options): VpcConfig, KMS keys, inter-container encryption, retries.
  std::vector<std::string> subnets, security_groups;  // VpcConfig: both or neither
  std::string volume_kms_key, output_kms_key;         // ResourceConfig.VolumeKmsKeyId, OutputDataConfig.KmsKeyId
  bool encrypt_inter_container = false;               // EnableInterContainerTrafficEncryption
  std::optional<int64_t> max_retries;                 // RetryStrategy.MaximumRetryAttempts (1-30)
};

/// The input channel the TLS files arrive in: /opt/ml/input/data/pperf-tls/ on every host.
inline constexpr const char* kSageMakerTlsChannel = "pperf-tls";
/// The input channel the data workers' token arrives in, as the file `token`: DescribeTrainingJob
/// returns a job's HyperParameters and Environment to anyone allowed to call it, not a channel's content.
inline constexpr const char* kSageMakerTokenChannel = "pperf-token";

/// One CreateTrainingJob request (the job's TrainingJobName is its name).
struct SageMakerJob : LaunchJob {
  nlohmann::json request;  // `aws sagemaker create-training-job --cli-input-json`
  std::string token_s3;    // where the token must be uploaded first ("" without data instances)
};

/// The jobs for `config`. Refusals (InputError naming the config file and the configuration's
/// pointer, or the flag): priced-only configs, a type SageMaker does not launch (not `ml.`),
/// more than 5 instance groups in a job, a trainer of more than one instance, Spot without a
/// checkpoint destination, MaxWait < MaxRuntime, names the API does not allow.
std::vector<SageMakerJob> sagemaker_jobs(const Config& config, const SageMakerLaunchOptions& options);

/// --framework: the bundle in `options.bundle_dir` (before packing) runs on AWS's image of its
/// torch (its TORCH_VERSION and REQUIRES against the image table), and no configuration of `jobs`
/// reads a dataset from this host's disk (no bundle carries an absolute path). InputError naming
/// the flag, or the config file and the dataset's JSON path. Reads the bundle's files.
void check_framework_bundle(const Config& config, const SageMakerLaunchOptions& options, const std::vector<SageMakerJob>& jobs);

/// How SageMaker names and places a job (launch_jobs): ml. types only, names of at most 63
/// characters, data groups `data-TYPE`; its own entry point.
LaunchRules sagemaker_rules();
/// `pperf launch sagemaker`'s flags as the options.
SageMakerLaunchOptions sagemaker_options(const LaunchFlagValues& flags, const LaunchCommon& common);
/// What `pperf launch` says of a job: its configurations, its instance groups, Spot, its bound.
std::string sagemaker_summary(const LaunchJob& job);
/// The platform's entry in launch_platforms().
LaunchPlatform sagemaker_platform();

/// The region the config's price table prices (the region SageMaker jobs run in).
std::string sagemaker_region(const Config& config);

/// AWS's PyTorch training image for torch `version` in `region` ("gpu" or "cpu" build), as the
/// SageMaker SDK's image_uris.retrieve names it; InputError on --framework for a version or
/// region pperf does not know (give --image).
std::string pytorch_training_image(const std::string& version, const std::string& region, bool gpu);
/// The torch versions pytorch_training_image knows, ascending.
std::vector<std::string> pytorch_training_versions();

// ---- The container contract, as the entry point reads it ----

/// /opt/ml/input/config/resourceconfig.json.
struct SageMakerResourceConfig {
  std::string current_host;
  std::string current_group;          // current_group_name ("" in an older single-group job)
  std::string current_instance_type;
  std::vector<std::string> hosts;
  std::map<std::string, std::vector<std::string>> group_hosts;  // instance_group_name -> hosts, as listed
  std::map<std::string, std::string> group_types;               // instance_group_name -> instance type
  std::string network_interface;
};

/// Parses resourceconfig.json's text; InputError naming `file` and the key on a missing or
/// malformed key.
SageMakerResourceConfig parse_resource_config(const std::string& text, const std::string& file);

/// hyperparameters.json: every value as a string (SageMaker's own are strings; the SDK's
/// JSON-encoded ones, e.g. "\"x\"", are decoded). InputError naming `file` when it is not an
/// object of strings.
std::map<std::string, std::string> parse_hyperparameters(const std::string& text, const std::string& file);

/// What this host does in the job, from its group (never from host order).
struct SageMakerRole {
  bool trainer = false;
  std::string group;
  /// Trainer: per configuration measured with data instances, the hosts serving it (the first
  /// `count` hosts of its data group, in the group's order).
  std::map<std::string, std::vector<std::string>> data_hosts;
  /// Every data host of the job (the trainer stops each at the end), in group then host order.
  std::vector<std::string> all_data_hosts;
  /// Data host: its preprocessing threads.
  int64_t data_workers = 1;
};

/// The role of `rc.current_host`. InputError naming `hyperparameters_file` / `resource_file` and
/// the key when the job's groups and the hyperparameters disagree.
SageMakerRole sagemaker_role(const SageMakerResourceConfig& rc, const std::map<std::string, std::string>& hyper,
                             const std::string& resource_file, const std::string& hyperparameters_file);

}  // namespace pperf
