#pragma once
#include <string>

namespace pperf {
/// Replaces `path` with `contents` atomically: written to a temporary file beside it, flushed
/// to disk, then renamed over it, so a reader sees the old file or the new one, never a torn
/// one. Creates missing parent directories. Throws std::runtime_error on I/O failure.
void write_file_atomically(const std::string& path, const std::string& contents);
/// The whole file; std::runtime_error naming it when it cannot be read.
std::string read_text_file(const std::string& path);
}  // namespace pperf
