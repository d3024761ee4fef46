#define BOOST_TEST_MODULE nn_spatial_rules
#include <boost/test/unit_test.hpp>

#include "openinfer/model.hpp"
#include "validate_test_util.hpp"

// Misuse of conv, max_pool, avg_pool and batch_norm is a validation error at the op's source
// location (ops-nn.md; shape rules in core/src/catalog/shape_rules_nn.cpp), never a kernel
// failure or a read outside a tensor.

using namespace oi;

namespace {

Model test_model() {
  ModelWriter w;
  w.add_sizevar("N", 2);
  return Model::from_bytes(w.to_bytes(), "m.oinf");
}

Diagnostics check(const std::string& source) {
  static const Model model = test_model();
  return validate_against_model(Graph::parse(source, "t.oi"), OpCatalog::builtin(), model);
}

const std::string kDecls = R"(volatile {
  x: f32[N, 3, 8, 8]; w: f32[4, 3, 3, 3]; b: f32[4]; y: f32[N, 4, 8, 8]; y6: f32[N, 4, 6, 6];
  x4: f32[N, 4, 8, 8]; wd: f32[4, 1, 3, 3]; w2: f32[4, 2, 3, 3]; wb: f32[4, 3, 3];
  x1: f32[N, 3, 10]; w1: f32[5, 3, 3]; y1: f32[N, 5, 5];
  x3: f32[3, 8, 8]; xp: f32[N, 3, 4, 4]; p: f32[N, 3, 2, 2]; p8: f32[N, 3, 8, 8];
  xi: i8[N, 3, 8, 8]; wi: i8[4, 3, 3, 3]; yi: i32[N, 4, 8, 8]; bi: i32[4]; b8: i8[4];
  s: f32[3]; s4: f32[4]; bn: f32[N, 3, 8, 8];
  xe: f32[1, 2, 0, 4]; we: f32[2, 2, 1, 3]; ye: f32[1, 2, 0, 2]; pe: f32[1, 2, 0, 3];
}
)";

std::string entry(const std::string& body) {
  return kDecls + "block entry {\n" + body + "  return;\n}\n";
}

void expect_valid(const std::string& body) {
  const auto s = entry(body);
  const auto d = check(s);
  BOOST_TEST(d.messages().empty(), body << d.format());
}

void expect_error(const std::string& body, const std::string& msg) {
  const auto s = entry(body);
  EXPECT_ERROR_AT(check(s), s, body.substr(2, body.find('(') - 2), msg);
}

}  // namespace

BOOST_AUTO_TEST_CASE(well_formed_uses_are_valid) {
  expect_valid("  op conv(x, w, b, pads=[1, 1, 1, 1]) >> y;\n");
  expect_valid("  op conv(x, w) >> y6;\n");
  expect_valid("  op conv(x4, wd, group=4, pads=[1, 1, 1, 1]) >> y;\n");
  expect_valid("  op conv(x4, w2, group=2, pads=[2, 1, 2, 1], dilations=[2, 1]) >> y;\n");
  expect_valid("  op conv(x1, w1, strides=[2], pads=[1, 1]) >> y1;\n");
  expect_valid("  op conv(xi, wi, pads=[1, 1, 1, 1], acc=i32) >> yi;\n");
  expect_valid("  op conv(xi, wi, bi, pads=[1, 1, 1, 1], acc=i32) >> yi;\n");
  expect_valid("  op conv(xi, wi, b8, pads=[1, 1, 1, 1], acc=i32) >> yi;\n");
  expect_valid("  op max_pool(x, kernel=[3, 3], strides=[2, 2], pads=[0, 0, 1, 1]) >> xp;\n");
  expect_valid("  op avg_pool(x, kernel=[4, 4], strides=[4, 4], count_include_pad=true) >> p;\n");
  expect_valid("  op batch_norm(x, s, s, s, s, epsilon=0.001) >> bn;\n");
  expect_valid("  op batch_norm(bn, s, s, s, s) >> bn;\n");
}

BOOST_AUTO_TEST_CASE(conv_needs_rank_3_or_4) {
  expect_error("  op conv(x3, w) >> y;\n", "must have x's rank 3");
  expect_error("  op conv(s, s) >> s;\n", "conv needs x of rank 3 (N, C, W) or 4 (N, C, H, W)");
  expect_error("  op conv(x, wb) >> y;\n", "must have x's rank 4");
}

BOOST_AUTO_TEST_CASE(conv_group_must_divide_the_channels) {
  expect_error("  op conv(x, w, group=2) >> y6;\n",
               "'group' 2 must divide the input channels 3 and the output channels 4");
}

