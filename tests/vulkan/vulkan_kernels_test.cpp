// The Vulkan backend through the plugin host: every registered kernel against the CPU
// backend's numpy-computed cases (tests/plugins/cpu_kernel_cases.json) under the GPU rules of
// ops.md, plus broadcasting, offsets, large transfers and matmul shapes against expectations
// computed here with exact arithmetic. Exits 77 (CTest: skipped) when no Vulkan device exists.
#define BOOST_TEST_MODULE vulkan_kernels
#define BOOST_TEST_NO_MAIN
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "../common/kernel_cases.hpp"
#include "openinfer/error.hpp"
#include "openinfer/float_formats.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/model.hpp"
#include "openinfer/plugin_host.hpp"
#include "openinfer/simulator.hpp"

namespace json = boost::json;
using oi::DType;
using namespace kernel_cases;

namespace {

// The build tree's paths, unless scripts/run-vulkan-on-gpu.sh moved the test elsewhere.
std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

const std::string& plugin_dir() {
  static const std::string dir = env_or("OPENINFER_TEST_PLUGIN_DIR", PLUGIN_DIR);
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

// Distance in units in the last place between two finite floats of one sign class.
template <class T, class U>
uint64_t ulps(T a, T b) {
  auto key = [](T x) {
    U u;
    std::memcpy(&u, &x, sizeof(T));
    const U sign = U{1} << (8 * sizeof(T) - 1);
    return (u & sign) ? sign - (u & ~sign) : sign + u;  // monotonic in x
  };
  U ka = key(a), kb = key(b);
  return ka > kb ? ka - kb : kb - ka;
}

// ops.md GPU rules: bit-exact, except div, recip and fma within 2 ulp, a case's "ulp" bound
// (the elementwise math of ops-nn.md), its "tolerance" (reductions, softmax, the norms; matmul
// and the summing reductions ops.md's where the case names none: their summation order may
// differ), and subnormal results flushed to zero on a device that reports it. A zero sum, mean
// or product keeps the expected zero's sign within the tolerance: it does not depend on the order
// (a sum is -0.0 only when every term is -0.0, a product's sign is its factors').
bool two_ulp_op(const std::string& op) {
  return op == "div" || op == "recip" || op == "fma";
}

template <class T, class U>
void compare_floats(const std::vector<std::byte>& got, const std::vector<std::byte>& want,
                    const json::object& c, const std::string& op, const std::string& key) {
  const bool folds = op == "sum_axis" || op == "prod_axis" || op == "mean_axis";
  const bool tolerant = c.contains("tolerance") || op == "matmul" || folds;
  double atol = sizeof(T) == 4 ? 1e-6 : 1e-12, rtol = sizeof(T) == 4 ? 1e-5 : 1e-12;
  if (c.contains("tolerance")) {
    atol = c.at("tolerance").as_array()[0].to_number<double>();
    rtol = c.at("tolerance").as_array()[1].to_number<double>();
  }
  const uint64_t ulp_bound = c.contains("ulp") ? c.at("ulp").to_number<uint64_t>()
                             : two_ulp_op(op)  ? 2
                                               : 0;
  for (size_t i = 0; i < want.size() / sizeof(T); ++i) {
    T g, w;
    std::memcpy(&g, got.data() + i * sizeof(T), sizeof(T));
    std::memcpy(&w, want.data() + i * sizeof(T), sizeof(T));
    bool ok;
    if (std::isnan(w)) {
      ok = std::isnan(g);
    } else if (std::memcmp(&g, &w, sizeof(T)) == 0) {
      ok = true;
    } else if (folds && g == 0 && w == 0) {
      ok = false;  // the other zero's sign
    } else if (tolerant && std::isfinite(w)) {
      ok = std::abs(double(g) - double(w)) <= atol + rtol * std::abs(double(w));
    } else if (gpu()->flushes_subnormals() && std::fpclassify(w) == FP_SUBNORMAL && g == 0) {
      ok = true;
    } else if (ulp_bound > 0 && std::isfinite(w) && std::isfinite(g)) {
      ok = ulps<T, U>(g, w) <= ulp_bound;
    } else {
      ok = false;
    }
    BOOST_TEST(ok, key << " element " << i << ": got " << g << ", want " << w);
  }
}

float widen(DType t, uint16_t bits) {
  if (t == DType::f8) return oi::f8_bits_to_f32(static_cast<uint8_t>(bits));
  return t == DType::f16 ? oi::f16_bits_to_f32(bits) : oi::bf16_bits_to_f32(bits);
}

// f16/bf16/f8: bit-exact, except that any NaN matches NaN (the GPU's NaN payloads are its own),
// div, recip and fma may land one unit of the narrow type away (2 f32 ulp before the one
// rounding, ops.md), and a case's "ulp" or "tolerance" bound holds where it gives one.
// On a device that flushes subnormals, a subnormal result may be zero, and where an operand is
// a subnormal bf16 (an f32 subnormal, flushed on the way in) the result may be what a zero
// operand gives: 0, inf or NaN.
void compare_narrow(const std::vector<std::byte>& got, const std::vector<std::byte>& want, DType t,
                    const json::object& c, const std::string& op, const std::string& key,
                    bool subnormal_operands) {
  const bool flushes = gpu()->flushes_subnormals();
  const int ulp_bound = c.contains("ulp") ? c.at("ulp").to_number<int>() : two_ulp_op(op) ? 1 : 0;
  const size_t size = t == DType::f8 ? 1 : 2;
  const uint16_t sign = t == DType::f8 ? 0x80 : 0x8000;
  for (size_t i = 0; i < want.size() / size; ++i) {
    uint16_t g = 0, w = 0;
    std::memcpy(&g, got.data() + size * i, size);
    std::memcpy(&w, want.data() + size * i, size);
    const float gf = widen(t, g), wf = widen(t, w);
    bool ok = g == w || (std::isnan(wf) && std::isnan(gf));
    if (!ok && ulp_bound > 0 && std::isfinite(wf) && std::isfinite(gf)) {
      auto key_of = [sign](uint16_t b) { return (b & sign) ? -int(b & (sign - 1)) : int(b); };
      ok = std::abs(key_of(g) - key_of(w)) <= ulp_bound;
    }
    if (!ok && c.contains("tolerance") && std::isfinite(wf)) {
      const double atol = c.at("tolerance").as_array()[0].to_number<double>();
      const double rtol = c.at("tolerance").as_array()[1].to_number<double>();
      ok = std::abs(double(gf) - double(wf)) <= atol + rtol * std::abs(double(wf));
    }
    if (!ok && flushes) {
      ok = (std::fpclassify(wf) == FP_SUBNORMAL && gf == 0) ||
           (subnormal_operands && (gf == 0 || std::isinf(gf) || std::isnan(gf) || wf == 0));
    }
    BOOST_TEST(ok, key << " element " << i << ": got " << gf << ", want " << wf);
  }
}

json::array load_cases() {
  return kernel_cases::load_all_cases(env_or("OPENINFER_TEST_SOURCE_DIR", OPENINFER_SOURCE_DIR));
}

template <class T>
std::shared_ptr<oi::DeviceBuffer> upload(const std::vector<T>& values, uint64_t offset = 0) {
  auto buf = gpu()->alloc(offset + values.size() * sizeof(T));
  gpu()->upload(*buf, offset, std::as_bytes(std::span(values)));
  return buf;
}

template <class T>
std::vector<T> download(const oi::DeviceBuffer& buf, uint64_t count, uint64_t offset = 0) {
  std::vector<T> out(count);
  gpu()->download(buf, offset, std::as_writable_bytes(std::span(out)));
  return out;
}

const oi::Kernel& kernel(const std::string& op, std::vector<DType> in, DType out,
                         oi::KernelMode mode = oi::KernelMode::Normal) {
  const oi::Kernel* k = gpu()->find_kernel(op, in, out, mode);
  BOOST_TEST_REQUIRE(k != nullptr, "no kernel " << kernel_key(op, in, out, mode));
  return *k;
}

uint64_t numel(const std::vector<uint64_t>& dims) {
  uint64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

}  // namespace

// OPENINFER_TEST_OPS=exp,log,...: only those ops' cases and kernels (CTest's
// vulkan_kernels_f32_math_test: the math with OPENINFER_VULKAN_F32_MATH=f32).
bool op_selected(const std::string& op) {
  static const std::string list = env_or("OPENINFER_TEST_OPS", "");
  if (list.empty()) return true;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ','))
    if (item == op) return true;
  return false;
}

