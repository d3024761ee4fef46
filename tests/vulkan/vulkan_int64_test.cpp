// The Vulkan backend's i64/u64 kernels against expectations computed here from ops.md's rules
// with the host's 64-bit integers: wrap-around, INT64_MIN / -1, division by zero with and
// without div_by_zero_mask, floor_div and rem signs, shifts of 0..63 bits and more, u64 above
// 2^63, clamp and relu, casts to and from floats and narrower integers, acc= into i64/u64.
// CTest runs it twice: vulkan_int64_test (OPENINFER_VULKAN_INT64 unset: native where the device
// has shaderInt64) and vulkan_int64_emulated_test (=emulate: the _emu SPIR-V, 32-bit words).
// Exits 77 (CTest: skipped) when no Vulkan device exists.
#define BOOST_TEST_MODULE vulkan_int64
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "openinfer/error.hpp"
#include "openinfer/plugin_host.hpp"

using oi::DType;

namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

oi::PluginRegistry& registry() {
  static oi::PluginRegistry r =
      oi::PluginRegistry::discover({env_or("OPENINFER_TEST_PLUGIN_DIR", PLUGIN_DIR)});
  return r;
}

std::shared_ptr<oi::Backend> gpu() {
  static std::shared_ptr<oi::Backend> b = registry().backend("vulkan");
  return b;
}

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// Operands that cross every word boundary: signs, 2^31, 2^32, 2^63 and their neighbours.
const std::vector<int64_t> kI64 = {0,
                                   1,
                                   -1,
                                   2,
                                   -2,
                                   7,
                                   -7,
                                   3,
                                   kMin,
                                   kMin + 1,
                                   kMax,
                                   kMax - 1,
                                   0x7fffffff,
                                   0x80000000,
                                   0xffffffff,
                                   0x100000000,
                                   -0x100000000,
                                   -0x80000000,
                                   0x123456789abcdef0,
                                   -0x0fedcba987654321,
                                   1000000007,
                                   -999999999999,
                                   0x00000001fffffffe};

std::vector<uint64_t> as_u64(const std::vector<int64_t>& v) {
  std::vector<uint64_t> out;
  for (int64_t x : v) out.push_back(static_cast<uint64_t>(x));
  out.push_back(0x8000000000000001ull);
  out.push_back(0xfffffffffffffff9ull);
  out.push_back(0x9000000000000000ull);
  return out;
}
const std::vector<uint64_t> kU64 = as_u64(kI64);

const oi::Kernel& kernel(const std::string& op, std::vector<DType> in, DType out,
                         oi::KernelMode mode = oi::KernelMode::Normal) {
  const oi::Kernel* k = gpu()->find_kernel(op, in, out, mode);
  BOOST_TEST_REQUIRE(k != nullptr, "no kernel " << op);
  BOOST_TEST_REQUIRE(k->provider == "vulkan", op << " is not the vulkan backend's");
  return *k;
}

template <class T>
std::shared_ptr<oi::DeviceBuffer> upload(const std::vector<T>& values) {
  auto buf = gpu()->alloc(std::max<size_t>(values.size() * sizeof(T), 8));
  gpu()->upload(*buf, 0, std::as_bytes(std::span(values)));
  return buf;
}

template <class T>
std::vector<T> download(const oi::DeviceBuffer& buf, size_t count) {
  std::vector<T> out(count);
  gpu()->download(buf, 0, std::as_writable_bytes(std::span(out)));
  return out;
}

DType dtype_of(int64_t) {
  return DType::i64;
}
DType dtype_of(uint64_t) {
  return DType::u64;
}
DType dtype_of(int32_t) {
  return DType::i32;
}
DType dtype_of(uint32_t) {
  return DType::u32;
}
DType dtype_of(int8_t) {
  return DType::i8;
}
DType dtype_of(uint8_t) {
  return DType::u8;
}
DType dtype_of(float) {
  return DType::f32;
}

