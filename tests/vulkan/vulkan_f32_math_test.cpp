// The bound test of plugins/vulkan/shaders/math_f32.glsl, ops-nn.md's f32 math in f32 arithmetic
// (the Vulkan backend's ew_math32 variants: the path of a device without shaderFloat64, forced
// here with OPENINFER_VULKAN_F32_MATH=f32; the glsl emitter embeds the same file). Each function
// runs on the device over a sweep of f32 inputs (OPENINFER_F32_MATH_SWEEP per function, default
// 3 << 20): special values and the points where the code switches method, a stride through all
// 2^32 bit patterns (tiny, huge, subnormal, NaN), random values over the function's range, and
// for sin/cos the f32 values nearest k pi/2 (k up to 2^20) and the hardest arguments of any f32
// for the reduction (no range limit: every finite f32 is reduced exactly). The reference is
// glibc's libm in double rounded once to f32; every result must be within ops-nn.md's 2 ulp of
// it (sqrt: 0), NaN exactly where it is NaN, and the largest distance found is printed per
// function. (Where the double reference itself rounds twice, e.g. x/2 for an odd subnormal x in
// silu, or the sum of fma, the exact result can be the other neighbour: 1 ulp, within the bound.)
// Exits 77 (CTest: skipped) when no Vulkan device exists.
#define BOOST_TEST_MODULE vulkan_f32_math
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iomanip>
#include <iostream>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

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

size_t sweep_size() {
  static const size_t n = std::stoull(env_or("OPENINFER_F32_MATH_SWEEP", "3145728"));
  return n;
}