// OPENINFER_TEST_DTYPES=i64,u64: only the cases and kernels with an operand or the result of
// one of those dtypes (CTest's vulkan_kernels_int64_emulated_test: with
// OPENINFER_VULKAN_INT64=emulate).
bool dtypes_selected(const std::vector<DType>& in, DType out) {
  static const std::string list = env_or("OPENINFER_TEST_DTYPES", "");
  if (list.empty()) return true;
  std::vector<DType> all = in;
  all.push_back(out);
  std::stringstream items(list);
  std::string item;
  while (std::getline(items, item, ','))
    for (DType t : all)
      if (oi::dtype_name(t) == item) return true;
  return false;
}

BOOST_AUTO_TEST_CASE(every_kernel_matches_the_cpu_cases) {
  std::set<std::string> covered;
  size_t ran = 0;
  for (const auto& cv : load_cases()) {
    const auto& c = cv.as_object();
    std::string op(c.at("op").as_string());
    if (!op_selected(op)) continue;
    oi::KernelMode mode = mode_named(c.at("mode").as_string());
    std::vector<Operand> inputs;
    for (const auto& i : c.at("inputs").as_array()) inputs.push_back(operand(i));
    Operand want = operand(c.at("output"));
    std::vector<DType> in_types;
    for (const auto& i : inputs) in_types.push_back(i.dtype);
    if (!dtypes_selected(in_types, want.dtype)) continue;
    const oi::Kernel* k = gpu()->find_kernel(op, in_types, want.dtype, mode);
    if (k == nullptr || k->provider != "vulkan") continue;
    std::string key = kernel_key(op, in_types, want.dtype, mode);
    covered.insert(key);
    ++ran;
    std::vector<oi::KernelSetting> settings;
    for (const auto& s : c.at("settings").as_array()) settings.push_back(setting(s));
    std::vector<std::shared_ptr<oi::DeviceBuffer>> buffers;
    std::vector<oi::TensorArg> in_args;
    for (const auto& i : inputs) {
      buffers.push_back(gpu()->alloc(i.bytes.size()));
      gpu()->upload(*buffers.back(), 0, i.bytes);
      in_args.push_back({i.dtype, i.dims, buffers.back().get(), 0});
    }
    const oi::DeviceBuffer* out_buffer = nullptr;
    if (c.contains("inplace_input")) {
      out_buffer = in_args.at(c.at("inplace_input").to_number<size_t>()).buffer;
    } else {
      buffers.push_back(gpu()->alloc(want.bytes.size()));
      out_buffer = buffers.back().get();
    }
    oi::TensorArg out_args[] = {{want.dtype, want.dims, out_buffer, 0}};
    gpu()->run(*k, in_args, out_args, settings);
    std::vector<std::byte> got(want.bytes.size());
    gpu()->download(*out_buffer, 0, got);
    if (want.dtype == DType::f32) {
      compare_floats<float, uint32_t>(got, want.bytes, c, op, key);
    } else if (want.dtype == DType::f64) {
      compare_floats<double, uint64_t>(got, want.bytes, c, op, key);
    } else if (want.dtype == DType::f16 || want.dtype == DType::bf16 || want.dtype == DType::f8) {
      bool subnormal_operands = false;
      for (const auto& i : inputs) {
        for (size_t e = 0; i.dtype == DType::bf16 && e + 1 < i.bytes.size(); e += 2) {
          uint16_t bits;
          std::memcpy(&bits, i.bytes.data() + e, 2);
          subnormal_operands |= std::fpclassify(widen(DType::bf16, bits)) == FP_SUBNORMAL;
        }
      }
      compare_narrow(got, want.bytes, want.dtype, c, op, key, subnormal_operands);
    } else {
      BOOST_TEST((got == want.bytes), key << ": bytes differ");
    }
  }
  BOOST_TEST_MESSAGE("ran " << ran << " cases over " << covered.size() << " kernels");
  for (const auto& k : gpu()->kernels()) {
    if (k.provider != "vulkan" || !op_selected(k.op) || !dtypes_selected(k.inputs, k.output))
      continue;
    std::string key = kernel_key(k.op, k.inputs, k.output, k.mode);
    BOOST_TEST(covered.count(key) == 1u, "no test case for " << key);
  }
}