// op(x[i], z[j]) for every pair: x as [n, 1], z as [1, m] broadcast to [n, m].
template <class R, class T>
void check_pairs(const std::string& op, const std::vector<T>& xs, const std::vector<T>& zs,
                 const std::function<R(T, T)>& want, std::vector<oi::KernelSetting> settings = {},
                 DType out = dtype_of(R{}), oi::KernelMode mode = oi::KernelMode::Normal) {
  const DType in = dtype_of(T{});
  const std::vector<uint64_t> xd{xs.size(), 1}, zd{1, zs.size()}, yd{xs.size(), zs.size()};
  auto bx = upload(xs), bz = upload(zs);
  auto by = gpu()->alloc(xs.size() * zs.size() * sizeof(R));
  oi::TensorArg ins[] = {{in, xd, bx.get(), 0}, {in, zd, bz.get(), 0}};
  oi::TensorArg outs[] = {{out, yd, by.get(), 0}};
  gpu()->run(kernel(op, {in, in}, out, mode), ins, outs, settings);
  const auto got = download<R>(*by, xs.size() * zs.size());
  size_t bad = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    for (size_t j = 0; j < zs.size(); ++j) {
      const R w = want(xs[i], zs[j]), g = got[i * zs.size() + j];
      if (std::memcmp(&w, &g, sizeof(R)) != 0 && bad++ < 8) {
        BOOST_TEST_ERROR(op << "(" << +xs[i] << ", " << +zs[j] << "): got " << +g << ", want "
                            << +w);
      }
    }
  }
  BOOST_TEST(bad == 0u, op << ": " << bad << " of " << got.size() << " wrong");
}

template <class R, class T>
void check_each(const std::string& op, const std::vector<T>& xs, const std::function<R(T)>& want,
                std::vector<oi::KernelSetting> settings = {}, DType out = dtype_of(R{})) {
  const DType in = dtype_of(T{});
  const std::vector<uint64_t> xd{xs.size()};
  auto bx = upload(xs);
  auto by = gpu()->alloc(std::max<size_t>(xs.size() * sizeof(R), 8));
  oi::TensorArg ins[] = {{in, xd, bx.get(), 0}};
  oi::TensorArg outs[] = {{out, xd, by.get(), 0}};
  gpu()->run(kernel(op, {in}, out), ins, outs, settings);
  const auto got = download<R>(*by, xs.size());
  size_t bad = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const R w = want(xs[i]);
    const bool same =
        std::memcmp(&w, &got[i], sizeof(R)) == 0 ||
        (std::is_floating_point_v<R> && std::isnan(double(w)) && std::isnan(double(got[i])));
    if (!same && bad++ < 8) {
      BOOST_TEST_ERROR(op << "(" << +xs[i] << "): got " << +got[i] << ", want " << +w);
    }
  }
  BOOST_TEST(bad == 0u, op << ": " << bad << " of " << xs.size() << " wrong");
}

// Two's-complement wrapping through unsigned arithmetic (signed overflow is undefined in C++).
int64_t wrap(uint64_t v) {
  return static_cast<int64_t>(v);
}
uint64_t bits(int64_t v) {
  return static_cast<uint64_t>(v);
}

// ops.md: div truncates, floor_div rounds toward -inf, rem takes the dividend's sign; a zero
// divisor gives div_by_zero_mask (div, floor_div) or 0; INT64_MIN / -1 wraps.
int64_t div_i64(int64_t x, int64_t z, int64_t mask) {
  if (z == 0) return mask;
  if (z == -1) return wrap(0 - bits(x));
  return x / z;
}
int64_t floor_div_i64(int64_t x, int64_t z, int64_t mask) {
  if (z == 0) return mask;
  if (z == -1) return wrap(0 - bits(x));
  const int64_t q = x / z;
  return (x % z != 0 && ((x < 0) != (z < 0))) ? q - 1 : q;
}
int64_t rem_i64(int64_t x, int64_t z) {
  return z == 0 || z == -1 ? 0 : x % z;
}

std::vector<oi::KernelSetting> mask_setting(int64_t m) {
  return {{"div_by_zero_mask", m}};
}

}  // namespace

