#define BOOST_TEST_MODULE plugins_cpu_kernels
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <type_traits>

#include "../common/kernel_cases.hpp"
#include "openinfer/error.hpp"
#include "openinfer/plugin_host.hpp"
#include "plugin_test_support.hpp"

// Every case of cpu_kernel_cases.json (written by gen_cpu_kernel_cases.py with numpy and exact
// integer arithmetic) runs through the plugin host against the real CPU plugin.

namespace json = boost::json;
using oi::DType;
using namespace kernel_cases;

namespace {

// A float's bit pattern as an integer that orders like the value, so that the difference of
// two finite values counts the units in the last place between them (-0.0 and +0.0 are equal).
int64_t ordered_bits(uint64_t bits, unsigned width) {
  const uint64_t sign = uint64_t{1} << (width - 1);
  return (bits & sign) ? -static_cast<int64_t>(bits & ~sign) : static_cast<int64_t>(bits);
}

// A case's "ulp" field: the most units in the last place a finite result may be off
// (ops-nn.md accuracy of elementwise math); absent: no ulp tolerance.
std::optional<int64_t> ulp_tolerance(const json::object& c) {
  if (!c.contains("ulp")) return std::nullopt;
  return c.at("ulp").to_number<int64_t>();
}

template <class T>
void compare_floats(const std::vector<std::byte>& got, const std::vector<std::byte>& want,
                    const json::object& c, const std::string& key) {
  double atol = 0, rtol = 0;
  bool tolerant = c.contains("tolerance");
  if (tolerant) {
    atol = c.at("tolerance").as_array()[0].to_number<double>();
    rtol = c.at("tolerance").as_array()[1].to_number<double>();
  }
  const std::optional<int64_t> ulp = ulp_tolerance(c);
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  for (size_t i = 0; i < want.size() / sizeof(T); ++i) {
    T g, w;
    std::memcpy(&g, got.data() + i * sizeof(T), sizeof(T));
    std::memcpy(&w, want.data() + i * sizeof(T), sizeof(T));
    if (std::isnan(w)) {
      BOOST_TEST(std::isnan(g), key << " element " << i << ": want NaN, got " << g);
    } else if (tolerant && std::isfinite(w)) {
      BOOST_TEST(std::abs(double(g) - double(w)) <= atol + rtol * std::abs(double(w)),
                 key << " element " << i << ": got " << g << ", want " << w);
    } else if (ulp && std::isfinite(w)) {
      Bits gb, wb;
      std::memcpy(&gb, &g, sizeof(T));
      std::memcpy(&wb, &w, sizeof(T));
      const int64_t d = ordered_bits(gb, sizeof(T) * 8) - ordered_bits(wb, sizeof(T) * 8);
      BOOST_TEST((std::isfinite(g) && std::abs(d) <= *ulp), key << " element " << i << ": got " << g
                                                                << ", want " << w << " within "
                                                                << *ulp << " ulp");
    } else {
      BOOST_TEST(std::memcmp(&g, &w, sizeof(T)) == 0,
                 key << " element " << i << ": got " << g << ", want " << w);
    }
  }
}

// f16, bf16 and f8 outputs: bit-exact, except that any NaN matches any NaN (ops.md), and
// within the case's "ulp" units of the output dtype where it gives one.
bool narrow_special(DType t, uint16_t bits) {  // inf or NaN
  if (t == DType::f16) return (bits & 0x7c00) == 0x7c00;
  if (t == DType::bf16) return (bits & 0x7f80) == 0x7f80;
  return (bits & 0x7c) == 0x7c;  // f8 E5M2
}

bool narrow_nan(DType t, uint16_t bits) {
  if (t == DType::f16) return (bits & 0x7c00) == 0x7c00 && (bits & 0x03ff) != 0;
  if (t == DType::bf16) return (bits & 0x7f80) == 0x7f80 && (bits & 0x007f) != 0;
  return (bits & 0x7c) == 0x7c && (bits & 0x03) != 0;  // f8 E5M2
}

void compare_narrow(DType t, const std::vector<std::byte>& got, const std::vector<std::byte>& want,
                    const json::object& c, const std::string& key) {
  const size_t size = t == DType::f8 ? 1 : 2;
  const std::optional<int64_t> ulp = ulp_tolerance(c);
  for (size_t i = 0; i < want.size() / size; ++i) {
    uint16_t g = 0, w = 0;
    std::memcpy(&g, got.data() + i * size, size);
    std::memcpy(&w, want.data() + i * size, size);
    bool ok = narrow_nan(t, w) ? narrow_nan(t, g) : g == w;
    if (!ok && ulp && !narrow_special(t, w) && !narrow_special(t, g)) {
      const auto width = static_cast<unsigned>(size * 8);
      ok = std::abs(ordered_bits(g, width) - ordered_bits(w, width)) <= *ulp;
    }
    BOOST_TEST(ok, key << " element " << i << ": got bits " << g << ", want " << w);
  }
}

struct Fixture {
  oi::PluginRegistry registry = oi::PluginRegistry::discover({plugin_test::cpu_plugin_dir()});
  std::shared_ptr<oi::Backend> cpu = registry.backend("cpu");
};

json::array load_cases() {
  return kernel_cases::load_all_cases(OPENINFER_SOURCE_DIR);
}

}  // namespace