BOOST_AUTO_TEST_CASE(the_backend_describes_its_device) {
  BOOST_TEST_MESSAGE("device: " << gpu()->device_name() << "; flushes subnormals: "
                                << (gpu()->flushes_subnormals() ? "yes" : "no"));
  BOOST_TEST(gpu()->name() == "vulkan");
  BOOST_TEST(!gpu()->device_name().empty());
  BOOST_TEST(!gpu()->can_wrap_host_memory());
  const auto dtypes = gpu()->device_dtypes();
  BOOST_TEST(std::count(dtypes.begin(), dtypes.end(), DType::f32) == 1);
  BOOST_TEST(std::count(dtypes.begin(), dtypes.end(), DType::i32) == 1);
  const bool f64 = (gpu()->features() & OI_FEATURE_F64) != 0;
  BOOST_TEST((gpu()->find_kernel("add", {{DType::f64, DType::f64}}, DType::f64,
                                 oi::KernelMode::Normal) != nullptr) == f64);
  for (const char* op : {"add", "sub", "mul", "div", "relu", "fill", "matmul"}) {
    bool found = false;
    for (const auto& k : gpu()->kernels()) found = found || (k.op == op && k.provider == "vulkan");
    BOOST_TEST(found, op);
  }
}

// i32 wraps and f32 sums of small integers are exact: the expectation is plain arithmetic
// over an independent nested-loop walk of the broadcast shapes, at nonzero byte offsets.
BOOST_AUTO_TEST_CASE(broadcasting_at_byte_offsets) {
  const std::vector<uint64_t> ad{3, 1, 5, 1, 7}, bd{4, 1, 1, 7}, yd{3, 4, 5, 1, 7};
  std::vector<int32_t> a(numel(ad)), b(numel(bd));
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int32_t>(i * 2654435761u);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int32_t>(i * 40503u + 7);
  auto ba = upload(a, 12), bb = upload(b, 4);
  auto by = gpu()->alloc(8 + numel(yd) * 4);
  oi::TensorArg ins[] = {{DType::i32, ad, ba.get(), 12}, {DType::i32, bd, bb.get(), 4}};
  oi::TensorArg outs[] = {{DType::i32, yd, by.get(), 8}};
  gpu()->run(kernel("mul", {DType::i32, DType::i32}, DType::i32), ins, outs, {});
  auto y = download<int32_t>(*by, numel(yd), 8);
  size_t e = 0, bad = 0;
  for (uint64_t i = 0; i < 3; ++i)
    for (uint64_t j = 0; j < 4; ++j)
      for (uint64_t k = 0; k < 5; ++k)
        for (uint64_t l = 0; l < 7; ++l, ++e) {
          uint32_t want =
              static_cast<uint32_t>(a[(i * 5 + k) * 7 + l]) * static_cast<uint32_t>(b[j * 7 + l]);
          bad += static_cast<uint32_t>(y[e]) != want;
        }
  BOOST_TEST(bad == 0u);

  std::vector<float> fa(numel(ad)), fb(numel(bd));
  for (size_t i = 0; i < fa.size(); ++i) fa[i] = static_cast<float>(int(i % 37) - 18);
  for (size_t i = 0; i < fb.size(); ++i) fb[i] = static_cast<float>(int(i % 11) - 5) * 0.5f;
  auto fba = upload(fa, 12), fbb = upload(fb, 4);
  oi::TensorArg fins[] = {{DType::f32, ad, fba.get(), 12}, {DType::f32, bd, fbb.get(), 4}};
  oi::TensorArg fouts[] = {{DType::f32, yd, by.get(), 8}};
  gpu()->run(kernel("sub", {DType::f32, DType::f32}, DType::f32), fins, fouts, {});
  auto fy = download<float>(*by, numel(yd), 8);
  e = 0, bad = 0;
  for (uint64_t i = 0; i < 3; ++i)
    for (uint64_t j = 0; j < 4; ++j)
      for (uint64_t k = 0; k < 5; ++k)
        for (uint64_t l = 0; l < 7; ++l, ++e) {
          bad += fy[e] != fa[(i * 5 + k) * 7 + l] - fb[j * 7 + l];
        }
  BOOST_TEST(bad == 0u);
}