BOOST_AUTO_TEST_CASE(i64_arithmetic_wraps) {
  BOOST_TEST_MESSAGE("device: " << gpu()->device_name() << "; OPENINFER_VULKAN_INT64="
                                << env_or("OPENINFER_VULKAN_INT64", "(unset)"));
  check_pairs<int64_t, int64_t>("add", kI64, kI64,
                                [](int64_t x, int64_t z) { return wrap(bits(x) + bits(z)); });
  check_pairs<int64_t, int64_t>("sub", kI64, kI64,
                                [](int64_t x, int64_t z) { return wrap(bits(x) - bits(z)); });
  check_pairs<int64_t, int64_t>("mul", kI64, kI64,
                                [](int64_t x, int64_t z) { return wrap(bits(x) * bits(z)); });
  check_pairs<uint64_t, uint64_t>("add", kU64, kU64, [](uint64_t x, uint64_t z) { return x + z; });
  check_pairs<uint64_t, uint64_t>("sub", kU64, kU64, [](uint64_t x, uint64_t z) { return x - z; });
  check_pairs<uint64_t, uint64_t>("mul", kU64, kU64, [](uint64_t x, uint64_t z) { return x * z; });
}

BOOST_AUTO_TEST_CASE(i64_division_by_the_op_rules) {
  check_pairs<int64_t, int64_t>("div", kI64, kI64,
                                [](int64_t x, int64_t z) { return div_i64(x, z, 0); });
  check_pairs<int64_t, int64_t>(
      "div", kI64, kI64, [](int64_t x, int64_t z) { return div_i64(x, z, -77); },
      mask_setting(-77));
  check_pairs<int64_t, int64_t>("floor_div", kI64, kI64,
                                [](int64_t x, int64_t z) { return floor_div_i64(x, z, 0); });
  check_pairs<int64_t, int64_t>(
      "floor_div", kI64, kI64, [](int64_t x, int64_t z) { return floor_div_i64(x, z, kMin); },
      mask_setting(kMin));
  check_pairs<int64_t, int64_t>("rem", kI64, kI64,
                                [](int64_t x, int64_t z) { return rem_i64(x, z); });
}

BOOST_AUTO_TEST_CASE(u64_division_above_two_to_the_63) {
  check_pairs<uint64_t, uint64_t>("div", kU64, kU64,
                                  [](uint64_t x, uint64_t z) { return z == 0 ? 0 : x / z; });
  check_pairs<uint64_t, uint64_t>(
      "div", kU64, kU64, [](uint64_t x, uint64_t z) { return z == 0 ? 12345 : x / z; },
      mask_setting(12345));
  check_pairs<uint64_t, uint64_t>("floor_div", kU64, kU64,
                                  [](uint64_t x, uint64_t z) { return z == 0 ? 0 : x / z; });
  check_pairs<uint64_t, uint64_t>("rem", kU64, kU64,
                                  [](uint64_t x, uint64_t z) { return z == 0 ? 0 : x % z; });
}

