#include "src/core/results_json.h"

#include "src/core/decide_record.h"

#include "src/core/input_error.h"

#include "src/core/json_view.h"

namespace pperf {

using nlohmann::json;

json to_json(const RunReport& report) {
  json j = report.unknown_fields;
  j["schema_version"] = kResultsSchemaVersion;
  j["tool"] = {{"name", "pperf"}, {"version", report.tool_version}, {"git_sha", report.git_sha}};
  j["command"] = report.command;
  j["config"] = {{"name", report.config_name}, {"path", report.config_path}, {"sha256", report.config_sha256}};
  j["host"] = report.host;
  if (report.placement) j["placement"] = to_json(*report.placement);
  j["started_at"] = report.started_at;
  j["finished_at"] = report.finished_at.empty() ? json(nullptr) : json(report.finished_at);
  j["status"] = to_string(report.status);
  j["pricing"] = {{"table", report.pricing_table}, {"source", report.pricing_source},
                  {"retrieved", report.pricing_retrieved}, {"region", report.pricing_region},
                  {"currency", report.pricing_currency}, {"market", report.pricing_market},
                  {"discount_pct", report.discount_pct}};
  if (!report.pricing_sha256.empty()) {  // the table's identity (files before it lack both keys)
    j["pricing"]["published"] = report.pricing_published.empty() ? json(nullptr) : json(report.pricing_published);
    j["pricing"]["sha256"] = report.pricing_sha256;
  }
  j["results"] = json::array();
  for (const auto& r : report.results) j["results"].push_back(to_json(r));
  if (report.sweep) j["sweep"] = to_json(*report.sweep);
  if (report.scaling) j["scaling"] = to_json(*report.scaling);
  if (report.decide) j["decide"] = to_json(*report.decide);
  if (!report.replicates.is_null()) j["replicates"] = report.replicates;
  return j;
}

std::string results_file_text(const RunReport& report) { return to_json(report).dump(2) + "\n"; }

RunReport results_from_json(const json& doc, const std::string& file) {
  const JsonView root(doc, file);
  if (!doc.is_object()) root.fail("expected a pperf results object");
  // Another JSON file given by mistake (a config, a launched job's request): said as such, not
  // as the first field it lacks.
  if (!doc.contains("schema_version") && !doc.contains("results")) {
    std::string keys;
    size_t shown = 0;
    for (auto it = doc.begin(); it != doc.end() && shown < 3; ++it, ++shown) keys += (shown ? ", " : "") + it.key();
    throw InputError(file, "", "not a pperf results file (no schema_version nor results" +
                                   (keys.empty() ? std::string(": an empty object)") : "; it has " + keys + (doc.size() > 3 ? ", ...)" : ")")));
  }
  const JsonView version = root.at("schema_version");
  if (version.as_int() != kResultsSchemaVersion)
    version.fail("schema_version " + doc["schema_version"].dump() + " is not supported (this pperf reads " +
                 std::to_string(kResultsSchemaVersion) + ")");
  RunReport report;
  const JsonView tool = root.at("tool");
  report.tool_version = tool.at("version").as_string();
  report.git_sha = tool.at("git_sha").as_string();
  report.command = root.at("command").as_choice({"run", "cost", "decide"});
  const JsonView config = root.at("config");
  report.config_name = config.at("name").as_string();
  report.config_path = config.at("path").as_string();
  report.config_sha256 = config.at("sha256").as_string();
  report.host = root.at("host").raw();
  if (auto placement = root.find("placement")) report.placement = read_placement(*placement);
  report.started_at = root.at("started_at").as_string();
  if (auto f = root.find_value("finished_at")) report.finished_at = f->as_string();
  const auto status = parse_run_status(root.at("status").as_string());
  if (!status) root.at("status").as_choice({"complete", "interrupted", "failed"});  // fails naming them
  report.status = *status;
  const JsonView pricing = root.at("pricing");
  report.pricing_table = pricing.at("table").as_string();
  report.pricing_source = pricing.at("source").as_string();
  report.pricing_retrieved = pricing.at("retrieved").as_string();
  report.pricing_region = pricing.at("region").as_string();
  report.pricing_currency = pricing.at("currency").as_string();
  report.pricing_market = pricing.at("market").as_string();
  report.discount_pct = pricing.number_or("discount_pct", 0);
  if (auto published = pricing.find_value("published")) report.pricing_published = published->as_string();
  report.pricing_sha256 = pricing.string_or("sha256", "");
  for (const auto& item : root.at("results").items()) report.results.push_back(read_result(item));
  if (auto sweep = root.find("sweep")) report.sweep = read_sweep(*sweep);
  if (auto scaling = root.find("scaling")) report.scaling = read_scaling(*scaling);
  if (auto decide = root.find("decide")) report.decide = std::make_shared<const DecideRecord>(read_decide(*decide));
  if (auto replicates = root.find("replicates")) {
    if (!replicates->raw().is_object()) replicates->fail("expected the replicates object");
    report.replicates = replicates->raw();
  }
  report.unknown_fields = root.unread_members();  // kept and written back unchanged
  return report;
}

RunReport read_results_file(const std::string& path) { return results_from_json(read_json_file(path), path); }

}  // namespace pperf