uint32_t bits_of(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// Distance in ulps between two non-NaN floats (a monotonic key of the bits; -0 and +0 adjacent).
int64_t ulps(float a, float b) {
  auto key = [](float x) {
    const uint32_t u = bits_of(x);
    return (u & 0x80000000u) ? -static_cast<int64_t>(u & 0x7fffffffu) - 1 : static_cast<int64_t>(u);
  };
  return std::llabs(key(a) - key(b));
}

// Inputs: the specials and switch points, a stride through every bit pattern (a quarter), the
// rest uniform in [lo, hi].
std::vector<float> sweep(std::vector<float> special, double lo, double hi, uint32_t seed) {
  std::vector<float> x = std::move(special);
  for (const float s : std::vector<float>(x)) {  // neighbours of each switch point
    x.push_back(std::nextafter(s, INFINITY));
    x.push_back(std::nextafter(s, -INFINITY));
  }
  const size_t n = std::max(sweep_size(), x.size() + 64);
  const size_t strided = (n - x.size()) / 4;
  const uint64_t step = (uint64_t{1} << 32) / strided;
  for (size_t i = 0; i < strided; ++i)
    x.push_back(from_bits(static_cast<uint32_t>(i * step + seed)));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  while (x.size() < n) x.push_back(static_cast<float>(u(rng)));
  return x;
}

const std::vector<float> kCommon = {0.0f,
                                    -0.0f,
                                    INFINITY,
                                    -INFINITY,
                                    NAN,
                                    -NAN,
                                    from_bits(0x7f800001u),
                                    1e-45f,
                                    -1e-45f,
                                    1.1754942e-38f,
                                    -1.1754942e-38f,
                                    1.17549435e-38f,
                                    3.4028235e38f,
                                    -3.4028235e38f,
                                    1.0f,
                                    -1.0f,
                                    0.5f,
                                    2.0f,
                                    0x1p-12f,
                                    -0x1p-12f,
                                    0x1p-30f,
                                    -0x1p-60f};

std::vector<float> with_common(std::vector<float> v) {
  v.insert(v.begin(), kCommon.begin(), kCommon.end());
  return v;
}

struct Stats {
  int64_t worst = 0;
  size_t over = 0, nan_mismatch = 0, differ = 0;
  std::string example;
};

void check(const std::string& name, const std::vector<float>& got, const std::vector<float>& want,
           const std::function<std::string(size_t)>& arg, int64_t bound, Stats& st) {
  for (size_t i = 0; i < want.size(); ++i) {
    const float g = got[i], w = want[i];
    if (std::isnan(w) || std::isnan(g)) {
      if (std::isnan(w) != std::isnan(g) && ++st.nan_mismatch <= 5)
        BOOST_ERROR(name << "(" << arg(i) << "): got " << g << ", want " << w);
      continue;
    }
    const int64_t d = ulps(g, w);
    st.differ += d != 0;
    if (d > st.worst) {
      st.worst = d;
      std::ostringstream e;
      e << name << "(" << arg(i) << ") = " << std::setprecision(9) << g << ", want " << w;
      st.example = e.str();
    }
    if (d > bound && ++st.over <= 5)
      BOOST_ERROR(name << "(" << arg(i) << "): got " << std::setprecision(9) << g << ", want " << w
                       << " (" << d << " ulp)");
  }
}

std::string hex(float f) {
  std::ostringstream s;
  s << std::hexfloat << f;
  return s.str();
}

std::vector<float> run(const std::string& op, const std::vector<std::vector<float>>& inputs,
                       const std::vector<oi::KernelSetting>& settings = {}) {
  const size_t n = inputs.front().size();
  const std::vector<uint64_t> dims{n};
  std::vector<std::shared_ptr<oi::DeviceBuffer>> bufs;
  std::vector<oi::TensorArg> ins;
  for (const auto& v : inputs) {
    bufs.push_back(gpu()->alloc(n * 4));
    gpu()->upload(*bufs.back(), 0, std::as_bytes(std::span(v)));
    ins.push_back({DType::f32, dims, bufs.back().get(), 0});
  }
  auto out = gpu()->alloc(n * 4);
  oi::TensorArg outs[] = {{DType::f32, dims, out.get(), 0}};
  const std::vector<DType> types(inputs.size(), DType::f32);
  const oi::Kernel* k = gpu()->find_kernel(op, types, DType::f32, oi::KernelMode::Normal);
  BOOST_TEST_REQUIRE(k != nullptr, "no f32 kernel for " << op);
  gpu()->run(*k, ins, outs, settings);
  std::vector<float> y(n);
  gpu()->download(*out, 0, std::as_writable_bytes(std::span(y)));
  return y;
}

// One unary function: device results against `ref` (double) rounded once.
void unary(const std::string& name, const std::string& op, const std::vector<float>& x,
           double (*ref)(double), const std::vector<oi::KernelSetting>& settings = {},
           int64_t bound = 2) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<float> got = run(op, {x}, settings);
  std::vector<float> want(x.size());
  for (size_t i = 0; i < x.size(); ++i) want[i] = static_cast<float>(ref(x[i]));
  Stats st;
  check(
      name, got, want, [&](size_t i) { return hex(x[i]); }, bound, st);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << std::left << std::setw(10) << name << " " << x.size() << " inputs: max " << st.worst
            << " ulp (" << st.differ << " differ from the rounded reference"
            << ")" << (st.example.empty() ? "" : "; e.g. " + st.example) << " [" << std::fixed
            << std::setprecision(1) << s << " s]" << std::defaultfloat << std::endl;
  BOOST_TEST(st.worst <= bound, name << ": " << st.worst << " ulp");
}

double ref_rsqrt(double x) {
  return 1.0 / std::sqrt(x);
}
double ref_sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}
double ref_silu(double x) {
  return x / (1.0 + std::exp(-x));
}
double ref_gelu(double x) {
  return x * 0.5 * std::erfc(-x * 0.70710678118654752440);
}
double ref_gelu_tanh(double x) {
  const double u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
  return x / (1.0 + std::exp(-2.0 * u));
}
double ref_exp(double x) {
  return std::exp(x);
}
double ref_log(double x) {
  return std::log(x);
}
double ref_sqrt(double x) {
  return std::sqrt(x);
}
double ref_sin(double x) {
  return std::sin(x);
}
double ref_cos(double x) {
  return std::cos(x);
}
double ref_tanh(double x) {
  return std::tanh(x);
}
double ref_erf(double x) {
  return std::erf(x);
}