BOOST_AUTO_TEST_CASE(i64_and_u64_order_and_bits) {
  check_pairs<int64_t, int64_t>("min", kI64, kI64,
                                [](int64_t x, int64_t z) { return std::min(x, z); });
  check_pairs<int64_t, int64_t>("max", kI64, kI64,
                                [](int64_t x, int64_t z) { return std::max(x, z); });
  check_pairs<uint64_t, uint64_t>("min", kU64, kU64,
                                  [](uint64_t x, uint64_t z) { return std::min(x, z); });
  check_pairs<uint64_t, uint64_t>("max", kU64, kU64,
                                  [](uint64_t x, uint64_t z) { return std::max(x, z); });
  check_pairs<uint64_t, uint64_t>("and", kU64, kU64, [](uint64_t x, uint64_t z) { return x & z; });
  check_pairs<uint64_t, uint64_t>("or", kU64, kU64, [](uint64_t x, uint64_t z) { return x | z; });
  check_pairs<int64_t, int64_t>("xor", kI64, kI64, [](int64_t x, int64_t z) { return x ^ z; });
  using Cmp = std::function<bool(int64_t, int64_t)>;
  using UCmp = std::function<bool(uint64_t, uint64_t)>;
  const std::vector<std::pair<std::string, std::pair<Cmp, UCmp>>> cmps = {
      {"eq", {std::equal_to<int64_t>(), std::equal_to<uint64_t>()}},
      {"ne", {std::not_equal_to<int64_t>(), std::not_equal_to<uint64_t>()}},
      {"lt", {std::less<int64_t>(), std::less<uint64_t>()}},
      {"le", {std::less_equal<int64_t>(), std::less_equal<uint64_t>()}},
      {"gt", {std::greater<int64_t>(), std::greater<uint64_t>()}},
      {"ge", {std::greater_equal<int64_t>(), std::greater_equal<uint64_t>()}}};
  for (const auto& [op, f] : cmps) {
    const Cmp sf = f.first;
    const UCmp uf = f.second;
    check_pairs<uint8_t, int64_t>(
        op, kI64, kI64, [sf](int64_t x, int64_t z) { return uint8_t(sf(x, z) ? 1 : 0); }, {},
        DType::boolean);
    check_pairs<uint8_t, uint64_t>(
        op, kU64, kU64, [uf](uint64_t x, uint64_t z) { return uint8_t(uf(x, z) ? 1 : 0); }, {},
        DType::boolean);
  }
}

BOOST_AUTO_TEST_CASE(i64_unary_ops) {
  check_each<int64_t, int64_t>("neg", kI64, [](int64_t x) { return wrap(0 - bits(x)); });
  check_each<int64_t, int64_t>("abs", kI64,
                               [](int64_t x) { return x < 0 ? wrap(0 - bits(x)) : x; });
  check_each<int8_t, int64_t>("sign", kI64, [](int64_t x) {
    return int8_t(x < 0 ? -1 : x > 0 ? 1 : 0);
  });
  check_each<int64_t, int64_t>("not", kI64, [](int64_t x) { return ~x; });
  check_each<uint64_t, uint64_t>("not", kU64, [](uint64_t x) { return ~x; });
  check_each<uint8_t, int64_t>("popcount", kI64,
                               [](int64_t x) { return uint8_t(std::popcount(bits(x))); });
  check_each<uint8_t, uint64_t>("popcount", kU64,
                                [](uint64_t x) { return uint8_t(std::popcount(x)); });
  check_each<uint8_t, int64_t>(
      "is_neg", kI64, [](int64_t x) { return uint8_t(x < 0); }, {}, DType::boolean);
}

// ops.md keeps bits in 0..63 (a larger count is a validation error); the kernels shift every
// bit out past that: 0, or the sign's fill for an arithmetic shr.
BOOST_AUTO_TEST_CASE(shifts_of_every_width) {
  for (int64_t n : {0, 1, 5, 31, 32, 33, 40, 63, 64, 100}) {
    const std::vector<oi::KernelSetting> s = {{"bits", n}};
    check_each<int64_t, int64_t>(
        "shl", kI64, [n](int64_t x) { return n >= 64 ? 0 : wrap(bits(x) << n); }, s);
    check_each<int64_t, int64_t>(
        "shr", kI64, [n](int64_t x) { return n >= 64 ? (x < 0 ? -1 : 0) : x >> n; }, s);
    check_each<uint64_t, uint64_t>(
        "shl", kU64, [n](uint64_t x) { return n >= 64 ? 0 : x << n; }, s);
    check_each<uint64_t, uint64_t>(
        "shr", kU64, [n](uint64_t x) { return n >= 64 ? 0 : x >> n; }, s);
  }
}

