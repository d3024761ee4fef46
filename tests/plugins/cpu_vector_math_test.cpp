#define BOOST_TEST_MODULE plugins_cpu_vector_math
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "openinfer/float_formats.hpp"
#include "openinfer/plugin_host.hpp"
#include "plugin_test_support.hpp"
#include "vector_math.hpp"

// The CPU plugin's vectorised f32 math (plugins/cpu/vector_math.hpp), both paths forced in
// turn (AVX2+FMA skipped where the CPU lacks it), against glibc's double libm rounded once to
// f32: every special value, every 1024th f32 bit pattern, random bit patterns and random values
// in the ranges where the functions change fastest. ops-nn.md's bound is 2 ulp; the measured
// maximum per function and path is printed. OI_VMATH_EXHAUSTIVE=sin,cos (names of func_name, or
// "all") checks only those functions over all 2^32 patterns (minutes each; run by hand), with
// OI_VMATH_MAX_ABS=1048576 only the patterns up to that magnitude (sin/cos's fast range: beyond
// it both sides call libm, whose huge-argument reduction is slow). Then the
// ops through the plugin ABI: f32 results equal the span function's bit for bit, f16/bf16/f8 equal
// it rounded once.

using oi::cpu::vmath::Func;
using oi::cpu::vmath::Path;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr int kBoundUlp = 2;

float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
uint32_t to_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// Distance in f32 units in the last place: bit patterns ordered like the values (so +-0 are 0
// apart and the smallest subnormals 1 from zero).
int64_t ulp_distance(float a, float b) {
  auto ordered = [](float f) {
    const uint32_t u = to_bits(f);
    return (u & 0x80000000u) ? -static_cast<int64_t>(u & 0x7fffffffu) : static_cast<int64_t>(u);
  };
  return std::abs(ordered(a) - ordered(b));
}

// The reference: glibc's double libm (formulas in double for the composite ops), rounded once.
double reference(Func f, double x) {
  switch (f) {
    case Func::Exp:
      return std::exp(x);
    case Func::Log:
      return std::log(x);
    case Func::Sqrt:
      return std::sqrt(x);
    case Func::Rsqrt:
      return 1.0 / std::sqrt(x);
    case Func::Sin:
      return std::sin(x);
    case Func::Cos:
      return std::cos(x);
    case Func::Tanh:
      return std::tanh(x);
    case Func::Erf:
      return std::erf(x);
    case Func::Sigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case Func::Silu:
      return x / (1.0 + std::exp(-x));
    case Func::GeluErf:
      return x * 0.5 * std::erfc(-x * 0.70710678118654752);
    case Func::GeluTanh: {
      const double u = 0.79788456080286536 * (x + 0.044715 * x * x * x);
      return x / (1.0 + std::exp(-2.0 * u));
    }
  }
  return 0;
}

// Where a result is wrong: NaN must meet the reference's NaN (bit for bit: its sign and payload
// as libm and the formulas give them), infinities match exactly, a zero meets a zero of its
// sign, everything else within kBoundUlp.
struct Tally {
  int64_t max_ulp = 0;
  float worst_input = 0, worst_got = 0, worst_want = 0;
  uint64_t checked = 0, failures = 0;
  std::string first_failure;

  void check(float x, float got, float want, float x2 = 0) {
    ++checked;
    int64_t d = 0;
    bool ok;
    if (std::isnan(want) || std::isnan(got)) {
      ok = to_bits(got) == to_bits(want);  // the same NaN as libm and the formulas give
    } else if (std::isinf(want) || std::isinf(got) || (want == 0 && got == 0)) {
      ok = to_bits(got) == to_bits(want);  // the sign of a zero result counts too
      d = ok ? 0 : ulp_distance(got, want);
    } else {
      d = ulp_distance(got, want);
      ok = d <= kBoundUlp;
    }
    if (d > max_ulp) {
      max_ulp = d;
      worst_input = x;
      worst_got = got;
      worst_want = want;
    }
    if (!ok && failures++ == 0) {
      std::ostringstream s;
      s.precision(9);
      s << "x=" << x << " (0x" << std::hex << to_bits(x) << std::dec << ")";
      if (x2 != 0) s << " b=" << x2;
      s << ": got " << got << " (0x" << std::hex << to_bits(got) << "), want " << want << " (0x"
        << to_bits(want) << ")";
      first_failure = s.str();
    }
  }
};