// The f32 values nearest k pi/2 (k < 2^20, every 61st; and powers of two up to 2^80) and their
// neighbours, and the arguments of every f32 closest to a multiple of pi/2 relative to it (an
// exhaustive search over all f32 with exact integer products by 2/pi: |x| 2/pi within 1.03e-9
// of an integer for the first), signed both ways.
std::vector<float> near_half_pi() {
  std::vector<float> v;
  const long double half_pi = 1.57079632679489661923132169163975144L;
  auto add = [&](long double k) {
    const float f = static_cast<float>(k * half_pi);
    for (int d = -2; d <= 2; ++d) {
      const float g = from_bits(bits_of(f) + static_cast<uint32_t>(d));
      v.push_back(g);
      v.push_back(-g);
    }
  };
  for (uint32_t k = 1; k < (1u << 20); k += 61) add(k);
  for (int e = 20; e <= 80; ++e) add(std::ldexp(1.0L, e) + 1);
  for (uint32_t b :
       {0x6f79be45u, 0x50a3e87fu, 0x6ff9be45u, 0x5123e87fu, 0x437ce5f1u, 0x7079be45u,
        0x6a1976f1u, 0x53b146a6u, 0x65898498u, 0x51a3e87fu, 0x43fce5f1u, 0x77584625u,
        0x4c2332e9u, 0x4096cbe4u, 0x6c55da58u, 0x70f9be45u, 0x6a9976f1u, 0x5c07bcd0u,
        0x543146a6u, 0x66098498u, 0x5223e87fu, 0x474d246fu, 0x723fa09au, 0x447ce5f1u}) {
    v.push_back(from_bits(b));
    v.push_back(-from_bits(b));
  }
  return v;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_f32_path_is_forced) {
  std::cout << "device: " << gpu()->device_name()
            << "; OPENINFER_VULKAN_F32_MATH=" << env_or("OPENINFER_VULKAN_F32_MATH", "") << "; "
            << sweep_size() << " inputs a function" << std::endl;
  BOOST_TEST(env_or("OPENINFER_VULKAN_F32_MATH", "") == "f32");
}

BOOST_AUTO_TEST_CASE(exp_log_sqrt_rsqrt) {
  unary("exp", "exp",
        sweep(with_common({88.72283935546875f, 88.7228317f, 89.0f, -87.3365479f, -103.972076f,
                           -103.97208f, -104.0f, 0.34657359f, -0.34657359f}),
              -105.0, 90.0, 1),
        ref_exp);
  unary("log", "log",
        sweep(with_common({1.41421354f, 1.41421366f, 0.707106769f, 0.99999994f, 1.00000012f}), 0.0,
              4.0, 2),
        ref_log);
  unary("sqrt", "sqrt", sweep(with_common({4.0f, 0.25f, 9.99999975e-06f}), 0.0, 1e6, 3), ref_sqrt,
        {}, 0);
  unary("rsqrt", "rsqrt", sweep(with_common({4.0f, 0.25f, 3.0f}), 0.0, 100.0, 4), ref_rsqrt);
}

BOOST_AUTO_TEST_CASE(sin_cos_over_every_range) {
  std::vector<float> special = with_common(near_half_pi());
  for (float s : {0.785398185f, 0.785398126f, 1.5707964f, 3.14159274f, 1e10f, 1e20f, 1e30f})
    special.push_back(s);
  const std::vector<float> x = sweep(special, -100.0, 100.0, 5);
  unary("sin", "sin", x, ref_sin);
  unary("cos", "cos", x, ref_cos);
}

BOOST_AUTO_TEST_CASE(tanh_erf) {
  unary("tanh", "tanh",
        sweep(with_common({9.1f, 9.0f, 0.17328680f, 0.5f, 8.9f, -9.1f}), -10.0, 10.0, 6), ref_tanh);
  unary(
      "erf", "erf",
      sweep(with_common({1.0f, -1.0f, 2.0f, 3.0f, 3.92f, 4.0f, -4.0f, 0.99999994f}), -4.5, 4.5, 7),
      ref_erf);
}

BOOST_AUTO_TEST_CASE(sigmoid_silu_gelu) {
  const std::vector<float> edges = {17.5f, -110.0f, -120.0f, -40.0f, -20.0f, 16.6f};
  unary("sigmoid", "sigmoid", sweep(with_common(edges), -112.0, 20.0, 8), ref_sigmoid);
  unary("silu", "silu", sweep(with_common(edges), -122.0, 20.0, 9), ref_silu);
  const std::vector<float> g = {10.0f,        -15.5f,       1.41421354f,  -1.41421354f,
                                1.41421366f,  2.82842708f,  -2.82842708f, 4.24264050f,
                                -5.65685415f, -8.48528099f, -11.3137083f, -14.2f};
  unary("gelu", "gelu", sweep(with_common(g), -16.0, 11.0, 10), ref_gelu);
  unary("gelu_tanh", "gelu", sweep(with_common({10.0f, -12.0f, -10.5f, -9.0f}), -13.0, 11.0, 11),
        ref_gelu_tanh, {{"approximate", std::string("tanh")}});
}

