// A read-only POSIX memory mapping of a whole file. Pages are read by the kernel on first
// touch, which is what makes tensor payloads lazy.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

namespace oi::oinf {

class FileMapping {
 public:
  // Throws oi::Error (Input) naming `origin` when the file cannot be opened or mapped.
  static std::shared_ptr<const FileMapping> open(const std::filesystem::path& path,
                                                 const std::string& origin);
  ~FileMapping();
  FileMapping(const FileMapping&) = delete;
  FileMapping& operator=(const FileMapping&) = delete;

  std::span<const std::byte> bytes() const { return {data_, size_}; }

 private:
  FileMapping(const std::byte* data, size_t size) : data_(data), size_(size) {}
  const std::byte* data_;  // nullptr for an empty file (mmap refuses length 0)
  size_t size_;
};

}  // namespace oi::oinf
