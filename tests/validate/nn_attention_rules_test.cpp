#define BOOST_TEST_MODULE nn_attention_rules
#include <boost/test/unit_test.hpp>

#include "openinfer/model.hpp"
#include "validate_test_util.hpp"

// Misuse of attention, rope and dequantize is a validation error at the op's source location
// (ops-nn.md; shape rules in core/src/catalog/shape_rules_nn.cpp), never a kernel failure.

using namespace oi;

namespace {

Model test_model() {
  ModelWriter w;
  w.add_sizevar("H", 4);
  w.add_sizevar("T", 6);
  w.add_sizevar("D", 8);
  return Model::from_bytes(w.to_bytes(), "m.oinf");
}

Diagnostics check(const std::string& source) {
  static const Model model = test_model();
  return validate_against_model(Graph::parse(source, "t.oi"), OpCatalog::builtin(), model);
}

const std::string kDecls = R"(volatile {
  q: f32[H, T, D]; k: f32[1, T, D]; v: f32[1, T, D]; y: f32[H, T, D];
  k5: f32[1, T, 5]; m: f32[T, T]; m5: f32[T, 5]; b: bool[D, T, T]; qh: f16[H, T, D];
  r: f32[H, T, 5]; r5: f32[H, T, 5];
  p: i32; p64: i64; pv: i32[2]; pf: f32;
  x8: i8[H, T]; x4: u4[H, T]; s4: f32[4]; s6: f32[6]; s5: f32[5]; z4: i8[4]; z6: u4[6];
  yq: f32[H, T]; yh: f16[H, T];
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

}  // namespace

BOOST_AUTO_TEST_CASE(well_formed_uses_are_valid) {
  expect_valid("  op attention(q, k, v) >> y;\n");
  expect_valid("  op attention(q, k, v, m, causal=true, scale=0.5) >> y;\n");
  expect_valid("  op rope(q, p) >> q;\n  op rope(q, p64, interleaved=true, theta=500.0) >> y;\n");
  expect_valid("  op dequantize(x8, s6, axis=1) >> yq;\n  op dequantize(x4, s4, axis=0) >> yq;\n");
  expect_valid("  op dequantize(x4, s6, z6) >> yq;\n");
}

BOOST_AUTO_TEST_CASE(attention_q_and_k_depths_must_agree) {
  const auto s = entry("  op attention(q, k5, v) >> y;\n");
  EXPECT_ERROR_AT(check(s), s, "op attention", "must end in q's depth 8");
}

BOOST_AUTO_TEST_CASE(attention_mask_must_broadcast_to_the_scores) {
  const auto s = entry("  op attention(q, k, v, m5) >> y;\n");
  EXPECT_ERROR_AT(check(s), s, "op attention", "does not broadcast to the scores [4, 6, 6]");
  const auto s2 = entry("  op attention(q, k, v, b) >> y;\n");
  EXPECT_ERROR_AT(check(s2), s2, "op attention", "attention mask [8, 6, 6] does not broadcast");
}

BOOST_AUTO_TEST_CASE(attention_operands_share_one_dtype) {
  const auto s = entry("  op attention(qh, k, v) >> y;\n");
  EXPECT_ERROR_AT(check(s), s, "op attention", "must have input 0's dtype f16");
}

BOOST_AUTO_TEST_CASE(rope_needs_an_even_last_dim) {
  const auto s = entry("  op rope(r, p) >> r5;\n");
  EXPECT_ERROR_AT(check(s), s, "op rope", "rope needs an even last dim, got 5");
}

BOOST_AUTO_TEST_CASE(rope_pos_is_an_integer_scalar) {
  const auto s = entry("  op rope(q, pv) >> y;\n");
  EXPECT_ERROR_AT(check(s), s, "op rope", "rope pos must be a scalar, got [2]");
  const auto s2 = entry("  op rope(q, pf) >> y;\n");
  EXPECT_ERROR_AT(check(s2), s2, "op rope", "input 'pf' is f32 which the op does not take there");
}

BOOST_AUTO_TEST_CASE(dequantize_scale_must_match_the_axis) {
  const auto s = entry("  op dequantize(x8, s5) >> yq;\n");
  EXPECT_ERROR_AT(check(s), s, "op dequantize",
                  "dequantize scale [5] must have 6 entries, x's size along axis 1");
  const auto s2 = entry("  op dequantize(x8, s6, z4) >> yq;\n");
  EXPECT_ERROR_AT(check(s2), s2, "op dequantize", "zero_point");
}

BOOST_AUTO_TEST_CASE(dequantize_gives_the_scale_dtype) {
  const auto s = entry("  op dequantize(x8, s6) >> yh;\n");
  EXPECT_ERROR_AT(check(s), s, "op dequantize", "produces f32 but output 'yh' is f16");
}
