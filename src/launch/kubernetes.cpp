#include "src/launch/kubernetes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <regex>

#include "src/core/input_error.h"
#include "src/launch/yaml.h"

namespace pperf {

namespace {
/// RFC 1123 labels and subdomains (Kubernetes' names of namespaces, Services, Jobs, claims).
const std::regex kDnsLabel("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
const std::regex kDnsSubdomain("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");

nlohmann::ordered_json metadata(const std::string& name, const KubernetesLaunchOptions& o, const std::string& job,
                                const std::string& role) {
  return {{"name", name}, {"namespace", o.name_space}, {"labels", {{"app.kubernetes.io/name", "pperf"}, {"pperf/job", job}, {"pperf/role", role}}}};
}

/// The variables every pperf pod reads from the downward API (its own IP, name and uid, and the
/// node it was placed on: the instance, as the cluster names it).
nlohmann::ordered_json pod_env(const std::string& token_secret) {
  nlohmann::ordered_json env = nlohmann::ordered_json::array();
  for (const auto& [name, field] : {std::pair{"POD_IP", "status.podIP"}, {"POD_NAME", "metadata.name"}, {"POD_UID", "metadata.uid"}, {"NODE_NAME", "spec.nodeName"}})
    env.push_back({{"name", name}, {"valueFrom", {{"fieldRef", {{"fieldPath", field}}}}}});
  if (!token_secret.empty())
    env.push_back({{"name", kDataTokenVariable}, {"valueFrom", {{"secretKeyRef", {{"name", token_secret}, {"key", "token"}}}}}});
  return env;
}

/// How often a pod stopped by its node (drained, reclaimed) is started again before the job fails.
constexpr int64_t kRestartLimit = 3;

/// The data Job's: a pod its node took away (the DisruptionTarget condition: a drain, a reclaimed
/// Spot node, preemption) is replaced without counting against backoffLimit; a refusal of pperf's
/// own (exit 2: the same on every pod) fails the Job at once.
nlohmann::ordered_json data_pod_failure_policy() {
  return {{"rules",
           {{{"action", "FailJob"}, {"onExitCodes", {{"containerName", "data"}, {"operator", "In"}, {"values", {2}}}}},
            {{"action", "Ignore"}, {"onPodConditions", {{{"type", "DisruptionTarget"}, {"status", "True"}}}}}}}};
}

nlohmann::ordered_json node_selector(const std::string& type, bool spot, CapacityLabels labels) {
  nlohmann::ordered_json s{{kInstanceTypeLabel, cloud_instance_type(type)}};
  if (labels == CapacityLabels::eks)
    s[kCapacityTypeLabel] = spot ? "SPOT" : "ON_DEMAND";
  else
    s[kKarpenterCapacityTypeLabel] = spot ? "spot" : "on-demand";
  return s;
}

/// Places a pod of `job` on an instance of `type` as it is priced: by the node's labels (type
/// and capacity), one pod of the job per node (anti-affinity on the hostname: two data
/// instances are never measured as one), every pod of the job in one zone (the first pod's), and
/// the instance's resources asked for by its first container (GPUs tolerating their taint).
void place(nlohmann::ordered_json& pod_spec, const Config& config, const std::string& type, bool spot, const std::string& job,
           const KubernetesLaunchOptions& o) {
  const PodResources r = pod_resources(*config.price_table.find(type));
  nlohmann::ordered_json& container = pod_spec["containers"][0];
  container["resources"]["requests"] = {{"cpu", r.cpu}, {"memory", r.memory}};
  if (r.gpus > 0) container["resources"]["limits"] = {{kGpuResource, r.gpus}};
  // Keys added to the pod spec after the container's (an ordered map moves its elements).
  pod_spec["nodeSelector"] = node_selector(type, spot, o.capacity_labels);
  const nlohmann::ordered_json same_job{{"matchLabels", {{"pperf/job", job}}}};
  pod_spec["affinity"] = {
      {"podAntiAffinity", {{"requiredDuringSchedulingIgnoredDuringExecution", {{{"labelSelector", same_job}, {"topologyKey", "kubernetes.io/hostname"}}}}}},
      {"podAffinity", {{"requiredDuringSchedulingIgnoredDuringExecution", {{{"labelSelector", same_job}, {"topologyKey", "topology.kubernetes.io/zone"}}}}}}};
  if (r.gpus > 0) pod_spec["tolerations"] = {{{"key", kGpuResource}, {"operator", "Exists"}, {"effect", "NoSchedule"}}};
}
}  // namespace

PodResources pod_resources(const InstanceSpec& spec) {
  if (spec.vcpus < 1 || spec.memory_gib <= 0)
    throw InputError(spec.type, "", "the price table gives no vCPUs or memory for it: a pod cannot ask for the instance");
  PodResources r;
  const int64_t cpu_m = spec.vcpus * 1000 - std::min<int64_t>(1000, spec.vcpus * 500);
  r.cpu = cpu_m % 1000 == 0 ? std::to_string(cpu_m / 1000) : std::to_string(cpu_m) + "m";
  const auto memory_mib = static_cast<int64_t>(std::floor(spec.memory_gib * 1024 * 0.9)) - 1024;
  r.memory = std::to_string(std::max<int64_t>(memory_mib, static_cast<int64_t>(spec.memory_gib * 512))) + "Mi";
  if (is_cuda_accelerator(spec)) r.gpus = static_cast<int64_t>(std::ceil(spec.accelerators));
  return r;
}

LaunchRules kubernetes_rules() {
  LaunchRules r;
  r.title = "Kubernetes";
  r.type_rule = [](const Config&, const std::string&) { return std::string(); };
  // The Master pod NAME-master-0 and the data pods' host names NAME-dataG-I: within a 63-character DNS label.
  r.max_name_length = 50;
  r.lower_case_names = true;
  r.cloud_type_names = true;
  r.group_name = [](const std::string& job, const LaunchDataGroup&, size_t index, size_t groups) {
    return job + "-data" + (groups > 1 ? std::to_string(index) : "");
  };
  r.ec2_priced = true;
  r.node_platform = kNodeKubernetes;
  r.output_dir = kKubernetesOutputDir;
  r.tls_dir = kKubernetesTlsDir;
  return r;
}

namespace {
/// The Secrets of a job's data token and TLS files.
std::string token_secret_name(const LaunchJob& job) { return job.name + "-token"; }
std::string tls_secret_name(const LaunchJob& job) { return job.name + "-tls"; }
}  // namespace

std::vector<KubernetesJob> kubernetes_jobs(const Config& config, const KubernetesLaunchOptions& o) {
  if (o.image.empty()) throw InputError("--image", "", "give the pods' image: a container image with pperf on PATH (docs/launch.md)");
  if (!std::regex_match(o.name_space, kDnsLabel) || o.name_space.size() > 63)
    throw InputError("--namespace", "", "'" + o.name_space + "' is not a Kubernetes namespace name (lower-case letters, digits, '-')");
  if (!std::regex_match(o.results_claim, kDnsSubdomain) || o.results_claim.size() > 253)
    throw InputError("--results-claim", "", "'" + o.results_claim + "' is not a PersistentVolumeClaim name");
  std::vector<KubernetesJob> out;
  for (const LaunchJob& launch : launch_jobs(config, o, kubernetes_rules(), !o.tls_files.empty())) {
    const LaunchJobPlan& j = launch.plan;
    KubernetesJob job{launch, {}};
    const int64_t runtime = launch.runtime_s;
    const bool with_data = launch.with_data;
    const std::string secret = with_data ? token_secret_name(launch) : "";
    const bool tls = launch.tls;
    const std::string tls_secret = tls_secret_name(launch);
    // A pod's TLS files: the Secret's keys as files under kKubernetesTlsDir.
    const auto add_tls = [&](nlohmann::ordered_json& pod_spec, nlohmann::ordered_json& container) {
      if (!tls) return;
      container["volumeMounts"].push_back({{"name", "tls"}, {"mountPath", kKubernetesTlsDir}, {"readOnly", true}});
      pod_spec["volumes"].push_back({{"name", "tls"}, {"secret", {{"secretName", tls_secret}}}});
    };
    const std::vector<std::string>& group_names = launch.group_names;
    if (with_data) {
      nlohmann::ordered_json s{{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", metadata(secret, o, job.name, "token")},
                               {"type", "Opaque"}, {"stringData", {{"token", o.token}}}};
      job.documents.push_back(s);
    }
    if (tls) {
      nlohmann::ordered_json s{{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", metadata(tls_secret, o, job.name, "tls")},
                               {"type", "Opaque"}, {"stringData", o.tls_files}};
      job.documents.push_back(s);
    }
    for (size_t g = 0; g < j.data_groups.size(); ++g) {
      const LaunchDataGroup& d = j.data_groups[g];
      const std::string& name = group_names[g];
      // Headless: each pod of the Indexed Job is NAME-I.NAME in DNS (hostname + subdomain).
      nlohmann::ordered_json service{{"apiVersion", "v1"}, {"kind", "Service"}, {"metadata", metadata(name, o, job.name, "data")}};
      service["spec"] = {{"clusterIP", "None"},
                         {"selector", {{"pperf/job", job.name}, {"pperf/group", name}}},
                         {"ports", {{{"name", "data"}, {"port", o.data_port}, {"protocol", "TCP"}}}}};
      job.documents.push_back(service);
      std::vector<std::string> argv{"pperf"};
      argv.insert(argv.end(), launch.data_entries[g].begin(), launch.data_entries[g].end());
      nlohmann::ordered_json pod;
      pod["metadata"] = {{"labels", {{"app.kubernetes.io/name", "pperf"}, {"pperf/job", job.name}, {"pperf/group", name}}}};
      pod["spec"] = {{"subdomain", name},
                     {"restartPolicy", "Never"},
                     {"containers",
                      {{{"name", "data"},
                        {"image", o.image},
                        {"command", argv},
                        {"env", pod_env(secret)},
                        {"ports", {{{"name", "data"}, {"containerPort", o.data_port}, {"protocol", "TCP"}}}}}}}};
      place(pod["spec"], config, d.type, j.spot, job.name, o);
      add_tls(pod["spec"], pod["spec"]["containers"][0]);
      nlohmann::ordered_json batch{{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", metadata(name, o, job.name, "data")}};
      batch["spec"] = {{"completionMode", "Indexed"}, {"completions", d.count}, {"parallelism", d.count},
                       {"backoffLimit", kRestartLimit}, {"podFailurePolicy", data_pod_failure_policy()},
                       {"activeDeadlineSeconds", runtime}, {"ttlSecondsAfterFinished", kFinishedTtlS}, {"template", pod}};
      job.documents.push_back(batch);
    }
    std::vector<std::string> argv{"pperf"};
    argv.insert(argv.end(), launch.trainer_entry.begin(), launch.trainer_entry.end());
    nlohmann::ordered_json container{{"name", "pytorch"}, {"image", o.image}, {"command", argv}, {"env", pod_env(secret)},
                                     {"volumeMounts", {{{"name", "results"}, {"mountPath", kKubernetesOutputDir}}}}};
    nlohmann::ordered_json master;
    master["replicas"] = 1;
    // A drained or reclaimed node's pod (stopped by a signal: pperf exits 128 + it) starts again
    // and resumes from the claim, on Spot or not; an error of pperf's own does not (ExitCode: the
    // operator retries exit codes of 128 and more only).
    master["restartPolicy"] = "ExitCode";
    master["template"] = {{"metadata", {{"labels", {{"app.kubernetes.io/name", "pperf"}, {"pperf/job", job.name}, {"pperf/group", kTrainerGroup}}}}},
                          {"spec",
                           {{"containers", {container}},
                            {"volumes", {{{"name", "results"}, {"persistentVolumeClaim", {{"claimName", o.results_claim}}}}}}}}};
    place(master["template"]["spec"], config, j.trainer_type, j.spot, job.name, o);
    add_tls(master["template"]["spec"], master["template"]["spec"]["containers"][0]);
    nlohmann::ordered_json pytorch{{"apiVersion", "kubeflow.org/v1"}, {"kind", "PyTorchJob"}, {"metadata", metadata(job.name, o, job.name, "trainer")}};
    pytorch["spec"] = {{"runPolicy", {{"cleanPodPolicy", "None"}, {"ttlSecondsAfterFinished", kFinishedTtlS}, {"activeDeadlineSeconds", runtime}, {"backoffLimit", kRestartLimit}}},
                       {"pytorchReplicaSpecs", {{"Master", master}}}};
    job.documents.push_back(pytorch);
    out.push_back(std::move(job));
  }
  return out;
}

std::string kubernetes_summary(const LaunchJob& job) {
  std::vector<std::string> objects;
  if (job.with_data) objects.push_back("Secret " + token_secret_name(job));
  if (job.tls) objects.push_back("Secret " + tls_secret_name(job));
  for (const auto& name : job.group_names) objects.insert(objects.end(), {"Service " + name, "Job " + name});
  objects.push_back("PyTorchJob " + job.name);
  return "measures " + measures_text(job.plan.configurations) + " (" + join_names(objects, ", ") + ")";
}

KubernetesLaunchOptions kubernetes_options(const LaunchFlagValues& f, const LaunchCommon& common) {
  KubernetesLaunchOptions o;
  static_cast<LaunchCommon&>(o) = common;
  o.image = f.string("image");
  o.results_claim = f.string("results-claim");
  o.name_space = f.string("namespace");
  if (const std::string labels = f.string("capacity-labels"); labels == "karpenter")
    o.capacity_labels = CapacityLabels::karpenter;
  else if (labels != "eks")
    throw InputError("--capacity-labels", "", "'" + labels + "': expected eks or karpenter");
  if (f.has("tls")) o.tls_files = read_tls_files(f.string("tls"));
  return o;
}

LaunchPlatform kubernetes_platform() {
  LaunchPlatform p;
  p.name = "kubernetes";
  p.usage =
      "pperf launch kubernetes --config C --image IMAGE --results-claim PVC\n"
      "         [--namespace NS] [--capacity-labels eks|karpenter] [--tls DIR]\n"
      "         [COMMON]\n";
  p.flags = {
      {"image", "the pods' container image, pperf on its PATH", false, true},
      {"results-claim", "a PersistentVolumeClaim mounted at /pperf-output: results, report, checkpoints", false, true},
      {"namespace", "the namespace of every object", false, false, std::string("default")},
      {"capacity-labels", "the labels that say a node is Spot or on-demand: eks (managed node groups) or karpenter (Karpenter, EKS Auto Mode)",
       false, false, std::string("eks")},
      {"tls", "a directory of cert.pem, key.pem (ca.pem): the data workers serve TLS (a Secret mounted at /pperf-tls)"}};
  p.rules = kubernetes_rules();
  p.launch = [](const Config& config, const LaunchCommon& common, const LaunchFlagValues& flags) {
    const KubernetesLaunchOptions o = kubernetes_options(flags, common);
    std::vector<LaunchedJob> out;
    for (const KubernetesJob& job : kubernetes_jobs(config, o))
      out.push_back({job.name, job.name + ".yaml", yaml_documents(job.documents), kubernetes_summary(job),
                     fmt::format("{}/results.json on the claim {} (namespace {})", job.name, o.results_claim, o.name_space),
                     fmt::format("from a pod that mounts the claim at /pperf-output (docs/launch.md): kubectl -n {} cp POD:/pperf-output/{}/results.json {}.json",
                                 o.name_space, job.name, job.name)});
    return out;
  };
  p.start_command = [](const std::string&, const std::string& path) { return "kubectl apply -f " + path; };
  return p;
}

}  // namespace pperf