BOOST_AUTO_TEST_CASE(clamp_and_relu) {
  const int64_t lo = -0x100000001, hi = 0x7fffffff;
  check_each<int64_t, int64_t>("clamp", kI64,
                               [&](int64_t x) { return std::min(std::max(x, lo), hi); },
                               {{"min", lo}, {"max", hi}});
  check_each<int64_t, int64_t>("clamp", kI64, [&](int64_t x) { return std::max(x, lo); },
                               {{"min", lo}});
  check_each<uint64_t, uint64_t>("clamp", kU64,
                                 [](uint64_t x) {
                                   return std::min<uint64_t>(std::max<uint64_t>(x, 5),
                                                             0x8000000000000004ull);
                                 },
                                 {{"min", int64_t{5}}, {"max", int64_t(0x8000000000000004ull)}});
  check_each<int64_t, int64_t>("relu", kI64, [](int64_t x) { return x < 0 ? 0 : x; });
  // alpha * x wraps below 0, then the clamps
  check_each<int64_t, int64_t>("relu", kI64,
                               [](int64_t x) {
                                 const int64_t r = x < 0 ? wrap(bits(x) * 3u) : x;
                                 return std::min<int64_t>(std::max<int64_t>(r, -1000000000000),
                                                          0x1ffffffff);
                               },
                               {{"alpha", int64_t{3}},
                                {"clamp_min", int64_t{-1000000000000}},
                                {"clamp_max", int64_t{0x1ffffffff}}});
}

BOOST_AUTO_TEST_CASE(casts_to_and_from_i64_and_u64) {
  // to f32: one rounding to nearest even (the host's conversion is correctly rounded)
  check_each<float, int64_t>("cast", kI64, [](int64_t x) { return static_cast<float>(x); },
                             {{"to", DType::f32}});
  check_each<float, uint64_t>("cast", kU64, [](uint64_t x) { return static_cast<float>(x); },
                              {{"to", DType::f32}});
  // narrower integers: wrapping, or saturating
  check_each<int32_t, int64_t>(
      "cast", kI64, [](int64_t x) { return static_cast<int32_t>(static_cast<uint32_t>(x)); },
      {{"to", DType::i32}, {"saturate", false}});
  check_each<int32_t, int64_t>(
      "cast", kI64,
      [](int64_t x) { return static_cast<int32_t>(std::clamp<int64_t>(x, INT32_MIN, INT32_MAX)); },
      {{"to", DType::i32}, {"saturate", true}});
  check_each<uint8_t, uint64_t>("cast", kU64,
                                [](uint64_t x) { return uint8_t(std::min<uint64_t>(x, 255)); },
                                {{"to", DType::u8}, {"saturate", true}});
  check_each<uint64_t, int64_t>("cast", kI64, [](int64_t x) { return x < 0 ? 0 : bits(x); },
                                {{"to", DType::u64}, {"saturate", true}});
  check_each<int64_t, uint64_t>("cast", kU64,
                                [](uint64_t x) { return x > uint64_t(kMax) ? kMax : int64_t(x); },
                                {{"to", DType::i64}, {"saturate", true}});
  const std::vector<int32_t> i32s = {0, 1, -1, INT32_MIN, INT32_MAX, 123456789, -987654321};
  check_each<int64_t, int32_t>("cast", i32s, [](int32_t x) { return int64_t{x}; },
                               {{"to", DType::i64}});
  check_each<uint64_t, int32_t>("cast", i32s, [](int32_t x) { return uint64_t(std::max(x, 0)); },
                                {{"to", DType::u64}, {"saturate", true}});
  // from f32: truncated toward zero, saturating, NaN to 0
  const std::vector<float> fs = {
      0.0f,          -0.0f, 1.5f,   -1.5f,    2.5e9f,    -2.5e9f, 9.2233715e18f,  -9.2233720e18f,
      1.8446743e19f, 3e19f, -3e19f, INFINITY, -INFINITY, NAN,     0x1.fffffep62f, -0x1p63f};
  auto sat_i64 = [](float f) -> int64_t {
    if (std::isnan(f)) return 0;
    const double t = std::trunc(double(f));
    if (t >= 0x1p63) return kMax;
    if (t < -0x1p63) return kMin;
    return static_cast<int64_t>(t);
  };
  auto sat_u64 = [](float f) -> uint64_t {
    if (std::isnan(f) || f <= 0) return 0;
    const double t = std::trunc(double(f));
    return t >= 0x1p64 ? ~uint64_t{0} : static_cast<uint64_t>(t);
  };
  check_each<int64_t, float>("cast", fs, sat_i64, {{"to", DType::i64}, {"saturate", true}});
  check_each<uint64_t, float>("cast", fs, sat_u64, {{"to", DType::u64}, {"saturate", true}});
}