std::vector<float> special_values() {
  std::vector<float> v = {0.0f,
                          kInf,
                          std::numeric_limits<float>::quiet_NaN(),
                          from_bits(0x7f800001u),  // signalling NaN
                          from_bits(0x7fc12345u),
                          std::numeric_limits<float>::denorm_min(),
                          from_bits(0x007fffffu),  // largest subnormal
                          std::numeric_limits<float>::min(),
                          std::numeric_limits<float>::max(),
                          1.0f,
                          0.5f,
                          2.0f,
                          88.72283935546875f,  // the last x with a finite expf
                          88.7228394f,
                          89.0f,
                          87.33654f,  // expf(-x) turns subnormal
                          103.972084f,
                          104.0f,  // expf(-x) rounds to 0
                          0.03125f,
                          3.9192059f,  // erf reaches 1
                          6.0f,
                          9.01f,
                          14.1f,
                          14.85f,
                          15.0f,
                          20.0f,
                          200.0f,
                          1e10f,
                          0x1p20f,
                          1.57079637f,
                          3.14159274f,
                          4.71238899f,
                          6.28318548f,
                          1e-20f,
                          1e-40f};
  const size_t base = v.size();
  for (size_t i = 0; i < base; ++i) {
    const float x = v[i];
    v.push_back(-x);
    if (std::isfinite(x) && x != 0) {
      v.push_back(std::nextafter(x, 0.0f));
      v.push_back(std::nextafter(x, kInf));
      v.push_back(-std::nextafter(x, 0.0f));
      v.push_back(-std::nextafter(x, kInf));
    }
  }
  return v;
}

// Block `index` of the sweep: the special values (block 0), then every `stride`-th bit pattern,
// then random patterns and random values in [-20, 20], [-1, 1] and near multiples of pi/2.
class Sweep {
 public:
  static constexpr uint64_t kBlock = 1 << 20;

  explicit Sweep(bool exhaustive) : stride_(exhaustive ? 1 : 1024) {
    pattern_blocks_ = ((uint64_t{1} << 32) / stride_ + kBlock - 1) / kBlock;
    const char* max_abs = std::getenv("OI_VMATH_MAX_ABS");
    if (exhaustive && max_abs) max_abs_ = std::strtof(max_abs, nullptr);
  }
  uint64_t blocks() const { return 1 + pattern_blocks_ + kRandomBlocks; }

  std::vector<float> block(uint64_t index) const {
    if (index == 0) return special_values();
    std::vector<float> v;
    v.reserve(kBlock);
    if (index <= pattern_blocks_) {
      const uint64_t first = (index - 1) * kBlock * stride_;
      const uint64_t end = std::min(first + kBlock * stride_, uint64_t{1} << 32);
      for (uint64_t p = first; p < end; p += stride_) {
        const float x = from_bits(static_cast<uint32_t>(p));
        if (!(std::fabs(x) > max_abs_)) v.push_back(x);  // NaN stays
      }
      return v;
    }
    std::mt19937 rng(static_cast<uint32_t>(index));
    std::uniform_int_distribution<uint32_t> bits;
    std::uniform_real_distribution<float> wide(-20.0f, 20.0f), unit(-1.0f, 1.0f);
    std::uniform_int_distribution<int> quadrant(-4000, 4000);
    for (uint64_t i = 0; i < kBlock; i += 4) {
      v.push_back(from_bits(bits(rng)));
      v.push_back(wide(rng));
      v.push_back(unit(rng));
      v.push_back(static_cast<float>(quadrant(rng) * 1.5707963267948966) * (1 + unit(rng) * 1e-6f));
    }
    return v;
  }

 private:
  static constexpr uint64_t kRandomBlocks = 2;
  uint64_t stride_, pattern_blocks_ = 0;
  float max_abs_ = kInf;
};

std::vector<Path> paths() {
  std::vector<Path> p{Path::Portable};
  if (oi::cpu::vmath::has_avx2()) {
    p.push_back(Path::Avx2);
  } else {
    BOOST_TEST_MESSAGE("this CPU lacks AVX2+FMA: only the portable path is tested");
  }
  return p;
}

const char* path_name(Path p) {
  return p == Path::Avx2 ? "avx2" : "portable";
}

