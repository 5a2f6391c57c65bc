// A configuration's `native.execution`: laid over its `execution` for what runs on the real
// instances (`--native`), and checked either way.
#include "src/config/config_parse.h"
#include "src/core/input_error.h"
#include "src/core/json_view.h"

namespace pperf::config_detail {

nlohmann::json with_native_applied(const nlohmann::json& doc, bool& any) {
  nlohmann::json real_doc = doc;
  any = false;
  if (auto cs = real_doc.find("configurations"); cs != real_doc.end() && cs->is_array())
    for (auto& c : *cs)
      if (c.is_object() && c.contains("native") && c["native"].is_object() && c["native"].contains("execution")) {
        any = true;
        c["execution"].merge_patch(c["native"]["execution"]);
        c.erase("native");
      }
  return real_doc;
}

void check_native_overlay(const JsonView& root, const JsonView& real_root, const Config& config) {
  for (const auto& item : root.at("configurations").items()) parse_configuration(item, config.pricing, config.price_table);
  for (const auto& item : real_root.at("configurations").items()) {
    try {
      parse_configuration(item, config.pricing, config.price_table);
    } catch (const InputError& e) {
      const size_t prefix = e.where().size() + 2 + (e.pointer().empty() ? 0 : e.pointer().size() + 2);
      throw InputError(e.where(), e.pointer(),
                       std::string(e.what()).substr(prefix) + " (with " + item.pointer() + "/native applied, as --native runs it)");
    }
  }
}

}  // namespace pperf::config_detail
