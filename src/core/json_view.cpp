#include "src/core/json_view.h"

#include <cmath>
#include <fstream>
#include <sstream>

namespace pperf {

namespace {
std::string escape_pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::string type_name(const nlohmann::json& j) {
  if (j.is_number_integer() || j.is_number_unsigned()) return "integer";
  if (j.is_number()) return "number";
  return j.type_name();
}
}  // namespace

namespace {
/// Tracks the JSON pointer of the value being parsed, so a failure inside the parser (e.g. a
/// number that overflows a double) can still name where it is.
class PointerTracker {
 public:
  bool on_event(nlohmann::json::parse_event_t event, const nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    switch (event) {
      case E::object_start: frames_.push_back({false, 0, ""}); break;
      case E::array_start: frames_.push_back({true, 0, ""}); break;
      case E::key: if (!frames_.empty()) frames_.back().key = parsed.get<std::string>(); break;
      case E::object_end:
      case E::array_end:
        if (!frames_.empty()) frames_.pop_back();
        value_done();
        break;
      case E::value: value_done(); break;
    }
    return true;
  }
  std::string pointer() const {
    std::string out;
    for (const auto& f : frames_) out += "/" + (f.array ? std::to_string(f.index) : escape_pointer_token(f.key));
    return out;
  }

 private:
  struct Frame {
    bool array;
    size_t index;
    std::string key;
  };
  void value_done() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }
  std::vector<Frame> frames_;
};

/// nlohmann's message without its "[json.exception.x.n] " prefix.
std::string library_message(const std::exception& e) {
  std::string message = e.what();
  if (message.rfind("[json.exception.", 0) == 0) message = message.substr(message.find(']') + 2);
  return message;
}
}  // namespace

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "", "cannot open file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw InputError(path, "", "empty file (expected JSON)");
  PointerTracker tracker;
  try {
    return nlohmann::json::parse(text, [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
      return tracker.on_event(event, parsed);
    });
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path, "", library_message(e));
  } catch (const nlohmann::json::exception& e) {  // e.g. 406: a number that overflows a double
    throw InputError(path, tracker.pointer(), library_message(e));
  }
}

JsonView::JsonView(const nlohmann::json& value, std::string file, std::string pointer)
    : value_(&value),
      file_(std::move(file)),
      pointer_(std::move(pointer)),
      asked_(value.is_object() ? std::make_shared<std::set<std::string>>() : nullptr) {}

void JsonView::fail(const std::string& message) const {
  throw InputError(file_, pointer_.empty() ? "/" : pointer_, message);
}

const JsonView& JsonView::expect_object(const std::vector<std::string>& allowed) const {
  if (!value_->is_object()) fail("expected an object, got " + type_name(*value_));
  for (const auto& [key, _] : value_->items()) {
    bool known = false;
    for (const auto& a : allowed) known = known || a == key;
    if (!known) {
      JsonView(*value_, file_, pointer_ + "/" + escape_pointer_token(key))
          .fail("unknown key '" + key + "'" + did_you_mean(key, allowed));
    }
  }
  return *this;
}

bool JsonView::has(const std::string& key) const {
  if (asked_) asked_->insert(key);
  return value_->is_object() && value_->contains(key);
}

nlohmann::json JsonView::unread_members() const {
  if (!value_->is_object()) fail("expected an object, got " + type_name(*value_));
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : value_->items())
    if (!asked_->count(key)) out[key] = value;
  return out;
}

JsonView JsonView::at(const std::string& key) const {
  if (!value_->is_object()) fail("expected an object, got " + type_name(*value_));
  asked_->insert(key);
  auto it = value_->find(key);
  if (it == value_->end()) {
    JsonView(*value_, file_, pointer_ + "/" + escape_pointer_token(key))
        .fail("missing required field");
  }
  return JsonView(*it, file_, pointer_ + "/" + escape_pointer_token(key));
}

std::optional<JsonView> JsonView::find(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return at(key);
}

std::optional<JsonView> JsonView::find_value(const std::string& key) const {
  auto v = find(key);
  if (v && v->is_null()) return std::nullopt;
  return v;
}

std::vector<JsonView> JsonView::items() const {
  if (!value_->is_array()) fail("expected an array, got " + type_name(*value_));
  std::vector<JsonView> out;
  for (size_t i = 0; i < value_->size(); ++i)
    out.emplace_back((*value_)[i], file_, pointer_ + "/" + std::to_string(i));
  return out;
}

std::vector<std::string> JsonView::keys() const {
  if (!value_->is_object()) fail("expected an object, got " + type_name(*value_));
  std::vector<std::string> out;
  for (const auto& [key, _] : value_->items()) out.push_back(key);
  return out;
}

std::string JsonView::as_string() const {
  if (!value_->is_string()) fail("expected a string, got " + type_name(*value_));
  return value_->get<std::string>();
}

bool JsonView::as_bool() const {
  if (!value_->is_boolean()) fail("expected true or false, got " + type_name(*value_));
  return value_->get<bool>();
}

double JsonView::as_number() const {
  if (!value_->is_number()) fail("expected a number, got " + type_name(*value_));
  double v = value_->get<double>();
  if (!std::isfinite(v)) fail("expected a finite number");
  return v;
}

double JsonView::as_positive_number() const {
  double v = as_number();
  if (!(v > 0)) fail("must be > 0, got " + value_->dump());
  return v;
}

int64_t JsonView::as_int() const {
  if (!value_->is_number_integer()) fail("expected an integer, got " + value_->dump());
  return value_->get<int64_t>();
}

int64_t JsonView::as_positive_int() const {
  int64_t v = as_int();
  if (v <= 0) fail("must be a positive integer, got " + std::to_string(v));
  return v;
}

int64_t JsonView::as_non_negative_int() const {
  int64_t v = as_int();
  if (v < 0) fail("must be >= 0, got " + std::to_string(v));
  return v;
}

std::string JsonView::as_choice(const std::vector<std::string>& choices) const {
  std::string v = as_string();
  for (const auto& c : choices)
    if (c == v) return v;
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
  fail("'" + v + "' is not one of " + list + did_you_mean(v, choices));
}

std::array<double, 2> JsonView::as_pair() const {
  const auto pair = items();
  if (pair.size() != 2) fail("expected [lo, hi]");
  return {pair[0].as_number(), pair[1].as_number()};
}

std::vector<double> JsonView::as_numbers() const {
  std::vector<double> out;
  for (const auto& item : items()) out.push_back(item.as_number());
  return out;
}

std::vector<int> JsonView::as_ints() const {
  std::vector<int> out;
  for (const auto& item : items()) out.push_back(static_cast<int>(item.as_int()));
  return out;
}

std::vector<std::string> JsonView::as_strings() const {
  std::vector<std::string> out;
  for (const auto& item : items()) out.push_back(item.as_string());
  return out;
}

std::optional<double> JsonView::find_number(const std::string& key) const {
  auto v = find_value(key);
  return v ? std::optional<double>(v->as_number()) : std::nullopt;
}

std::string JsonView::string_or(const std::string& key, const std::string& fallback) const {
  auto v = find(key);
  return v ? v->as_string() : fallback;
}
bool JsonView::bool_or(const std::string& key, bool fallback) const {
  auto v = find(key);
  return v ? v->as_bool() : fallback;
}
double JsonView::number_or(const std::string& key, double fallback) const {
  auto v = find(key);
  return v ? v->as_number() : fallback;
}
int64_t JsonView::positive_int_or(const std::string& key, int64_t fallback) const {
  auto v = find(key);
  return v ? v->as_positive_int() : fallback;
}

}  // namespace pperf
