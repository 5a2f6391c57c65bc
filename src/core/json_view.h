#pragma once
// Typed, path-tracking reads of a JSON document. Every failure is an InputError naming the file
// and the JSON pointer of the offending value, so loaders never format their own error lines.
#include <nlohmann/json.hpp>

#include <array>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "src/core/input_error.h"

namespace pperf {

/// Parses FILE as JSON. A missing or empty file, a syntax error (with line and column) or a
/// number out of range (with its JSON pointer) is an InputError naming the file.
nlohmann::json read_json_file(const std::string& path);

/// The writer's side of an optional figure: the value, or null (docs/results.md: a field that
/// does not apply is present with value null).
template <typename T>
nlohmann::json value_or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

class JsonView {
 public:
  JsonView(const nlohmann::json& value, std::string file, std::string pointer = "");

  const nlohmann::json& raw() const { return *value_; }
  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }

  [[noreturn]] void fail(const std::string& message) const;

  /// Requires an object whose keys are all in `allowed` (suggesting the nearest on a typo).
  const JsonView& expect_object(const std::vector<std::string>& allowed) const;
  bool has(const std::string& key) const;
  /// A required member: missing -> "missing required field".
  JsonView at(const std::string& key) const;
  std::optional<JsonView> find(const std::string& key) const;
  /// Like find, but a member that is null counts as absent.
  std::optional<JsonView> find_value(const std::string& key) const;
  bool is_null() const { return value_->is_null(); }
  std::vector<JsonView> items() const;  // requires an array
  std::vector<std::string> keys() const;  // requires an object, in document order
  /// The members of this object no lookup (has, at, find, ..._or) on this view or a copy of it
  /// has asked for: what a reader does not know, derived from what it reads, so a results
  /// reader keeps an unknown field without a hand-kept list of the known ones.
  nlohmann::json unread_members() const;

  std::string as_string() const;
  bool as_bool() const;
  double as_number() const;
  double as_positive_number() const;
  int64_t as_int() const;
  int64_t as_positive_int() const;
  int64_t as_non_negative_int() const;
  /// A string that must be one of `choices`.
  std::string as_choice(const std::vector<std::string>& choices) const;
  /// [lo, hi]: an array of exactly two numbers.
  std::array<double, 2> as_pair() const;
  std::vector<double> as_numbers() const;
  std::vector<int> as_ints() const;
  std::vector<std::string> as_strings() const;
  /// An optional number: nullopt when the member is absent or null.
  std::optional<double> find_number(const std::string& key) const;

  // Optional members with defaults, typed as above.
  std::string string_or(const std::string& key, const std::string& fallback) const;
  bool bool_or(const std::string& key, bool fallback) const;
  double number_or(const std::string& key, double fallback) const;
  int64_t positive_int_or(const std::string& key, int64_t fallback) const;

 private:
  const nlohmann::json* value_;
  std::string file_;
  std::string pointer_;
  std::shared_ptr<std::set<std::string>> asked_;  // objects only: keys looked up so far
};

}  // namespace pperf
