#pragma once
// A config as Kubernetes manifests (`pperf launch kubernetes`): per trainer instance a Kubeflow
// PyTorchJob (one Master replica, container `pytorch`, on a node of the trainer's instance type)
// and, when its configurations stream from data instances, those as an Indexed batch/v1 Job
// behind a headless Service (pods `JOB-I.SERVICE`, each ending when the trainer stops it), with
// the data workers' token in a Secret. Every pod runs `pperf node-entry --platform kubernetes`;
// both workloads are bounded by activeDeadlineSeconds. Pure.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/config/config.h"
#include "src/launch/plan.h"
#include "src/launch/platform.h"

namespace pperf {

/// Which labels say a node's capacity type (Spot or on-demand): EKS managed node groups'
/// `eks.amazonaws.com/capacityType: SPOT|ON_DEMAND`, Karpenter's (and EKS Auto Mode's)
/// `karpenter.sh/capacity-type: spot|on-demand`.
enum class CapacityLabels { eks, karpenter };

struct KubernetesLaunchOptions : LaunchCommon {
  CapacityLabels capacity_labels = CapacityLabels::eks;
  std::string image;             // a container image with pperf on PATH
  std::string name_space = "default";
  std::string results_claim;     // a PersistentVolumeClaim mounted at kKubernetesOutputDir
  /// "" = plaintext; else the data workers' TLS files (file name -> PEM text: kTlsCertFile,
  /// kTlsKeyFile, optionally kTlsCaFile), put in a Secret mounted at kKubernetesTlsDir.
  std::map<std::string, std::string> tls_files;
};

inline constexpr const char* kKubernetesOutputDir = "/pperf-output";
inline constexpr const char* kKubernetesTlsDir = "/pperf-tls";
/// The node label every pod is placed by (the well-known label the kubelet sets from the cloud).
inline constexpr const char* kInstanceTypeLabel = "node.kubernetes.io/instance-type";
/// EKS managed node groups' capacity label (Spot configurations' pods go to Spot nodes).
inline constexpr const char* kCapacityTypeLabel = "eks.amazonaws.com/capacityType";
/// Karpenter's capacity label (`--capacity-labels karpenter`).
inline constexpr const char* kKarpenterCapacityTypeLabel = "karpenter.sh/capacity-type";
/// The extended resource (and the taint GPU nodes commonly carry) of NVIDIA's device plugin.
inline constexpr const char* kGpuResource = "nvidia.com/gpu";
/// How long a finished Job or PyTorchJob (and its pods' logs) stays before Kubernetes removes it.
inline constexpr int64_t kFinishedTtlS = 86400;

/// What a pod of an instance type asks of its node, placed as priced: `cpu` and `memory` near the
/// instance's allocatable (its vCPUs less one core, or half of them below two; 90 % of its memory
/// less 1 GiB, in MiB), and its NVIDIA accelerators as `nvidia.com/gpu` (0: none).
struct PodResources {
  std::string cpu, memory;
  int64_t gpus = 0;
};
/// InputError naming the type when the price table does not say its vCPUs and memory.
PodResources pod_resources(const InstanceSpec& spec);

/// A job's manifests (its name is the PyTorchJob's).
struct KubernetesJob : LaunchJob {
  std::vector<nlohmann::ordered_json> documents;  // Secret, Service, Job (with data), then the PyTorchJob
};

/// The manifests for `config`; InputError naming the configuration (launch_plan's refusals) or
/// the flag (names Kubernetes does not allow).
std::vector<KubernetesJob> kubernetes_jobs(const Config& config, const KubernetesLaunchOptions& options);

/// How Kubernetes names and places a job (launch_jobs): any type the table prices, lower-case
/// names of at most 50 characters (its pods' names derive from them), data groups `JOB-data[G]`,
/// `pperf node-entry` in every pod, data pods by their Indexed Job's DNS names.
LaunchRules kubernetes_rules();
/// `pperf launch kubernetes`'s flags as the options (the TLS files read here).
KubernetesLaunchOptions kubernetes_options(const LaunchFlagValues& flags, const LaunchCommon& common);
/// What `pperf launch` says of a job: its configurations and its objects, in the file's order.
std::string kubernetes_summary(const LaunchJob& job);
/// The platform's entry in launch_platforms().
LaunchPlatform kubernetes_platform();

}  // namespace pperf
