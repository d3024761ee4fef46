// The Vulkan backend's batched submission (plugins/vulkan/command_stream.hpp) through the plugin
// host: long chains of dependent dispatches recorded without waits, uploads and device copies
// interleaved with the dispatches that read them, buffers freed right after a dispatch reads
// them, reused buffers reading zeros, downloads in the middle of a batch, parameter arenas that
// overflow, transfers larger than a staging piece, and two threads taking turns. Every expected
// value is a formula. Exits 77 (CTest: skipped) when no Vulkan device exists.
#define BOOST_TEST_MODULE vulkan_batching
#define BOOST_TEST_NO_MAIN
#include <bit>
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "openinfer/error.hpp"
#include "openinfer/plugin_host.hpp"

using oi::DType;

namespace {

const std::string& plugin_dir() {
  static const std::string dir = [] {
    const char* v = std::getenv("OPENINFER_TEST_PLUGIN_DIR");
    return std::string(v != nullptr && *v != '\0' ? v : PLUGIN_DIR);
  }();
  return dir;
}

oi::PluginRegistry& registry() {
  static oi::PluginRegistry r = oi::PluginRegistry::discover({plugin_dir()});
  return r;
}

std::shared_ptr<oi::Backend> gpu() {
  static std::shared_ptr<oi::Backend> b = registry().backend("vulkan");
  return b;
}

using Buffer = std::shared_ptr<oi::DeviceBuffer>;

template <class T>
Buffer upload(const std::vector<T>& values) {
  auto buf = gpu()->alloc(values.size() * sizeof(T));
  gpu()->upload(*buf, 0, std::as_bytes(std::span(values)));
  return buf;
}

template <class T>
void overwrite(oi::DeviceBuffer& buf, const std::vector<T>& values, uint64_t offset = 0) {
  gpu()->upload(buf, offset, std::as_bytes(std::span(values)));
}

template <class T>
std::vector<T> download(const oi::DeviceBuffer& buf, uint64_t count, uint64_t offset = 0) {
  std::vector<T> out(count);
  gpu()->download(buf, offset, std::as_writable_bytes(std::span(out)));
  return out;
}

const oi::Kernel& kernel(const std::string& op, std::vector<DType> in, DType out,
                         oi::KernelMode mode) {
  const oi::Kernel* k = gpu()->find_kernel(op, in, out, mode);
  BOOST_TEST_REQUIRE(k != nullptr, "no vulkan kernel " << op);
  return *k;
}

// y = a + b on f32 vectors of `n` elements (y may be a: the in-place kernel then).
void add(const Buffer& a, const Buffer& b, const Buffer& y, uint64_t n) {
  const bool inplace = y == a;
  const auto& k = kernel("add", {DType::f32, DType::f32}, DType::f32,
                         inplace ? oi::KernelMode::InPlace : oi::KernelMode::Normal);
  const std::vector<uint64_t> dims{n};
  oi::TensorArg ins[] = {{DType::f32, dims, a.get(), 0}, {DType::f32, dims, b.get(), 0}};
  oi::TensorArg outs[] = {{DType::f32, dims, y.get(), 0}};
  gpu()->run(k, ins, outs, {});
}

// How many elements of `got` differ from `want` (one message for the first).
size_t mismatches(const std::vector<float>& got, float want, const std::string& what) {
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want) {
      if (bad == 0) BOOST_TEST_MESSAGE(what << "[" << i << "] = " << got[i] << ", want " << want);
      ++bad;
    }
  }
  return bad;
}

constexpr uint64_t kN = 16;

}  // namespace

BOOST_AUTO_TEST_CASE(two_thousand_dependent_adds_then_one_download) {
  auto x = gpu()->alloc(kN * 4);  // zeros
  auto one = upload(std::vector<float>(kN, 1.0f));
  for (int i = 0; i < 2000; ++i) add(x, one, x, kN);
  BOOST_TEST(mismatches(download<float>(*x, kN), 2000.0f, "x") == 0u);
}

BOOST_AUTO_TEST_CASE(ping_pong_chain_between_two_buffers) {
  // a -> b -> a ...: every dispatch reads what the one before wrote into another buffer.
  auto a = gpu()->alloc(kN * 4);
  auto b = gpu()->alloc(kN * 4);
  auto one = upload(std::vector<float>(kN, 1.0f));
  for (int i = 0; i < 1001; ++i) add(i % 2 == 0 ? a : b, one, i % 2 == 0 ? b : a, kN);
  BOOST_TEST(mismatches(download<float>(*b, kN), 1001.0f, "b") == 0u);
  BOOST_TEST(mismatches(download<float>(*a, kN), 1000.0f, "a") == 0u);
}

