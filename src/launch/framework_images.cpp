#include "src/launch/framework_images.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "src/core/input_error.h"

namespace pperf {

const std::vector<FrameworkImage>& framework_images() {
  // The OS of each SageMaker training image: aws/deep-learning-containers' release notes
  // (docs/releasenotes/pytorch/*-training-sagemaker.md: "Ubuntu 20.04" before 2.4, "Ubuntu 22.04"
  // from 2.4; conda until 2.6, "installing all Python packages from PyPI" from 2.6). glibc and
  // libstdc++ are those distributions' (packages.ubuntu.com: focal libc6 2.31, libstdc++6 10.5
  // = GLIBCXX_3.4.28; jammy libc6 2.35, libstdc++6 12.3 = GLIBCXX_3.4.30). The torch versions
  // are sagemaker.h's kPyTorchImages. PyPI's Linux wheels use the C++11 ABI from torch 2.7 (its
  // release notes); the 2.6 wheel is pre-C++11 (torch._C._GLIBCXX_USE_CXX11_ABI is False).
  static const std::vector<FrameworkImage> images = {
      {"2.0.0", "20.04", "2.31", "3.4.28", "conda", false}, {"2.0.1", "20.04", "2.31", "3.4.28", "conda", false},
      {"2.1.0", "20.04", "2.31", "3.4.28", "conda", false}, {"2.2.0", "20.04", "2.31", "3.4.28", "conda", false},
      {"2.3.0", "20.04", "2.31", "3.4.28", "conda", false}, {"2.4.0", "22.04", "2.35", "3.4.30", "conda", false},
      {"2.5.1", "22.04", "2.35", "3.4.30", "conda", false}, {"2.6.0", "22.04", "2.35", "3.4.30", "PyPI", false},
      {"2.7.1", "22.04", "2.35", "3.4.30", "PyPI", true},   {"2.8.0", "22.04", "2.35", "3.4.30", "PyPI", true},
  };
  return images;
}

bool version_at_most(const std::string& a, const std::string& b) {
  const auto parts = [](const std::string& v) {
    std::vector<long long> out;
    std::istringstream in(v);
    for (std::string p; std::getline(in, p, '.');) out.push_back(std::stoll(p));
    return out;
  };
  std::vector<long long> x = parts(a), y = parts(b);
  x.resize(std::max(x.size(), y.size()));
  y.resize(x.size());
  return x <= y;
}

BundleNeeds parse_bundle_needs(const std::string& torch_version_text, const std::string& requires_text,
                               const std::string& requires_file) {
  BundleNeeds b;
  std::istringstream(torch_version_text) >> b.torch;
  std::istringstream lines(requires_text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    std::istringstream words(line);
    std::string name, version;
    words >> name >> version;
    const bool number = !version.empty() && version.find_first_not_of("0123456789.") == std::string::npos &&
                        version.front() != '.' && version.back() != '.' && version.find("..") == std::string::npos;
    if (!number || (name != "GLIBC" && name != "GLIBCXX"))
      throw InputError(requires_file, "", "'" + line + "' is not GLIBC|GLIBCXX VERSION (scripts/bundle-abi.sh writes it)");
    (name == "GLIBC" ? b.glibc : b.glibcxx) = version;
  }
  return b;
}

void check_bundle_runs_on_image(const std::string& version, const BundleNeeds& bundle, const std::string& bundle_dir) {
  const FrameworkImage* image = nullptr;
  for (const auto& i : framework_images())
    if (version == i.torch) image = &i;
  if (!image) return;  // pytorch_training_image refuses it, naming the versions
  const std::string use = "use --framework pytorch:2.7.1 or 2.8.0 (Ubuntu 22.04, PyPI's torch) with a bundle built "
                          "against that torch (scripts/gpu-bundle.sh --torch VERSION), or --image";
  const std::string requires_file = bundle_dir + "/REQUIRES";
  if (!bundle.glibc.empty() && !version_at_most(bundle.glibc, image->glibc))
    throw InputError("--framework", "", fmt::format("pytorch:{}'s image is Ubuntu {} with glibc {}; the bundle needs GLIBC_{} ({}): {}",
                                                    version, image->ubuntu, image->glibc, bundle.glibc, requires_file, use));
  if (!bundle.glibcxx.empty() && !version_at_most(bundle.glibcxx, image->glibcxx))
    throw InputError("--framework", "", fmt::format("pytorch:{}'s image is Ubuntu {} with libstdc++ up to GLIBCXX_{}; the bundle needs GLIBCXX_{} ({}): {}",
                                                    version, image->ubuntu, image->glibcxx, bundle.glibcxx, requires_file, use));
  if (std::string(image->torch_from) != "PyPI")
    throw InputError("--framework", "", fmt::format("pytorch:{}'s image has conda's torch and libstdc++, not PyPI's wheel the bundle is built against: {}",
                                                    version, use));
  if (!image->cxx11_abi)
    throw InputError("--framework", "", fmt::format("pytorch:{}'s torch is PyPI's pre-C++11-ABI wheel, which pperf (C++11 ABI, as its gRPC) "
                                                    "cannot link: {}", version, use));
  const std::string built = bundle.torch.substr(0, bundle.torch.find('+'));
  if (built != image->torch)
    throw InputError("--bundle", "", fmt::format("{} is built against torch {}, the image of pytorch:{} has torch {}: rebuild it "
                                                 "(scripts/gpu-bundle.sh --torch {}) or name pytorch:{}",
                                                 bundle_dir, bundle.torch, version, image->torch, image->torch, built));
}

std::vector<std::pair<std::string, std::string>> host_dataset_paths(const Config& config,
                                                                    const std::vector<std::string>& configurations) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& c : config.configurations) {
    if (std::find(configurations.begin(), configurations.end(), c.name) == configurations.end()) continue;
    const auto& kwargs = c.execution.data.dataset_kwargs;
    if (!kwargs.is_object()) continue;
    for (const auto& [key, value] : kwargs.items())
      if (value.is_string() && value.get<std::string>().rfind('/', 0) == 0)
        out.emplace_back(c.pointer + "/execution/data/dataset_kwargs/" + key, value.get<std::string>());
  }
  return out;
}

}  // namespace pperf