BOOST_AUTO_TEST_CASE(accumulate_into_i64_and_u64) {
  const std::vector<int32_t> xs = {0, 1, -1, INT32_MIN, INT32_MAX, 65537, -65536};
  const auto acc = oi::KernelMode::Accumulate;
  check_pairs<int64_t, int32_t>(
      "add", xs, xs, [](int32_t x, int32_t z) { return int64_t{x} + z; }, {}, DType::i64, acc);
  check_pairs<int64_t, int32_t>(
      "mul", xs, xs, [](int32_t x, int32_t z) { return int64_t{x} * z; }, {}, DType::i64, acc);
  const std::vector<uint32_t> us = {0, 1, 0xffffffffu, 0x80000000u, 65537};
  check_pairs<uint64_t, uint32_t>(
      "mul", us, us, [](uint32_t x, uint32_t z) { return uint64_t{x} * z; }, {}, DType::u64, acc);
  check_pairs<uint64_t, uint32_t>(
      "sub", us, us, [](uint32_t x, uint32_t z) { return uint64_t{x} - z; }, {}, DType::u64, acc);
}

// More elements than one grid of workgroups covers: the shaders' grid-stride loops.
BOOST_AUTO_TEST_CASE(large_i64_tensors) {
  const size_t n = 300000;
  std::vector<int64_t> x(n), z(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = wrap(i * 0x9e3779b97f4a7c15ull);
    z[i] = wrap((i + 1) * 0xbf58476d1ce4e5b9ull) >> (i % 61);
  }
  const std::vector<uint64_t> d{n};
  auto bx = upload(x), bz = upload(z);
  auto by = gpu()->alloc(n * 8);
  oi::TensorArg ins[] = {{DType::i64, d, bx.get(), 0}, {DType::i64, d, bz.get(), 0}};
  oi::TensorArg outs[] = {{DType::i64, d, by.get(), 0}};
  for (const char* op : {"mul", "rem"}) {
    gpu()->run(kernel(op, {DType::i64, DType::i64}, DType::i64), ins, outs, {});
    const auto y = download<int64_t>(*by, n);
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
      const int64_t w =
          std::string(op) == "mul" ? wrap(bits(x[i]) * bits(z[i])) : rem_i64(x[i], z[i]);
      bad += y[i] != w;
    }
    BOOST_TEST(bad == 0u, op << ": " << bad << " of " << n << " wrong");
  }
}

// OPENINFER_VULKAN_INT64 takes emulate, native or auto; anything else is an error naming it.
BOOST_AUTO_TEST_CASE(a_bad_int64_mode_is_an_error_naming_the_variable) {
  const std::string before = env_or("OPENINFER_VULKAN_INT64", "");
  setenv("OPENINFER_VULKAN_INT64", "sometimes", 1);
  std::string message;
  try {
    check_pairs<int64_t, int64_t>("add", kI64, kI64,
                                  [](int64_t x, int64_t z) { return wrap(bits(x) + bits(z)); });
  } catch (const std::exception& e) {
    message = e.what();
  }
  if (before.empty()) {
    unsetenv("OPENINFER_VULKAN_INT64");
  } else {
    setenv("OPENINFER_VULKAN_INT64", before.c_str(), 1);
  }
  BOOST_TEST(message.find("OPENINFER_VULKAN_INT64 is 'sometimes'") != std::string::npos, message);
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
    std::cerr << "the vulkan plugin did not load\n";
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
  }
  return 1;
}
