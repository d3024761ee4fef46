#include "file_mapping.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "openinfer/error.hpp"

namespace oi::oinf {
namespace {

// Closes the descriptor on every path; the mapping stays valid after close.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

[[noreturn]] void fail_errno(const std::string& origin, const char* what) {
  throw input_error(origin + ": cannot " + what + ": " + std::strerror(errno));
}

}  // namespace

std::shared_ptr<const FileMapping> FileMapping::open(const std::filesystem::path& path,
                                                     const std::string& origin) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail_errno(origin, "open the file");
  FdCloser closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail_errno(origin, "stat the file");
  if (!S_ISREG(st.st_mode)) throw input_error(origin + ": not a regular file");
  const auto size = static_cast<size_t>(st.st_size);
  if (size == 0) return std::shared_ptr<const FileMapping>(new FileMapping(nullptr, 0));
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) fail_errno(origin, "map the file");
  return std::shared_ptr<const FileMapping>(
      new FileMapping(static_cast<const std::byte*>(p), size));
}

FileMapping::~FileMapping() {
  if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
}

}  // namespace oi::oinf