void report(const std::string& what, const Tally& t) {
  BOOST_TEST_MESSAGE(what << ": max " << t.max_ulp << " ulp over " << t.checked
                          << " inputs (worst x=" << t.worst_input << ": got " << t.worst_got
                          << ", want " << t.worst_want << ")");
  BOOST_TEST(t.failures == 0u,
             what << ": " << t.failures << " results off, first " << t.first_failure);
}

constexpr Func kAll[] = {Func::Exp,     Func::Log,  Func::Sqrt,    Func::Rsqrt,
                         Func::Sin,     Func::Cos,  Func::Tanh,    Func::Erf,
                         Func::Sigmoid, Func::Silu, Func::GeluErf, Func::GeluTanh};

// The functions OI_VMATH_EXHAUSTIVE names, or none when it is unset.
std::vector<bool> exhaustive_selection() {
  const char* env = std::getenv("OI_VMATH_EXHAUSTIVE");
  std::vector<bool> on(std::size(kAll), false);
  if (env == nullptr) return on;
  const std::string list = std::string(",") + env + ",";
  for (size_t f = 0; f < std::size(kAll); ++f) {
    const std::string name = oi::cpu::vmath::func_name(kAll[f]);
    on[f] = list == ",all," || list.find("," + name + ",") != std::string::npos;
  }
  return on;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_unary_function_is_within_two_ulp_on_both_paths) {
  std::vector<bool> selected = exhaustive_selection();
  const bool exhaustive = std::find(selected.begin(), selected.end(), true) != selected.end();
  if (!exhaustive) selected.assign(selected.size(), true);
  const Sweep sweep(exhaustive);
  const std::vector<Path> ps = paths();
  std::vector<std::vector<Tally>> tallies(ps.size(), std::vector<Tally>(std::size(kAll)));
  std::vector<float> want, got;
  for (uint64_t b = 0; b < sweep.blocks(); ++b) {
    const std::vector<float> x = sweep.block(b);
    want.resize(x.size());
    got.resize(x.size());
    for (size_t f = 0; f < std::size(kAll); ++f) {
      if (!selected[f]) continue;
      for (size_t i = 0; i < x.size(); ++i) {
        want[i] = static_cast<float>(reference(kAll[f], x[i]));
      }
      for (size_t p = 0; p < ps.size(); ++p) {
        oi::cpu::vmath::unary_span(kAll[f], ps[p])(x.data(), got.data(), x.size());
        for (size_t i = 0; i < x.size(); ++i) tallies[p][f].check(x[i], got[i], want[i]);
      }
    }
  }
  for (size_t p = 0; p < ps.size(); ++p) {
    for (size_t f = 0; f < std::size(kAll); ++f) {
      if (!selected[f]) continue;
      report(std::string(oi::cpu::vmath::func_name(kAll[f])) + " (" + path_name(ps[p]) + ")",
             tallies[p][f]);
    }
  }
}

