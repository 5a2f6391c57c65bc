#include "src/core/decide_record.h"

namespace pperf {

using nlohmann::json;

const NoInterval* DecideRecord::no_interval_of(const std::string& workload, const std::string& configuration) const {
  for (const auto& n : no_interval)
    if (n.workload == workload && n.configuration == configuration) return &n;
  return nullptr;
}

namespace {
json to_json(const DecideInput& in) {
  json j = in.unknown_fields;
  write_fields(j, in, kDecideInputFields);
  j["placement"] = in.placement ? to_json(*in.placement) : json(nullptr);
  j["machine"] = json::object();
  write_fields(j["machine"], in.machine, kDecideMachineFields);
  j["pricing"] = json::object();
  write_fields(j["pricing"], in.pricing, kDecideInputPricingFields);
  return j;
}

DecideInput read_input(const JsonView& v) {
  if (!v.raw().is_object()) v.fail("expected an input object");
  DecideInput in;
  read_fields(v, in, kDecideInputFields);
  if (const auto placement = v.find_value("placement")) in.placement = read_placement(*placement);
  const JsonView machine = v.at("machine");
  if (!machine.raw().is_object()) machine.fail("expected the input's machine object");
  read_fields(machine, in.machine, kDecideMachineFields);
  const JsonView pricing = v.at("pricing");
  if (!pricing.raw().is_object()) pricing.fail("expected the input's pricing object");
  read_fields(pricing, in.pricing, kDecideInputPricingFields);
  in.unknown_fields = v.unread_members();
  return in;
}

/// A list of records, each an object of `fields`.
template <typename Record, typename Fields>
json rows(const std::vector<Record>& records, const Fields& fields) {
  json out = json::array();
  for (const auto& r : records) {
    json row = json::object();
    write_fields(row, r, fields);
    out.push_back(std::move(row));
  }
  return out;
}
template <typename Record, typename Fields>
std::vector<Record> read_rows(const JsonView& v, const Fields& fields) {
  std::vector<Record> out;
  for (const auto& item : v.items()) {
    if (!item.raw().is_object()) item.fail("expected an object");
    read_fields(item, out.emplace_back(), fields);
  }
  return out;
}
}  // namespace

json to_json(const DecideRecord& decide) {
  json j = decide.unknown_fields;
  write_fields(j, decide, kDecideRecordFields);
  j["inputs"] = json::array();
  for (const auto& in : decide.inputs) j["inputs"].push_back(to_json(in));
  j["pricing"] = json::object();
  write_fields(j["pricing"], decide.pricing, kDecidePricingFields);
  j["accepted"] = rows(decide.accepted, kAcceptedDifferenceFields);
  if (!decide.no_interval.empty()) j["no_interval"] = rows(decide.no_interval, kNoIntervalFields);
  return j;
}

DecideRecord read_decide(const JsonView& v) {
  if (!v.raw().is_object()) v.fail("expected the decide object");
  DecideRecord decide;
  read_fields(v, decide, kDecideRecordFields);
  for (const auto& in : v.at("inputs").items()) decide.inputs.push_back(read_input(in));
  const JsonView pricing = v.at("pricing");
  if (!pricing.raw().is_object()) pricing.fail("expected the pricing object");
  read_fields(pricing, decide.pricing, kDecidePricingFields);
  decide.accepted = read_rows<AcceptedDifference>(v.at("accepted"), kAcceptedDifferenceFields);
  if (const auto none = v.find("no_interval")) decide.no_interval = read_rows<NoInterval>(*none, kNoIntervalFields);
  decide.unknown_fields = v.unread_members();
  return decide;
}

}  // namespace pperf
