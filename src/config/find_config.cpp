// The file a `--config` names: a path, or a shipped config by name (config.h: find_config,
// shipped_configs).
#include <algorithm>
#include <cctype>
#include <filesystem>

#include "src/config/config.h"
#include "src/core/atomic_file.h"
#include "src/core/data_dir.h"
#include "src/core/input_error.h"

namespace pperf {

namespace {
/// Read as given, never looked up: a path (it has a '/'), or something of that name right here
/// (anything, even a dangling link: what the user pointed at, whose read error is the real one).
bool names_a_path(const std::string& arg) {
  std::error_code ec;
  return arg.empty() || arg.find('/') != std::string::npos ||
         std::filesystem::exists(std::filesystem::symlink_status(arg, ec));
}

/// The first sentence of a description, one line for a listing: up to a line break or a ". "
/// (a '.' inside a word, "ml.p3.2xlarge", ends nothing; nor does "e.g. ", "i.e. " or "vs. ").
std::string first_sentence(const std::string& text) {
  const auto after_abbreviation = [&](size_t dot) {
    for (const std::string a : {"e.g", "i.e", "vs"})
      if (dot >= a.size() && text.compare(dot - a.size(), a.size(), a) == 0 &&
          (dot == a.size() || !std::isalnum(static_cast<unsigned char>(text[dot - a.size() - 1]))))
        return true;
    return false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') return text.substr(0, i);
    if (text.compare(i, 2, ". ") == 0 && !after_abbreviation(i)) return text.substr(0, i + 1);
  }
  return text;
}
}  // namespace

std::string shipped_configs_dir() { return (std::filesystem::path(data_dir()) / "configs").string(); }

std::vector<ShippedConfig> shipped_configs(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<ShippedConfig> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& file = it->path();
    if (file.extension() != ".json" || !it->is_regular_file(ec)) continue;
    ShippedConfig c{file.stem().string(), file.string(), ""};
    // A listing must not die of one bad file: a config that does not parse has no summary here
    // and gets its real error from `pperf validate`.
    try {
      const nlohmann::json doc = nlohmann::json::parse(read_text_file(c.path));
      if (doc.is_object() && doc.contains("description") && doc["description"].is_string())
        c.summary = first_sentence(doc["description"].get<std::string>());
    } catch (const std::exception&) {
    }
    out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

std::string find_config(const std::string& arg, const std::string& configs_dir, const std::string& no_configs_dir_reason) {
  namespace fs = std::filesystem;
  if (names_a_path(arg)) return arg;
  std::error_code ec;
  if (!configs_dir.empty()) {
    for (const fs::path candidate : {fs::path(configs_dir) / arg, fs::path(configs_dir) / (arg + ".json")}) {
      if (!fs::is_regular_file(candidate, ec)) continue;
      const fs::path absolute = fs::absolute(candidate, ec);
      return (ec ? candidate : absolute).lexically_normal().string();
    }
  }
  std::string message = "no such file in the current directory (" + fs::current_path(ec).string() + ")";
  if (configs_dir.empty()) {
    message += " and no shipped configs to look among (" + no_configs_dir_reason + ")";
  } else {
    std::vector<std::string> names;
    for (const auto& c : shipped_configs(configs_dir)) names.push_back(c.name);
    if (names.empty()) {
      message += " and no shipped configs in " + configs_dir;
    } else {
      const bool has_suffix = arg.size() > 5 && arg.compare(arg.size() - 5, 5, ".json") == 0;
      const std::string suggestion = did_you_mean(has_suffix ? arg.substr(0, arg.size() - 5) : arg, names, 3);
      message += " nor among the shipped configs in " + configs_dir +
                 (suggestion.empty() ? " (`pperf list configs` lists them)" : suggestion);
    }
  }
  throw InputError(arg, "", message);
}

std::string find_config(const std::string& arg) {
  if (names_a_path(arg)) return arg;  // no data dir needed
  std::string dir, reason;
  try {
    dir = shipped_configs_dir();
  } catch (const std::exception& e) {
    reason = e.what();
  }
  return find_config(arg, dir, reason);
}

}  // namespace pperf