// Declined (OI_STATUS_DECLINED): the host may run the call elsewhere; nothing is computed here.
BOOST_AUTO_TEST_CASE(misaligned_offsets_are_declined_not_miscomputed) {
  std::vector<uint64_t> dims{4};
  auto buf = gpu()->alloc(64);
  oi::TensorArg ins[] = {{DType::f32, dims, buf.get(), 2}, {DType::f32, dims, buf.get(), 0}};
  oi::TensorArg outs[] = {{DType::f32, dims, buf.get(), 32}};
  try {
    gpu()->run(kernel("add", {DType::f32, DType::f32}, DType::f32), ins, outs, {});
    BOOST_FAIL("no decline");
  } catch (const oi::KernelDeclined& e) {
    BOOST_TEST(e.backend() == "vulkan");
    BOOST_TEST(e.reason().find("byte offsets") != std::string::npos);
  }
}

// A reduction of rank 9 is beyond the shaders (rank 8): the Vulkan kernel declines the call and
// the executor runs it on the CPU fallback, which the events record.
BOOST_AUTO_TEST_CASE(a_rank_9_reduction_is_declined_and_runs_on_the_cpu) {
  const oi::Graph graph = oi::Graph::parse(R"(
dynamic { x: f32[1, 1, 1, 1, 1, 1, 2, 3, 4]; }
block entry {
  assign s: f32[1, 1, 1, 1, 1, 1, 2, 3, 1];
  op sum_axis(x, axes=[8], keepdims=true) >> s;
  return s;
}
)",
                                           "rank9.oi");
  const oi::Model model = oi::Model::from_bytes(oi::ModelWriter().to_bytes(), "empty.oinf");
  oi::SimulatorOptions options;
  options.fallback = registry().backend("cpu");
  const oi::Simulator sim(model, graph, gpu(), options);
  auto exec = sim.make_executor();
  std::vector<float> x(24);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  exec.insert("x", oi::Tensor::from<float>(x, {1, 1, 1, 1, 1, 1, 2, 3, 4}));
  exec.step();
  const auto s = exec.fetch<float>("s");
  BOOST_REQUIRE(s.size() == 6u);
  for (size_t r = 0; r < 6; ++r) BOOST_TEST(s[r] == static_cast<float>(16 * r + 6));
  bool seen = false;
  for (const auto& ev : exec.events()) {
    if (ev.kind != oi::NodeKind::Op) continue;
    seen = true;
    BOOST_TEST(ev.backend == "cpu");
    BOOST_TEST(ev.declined_by == "vulkan");
    BOOST_TEST(ev.decline_reason == "vulkan: tensors of rank above 8");
  }
  BOOST_TEST(seen);
}

