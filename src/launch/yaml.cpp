#include "src/launch/yaml.h"

#include <yaml-cpp/yaml.h>

namespace pperf {

namespace {
void emit(YAML::Emitter& out, const nlohmann::ordered_json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::object:
      out << YAML::BeginMap;
      for (const auto& [key, value] : v.items()) {
        out << YAML::Key << key << YAML::Value;
        emit(out, value);
      }
      out << YAML::EndMap;
      break;
    case nlohmann::json::value_t::array:
      out << YAML::BeginSeq;
      for (const auto& item : v) emit(out, item);
      out << YAML::EndSeq;
      break;
    case nlohmann::json::value_t::string: {
      const auto& s = v.get_ref<const std::string&>();
      if (s.find('\n') != std::string::npos)
        out << YAML::Literal << s;
      else
        out << YAML::DoubleQuoted << s;  // never read back as a number, a boolean or null
      break;
    }
    case nlohmann::json::value_t::boolean: out << v.get<bool>(); break;
    case nlohmann::json::value_t::number_integer: out << v.get<int64_t>(); break;
    case nlohmann::json::value_t::number_unsigned: out << v.get<uint64_t>(); break;
    case nlohmann::json::value_t::number_float: out << v.get<double>(); break;
    default: out << YAML::Null; break;
  }
}
}  // namespace

std::string yaml_documents(const std::vector<nlohmann::ordered_json>& documents) {
  YAML::Emitter out;
  for (const auto& d : documents) {
    out << YAML::BeginDoc;
    emit(out, d);
  }
  std::string text = out.c_str();
  if (text.empty() || text.back() != '\n') text += '\n';
  return text;
}

}  // namespace pperf
