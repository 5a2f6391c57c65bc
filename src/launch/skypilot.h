#pragma once
// A config as SkyPilot managed jobs (`pperf launch skypilot`): per trainer instance one task
// YAML, or, when its configurations stream from data instances of another type, one job group
// (a multi-document YAML, `execution: parallel`): the `trainer` task and a task per data
// instance type, launched together, on one network, the data tasks ended with the trainer
// (`primary_tasks`). Each task's `run` is `pperf node-entry --platform skypilot`. Pure.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/config/config.h"
#include "src/launch/plan.h"
#include "src/launch/platform.h"

namespace pperf {

struct SkyPilotLaunchOptions : LaunchCommon {
  std::string output;                 // bucket URI (s3://, gs://, r2://, ...) mounted at kSkyPilotOutputDir
  std::string image;                  // a Docker image with pperf on PATH ("" = the GPU bundle as workdir)
  std::string bundle_dir = "gpu-bundle";  // the workdir: scripts/gpu-bundle.sh's folder
  std::string bundle_torch;               // without --image: the torch the bundle was built against (its TORCH_VERSION)
  std::string tls_dir;                // "" = plaintext; else a local directory of kTlsCertFile, kTlsKeyFile (kTlsCaFile), uploaded to kSkyPilotTlsDir
};

/// Where each task mounts --output (MOUNT_CACHED: pperf writes results by rename, which a plain
/// bucket mount cannot do).
inline constexpr const char* kSkyPilotOutputDir = "/pperf-output";
inline constexpr const char* kSkyPilotTlsDir = "/pperf-tls";

/// A managed job (or job group; its name is the job's).
struct SkyPilotJob : LaunchJob {
  bool job_group = false;
  std::vector<nlohmann::ordered_json> documents;  // the YAML's documents (a job group's header first)
};

/// The jobs for `config`; InputError naming the configuration (launch_plan's refusals, a type
/// not on the config's provider) or the flag.
std::vector<SkyPilotJob> skypilot_jobs(const Config& config, const SkyPilotLaunchOptions& options);

/// InputError on --output unless it is a bucket SkyPilot mounts (an S3 one named as S3 allows).
void check_skypilot_output(const std::string& output);

/// How SkyPilot names and places a job (launch_jobs): AWS, GCP and Azure tables, lower-case names
/// of at most 60 characters, data tasks `data-TYPE`, `pperf node-entry` on every node, the
/// hosts meeting under the mounted bucket.
LaunchRules skypilot_rules();
/// `pperf launch skypilot`'s flags as the options (the TLS directory and the bundle checked here).
SkyPilotLaunchOptions skypilot_options(const LaunchFlagValues& flags, const LaunchCommon& common);
/// What `pperf launch` says of a job: its configurations, its tasks' nodes, whether a job group.
std::string skypilot_summary(const LaunchJob& job);
/// The platform's entry in launch_platforms().
LaunchPlatform skypilot_platform();

/// The torch requirement a bundle built against `built_against` (e.g. "2.11.0+cu130") installs
/// from an index that serves it: the public version (PyPI publishes no local "+cuNNN" versions;
/// a wheel's local label still satisfies it), InputError on --bundle when it is no release
/// version. `cuda`: PyPI's default (CUDA) wheel; else PyTorch's CPU index, so a CPU instance does
/// not download the CUDA wheel and its libraries.
std::string torch_pip_install(const std::string& built_against, bool cuda);


}  // namespace pperf
