#include "atomic_file.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "openinfer/error.hpp"

namespace oi::oinf {
namespace {
constexpr size_t kBufferBytes = size_t{1} << 20;
}

AtomicFile::AtomicFile(std::filesystem::path target) : target_(std::move(target)) {
  temp_path_ = target_.string() + ".tmp.XXXXXX";
  fd_ = ::mkstemp(temp_path_.data());
  if (fd_ < 0) {
    const std::string reason = std::strerror(errno);
    throw input_error(target_.string() + ": cannot create a temporary file to write: " + reason);
  }
  buffer_.reserve(kBufferBytes);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(temp_path_.c_str());
  }
}

void AtomicFile::fail(const std::string& what) {
  const std::string reason = std::strerror(errno);
  ::close(fd_);
  ::unlink(temp_path_.c_str());
  fd_ = -1;
  throw input_error(target_.string() + ": cannot " + what + ": " + reason);
}

void AtomicFile::flush_buffer() {
  size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write");
    done += static_cast<size_t>(n);
  }
  buffer_.clear();
}

void AtomicFile::write(std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    const size_t take = std::min(bytes.size(), kBufferBytes - buffer_.size());
    buffer_.insert(buffer_.end(), bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(take));
    bytes = bytes.subspan(take);
    if (buffer_.size() == kBufferBytes) flush_buffer();
  }
}

void AtomicFile::commit() {
  flush_buffer();
  // mkstemp creates 0600; a model file is an ordinary readable document. (Reading the umask
  // would mean changing it, which races with other threads.)
  if (::fchmod(fd_, 0644) != 0) fail("set permissions");
  if (::fsync(fd_) != 0) fail("flush");
  if (::close(fd_) != 0) {
    fd_ = -1;
    ::unlink(temp_path_.c_str());
    throw input_error(target_.string() + ": cannot close the written file");
  }
  fd_ = -1;
  if (::rename(temp_path_.c_str(), target_.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    ::unlink(temp_path_.c_str());
    throw input_error(target_.string() +
                      ": cannot rename the temporary file into place: " + reason);
  }
}

}  // namespace oi::oinf
