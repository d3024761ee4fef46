// OINF open benchmark (run through bench/oinf_open.sh).
//   oinf_open_bench write FILE [MIB] writes a package of 1,000 f32 tensors, one of 4 MiB,
//                                     MIB in all (default 1024)
//   oinf_open_bench measure FILE reports Model::open time, resident memory and first access
// Measuring runs in a fresh process so the writer's memory does not blur the RSS numbers.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "openinfer/model.hpp"

namespace {

constexpr int kTensors = 1000;
constexpr uint64_t kBigBytes = uint64_t{4} << 20;
const char* const kBigName = "w0500";

std::string tensor_name(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "w%04d", i);
  return buf;
}

long vm_rss_kib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

// Drops the file's clean pages from the page cache so the next reads come from disk.
void evict_page_cache(const char* path) {
  const int fd = ::open(path, O_RDONLY);
  if (fd < 0) return;
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

int write_package(const char* path, uint64_t total_bytes) {
  const uint64_t small_numel = (total_bytes - kBigBytes) / (kTensors - 1) / 4;
  oi::ModelWriter w;
  w.add_sizevar("N", small_numel);
  for (int i = 0; i < kTensors; ++i) {
    const std::string name = tensor_name(i);
    const uint64_t numel = name == kBigName ? kBigBytes / 4 : small_numel;
    oi::Tensor t(oi::DType::f32, {numel});
    auto values = t.as_mut<float>();
    for (uint64_t j = 0; j < numel; ++j)
      values[j] = static_cast<float>(i) + static_cast<float>(j % 1024);
    w.add_tensor(name, std::move(t));
  }
  const auto t0 = std::chrono::steady_clock::now();
  w.write(path);
  std::printf("wrote %s: %d tensors in %.0f ms\n", path, kTensors, ms_since(t0));
  return 0;
}

int measure(const char* path) {
  evict_page_cache(path);
  const long rss_before = vm_rss_kib();
  auto t0 = std::chrono::steady_clock::now();
  auto model = oi::Model::open(path);
  const double cold_open_ms = ms_since(t0);
  const long rss_after_open = vm_rss_kib();

  std::vector<double> warm;
  for (int i = 0; i < 21; ++i) {
    t0 = std::chrono::steady_clock::now();
    auto again = oi::Model::open(path);
    warm.push_back(ms_since(t0));
  }
  std::sort(warm.begin(), warm.end());
  const long rss_after_opens = vm_rss_kib();

  evict_page_cache(path);
  t0 = std::chrono::steady_clock::now();
  const auto big = model.tensor(kBigName);
  uint64_t sum = 0;
  for (std::byte b : big.bytes()) sum += std::to_integer<uint64_t>(b);
  const double first_touch_ms = ms_since(t0);
  const long rss_after_touch = vm_rss_kib();

  std::printf("file: %llu bytes, %zu tensors\n", static_cast<unsigned long long>(model.file_size()),
              model.tensors().size());
  std::printf("Model::open, cold page cache:        %.3f ms\n", cold_open_ms);
  std::printf("Model::open, median of %zu warm opens: %.3f ms (min %.3f, max %.3f)\n", warm.size(),
              warm[warm.size() / 2], warm.front(), warm.back());
  std::printf("VmRSS before open:  %ld KiB\n", rss_before);
  std::printf("VmRSS after open:   %ld KiB (+%ld KiB)\n", rss_after_open,
              rss_after_open - rss_before);
  std::printf("VmRSS after %zu more opens: %ld KiB\n", warm.size(), rss_after_opens);
  std::printf(
      "first access of %s (%llu bytes, every byte read, cold cache): %.3f ms (checksum %llu)\n",
      kBigName, static_cast<unsigned long long>(big.nbytes()), first_touch_ms,
      static_cast<unsigned long long>(sum));
  std::printf("VmRSS after that access: %ld KiB (+%ld KiB)\n", rss_after_touch,
              rss_after_touch - rss_after_opens);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if ((argc == 3 || argc == 4) && std::strcmp(argv[1], "write") == 0) {
    const uint64_t mib = argc == 4 ? std::strtoull(argv[3], nullptr, 10) : 1024;
    if (mib < 8) {
      std::fprintf(stderr, "oinf_open_bench: MIB must be at least 8\n");
      return 2;
    }
    return write_package(argv[2], mib << 20);
  }
  if (argc == 3 && std::strcmp(argv[1], "measure") == 0) return measure(argv[2]);
  std::fprintf(stderr, "usage: %s write FILE [MIB] | measure FILE\n", argv[0]);
  return 2;
}
