#define BOOST_TEST_MODULE plugins_cpu_spatial_errors
#include <boost/test/unit_test.hpp>
#include <exception>
#include <string>
#include <vector>

#include "openinfer/plugin_host.hpp"
#include "plugin_test_support.hpp"

// The conv and pool kernels called directly with operands the validator would have refused:
// each call fails with a message naming the problem, never a crash or a read outside a tensor.

namespace {

using oi::DType;

struct Fixture {
  oi::PluginRegistry registry = oi::PluginRegistry::discover({plugin_test::cpu_plugin_dir()});
  std::shared_ptr<oi::Backend> cpu = registry.backend("cpu");
  std::vector<std::shared_ptr<oi::DeviceBuffer>> buffers;

  oi::TensorArg f32(std::vector<uint64_t> dims) {
    uint64_t n = 1;
    for (uint64_t d : dims) n *= d;
    buffers.push_back(cpu->alloc(n * 4 + 4));
    return {DType::f32, std::move(dims), buffers.back().get(), 0};
  }

  // The message of the error `op` raises, or "" when it runs.
  std::string error_of(const std::string& op, std::vector<oi::TensorArg> ins, oi::TensorArg out,
                       const std::vector<oi::KernelSetting>& settings) {
    std::vector<DType> types(ins.size(), DType::f32);
    const oi::Kernel* k = cpu->find_kernel(op, types, DType::f32, oi::KernelMode::Normal);
    BOOST_TEST_REQUIRE(k != nullptr);
    oi::TensorArg outs[] = {out};
    try {
      cpu->run(*k, ins, outs, settings);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  }
};

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

BOOST_FIXTURE_TEST_CASE(conv_output_of_the_wrong_size, Fixture) {
  const auto e = error_of("conv", {f32({1, 2, 5, 5}), f32({3, 2, 3, 3})}, f32({1, 3, 5, 5}), {});
  BOOST_TEST(has(e, "conv: spatial axis 0 of y has 5 cells, the window geometry gives 3"), e);
}

BOOST_FIXTURE_TEST_CASE(conv_group_that_does_not_divide, Fixture) {
  const auto e = error_of("conv", {f32({1, 3, 5, 5}), f32({4, 1, 3, 3})}, f32({1, 4, 3, 3}),
                          {{"group", int64_t{2}}});
  BOOST_TEST(has(e, "conv: group 2 does not fit x's 3 channels"), e);
}

BOOST_FIXTURE_TEST_CASE(conv_pads_of_the_wrong_length_or_negative, Fixture) {
  auto e = error_of("conv", {f32({1, 2, 5, 5}), f32({3, 2, 3, 3})}, f32({1, 3, 5, 5}),
                    {{"pads", std::vector<int64_t>{1, 1}}});
  BOOST_TEST(has(e, "conv: 'pads' must be a list of 4 integers"), e);
  e = error_of("conv", {f32({1, 2, 5, 5}), f32({3, 2, 3, 3})}, f32({1, 3, 3, 3}),
               {{"pads", std::vector<int64_t>{0, -1, 0, 1}}});
  BOOST_TEST(has(e, "conv: 'pads' entry -1 is below 0"), e);
}

BOOST_FIXTURE_TEST_CASE(pool_without_kernel_or_with_a_window_too_large, Fixture) {
  auto e = error_of("max_pool", {f32({1, 2, 4, 4})}, f32({1, 2, 4, 4}), {});
  BOOST_TEST(has(e, "max_pool: the 'kernel' setting is required"), e);
  e = error_of("avg_pool", {f32({1, 2, 4, 4})}, f32({1, 2, 1, 1}),
               {{"kernel", std::vector<int64_t>{5, 5}}});
  BOOST_TEST(has(e, "window larger than the padded input"), e);
}

BOOST_FIXTURE_TEST_CASE(batch_norm_parameters_of_the_wrong_size, Fixture) {
  const auto e = error_of("batch_norm", {f32({1, 3, 2}), f32({3}), f32({3}), f32({2}), f32({3})},
                          f32({1, 3, 2}), {});
  BOOST_TEST(has(e, "batch_norm: scale, bias, mean and var must be [C]"), e);
}

// shl/shr called directly with a count the validator and the simulator would have stopped: the
// kernel refuses it too, rather than shifting past the width (undefined behaviour in C++).
BOOST_FIXTURE_TEST_CASE(shift_counts_outside_the_width, Fixture) {
  auto shift_error = [&](const std::string& op, DType t, int64_t bits) {
    static const uint64_t dims[] = {4};
    const DType types[] = {t};
    buffers.push_back(cpu->alloc(32));
    const oi::TensorArg ins[] = {{t, dims, buffers.back().get(), 0}};
    buffers.push_back(cpu->alloc(32));
    const oi::TensorArg outs[] = {{t, dims, buffers.back().get(), 0}};
    const std::vector<oi::KernelSetting> settings = {{"bits", bits}};
    const oi::Kernel* k = cpu->find_kernel(op, types, t, oi::KernelMode::Normal);
    BOOST_TEST_REQUIRE(k != nullptr);
    try {
      cpu->run(*k, ins, outs, settings);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  auto e = shift_error("shl", DType::i32, 40);
  BOOST_TEST(has(e, "setting 'bits' of op 'shl' is 40, outside 0..31"), e);
  e = shift_error("shr", DType::i8, -1);
  BOOST_TEST(has(e, "setting 'bits' of op 'shr' is -1, outside 0..7"), e);
  e = shift_error("shr", DType::u64, 64);
  BOOST_TEST(has(e, "setting 'bits' of op 'shr' is 64, outside 0..63"), e);
  BOOST_TEST(shift_error("shl", DType::i32, 31).empty());
}
