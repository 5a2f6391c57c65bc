#pragma once
// AWS's PyTorch training images that `pperf launch sagemaker --framework pytorch:VERSION` names,
// with what a bundle needs of them, and the check that a GPU bundle runs on one: the torch it
// was built against, and the highest GLIBC_/GLIBCXX_ symbol versions its ELF files import
// (scripts/bundle-abi.sh writes them as the bundle's REQUIRES) against the image's glibc and
// libstdc++. Pure: the caller reads the bundle's files.
#include <string>
#include <vector>

#include "src/config/config.h"

namespace pperf {

/// One SageMaker PyTorch training image (GPU, x86_64). Sources in docs/launch.md.
struct FrameworkImage {
  const char* torch;    // the image's torch, e.g. "2.8.0"
  const char* ubuntu;   // "22.04"
  const char* glibc;    // the distribution's libc6: the highest GLIBC_ version it defines
  const char* glibcxx;  // the distribution's libstdc++6: the highest GLIBCXX_ version
  const char* torch_from;  // "PyPI" (2.6 on) or "conda" (the images before: conda's torch and libstdc++)
  bool cxx11_abi;          // PyPI's wheel built with the C++11 ABI (2.7 on), as pperf and its gRPC are
};

/// Every image pperf knows, ascending by torch.
const std::vector<FrameworkImage>& framework_images();

/// What a bundle needs: its TORCH_VERSION and REQUIRES files.
struct BundleNeeds {
  std::string torch;    // as built against, e.g. "2.8.0+cu128"
  std::string glibc;    // "" = none imported
  std::string glibcxx;
};

/// Parses REQUIRES (`GLIBC 2.35` / `GLIBCXX 3.4.30` lines) and TORCH_VERSION's text; InputError
/// naming `requires_file` on a malformed line.
BundleNeeds parse_bundle_needs(const std::string& torch_version_text, const std::string& requires_text,
                               const std::string& requires_file);

/// Whether `a` <= `b` as dotted version numbers ("2.34" <= "2.35").
bool version_at_most(const std::string& a, const std::string& b);

/// The bundle in `bundle_dir` runs on AWS's image of torch `version`, or an InputError on
/// --framework (glibc or libstdc++ older than the bundle needs; an image whose torch is conda's, or
/// PyPI's pre-C++11-ABI wheel) or --bundle (built against another torch), one line saying what
/// to do instead.
void check_bundle_runs_on_image(const std::string& version, const BundleNeeds& bundle, const std::string& bundle_dir);

/// The files a job's configurations read from this host's disk by absolute path
/// (execution.data.dataset_kwargs values): (JSON pointer, path). No bundle or image carries them.
std::vector<std::pair<std::string, std::string>> host_dataset_paths(const Config& config,
                                                                    const std::vector<std::string>& configurations);

}  // namespace pperf