BOOST_AUTO_TEST_CASE(conv_weight_channels_must_match_x) {
  expect_error("  op conv(x, w2) >> y6;\n",
               "has 2 input channels per group but x [2, 3, 8, 8] with group 1 needs 3");
  expect_error("  op conv(x, w, s) >> y6;\n", "must be [4], one value per output channel");
}

BOOST_AUTO_TEST_CASE(spatial_lists_need_one_entry_per_axis) {
  expect_error("  op conv(x, w, pads=[1, 1]) >> y;\n", "'pads' has 2 entries but needs 4");
  expect_error("  op conv(x, w, strides=[1]) >> y6;\n", "'strides' has 1 entries but needs 2");
  expect_error("  op conv(x1, w1, dilations=[1, 1]) >> y1;\n",
               "'dilations' has 2 entries but needs 1");
  expect_error("  op max_pool(x, kernel=[2]) >> p;\n", "'kernel' has 1 entries but needs 2");
}

BOOST_AUTO_TEST_CASE(pads_are_never_negative_and_strides_positive) {
  expect_error("  op conv(x, w, pads=[1, -1, 1, 1]) >> y;\n", "is negative (crop with slice)");
  expect_error("  op max_pool(x, kernel=[2, 2], strides=[0, 1]) >> p;\n", "is below 1");
}

BOOST_AUTO_TEST_CASE(a_window_larger_than_the_padded_input_is_an_error) {
  expect_error("  op max_pool(x, kernel=[9, 9]) >> p;\n",
               "the window spans 9 but the padded input has only 8");
  expect_error("  op conv(x, w, dilations=[4, 1]) >> y;\n",
               "the window spans 9 but the padded input has only 8");
}

// ops-nn.md: a zero-sized dimension gives an empty result, even where no window would fit.
BOOST_AUTO_TEST_CASE(an_empty_spatial_axis_gives_an_empty_result) {
  expect_valid("  op conv(xe, we) >> ye;\n");
  expect_valid("  op max_pool(xe, kernel=[1, 2]) >> pe;\n");
  expect_valid("  op avg_pool(xe, kernel=[3, 2], count_include_pad=true) >> pe;\n");
  expect_error("  op max_pool(xe, kernel=[1, 2]) >> ye;\n", "[1, 2, 0, 3]");
}

BOOST_AUTO_TEST_CASE(the_output_must_have_the_result_shape) {
  const auto s = entry("  op conv(x, w) >> y;\n");
  const auto d = check(s);
  BOOST_TEST(!d.messages().empty(), d.format());
  BOOST_TEST(oi::test::has_message(d, oi::test::where_is(s, "op conv"), "[2, 4, 6, 6]"),
             d.format());
}

BOOST_AUTO_TEST_CASE(pools_need_a_kernel) {
  const auto s = entry("  op max_pool(x) >> p8;\n");
  BOOST_TEST(oi::test::has_message(check(s), oi::test::where_is(s, "op max_pool"), "kernel"),
             check(s).format());
}

BOOST_AUTO_TEST_CASE(avg_pool_has_no_dilations) {
  const auto s = entry("  op avg_pool(x, kernel=[1, 1], dilations=[1, 1]) >> p8;\n");
  EXPECT_ERROR_AT(check(s), s, "dilations=", "op 'avg_pool' has no setting 'dilations'");
}

BOOST_AUTO_TEST_CASE(avg_pool_takes_no_integers) {
  const auto s = entry("  op avg_pool(xi, kernel=[1, 1]) >> xi;\n");
  const auto d = check(s);
  BOOST_TEST(oi::test::has_message(d, oi::test::where_is(s, "op avg_pool"), "i8"), d.format());
}

BOOST_AUTO_TEST_CASE(batch_norm_parameters_are_per_channel) {
  expect_error("  op batch_norm(x, s4, s, s, s) >> bn;\n",
               "batch_norm scale [4] must be [3], one value per channel");
  expect_error("  op batch_norm(x, s, s, s, s4) >> bn;\n",
               "batch_norm var [4] must be [3], one value per channel");
  expect_error("  op batch_norm(s, s, s, s, s) >> s;\n", "batch_norm needs x of rank >= 2");
}

// The bias has x's dtype, or the acc= dtype when one is given: an f32 conv with an i32 bias
// is refused at validation, not at run time.
BOOST_AUTO_TEST_CASE(conv_bias_dtype_is_x_or_acc) {
  expect_error("  op conv(x, w, bi, pads=[1, 1, 1, 1]) >> y;\n",
               "input 'bi' is i32 but must have input 0's dtype f32 or the acc= dtype");
}
