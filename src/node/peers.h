#pragma once
// How a launched job's hosts find each other: a TCP port that answers at a host's name or address, and the peers directory (a bucket every host mounts) where data hosts
// publish their addresses and the trainer its start; and the TLS files the job brings.
#include <cstdint>
#include <filesystem>
#include <string>

namespace pperf::node {

/// Whether `host:port` accepts a TCP connection now (resolving the name anew each time: a host's
/// name may not resolve yet when the job starts).
bool accepts_connections(const std::string& host, int64_t port);

/// What `host` published in `peers_dir` (its address), "" while it has not.
std::string published_address(const std::filesystem::path& peers_dir, const std::string& host);
/// Writes `address` as `key` in `peers_dir` (whole: written beside, then renamed); says so on
/// stderr after `tag`.
void publish(const std::string& tag, const std::filesystem::path& peers_dir, const std::string& key, const std::string& address);

/// What the trainer trusts: the TLS directory's CA, else its (self-signed) certificate; "" = plaintext.
std::filesystem::path trusted_ca(const std::filesystem::path& tls_dir);
/// The TLS directory's files, refused (InputError naming the file) when one is missing: the
/// job's TLS files did not arrive by `origin`.
void check_tls_dir(const std::filesystem::path& tls_dir, const std::string& origin);

}  // namespace pperf::node
