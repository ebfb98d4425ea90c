// SHA-256 (FIPS 180-4) of a byte string, as lowercase hex: what `sha256sum` prints. Files the
// search reads (value networks) are named by it in results, so a user can check which file played.
#pragma once

#include <string>
#include <string_view>

namespace carc {

std::string sha256_hex(std::string_view bytes);

// The SHA-256 of a file's bytes; throws std::runtime_error if it cannot be read.
std::string file_sha256_hex(const std::string& path);

}  // namespace carc