// OPENINFER_F32_MATH_EXHAUSTIVE=exp,log,...: those unary functions over all 2^32 inputs, in
// pieces of 2^24 (minutes a function on lavapipe), the largest distance printed.
BOOST_AUTO_TEST_CASE(exhaustive_when_asked) {
  const std::string list = env_or("OPENINFER_F32_MATH_EXHAUSTIVE", "");
  if (list.empty()) return;
  struct Fn {
    const char* name;
    const char* op;
    double (*ref)(double);
  };
  const Fn fns[] = {{"exp", "exp", ref_exp},
                    {"log", "log", ref_log},
                    {"sqrt", "sqrt", ref_sqrt},
                    {"rsqrt", "rsqrt", ref_rsqrt},
                    {"sin", "sin", ref_sin},
                    {"cos", "cos", ref_cos},
                    {"tanh", "tanh", ref_tanh},
                    {"erf", "erf", ref_erf},
                    {"sigmoid", "sigmoid", ref_sigmoid},
                    {"silu", "silu", ref_silu},
                    {"gelu", "gelu", ref_gelu},
                    {"gelu_tanh", "gelu", ref_gelu_tanh}};
  std::stringstream names(list);
  std::string name;
  while (std::getline(names, name, ',')) {
    const Fn* f = nullptr;
    for (const Fn& g : fns) f = name == g.name ? &g : f;
    BOOST_TEST_REQUIRE(f != nullptr, "unknown function " << name);
    std::vector<oi::KernelSetting> settings;
    if (name == "gelu_tanh") settings.push_back({"approximate", std::string("tanh")});
    const auto t0 = std::chrono::steady_clock::now();
    Stats st;
    const uint64_t piece = uint64_t{1} << 24;
    std::vector<float> x(piece), want(piece);
    for (uint64_t base = 0; base < (uint64_t{1} << 32); base += piece) {
      for (uint64_t i = 0; i < piece; ++i) x[i] = from_bits(static_cast<uint32_t>(base + i));
      const std::vector<float> got = run(f->op, {x}, settings);
      for (uint64_t i = 0; i < piece; ++i) want[i] = static_cast<float>(f->ref(x[i]));
      check(
          name, got, want, [&](size_t i) { return hex(x[i]); }, name == "sqrt" ? 0 : 2, st);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << std::left << std::setw(10) << name << " all 2^32 inputs: max " << st.worst
              << " ulp (" << st.differ << " differ from the rounded reference)"
              << (st.example.empty() ? "" : "; e.g. " + st.example) << " [" << std::fixed
              << std::setprecision(0) << s << " s]" << std::defaultfloat << std::endl;
  }
}

// pow: C99's specials (every pair of the special values), integer exponents of negative bases,
// bases near 1 with large exponents, results near overflow and into the subnormals, random
// pairs of bit patterns and of ordinary values.
BOOST_AUTO_TEST_CASE(pow_pairs) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<float> x, y;
  const std::vector<float> sp = {0.0f,  -0.0f, INFINITY, -INFINITY, NAN,   1.0f,
                                 -1.0f, 0.5f,  -0.5f,    2.0f,      -2.0f, 3.0f,
                                 -3.0f, 2.5f,  -2.5f,    1e-45f,    1e38f, -1e38f};
  for (float a : sp)
    for (float b : sp) x.push_back(a), y.push_back(b);
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  const size_t n = std::max<size_t>(sweep_size(), x.size() + 16);
  while (x.size() < n) {
    const double r = u01(rng);
    float a, b;
    switch (x.size() % 6) {
      case 0:  // bit patterns
        a = from_bits(static_cast<uint32_t>(rng()));
        b = from_bits(static_cast<uint32_t>(rng()));
        break;
      case 1:  // negative bases, integer exponents
        a = static_cast<float>(-3.0 + 6.0 * r);
        b = static_cast<float>(std::round(-80.0 + 160.0 * u01(rng)));
        break;
      case 2:  // near 1, large exponents
        a = static_cast<float>(1.0 + (r - 0.5) * 2e-3);
        b = static_cast<float>((u01(rng) - 0.5) * 1.6e5);
        break;
      case 3: {  // results near the overflow and underflow thresholds
        a = static_cast<float>(std::exp2(-149.0 + 277.0 * r));
        const double l2 = std::log2(static_cast<double>(a));
        const double target = u01(rng) < 0.5 ? 128.0 - 0.5 * u01(rng) : -149.0 - 2.0 * u01(rng);
        b = static_cast<float>(l2 == 0.0 ? 1.0 : target / l2);
        break;
      }
      default:  // ordinary values
        a = static_cast<float>(4.0 * r);
        b = static_cast<float>(-30.0 + 60.0 * u01(rng));
    }
    x.push_back(a);
    y.push_back(b);
  }
  const std::vector<float> got = run("pow", {x, y});
  std::vector<float> want(n);
  for (size_t i = 0; i < n; ++i)
    want[i] = static_cast<float>(std::pow(static_cast<double>(x[i]), static_cast<double>(y[i])));
  Stats st;
  check(
      "pow", got, want, [&](size_t i) { return hex(x[i]) + ", " + hex(y[i]); }, 2, st);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "pow        " << n << " inputs: max " << st.worst << " ulp (" << st.differ
            << " differ)" << (st.example.empty() ? "" : "; e.g. " + st.example) << " ["
            << std::fixed << std::setprecision(1) << s << " s]" << std::defaultfloat << std::endl;
  BOOST_TEST(st.worst <= 2);
}