// ops-nn.md: an index out of range is a run-time error naming the op, the index and the bound,
// never a read outside the tensor; the output is left alone.
BOOST_AUTO_TEST_CASE(gather_out_of_range_is_an_error_naming_index_and_bound) {
  const std::vector<float> data{1, 2, 3, 4, 5, 6};
  const std::vector<int32_t> idx{1, -3, 3};
  auto bd = upload(data), bi = upload(idx);
  const std::vector<float> sentinel(6, -9.0f);
  auto by = upload(sentinel);
  const std::vector<uint64_t> dd{3, 2}, di{3};
  oi::TensorArg ins[] = {{DType::f32, dd, bd.get(), 0}, {DType::i32, di, bi.get(), 0}};
  oi::TensorArg outs[] = {{DType::f32, dd, by.get(), 0}};
  oi::KernelSetting axis[] = {{"axis", int64_t{0}}};
  try {
    gpu()->run(kernel("gather", {DType::f32, DType::i32}, DType::f32), ins, outs, axis);
    BOOST_ERROR("gather with index 3 of 3 did not fail");
  } catch (const oi::Error& e) {
    const std::string what = e.what();
    BOOST_TEST(what.find("gather") != std::string::npos, what);
    BOOST_TEST(what.find("index 3") != std::string::npos, what);
    BOOST_TEST(what.find("size 3") != std::string::npos, what);
  }
  BOOST_TEST((download<float>(*by, 6) == sentinel));
}