BOOST_FIXTURE_TEST_CASE(every_case_matches_its_independent_expectation, Fixture) {
  std::set<std::string> covered;
  json::array cases = load_cases();
  BOOST_REQUIRE(cases.size() > 300u);
  for (const auto& cv : cases) {
    const auto& c = cv.as_object();
    std::string op(c.at("op").as_string());
    oi::KernelMode mode = mode_named(c.at("mode").as_string());
    std::vector<Operand> inputs;
    for (const auto& i : c.at("inputs").as_array()) inputs.push_back(operand(i));
    Operand want = operand(c.at("output"));
    std::vector<oi::KernelSetting> settings;
    for (const auto& s : c.at("settings").as_array()) settings.push_back(setting(s));

    std::vector<DType> in_types;
    for (const auto& i : inputs) in_types.push_back(i.dtype);
    std::string key = kernel_key(op, in_types, want.dtype, mode);
    const oi::Kernel* kernel = cpu->find_kernel(op, in_types, want.dtype, mode);
    BOOST_TEST_REQUIRE(kernel != nullptr, "no kernel " << key);
    covered.insert(key);

    std::vector<std::shared_ptr<oi::DeviceBuffer>> buffers;
    std::vector<oi::TensorArg> in_args;
    for (const auto& i : inputs) {
      buffers.push_back(cpu->alloc(i.bytes.size()));
      cpu->upload(*buffers.back(), 0, i.bytes);
      in_args.push_back({i.dtype, i.dims, buffers.back().get(), 0});
    }
    const oi::DeviceBuffer* out_buffer = nullptr;
    if (c.contains("inplace_input")) {
      out_buffer = in_args.at(c.at("inplace_input").to_number<size_t>()).buffer;
    } else {
      buffers.push_back(cpu->alloc(want.bytes.size()));
      out_buffer = buffers.back().get();
    }
    oi::TensorArg out_args[] = {{want.dtype, want.dims, out_buffer, 0}};
    cpu->run(*kernel, in_args, out_args, settings);
    std::vector<std::byte> got(want.bytes.size());
    cpu->download(*out_buffer, 0, got);
    if (want.dtype == DType::f32) {
      compare_floats<float>(got, want.bytes, c, key);
    } else if (want.dtype == DType::f64) {
      compare_floats<double>(got, want.bytes, c, key);
    } else if (want.dtype == DType::f16 || want.dtype == DType::bf16 || want.dtype == DType::f8) {
      compare_narrow(want.dtype, got, want.bytes, c, key);
    } else {
      BOOST_TEST((got == want.bytes), key << ": bytes differ");
    }
  }
  // Every kernel the CPU plugin registers has at least one case.
  for (const auto& k : cpu->kernels()) {
    if (k.provider != "cpu") continue;
    std::string key = kernel_key(k.op, k.inputs, k.output, k.mode);
    BOOST_TEST(covered.count(key) == 1u, "no test case for " << key);
  }
}

