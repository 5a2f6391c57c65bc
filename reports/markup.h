#pragma once
// Text escaping and short labels shared by the writers (HTML, JUnit XML, Markdown).
#include <string>

namespace pperf {

/// `s` safe inside HTML or XML text and attribute values; control characters XML 1.0 forbids
/// become spaces.
std::string markup_escape(const std::string& s);
/// `s` safe inside a GitHub-flavoured Markdown table cell or emphasis.
std::string markdown_escape(const std::string& s);
/// The first 12 characters of a git sha (what people compare by eye).
std::string short_sha(const std::string& sha);

}  // namespace pperf
