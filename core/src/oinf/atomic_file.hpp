// Writes a file atomically: bytes go to a temporary file next to the target, which is
// renamed over the target only after everything was written and flushed. Readers never see
// a partial file; on failure (or without commit) the temporary file is removed.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace oi::oinf {

class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path target);  // throws oi::Error (Input)
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::span<const std::byte> bytes);  // buffered
  void commit();                                 // flush, fsync, rename

 private:
  void flush_buffer();
  [[noreturn]] void fail(const std::string& what);

  std::filesystem::path target_;
  std::string temp_path_;
  int fd_ = -1;
  std::vector<std::byte> buffer_;
};

}  // namespace oi::oinf