BOOST_FIXTURE_TEST_CASE(the_cpu_backend_describes_itself, Fixture) {
  BOOST_TEST(cpu->name() == "cpu");
  BOOST_TEST(cpu->can_wrap_host_memory());
  BOOST_TEST(!cpu->flushes_subnormals());
  BOOST_TEST((cpu->features() & OI_FEATURE_F64) != 0u);
  BOOST_TEST(cpu->plugin().kernel_count == cpu->kernels().size());
  // The ops the runtime tests need, for f32, f64, i32 and bool where the catalog allows.
  for (const char* op :
       {"add", "sub", "mul", "div", "relu", "fill", "matmul", "is_finite", "cast"}) {
    bool found = false;
    for (const auto& k : cpu->kernels()) found = found || k.op == op;
    BOOST_TEST(found, op);
  }
}

// Large tensors take the oneTBB and xsimd paths; the values are exact in f32 by construction:
// a[i] = i / 4 and b[i] = 0.5 add to (i + 2) / 4, representable for i < 2^22.
BOOST_FIXTURE_TEST_CASE(large_tensors_run_in_parallel_with_the_same_result, Fixture) {
  const uint64_t n = 1 << 20;
  std::vector<float> a(n), b(n, 0.5f);
  for (uint64_t i = 0; i < n; ++i) a[i] = static_cast<float>(i) / 4;
  std::vector<uint64_t> dims{n};
  auto ba = cpu->alloc(n * 4), bb = cpu->alloc(n * 4), by = cpu->alloc(n * 4);
  cpu->upload(*ba, 0, std::as_bytes(std::span(a)));
  cpu->upload(*bb, 0, std::as_bytes(std::span(b)));
  const DType f32 = DType::f32;
  oi::TensorArg ins[] = {{f32, dims, ba.get(), 0}, {f32, dims, bb.get(), 0}};
  oi::TensorArg outs[] = {{f32, dims, by.get(), 0}};
  cpu->run(*cpu->find_kernel("add", std::vector{f32, f32}, f32, oi::KernelMode::Normal), ins, outs,
           {});
  std::vector<float> y(n);
  cpu->download(*by, 0, std::as_writable_bytes(std::span(y)));
  uint64_t wrong = 0;
  for (uint64_t i = 0; i < n; ++i) wrong += y[i] != static_cast<float>(i + 2) / 4;
  BOOST_TEST(wrong == 0u);

  // 256 x 256 times the identity gives the matrix back, rows split across threads.
  const uint64_t m = 256;
  std::vector<float> x(m * m), eye(m * m, 0.0f);
  for (uint64_t i = 0; i < m * m; ++i) x[i] = static_cast<float>(i % 1000) - 500.0f;
  for (uint64_t i = 0; i < m; ++i) eye[i * m + i] = 1.0f;
  std::vector<uint64_t> mdims{m, m};
  auto bx = cpu->alloc(m * m * 4), be = cpu->alloc(m * m * 4), bo = cpu->alloc(m * m * 4);
  cpu->upload(*bx, 0, std::as_bytes(std::span(x)));
  cpu->upload(*be, 0, std::as_bytes(std::span(eye)));
  oi::TensorArg mins[] = {{f32, mdims, bx.get(), 0}, {f32, mdims, be.get(), 0}};
  oi::TensorArg mouts[] = {{f32, mdims, bo.get(), 0}};
  cpu->run(*cpu->find_kernel("matmul", std::vector{f32, f32}, f32, oi::KernelMode::Normal), mins,
           mouts, {});
  std::vector<float> got(m * m);
  cpu->download(*bo, 0, std::as_writable_bytes(std::span(got)));
  BOOST_TEST((got == x));
}