// fma (not in ops-nn.md's list, but computed by the same file where f64 is missing): one
// rounding of the exact a b + c, against the exact product plus c rounded in double and then to
// f32; products and sums across the whole exponent range, with c cancelling a b.
BOOST_AUTO_TEST_CASE(fma_triples) {
  const auto t0 = std::chrono::steady_clock::now();
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  const size_t n = sweep_size();
  std::vector<float> a(n), b(n), c(n);
  for (size_t i = 0; i < n; ++i) {
    const bool wide = i % 2 == 0;
    auto pick = [&] {
      const double m = wide ? std::exp2(-149.0 + 276.0 * u01(rng)) : 8.0 * u01(rng);
      return static_cast<float>(u01(rng) < 0.5 ? -m : m);
    };
    a[i] = i % 7 == 0 ? from_bits(static_cast<uint32_t>(rng())) : pick();
    b[i] = pick();
    const double p = static_cast<double>(a[i]) * b[i];
    c[i] = i % 3 == 0 ? static_cast<float>(-p * (1.0 + (u01(rng) - 0.5) * 1e-6)) : pick();
  }
  const std::vector<float> got = run("fma", {a, b, c});
  std::vector<float> want(n);
  for (size_t i = 0; i < n; ++i)
    want[i] = static_cast<float>(std::fma(static_cast<double>(a[i]), b[i], c[i]));
  Stats st;
  check(
      "fma", got, want, [&](size_t i) { return hex(a[i]) + ", " + hex(b[i]) + ", " + hex(c[i]); },
      2, st);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "fma        " << n << " inputs: max " << st.worst << " ulp (" << st.differ
            << " differ)" << (st.example.empty() ? "" : "; e.g. " + st.example) << " ["
            << std::fixed << std::setprecision(1) << s << " s]" << std::defaultfloat << std::endl;
  BOOST_TEST(st.worst <= 2);
}

int main(int argc, char* argv[]) {
  setenv("OPENINFER_VULKAN_F32_MATH", "f32", 1);  // before the plugin opens its device
  try {
    for (const auto& p : registry().plugins()) {
      if (p.name != "vulkan") continue;
      if (!p.device_name.empty())
        return boost::unit_test::unit_test_main(&init_unit_test, argc, argv);
      std::cout << "SKIPPED: no Vulkan device (" << p.description << ")\n";
      return 77;
    }
    std::cerr << "the vulkan plugin did not load\n";
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
  }
  return 1;
}