// Every length 0..40 (the padded tail), in place and at an odd offset: the same bits as one
// aligned call over the whole span.
BOOST_AUTO_TEST_CASE(tails_offsets_and_in_place_calls_give_the_same_bits) {
  std::vector<float> x(41);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) * 0.37f - 7.0f;
  for (Path p : paths()) {
    for (Func f : kAll) {
      const auto span = oi::cpu::vmath::unary_span(f, p);
      std::vector<float> whole(x.size());
      span(x.data(), whole.data(), x.size());
      for (size_t n = 0; n <= x.size(); ++n) {
        std::vector<float> buf(n + 1, -1.0f), in_place(x.begin(), x.begin() + n);
        std::memcpy(buf.data() + 1, x.data(), n * 4);  // misaligned by one float
        span(buf.data() + 1, buf.data() + 1, n);
        span(in_place.data(), in_place.data(), n);
        for (size_t i = 0; i < n; ++i) {
          BOOST_TEST(to_bits(buf[i + 1]) == to_bits(whole[i]));
          BOOST_TEST(to_bits(in_place[i]) == to_bits(whole[i]));
        }
        BOOST_TEST(buf[0] == -1.0f);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(pow_is_within_two_ulp_for_pairs_and_single_exponents) {
  std::vector<float> a, b;
  const std::vector<float> specials = special_values();
  for (float s : specials) {
    for (float t : specials) {
      a.push_back(s);
      b.push_back(t);
    }
  }
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> bits;
  std::uniform_real_distribution<float> base(0.0f, 4.0f), expo(-30.0f, 30.0f);
  for (int i = 0; i < 1 << 20; ++i) {
    a.push_back(from_bits(bits(rng)));
    b.push_back(from_bits(bits(rng)));
    a.push_back(base(rng));
    b.push_back(expo(rng));
    a.push_back(from_bits(bits(rng) & 0x7fffffffu));  // any positive base
    b.push_back(expo(rng) / 8);
  }
  const float exponents[] = {2.0f, 3.0f, 0.5f, -0.5f, -1.0f, 1.0f / 3, 0.0f, 1.0f, 10.0f, -2.5f};
  for (Path p : paths()) {
    const auto span = oi::cpu::vmath::pow_span(p);
    Tally pairs;
    std::vector<float> got(a.size());
    span(a.data(), b.data(), 1, got.data(), a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      pairs.check(a[i], got[i], static_cast<float>(std::pow(double{a[i]}, double{b[i]})), b[i]);
    }
    report(std::string("pow pairs (") + path_name(p) + ")", pairs);
    Tally single;
    for (float e : exponents) {
      span(a.data(), &e, 0, got.data(), a.size());
      for (size_t i = 0; i < a.size(); ++i) {
        single.check(a[i], got[i], static_cast<float>(std::pow(double{a[i]}, double{e})), e);
      }
    }
    report(std::string("pow single exponent (") + path_name(p) + ")", single);
  }
}

namespace {

struct AbiCase {
  const char* op;
  Func func;
  const char* approximate;  // gelu's setting, else nullptr
};
constexpr AbiCase kAbiCases[] = {
    {"exp", Func::Exp, nullptr},         {"log", Func::Log, nullptr},
    {"sqrt", Func::Sqrt, nullptr},       {"rsqrt", Func::Rsqrt, nullptr},
    {"sin", Func::Sin, nullptr},         {"cos", Func::Cos, nullptr},
    {"tanh", Func::Tanh, nullptr},       {"erf", Func::Erf, nullptr},
    {"sigmoid", Func::Sigmoid, nullptr}, {"silu", Func::Silu, nullptr},
    {"gelu", Func::GeluErf, "none"},     {"gelu", Func::GeluTanh, "tanh"},
};

// An element of `t` as f32 (exact) and an f32 rounded once to `t`, as raw little-endian bytes.
float widen(oi::DType t, const std::byte* p) {
  uint16_t h = 0;
  switch (t) {
    case oi::DType::f32: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case oi::DType::f8:
      return oi::f8_bits_to_f32(std::to_integer<uint8_t>(*p));
    case oi::DType::f16:
      std::memcpy(&h, p, 2);
      return oi::f16_bits_to_f32(h);
    default:
      std::memcpy(&h, p, 2);
      return oi::bf16_bits_to_f32(h);
  }
}
void narrow(oi::DType t, float v, std::byte* p) {
  uint16_t h = 0;
  switch (t) {
    case oi::DType::f32:
      std::memcpy(p, &v, 4);
      return;
    case oi::DType::f8:
      *p = std::byte{oi::f32_to_f8_bits(v)};
      return;
    case oi::DType::f16:
      h = oi::f32_to_f16_bits(v);
      break;
    default:
      h = oi::f32_to_bf16_bits(v);
  }
  std::memcpy(p, &h, 2);
}
size_t width(oi::DType t) {
  return t == oi::DType::f32 ? 4 : t == oi::DType::f8 ? 1 : 2;
}

struct PluginFixture {
  oi::PluginRegistry registry = oi::PluginRegistry::discover({plugin_test::cpu_plugin_dir()});
  std::shared_ptr<oi::Backend> cpu = registry.backend("cpu");
};

}  // namespace

// Each op through the plugin (normal and in place, small and parallel sizes): the f32 result is
// the span function's, bit for bit; f16, bf16 and f8 give that result on the widened input,
// rounded once.
BOOST_FIXTURE_TEST_CASE(the_ops_through_the_abi_give_the_span_results, PluginFixture) {
  const oi::DType dtypes[] = {oi::DType::f32, oi::DType::f16, oi::DType::bf16, oi::DType::f8};
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> values(-12.0f, 12.0f);
  const std::vector<float> specials = special_values();
  for (const uint64_t n : {uint64_t{13}, uint64_t{100003}}) {
    std::vector<float> source(n);
    for (uint64_t i = 0; i < n; ++i)
      source[i] = i % 7 == 0 ? specials[i / 7 % specials.size()] : values(rng);
    for (oi::DType t : dtypes) {
      const size_t w = width(t);
      std::vector<std::byte> in(n * w);
      for (uint64_t i = 0; i < n; ++i) narrow(t, source[i], in.data() + i * w);
      for (const AbiCase& c : kAbiCases) {
        std::vector<float> x(n), y(n);
        for (uint64_t i = 0; i < n; ++i) x[i] = widen(t, in.data() + i * w);
        oi::cpu::vmath::unary_span(c.func)(x.data(), y.data(), n);
        std::vector<std::byte> want(n * w);
        for (uint64_t i = 0; i < n; ++i) narrow(t, y[i], want.data() + i * w);
        std::vector<oi::KernelSetting> settings;
        if (c.approximate) settings.push_back({"approximate", std::string(c.approximate)});
        for (oi::KernelMode mode : {oi::KernelMode::Normal, oi::KernelMode::InPlace}) {
          const oi::Kernel* k = cpu->find_kernel(c.op, std::vector{t}, t, mode);
          BOOST_TEST_REQUIRE(k != nullptr, c.op);
          auto bin = cpu->alloc(in.size()), bout = cpu->alloc(in.size());
          cpu->upload(*bin, 0, in);
          const std::vector<uint64_t> dims{n};
          oi::TensorArg ins[] = {{t, dims, bin.get(), 0}};
          oi::TensorArg outs[] = {
              {t, dims, mode == oi::KernelMode::InPlace ? bin.get() : bout.get(), 0}};
          cpu->run(*k, ins, outs, settings);
          std::vector<std::byte> got(in.size());
          cpu->download(*outs[0].buffer, 0, got);
          BOOST_TEST((got == want), c.op << " " << oi::cpu::vmath::func_name(c.func) << " dtype "
                                         << static_cast<int>(t) << " n " << n << " in place "
                                         << (mode == oi::KernelMode::InPlace));
        }
      }
    }
  }
}

// pow through the plugin: same-shape and single-exponent f32 calls give the span's bits.
BOOST_FIXTURE_TEST_CASE(pow_through_the_abi_gives_the_span_results, PluginFixture) {
  const uint64_t n = 70001;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> base(0.0f, 8.0f), expo(-6.0f, 6.0f);
  std::vector<float> a(n), b(n);
  for (uint64_t i = 0; i < n; ++i) {
    a[i] = i % 5 == 0 ? -base(rng) : base(rng);
    b[i] = i % 3 == 0 ? std::round(expo(rng)) : expo(rng);
  }
  const oi::Kernel* k = cpu->find_kernel("pow", std::vector{oi::DType::f32, oi::DType::f32},
                                         oi::DType::f32, oi::KernelMode::Normal);
  BOOST_TEST_REQUIRE(k != nullptr);
  for (const uint64_t nb : {n, uint64_t{1}}) {
    std::vector<float> want(n);
    oi::cpu::vmath::pow_span()(a.data(), b.data(), nb == n ? 1 : 0, want.data(), n);
    auto ba = cpu->alloc(n * 4), bb = cpu->alloc(nb * 4), by = cpu->alloc(n * 4);
    cpu->upload(*ba, 0, std::as_bytes(std::span(a)));
    cpu->upload(*bb, 0, std::as_bytes(std::span(b.data(), nb)));
    const std::vector<uint64_t> da{n}, db{nb};
    oi::TensorArg ins[] = {{oi::DType::f32, da, ba.get(), 0}, {oi::DType::f32, db, bb.get(), 0}};
    oi::TensorArg outs[] = {{oi::DType::f32, da, by.get(), 0}};
    cpu->run(*k, ins, outs, {});
    std::vector<float> got(n);
    cpu->download(*by, 0, std::as_writable_bytes(std::span(got)));
    BOOST_TEST(std::memcmp(got.data(), want.data(), n * 4) == 0, "exponents " << nb);
  }
}
