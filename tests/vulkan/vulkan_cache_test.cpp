// The Vulkan backend's pipeline cache on disk (plugins/vulkan/pipeline_cache.hpp): written on
// device close into OPENINFER_VULKAN_CACHE_DIR, and any damaged, foreign or unreadable file is
// ignored (the backend still computes right) and replaced by a good one. Exits 77 (CTest:
// skipped) without a Vulkan device.
#define BOOST_TEST_MODULE vulkan_cache
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>

#include "openinfer/plugin_host.hpp"

namespace fs = std::filesystem;
using oi::DType;

namespace {

std::string plugin_dir() {
  const char* v = std::getenv("OPENINFER_TEST_PLUGIN_DIR");
  return v != nullptr && *v != '\0' ? v : PLUGIN_DIR;
}

const fs::path& cache_dir() {
  static const fs::path dir = [] {
    auto d = fs::temp_directory_path() /
             ("oi-vkcache-" + std::to_string(std::random_device{}()) + "-" +
              std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    fs::create_directories(d);
    setenv("OPENINFER_VULKAN_CACHE_DIR", d.c_str(), 1);
    return d;
  }();
  return dir;
}

// One process's worth of use: open the device, add two vectors, check, close.
void use_device_once() {
  cache_dir();
  auto registry = oi::PluginRegistry::discover({plugin_dir()});
  auto gpu = registry.backend("vulkan");
  const std::vector<float> a{1.5f, -2.0f, 3.25f}, b{0.5f, 4.0f, -0.25f};
  const std::vector<uint64_t> dims{3};
  auto ba = gpu->alloc(12), bb = gpu->alloc(12), by = gpu->alloc(12);
  gpu->upload(*ba, 0, std::as_bytes(std::span(a)));
  gpu->upload(*bb, 0, std::as_bytes(std::span(b)));
  oi::TensorArg ins[] = {{DType::f32, dims, ba.get(), 0}, {DType::f32, dims, bb.get(), 0}};
  oi::TensorArg outs[] = {{DType::f32, dims, by.get(), 0}};
  const auto* k =
      gpu->find_kernel("add", {{DType::f32, DType::f32}}, DType::f32, oi::KernelMode::Normal);
  BOOST_TEST_REQUIRE(k != nullptr);
  gpu->run(*k, ins, outs, {});
  std::vector<float> y(3);
  gpu->download(*by, 0, std::as_writable_bytes(std::span(y)));
  BOOST_TEST(y == (std::vector<float>{2.0f, 2.0f, 3.0f}), boost::test_tools::per_element());
}

std::vector<fs::path> cache_files() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(cache_dir())) {
    if (e.path().filename().string().starts_with("pipelines-")) out.push_back(e.path());
  }
  return out;
}

std::vector<char> read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void write(const fs::path& p, const std::vector<char>& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc).write(bytes.data(), bytes.size());
}

uint64_t fnv1a(const char* data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) h = (h ^ static_cast<uint8_t>(data[i])) * 0x100000001b3ull;
  return h;
}

// A well-formed file (magic, size, hash): the one written by the first use.
bool well_formed(const std::vector<char>& f) {
  if (f.size() < 24 + 32 || std::string(f.data(), 8) != "OIVKPC01") return false;
  uint64_t size, hash;
  std::memcpy(&size, f.data() + 8, 8);
  std::memcpy(&hash, f.data() + 16, 8);
  return size == f.size() - 24 && hash == fnv1a(f.data() + 24, size);
}

}  // namespace

BOOST_AUTO_TEST_CASE(closing_the_device_writes_a_well_formed_cache) {
  use_device_once();
  const auto files = cache_files();
  BOOST_TEST_REQUIRE(files.size() == 1u);
  const auto bytes = read(files[0]);
  BOOST_TEST(well_formed(bytes));
  use_device_once();  // a good file is loaded and left alone
  BOOST_TEST((read(files[0]) == bytes));
  BOOST_TEST(cache_files().size() == 1u);
}

BOOST_AUTO_TEST_CASE(damaged_or_foreign_cache_files_are_ignored_and_replaced) {
  use_device_once();
  const fs::path file = cache_files().at(0);
  const auto good = read(file);
  std::vector<std::pair<std::string, std::vector<char>>> damaged;
  damaged.push_back({"empty", {}});
  damaged.push_back({"truncated header", {good.begin(), good.begin() + 10}});
  damaged.push_back({"truncated payload", {good.begin(), good.end() - 1}});
  damaged.push_back({"trailing bytes", good});
  damaged.back().second.push_back('x');
  auto flipped = good;
  flipped[good.size() / 2 + 12] ^= 0x5a;
  damaged.push_back({"flipped payload byte", flipped});
  // Another driver's cache: pipelineCacheUUID changed, hash made consistent again.
  auto foreign = good;
  foreign[24 + 16] ^= 0x01;
  const uint64_t hash = fnv1a(foreign.data() + 24, foreign.size() - 24);
  std::memcpy(foreign.data() + 16, &hash, 8);
  damaged.push_back({"foreign uuid", foreign});
  auto huge = good;
  const uint64_t size = ~uint64_t{0};
  std::memcpy(huge.data() + 8, &size, 8);
  damaged.push_back({"absurd size", huge});
  std::mt19937 rng(7);
  std::vector<char> noise(1 << 16);
  for (char& c : noise) c = static_cast<char>(rng());
  damaged.push_back({"noise", noise});
  auto noisy_body = good;
  for (size_t i = 24; i < noisy_body.size(); ++i) noisy_body[i] = static_cast<char>(rng());
  damaged.push_back({"noise after the magic", noisy_body});
  for (const auto& [what, bytes] : damaged) {
    BOOST_TEST_CONTEXT(what) {
      write(file, bytes);
      BOOST_CHECK_NO_THROW(use_device_once());
      BOOST_TEST(well_formed(read(file)));
    }
  }
}

BOOST_AUTO_TEST_CASE(an_unwritable_cache_location_is_harmless) {
  const fs::path file = cache_files().at(0);
  fs::remove(file);
  fs::create_directory(file);  // a directory where the file belongs
  BOOST_CHECK_NO_THROW(use_device_once());
  BOOST_TEST(fs::is_directory(file));
  fs::remove(file);
}

int main(int argc, char* argv[]) {
  int rc = 1;
  try {
    auto registry = oi::PluginRegistry::discover({plugin_dir()});
    bool has_device = false;
    for (const auto& p : registry.plugins())
      has_device |= p.name == "vulkan" && !p.device_name.empty();
    if (!has_device) {
      std::cout << "SKIPPED: no Vulkan device\n";
      return 77;
    }
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  rc = boost::unit_test::unit_test_main(&init_unit_test, argc, argv);
  std::error_code ec;
  fs::remove_all(cache_dir(), ec);
  return rc;
}