// More elements than one dispatch has invocations (65535 groups of 256): the grid-stride loop.
BOOST_AUTO_TEST_CASE(fill_and_add_beyond_one_grid) {
  const uint64_t n = 65535ull * 256 + 1000;
  std::vector<uint64_t> dims{n};
  auto buf = gpu()->alloc(n * 4);
  oi::TensorArg t[] = {{DType::i32, dims, buf.get(), 0}};
  oi::KernelSetting value[] = {{"value", int64_t{-7}}};
  gpu()->run(kernel("fill", {DType::i32}, DType::i32), t, t, value);
  oi::TensorArg ins[] = {t[0], t[0]};
  gpu()->run(kernel("add", {DType::i32, DType::i32}, DType::i32, oi::KernelMode::InPlace), ins, t,
             {});
  auto y = download<int32_t>(*buf, n);
  BOOST_TEST(std::count(y.begin(), y.end(), -14) == static_cast<long>(n));
}

BOOST_AUTO_TEST_CASE(transfers_larger_than_the_staging_buffer_round_trip) {
  const uint64_t n = (40ull << 20) / 4 + 3;  // 40 MiB, three staging pieces
  std::vector<uint32_t> v(n);
  for (uint64_t i = 0; i < n; ++i) v[i] = static_cast<uint32_t>(i * 2246822519u);
  auto buf = upload(v, 4);
  BOOST_TEST((download<uint32_t>(*buf, n, 4) == v));
  std::byte small[8]{};
  BOOST_CHECK_THROW(gpu()->download(*buf, buf->size() - 4, small), oi::Error);
}

// Small integers keep every f32 partial sum exact, so any summation order gives the loop's
// result exactly; batch dims broadcast ([2,1] against [3]) and M, N, K are not tile multiples.
BOOST_AUTO_TEST_CASE(matmul_tiles_and_batch_broadcasting) {
  const uint64_t M = 37, K = 45, N = 29;
  const std::vector<uint64_t> ad{2, 1, M, K}, bd{3, K, N}, yd{2, 3, M, N};
  std::vector<float> a(numel(ad)), b(numel(bd));
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(int(i * 7 % 9) - 4);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(int(i * 5 % 7) - 3);
  auto ba = upload(a), bb = upload(b);
  auto by = gpu()->alloc(numel(yd) * 4);
  oi::TensorArg ins[] = {{DType::f32, ad, ba.get(), 0}, {DType::f32, bd, bb.get(), 0}};
  oi::TensorArg outs[] = {{DType::f32, yd, by.get(), 0}};
  gpu()->run(kernel("matmul", {DType::f32, DType::f32}, DType::f32), ins, outs, {});
  auto y = download<float>(*by, numel(yd));
  size_t bad = 0;
  for (uint64_t p = 0; p < 2; ++p)
    for (uint64_t q = 0; q < 3; ++q)
      for (uint64_t i = 0; i < M; ++i)
        for (uint64_t j = 0; j < N; ++j) {
          double acc = 0;
          for (uint64_t k = 0; k < K; ++k) acc += a[(p * M + i) * K + k] * b[(q * K + k) * N + j];
          bad += y[((p * 3 + q) * M + i) * N + j] != static_cast<float>(acc);
        }
  BOOST_TEST(bad == 0u);
}

