#define BOOST_TEST_MODULE validate_level2
#include <boost/test/unit_test.hpp>

#include "openinfer/model.hpp"
#include "validate_test_util.hpp"

using namespace oi;

namespace {

Model test_model() {
  ModelWriter w;
  w.add_sizevar("B", 4);
  w.add_sizevar("D", 3);
  w.add_declaration("a", DType::f32, {4});
  w.add_declaration("m", DType::f32, {4, 3});
  w.add_declaration("W.0", DType::f32, {3, 3});
  w.add_declaration("W.1", DType::f32, {3, 3});
  w.add_metadata("alpha", MetaValue::scalar(Tensor::scalar(0.5f)));
  return Model::from_bytes(w.to_bytes(), "m.oinf");
}

Diagnostics check(const std::string& source) {
  static const Model model = test_model();
  return validate_against_model(Graph::parse(source, "t.oi"), OpCatalog::builtin(), model);
}

const std::string kDecls = R"(dynamic { x: f32[B]; xi: i32[B]; }
volatile { a: f32[B]; y: f32[B]; m: f32[B, D]; h: f32[B, D]; W(l): f32[D, D]; }
constant { alpha: f32; }
)";

std::string entry(const std::string& body, const std::string& decls = "") {
  return kDecls + decls + "block entry {\n" + body + "  return;\n}\n";
}

}  // namespace

BOOST_AUTO_TEST_CASE(consistent_graph_is_valid) {
  auto s = entry(
      "  op add(x, a) >> y;\n  op mul(y, alpha) >> y;\n  loop layers (l in 0..2) {\n"
      "    op matmul(h, W[l]) >> h;\n  }\n  op sum_axis(m, axes=[1]) >> y;\n");
  auto d = check(s);
  BOOST_TEST(d.messages().empty(), d.format());
}

BOOST_AUTO_TEST_CASE(unknown_size_variable) {
  auto s = entry("", "volatile { q: f32[Q, 2]; }\n");
  EXPECT_ERROR_AT(check(s), s, "q: f32", "unknown size variable 'Q'");
}

BOOST_AUTO_TEST_CASE(linked_tensor_with_other_dims) {
  auto s = entry("", "volatile { m2: f32[D, B] @ref(\"m\"); }\n");
  EXPECT_ERROR_AT(check(s), s, "m2: f32",
                  "'m2' is declared f32[3, 4] but model tensor 'm' is f32[4, 3]");
}

BOOST_AUTO_TEST_CASE(linked_tensor_with_other_dtype) {
  auto s = "volatile { a: f16[B]; }\nblock entry { return; }\n";
  EXPECT_ERROR_AT(check(s), s, "a: f16", "'a' is declared f16[4] but model tensor 'a' is f32[4]");
}

BOOST_AUTO_TEST_CASE(metadata_scalar_link_needs_the_same_dtype) {
  auto s = "constant { alpha: f64; }\nblock entry { return; }\n";
  EXPECT_ERROR_AT(check(s), s, "alpha: f64",
                  "model metadata 'alpha' is not a scalar of that dtype");
}

BOOST_AUTO_TEST_CASE(ref_to_a_missing_entry) {
  auto s = entry("", "volatile { r: f32[B] @ref(\"nope\"); }\n");
  EXPECT_ERROR_AT(check(s), s, "r: f32", "@ref(\"nope\") of 'r' names no entry of the model");
}

BOOST_AUTO_TEST_CASE(constant_without_entry_or_init) {
  auto s = entry("", "constant { k: f32[B]; }\n");
  EXPECT_ERROR_AT(check(s), s, "k: f32",
                  "constant 'k' has neither a model entry nor an @init value");
}

BOOST_AUTO_TEST_CASE(prefix_entry_missing_for_constant_loop_bounds) {
  auto s = entry("  loop layers (l in 0..3) {\n    op matmul(h, W[l]) >> h;\n  }\n");
  EXPECT_ERROR_AT(check(s), s, "W[l]", "prefix table 'W': model tensor 'W.2' is missing");
}

BOOST_AUTO_TEST_CASE(op_dtype_not_supported) {
  auto s = entry("  op abs(u, u) >> u;\n", "volatile { u: u8[B]; }\n");
  s = entry("  op abs(u) >> u;\n", "volatile { u: u8[B]; }\n");
  EXPECT_ERROR_AT(check(s), s, "op abs", "op 'abs' does not support u8");
}

BOOST_AUTO_TEST_CASE(second_input_dtype_must_match) {
  auto s = entry("  op add(x, xi) >> y;\n");
  EXPECT_ERROR_AT(check(s), s, "op add", "input 'xi' is i32 but must have input 0's dtype f32");
}

BOOST_AUTO_TEST_CASE(output_dtype_rule) {
  auto s = entry("  op eq(x, a) >> y;\n");
  EXPECT_ERROR_AT(check(s), s, "op eq", "op 'eq' produces bool but output 'y' is f32");
}

BOOST_AUTO_TEST_CASE(shapes_must_match_without_broadcast) {
  auto s = entry("  op max_axis(m, axes=[0]) >> y;\n  op matmul(m, m) >> h;\n");
  auto d = check(s);
  EXPECT_ERROR_AT(d, s, "op max_axis",
                  "op 'max_axis' produces shape [3] but output 'y' has shape [4]");
  EXPECT_ERROR_AT(d, s, "op matmul", "matmul inner dimensions differ");
}

BOOST_AUTO_TEST_CASE(broadcast_only_where_allowed) {
  auto s = entry("  op add(m, x) >> m;\n");
  EXPECT_ERROR_AT(check(s), s, "op add", "input shapes [4, 3] and [4] do not broadcast");
}

BOOST_AUTO_TEST_CASE(transfer_needs_equal_shapes) {
  auto s = entry("  transfer x >> h;\n");
  EXPECT_ERROR_AT(check(s), s, "transfer",
                  "transfer copies 'x' [4] into 'h' [4, 3] (shapes differ)");
}

BOOST_AUTO_TEST_CASE(level2_includes_level1) {
  auto s = entry("  op nope(x) >> y;\n");
  EXPECT_ERROR_AT(check(s), s, "op nope", "unknown op 'nope'");
}