// A model file maps tensors at any byte offset: kernels run zero-copy on wrapped host memory
// even when it is not aligned for the element type.
BOOST_FIXTURE_TEST_CASE(kernels_run_zero_copy_on_unaligned_host_memory, Fixture) {
  alignas(8) std::byte model[1 + 5 * 4]{};
  const float values[5] = {-2.0f, -0.0f, 0.5f, 3.0f, -7.25f};
  std::memcpy(model + 1, values, sizeof values);
  auto wrapped = cpu->wrap_host(model, sizeof model);
  auto out = cpu->alloc(1 + 5 * 4);
  std::vector<uint64_t> dims{5};
  const DType f32 = DType::f32;
  oi::TensorArg ins[] = {{f32, dims, wrapped.get(), 1}};
  oi::TensorArg outs[] = {{f32, dims, out.get(), 1}};
  cpu->run(*cpu->find_kernel("relu", std::vector{f32}, f32, oi::KernelMode::Normal), ins, outs, {});
  float y[5];
  cpu->download(*out, 1, std::as_writable_bytes(std::span(y)));
  // relu with alpha 0: negatives and -0.0 become +0.0.
  const float want[5] = {0.0f, 0.0f, 0.5f, 3.0f, 0.0f};
  BOOST_TEST(std::memcmp(y, want, sizeof want) == 0);
  // In place on the wrapped memory writes through to the caller's bytes.
  oi::TensorArg both[] = {{f32, dims, wrapped.get(), 1}};
  cpu->run(*cpu->find_kernel("relu", std::vector{f32}, f32, oi::KernelMode::InPlace), both, both,
           {});
  float in_place[5];
  std::memcpy(in_place, model + 1, sizeof in_place);
  BOOST_TEST(std::memcmp(in_place, want, sizeof want) == 0);
}

BOOST_FIXTURE_TEST_CASE(a_bad_setting_is_an_error_naming_it, Fixture) {
  const DType f64 = DType::f64, i32 = DType::i32;
  std::vector<uint64_t> dims{1};
  auto in = cpu->alloc(8), out = cpu->alloc(4);
  oi::TensorArg ins[] = {{f64, dims, in.get(), 0}}, outs[] = {{i32, dims, out.get(), 0}};
  std::vector<oi::KernelSetting> settings{{"rounding_mode", std::string("sideways")}};
  try {
    cpu->run(*cpu->find_kernel("cast", std::vector{f64}, i32, oi::KernelMode::Normal), ins, outs,
             settings);
    BOOST_FAIL("no error");
  } catch (const oi::Error& e) {
    BOOST_TEST(std::string(e.what()).find("unknown rounding_mode 'sideways'") != std::string::npos);
  }
}

// max/min/argmax/argmin over an empty axis are errors (ops.md), not a made-up value.
BOOST_FIXTURE_TEST_CASE(an_extreme_over_an_empty_axis_is_an_error, Fixture) {
  const DType f32 = DType::f32;
  std::vector<uint64_t> in_dims{2, 0}, out_dims{2};
  auto in = cpu->alloc(4), out = cpu->alloc(8);
  oi::TensorArg ins[] = {{f32, in_dims, in.get(), 0}}, outs[] = {{f32, out_dims, out.get(), 0}};
  std::vector<oi::KernelSetting> settings{{"axes", std::vector<int64_t>{1}}};
  BOOST_CHECK_THROW(
      cpu->run(*cpu->find_kernel("max_axis", std::vector{f32}, f32, oi::KernelMode::Normal), ins,
               outs, settings),
      oi::Error);
}

// gather: an index out of range is a run-time error naming the op, the index and the bound,
// and nothing is read outside the data (ops-nn.md).
BOOST_FIXTURE_TEST_CASE(a_gather_index_out_of_range_is_an_error_naming_it, Fixture) {
  const DType f32 = DType::f32, i64 = DType::i64;
  std::vector<uint64_t> data_dims{4, 2}, idx_dims{2}, out_dims{2, 2};
  const float data[8] = {};
  for (int64_t bad : {4, -5}) {
    const int64_t indices[2] = {1, bad};
    auto bd = cpu->alloc(sizeof data), bi = cpu->alloc(sizeof indices), bo = cpu->alloc(16);
    cpu->upload(*bd, 0, std::as_bytes(std::span(data)));
    cpu->upload(*bi, 0, std::as_bytes(std::span(indices)));
    oi::TensorArg ins[] = {{f32, data_dims, bd.get(), 0}, {i64, idx_dims, bi.get(), 0}};
    oi::TensorArg outs[] = {{f32, out_dims, bo.get(), 0}};
    std::vector<oi::KernelSetting> settings{{"axis", int64_t{0}}};
    try {
      cpu->run(*cpu->find_kernel("gather", std::vector{f32, i64}, f32, oi::KernelMode::Normal), ins,
               outs, settings);
      BOOST_FAIL("no error");
    } catch (const oi::Error& e) {
      const std::string what = e.what();
      BOOST_TEST(what.find("gather: index " + std::to_string(bad) +
                           " is out of range for axis 0 of size 4") != std::string::npos,
                 what);
    }
  }
}