// More tiles along M or N than a grid has workgroups (65535): the shaders take the tiles past
// it round again (kernels/matmul.cpp). K = 1 keeps it cheap: y[i][j] = a[i] * b[j], exact.
// f32 M = 65536 * 128 + 3 rows (the tiled shader's 128-row tiles), f32 N = 65536 * 32 + 3
// columns of one row (the GEMV's 32-column slices), i32 N = 65536 * 16 + 3 columns of 5 rows
// (matmul_generic.comp's 16-column tiles).
BOOST_AUTO_TEST_CASE(matmul_past_65535_workgroups) {
  struct Shape {
    DType t;
    uint64_t M, N;
  };
  for (const Shape& s :
       {Shape{DType::f32, 65536ull * 128 + 3, 1}, Shape{DType::f32, 1, 65536ull * 32 + 3},
        Shape{DType::i32, 5, 65536ull * 16 + 3}}) {
    const std::vector<uint64_t> ad{s.M, 1}, bd{1, s.N}, yd{s.M, s.N};
    std::vector<int32_t> a(s.M), b(s.N);
    for (uint64_t i = 0; i < s.M; ++i) a[i] = static_cast<int32_t>(i % 7) - 3;
    for (uint64_t j = 0; j < s.N; ++j) b[j] = static_cast<int32_t>(j % 5) - 2;
    auto as_type = [&](const std::vector<int32_t>& v) {
      if (s.t == DType::i32) return upload(v);
      return upload(std::vector<float>(v.begin(), v.end()));
    };
    auto ba = as_type(a), bb = as_type(b);
    auto by = gpu()->alloc(s.M * s.N * 4);
    oi::TensorArg ins[] = {{s.t, ad, ba.get(), 0}, {s.t, bd, bb.get(), 0}};
    oi::TensorArg outs[] = {{s.t, yd, by.get(), 0}};
    gpu()->run(kernel("matmul", {s.t, s.t}, s.t), ins, outs, {});
    size_t bad = 0;
    if (s.t == DType::i32) {
      const auto y = download<int32_t>(*by, s.M * s.N);
      for (uint64_t i = 0; i < s.M; ++i)
        for (uint64_t j = 0; j < s.N; ++j) bad += y[i * s.N + j] != a[i] * b[j];
    } else {
      const auto y = download<float>(*by, s.M * s.N);
      for (uint64_t i = 0; i < s.M; ++i)
        for (uint64_t j = 0; j < s.N; ++j) bad += y[i * s.N + j] != static_cast<float>(a[i] * b[j]);
    }
    BOOST_TEST(bad == 0u, "M " << s.M << " N " << s.N);
  }
}

// Every f16 and bf16 bit pattern plus four addends (zero, the smallest f16 subnormal, a value
// that forces rounding, a large one), broadcast, at an odd element offset so that the output's
// first and last words are shared with sentinels: expected values from the core's conversions
// (one f32 sum, one rounding), the sentinels untouched.
BOOST_AUTO_TEST_CASE(narrow_floats_round_once_at_odd_offsets) {
  for (DType t : {DType::f16, DType::bf16}) {
    const uint64_t n = 65536;
    std::vector<uint16_t> a(n);
    for (uint64_t i = 0; i < n; ++i) a[i] = static_cast<uint16_t>(i);
    auto narrow = [t](float v) {
      return t == DType::f16 ? oi::f32_to_f16_bits(v) : oi::f32_to_bf16_bits(v);
    };
    const std::vector<uint16_t> b{narrow(0.0f), narrow(5.9604645e-8f), narrow(1.0009765625f),
                                  narrow(-3000.5f)};
    auto ba = upload(a, 2), bb = upload(b);
    const std::vector<uint16_t> sentinel{0xabcd};
    auto by = gpu()->alloc(2 + 4 * n * 2 + 2);
    gpu()->upload(*by, 0, std::as_bytes(std::span(sentinel)));
    gpu()->upload(*by, 2 + 4 * n * 2, std::as_bytes(std::span(sentinel)));
    const std::vector<uint64_t> ad{n}, bd{4, 1}, yd{4, n};
    oi::TensorArg ins[] = {{t, ad, ba.get(), 2}, {t, bd, bb.get(), 0}};
    oi::TensorArg outs[] = {{t, yd, by.get(), 2}};
    gpu()->run(kernel("add", {t, t}, t), ins, outs, {});
    auto y = download<uint16_t>(*by, 4 * n + 2);
    BOOST_TEST(y.front() == 0xabcd);
    BOOST_TEST(y.back() == 0xabcd);
    size_t bad = 0;
    for (uint64_t j = 0; j < 4; ++j) {
      for (uint64_t i = 0; i < n; ++i) {
        const uint16_t got = y[1 + j * n + i], want = narrow(widen(t, a[i]) + widen(t, b[j]));
        const bool nan = std::isnan(widen(t, want)) && std::isnan(widen(t, got));
        const bool flushed = gpu()->flushes_subnormals() &&
                             std::fpclassify(widen(t, want)) == FP_SUBNORMAL && widen(t, got) == 0;
        if (got != want && !nan && !flushed && bad++ < 5) {
          BOOST_TEST_MESSAGE(oi::dtype_name(t) << " " << std::hex << a[i] << " + " << b[j]
                                               << ": got " << got << ", want " << want);
        }
      }
    }
    BOOST_TEST(bad == 0u, oi::dtype_name(t) << ": " << bad << " wrong sums");
  }
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
    for (const auto& s : registry().skipped()) std::cerr << s.path << ": " << s.detail << "\n";
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
  }
  return 1;
}