BOOST_AUTO_TEST_CASE(small_uploads_between_dispatches_are_seen_in_order) {
  // c is overwritten before every add: each add must read the value uploaded just before it
  // (not a later one), so acc = 0 + 1 + ... + 499.
  auto acc = gpu()->alloc(kN * 4);
  auto c = gpu()->alloc(kN * 4);
  for (int i = 0; i < 500; ++i) {
    overwrite(*c, std::vector<float>(kN, static_cast<float>(i)));
    add(acc, c, acc, kN);
  }
  BOOST_TEST(mismatches(download<float>(*acc, kN), 499.0f * 500.0f / 2, "acc") == 0u);
  BOOST_TEST(mismatches(download<float>(*c, kN), 499.0f, "c") == 0u);
}

BOOST_AUTO_TEST_CASE(large_and_unaligned_uploads_between_dispatches_are_seen_in_order) {
  // 96 KiB uploads go through staging rather than into the command buffer.
  constexpr uint64_t n = 24 * 1024;
  auto acc = gpu()->alloc(n * 4);
  auto c = gpu()->alloc(n * 4);
  for (int i = 1; i <= 40; ++i) {
    overwrite(*c, std::vector<float>(n, static_cast<float>(i)));
    add(acc, c, acc, n);
  }
  BOOST_TEST(mismatches(download<float>(*acc, n), 40.0f * 41.0f / 2, "acc") == 0u);
  // Byte-granular writes (not word aligned: staged) after word-aligned ones (in the command
  // buffer), all before one download: the later write wins where they overlap.
  auto bytes = gpu()->alloc(64);
  std::vector<uint8_t> want(64, 0);
  for (int round = 0; round < 10; ++round) {
    const std::vector<uint8_t> whole(64, static_cast<uint8_t>(round));
    overwrite(*bytes, whole);
    std::fill(want.begin(), want.end(), static_cast<uint8_t>(round));
    const std::vector<uint8_t> odd(7, static_cast<uint8_t>(100 + round));
    overwrite(*bytes, odd, 3 + round);
    std::fill(want.begin() + 3 + round, want.begin() + 10 + round,
              static_cast<uint8_t>(100 + round));
  }
  BOOST_TEST(download<uint8_t>(*bytes, 64) == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(buffers_freed_right_after_a_dispatch_reads_them) {
  // 4,200 inputs, each freed as soon as its add is recorded: more than the free pool keeps
  // (4,096), so the rest are destroyed, which must wait for the batch that reads them.
  auto acc = gpu()->alloc(kN * 4);
  for (int i = 0; i < 4200; ++i) {
    auto t = upload(std::vector<float>(kN, static_cast<float>(i % 7)));
    add(acc, t, acc, kN);
  }  // t freed here, every time
  std::vector<Buffer> held;
  for (int i = 0; i < 4200; ++i) {
    held.push_back(upload(std::vector<float>(kN, 1.0f)));
    add(acc, held.back(), acc, kN);
  }
  held.clear();  // all at once, with their adds still recorded
  float want = 4200.0f;
  for (int i = 0; i < 4200; ++i) want += static_cast<float>(i % 7);
  BOOST_TEST(mismatches(download<float>(*acc, kN), want, "acc") == 0u);
}

BOOST_AUTO_TEST_CASE(reused_buffers_read_zeros) {
  // t comes from the free pool each round (same size, just freed) and must read as zero again,
  // although the last round left ones in it and nothing waited in between.
  auto acc = gpu()->alloc(kN * 4);
  auto one = upload(std::vector<float>(kN, 1.0f));
  for (int i = 0; i < 300; ++i) {
    auto t = gpu()->alloc(kN * 4);
    add(t, one, t, kN);  // t = 0 + 1
    add(acc, t, acc, kN);
  }
  BOOST_TEST(mismatches(download<float>(*acc, kN), 300.0f, "acc") == 0u);
  auto fresh = gpu()->alloc(kN * 4);
  BOOST_TEST(mismatches(download<float>(*fresh, kN), 0.0f, "fresh") == 0u);
}

BOOST_AUTO_TEST_CASE(downloads_in_the_middle_of_a_batch) {
  auto x = gpu()->alloc(kN * 4);
  auto one = upload(std::vector<float>(kN, 1.0f));
  size_t bad = 0;
  for (int i = 1; i <= 700; ++i) {
    add(x, one, x, kN);
    if (i % 37 == 0 || i == 5) bad += mismatches(download<float>(*x, kN), float(i), "x");
  }
  BOOST_TEST(bad == 0u);
  gpu()->synchronize();
  BOOST_TEST(mismatches(download<float>(*x, kN), 700.0f, "x") == 0u);
  gpu()->synchronize();  // nothing recorded: returns at once
}

BOOST_AUTO_TEST_CASE(transfers_larger_than_a_staging_piece) {
  // 20 MiB: more than one 16 MiB staging piece each way.
  constexpr uint64_t n = 5 << 20;
  std::vector<float> values(n);
  for (uint64_t i = 0; i < n; ++i) values[i] = static_cast<float>(i % 1000);
  auto x = upload(values);
  auto y = gpu()->alloc(n * 4);
  add(x, x, y, n);
  const auto got = download<float>(*y, n);
  size_t bad = 0;
  for (uint64_t i = 0; i < n; ++i) bad += got[i] != 2.0f * static_cast<float>(i % 1000);
  BOOST_TEST(bad == 0u);
}

BOOST_AUTO_TEST_CASE(large_add_and_relu_take_the_unrolled_vector_path_exactly) {
  // From 1M elements eltwise.comp loads 4 quads an invocation; a ragged end (3 elements past
  // the last quad, a last block partly used) must still be computed element by element.
  constexpr uint64_t n = (1u << 20) + 4099;
  std::vector<float> a(n), b(n);
  for (uint64_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(static_cast<int>(i % 1001) - 500) * 0.25f;  // exact in f32
    b[i] = static_cast<float>(i % 7) * 0.5f;
  }
  auto da = upload(a), db = upload(b), dy = gpu()->alloc(n * 4);
  add(da, db, dy, n);
  const auto sum = download<float>(*dy, n);
  size_t bad = 0;
  for (uint64_t i = 0; i < n; ++i) bad += sum[i] != a[i] + b[i];  // sums of quarters: exact
  BOOST_TEST(bad == 0u);
  const auto& relu = kernel("relu", {DType::f32}, DType::f32, oi::KernelMode::Normal);
  const std::vector<uint64_t> dims{n};
  oi::TensorArg ins[] = {{DType::f32, dims, da.get(), 0}};
  oi::TensorArg outs[] = {{DType::f32, dims, dy.get(), 0}};
  gpu()->run(relu, ins, outs, {});
  const auto r = download<float>(*dy, n);
  bad = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const float want = a[i] > 0 ? a[i] : 0.0f;  // relu's zero is +0: compare the bits
    bad += std::bit_cast<uint32_t>(r[i]) != std::bit_cast<uint32_t>(want);
  }
  BOOST_TEST(bad == 0u);
}

BOOST_AUTO_TEST_CASE(parameter_arena_overflow) {
  // Batched matmul carries a table of two words per batch in its parameters: 20,000 batches are
  // 160 KiB a dispatch, more than a fresh arena holds. a[b] = (b % 5 + 1) * ones(2x3),
  // b[b] = ones(3x2) * round, so y[b] = 3 * (b % 5 + 1) * round everywhere.
  constexpr uint64_t batches = 20000;
  std::vector<float> av(batches * 6);
  for (uint64_t b = 0; b < batches; ++b) {
    for (int j = 0; j < 6; ++j) av[b * 6 + j] = static_cast<float>(b % 5 + 1);
  }
  auto a = upload(av);
  const auto& k = kernel("matmul", {DType::f32, DType::f32}, DType::f32, oi::KernelMode::Normal);
  const std::vector<uint64_t> ad{batches, 2, 3}, bd{batches, 3, 2}, yd{batches, 2, 2};
  std::vector<Buffer> ys;
  for (int round = 1; round <= 6; ++round) {
    auto b = upload(std::vector<float>(batches * 6, static_cast<float>(round)));
    ys.push_back(gpu()->alloc(batches * 16));
    oi::TensorArg ins[] = {{DType::f32, ad, a.get(), 0}, {DType::f32, bd, b.get(), 0}};
    oi::TensorArg outs[] = {{DType::f32, yd, ys.back().get(), 0}};
    gpu()->run(k, ins, outs, {});
  }
  size_t bad = 0;
  for (int round = 1; round <= 6; ++round) {
    const auto got = download<float>(*ys[round - 1], batches * 4);
    for (uint64_t i = 0; i < got.size(); ++i) {
      bad += got[i] != 3.0f * static_cast<float>((i / 4) % 5 + 1) * static_cast<float>(round);
    }
  }
  BOOST_TEST(bad == 0u);
}

BOOST_AUTO_TEST_CASE(two_threads_take_turns) {
  auto one = upload(std::vector<float>(kN, 1.0f));
  std::vector<float> first, second;
  auto chain = [&](std::vector<float>& out, int steps) {
    auto x = gpu()->alloc(kN * 4);
    for (int i = 0; i < steps; ++i) add(x, one, x, kN);
    out = download<float>(*x, kN);
  };
  std::thread t1(chain, std::ref(first), 600);
  std::thread t2(chain, std::ref(second), 900);
  t1.join();
  t2.join();
  BOOST_TEST(mismatches(first, 600.0f, "first") == 0u);
  BOOST_TEST(mismatches(second, 900.0f, "second") == 0u);
}

BOOST_AUTO_TEST_CASE(device_copies_between_dispatches_are_seen_in_order) {
  // Word-aligned copies run as dispatches (their offsets are parameters, so a replay may
  // rewrite them), others as vkCmdCopyBuffer; both must see the add before them and be seen by
  // the add after. Round r: x += 1 (x = r + 1), x goes to row r of a 32-row table, and row r
  // comes back into x (2 bytes in for odd r: unaligned, the other path); a copy that read
  // too early would bring back zeros. So row r holds r + 1 and x ends at 32 + 1.
  auto x = gpu()->alloc(kN * 4);
  auto one = upload(std::vector<float>(kN, 1.0f));
  auto table = gpu()->alloc(32 * kN * 4);
  for (uint64_t r = 0; r < 32; ++r) {
    add(x, one, x, kN);
    gpu()->copy(*x, 0, *table, r * kN * 4, kN * 4);
    const uint64_t skip = r % 2 == 1 ? 2 : 0;
    gpu()->copy(*table, r * kN * 4 + skip, *x, skip, kN * 4 - skip);
  }
  add(x, one, x, kN);
  auto rows_of = [](const std::vector<float>& v, uint64_t rows, const std::string& what) {
    size_t bad = 0;
    for (uint64_t r = 0; r < rows; ++r) {
      const auto row = v.begin() + static_cast<std::ptrdiff_t>(r * kN);
      bad += mismatches(std::vector<float>(row, row + kN), static_cast<float>(r + 1),
                        what + " " + std::to_string(r));
    }
    return bad;
  };
  BOOST_TEST(rows_of(download<float>(*table, 32 * kN), 32, "row") == 0u);
  BOOST_TEST(mismatches(download<float>(*x, kN), 33.0f, "x") == 0u);
  // Within one buffer: its first half onto its second half.
  gpu()->copy(*table, 0, *table, 16 * kN * 4, 16 * kN * 4);
  BOOST_TEST(rows_of(download<float>(*table, 16 * kN, 16 * kN * 4), 16, "moved row") == 0u);
}

BOOST_AUTO_TEST_CASE(bad_ranges_are_errors_and_the_stream_goes_on) {
  auto x = gpu()->alloc(kN * 4);
  auto one = upload(std::vector<float>(kN, 1.0f));
  add(x, one, x, kN);
  std::vector<float> too_many(kN + 1);
  BOOST_CHECK_THROW(gpu()->download(*x, 0, std::as_writable_bytes(std::span(too_many))), oi::Error);
  BOOST_CHECK_THROW(gpu()->upload(*x, 8, std::as_bytes(std::span(too_many))), oi::Error);
  add(x, one, x, kN);
  BOOST_TEST(mismatches(download<float>(*x, kN), 2.0f, "x") == 0u);
}

// Exits 77 before any test runs when the plugin found no device, saying why.
int main(int argc, char* argv[]) {
  try {
    for (const auto& p : registry().plugins()) {
      if (p.name != "vulkan") continue;
      if (!p.device_name.empty()) {
        return boost::unit_test::unit_test_main(&init_unit_test, argc, argv);
      }
      std::cout << "SKIPPED: no Vulkan device (" << p.description << ")\n";
      return 77;
    }
    std::cerr << "the vulkan plugin did not load from " << plugin_dir() << "\n";
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
  }
  return 1;
}
