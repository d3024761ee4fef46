#define BOOST_TEST_MODULE validate_level1
#include <boost/test/unit_test.hpp>

#include "validate_test_util.hpp"

using namespace oi;
using oi::test::kPrelude;

namespace {

Diagnostics check(const std::string& source) {
  return validate_graph(Graph::parse(source, "t.oi"));
}

// The prelude plus an entry block with `body`.
std::string entry(const std::string& body, const std::string& more_blocks = "") {
  return kPrelude + "block entry {\n" + body + "  return;\n}\n" + more_blocks;
}

}  // namespace

BOOST_AUTO_TEST_CASE(prelude_alone_is_valid) {
  auto d = check(entry("  op add(x, y) >> y;\n"));
  BOOST_TEST(d.ok(), d.format());
  BOOST_TEST(d.messages().empty());
}

// --- names ----------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(undefined_variable) {
  auto s = entry("  op add(x, nope) >> y;\n");
  EXPECT_ERROR_AT(check(s), s, "nope", "undefined variable 'nope'");
}

BOOST_AUTO_TEST_CASE(duplicate_declaration) {
  auto s =
      kPrelude + "volatile { y2: f32[B]; }\nvolatile { y2: f16[B]; }\nblock entry { return; }\n";
  EXPECT_ERROR_AT(check(s), s, "y2: f16", "duplicate variable 'y2'");
}

BOOST_AUTO_TEST_CASE(duplicate_assign) {
  auto s = entry("  assign t: f32[B];\n  assign t: f32[B];\n");
  auto d = check(s);
  BOOST_TEST(d.error_count() == 1u, d.format());
  BOOST_TEST(d.messages().at(0).message.find("duplicate variable 't'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(duplicate_block) {
  auto s = entry("", "block b { return; }\nblock b { barrier; return; }\n");
  EXPECT_ERROR_AT(check(s), s, "block b { barrier", "duplicate block 'b'");
}

BOOST_AUTO_TEST_CASE(entry_missing) {
  auto d = check(kPrelude + "block main { return; }\n");
  BOOST_TEST(oi::test::has_message(d, "1:1", "no block 'entry'"), d.format());
}

BOOST_AUTO_TEST_CASE(loop_index_outside_its_loop) {
  auto s = entry("  loop layers (l in 0..4) { op add(x, y) >> y; }\n  cache.read K[l, 0] >> y;\n");
  EXPECT_ERROR_AT(check(s), s, "K[l, 0]", "loop index 'l' is used outside its loop 'layers'");
}

BOOST_AUTO_TEST_CASE(loop_index_is_read_only) {
  auto s = entry("  loop layers (i in 0..4) { op add(x, y) >> i; }\n");
  EXPECT_ERROR_AT(check(s), s, "i; }", "loop index 'i' is read-only");
}

BOOST_AUTO_TEST_CASE(loop_index_shadows_outer_index) {
  auto s = entry("  loop a (i in 0..4) {\n    loop b (i in 0..2) { op add(x, y) >> y; }\n  }\n");
  EXPECT_ERROR_AT(check(s), s, "loop b", "shadows the index of an enclosing loop");
}

BOOST_AUTO_TEST_CASE(loop_index_hiding_a_variable_warns) {
  auto s = entry("  loop a (n in 0..4) { op add(x, y) >> y; }\n");
  auto d = check(s);
  BOOST_TEST(d.ok());
  BOOST_TEST(oi::test::has_message(d, oi::test::where_is(s, "loop a"),
                                   "hides the declared variable 'n'", Severity::Warning));
}

BOOST_AUTO_TEST_CASE(too_many_table_indices) {
  auto s = entry("  cache.read K[0, 1, 2] >> y;\n");
  EXPECT_ERROR_AT(check(s), s, "K[0, 1, 2]", "'K' has 2 indices but is accessed with 3");
}

BOOST_AUTO_TEST_CASE(indices_on_a_plain_variable) {
  auto s = entry("  op add(x, c[1]) >> y;\n");
  EXPECT_ERROR_AT(check(s), s, "c[1]", "'c' is not a table and takes no indices");
}

BOOST_AUTO_TEST_CASE(index_must_be_an_integer_scalar_of_constant_or_persistent_memory) {
  auto s = entry("  cache.read K[y, 0] >> y;\n");
  EXPECT_ERROR_AT(check(s), s, "K[y, 0]", "index 'y' must be a scalar");
}

BOOST_AUTO_TEST_CASE(setting_name_must_be_a_constant_scalar) {
  auto s = entry("  op relu(x, alpha=step) >> y;\n");
  EXPECT_ERROR_AT(check(s), s, "alpha=step", "must be a scalar of constant memory");
}

// --- control flow ---------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(branch_to_undefined_block) {
  auto s = entry("  branch nowhere;\n");
  EXPECT_ERROR_AT(check(s), s, "branch nowhere", "branch to undefined block 'nowhere'");
}

BOOST_AUTO_TEST_CASE(branch_to_entry) {
  auto s = entry("  branch b;\n", "block b {\n  branch entry;\n  return;\n}\n");
  EXPECT_ERROR_AT(check(s), s, "branch entry", "branch to block 'entry'");
}

BOOST_AUTO_TEST_CASE(block_reaching_itself) {
  auto s = entry("  branch a;\n",
                 "block a {\n  branch b;\n  return;\n}\nblock b {\n  branch  a;\n  return;\n}\n");
  EXPECT_ERROR_AT(check(s), s, "branch  a",
                  "block 'a' reaches itself through branches (a -> b -> a)");
}

BOOST_AUTO_TEST_CASE(branch_condition_must_be_bool_scalar) {
  auto s = entry("  branch y a a;\n", "block a { return; }\n");
  EXPECT_ERROR_AT(check(s), s, "branch y", "branch condition 'y' must be a bool scalar");
}

BOOST_AUTO_TEST_CASE(node_after_return) {
  auto s = kPrelude + "block entry {\n  return;\n  op add(x, y) >> y;\n}\n";
  EXPECT_ERROR_AT(check(s), s, "op add", "op 'add' follows the return");
}

BOOST_AUTO_TEST_CASE(dep_needs_both_nodes) {
  auto s = entry("  dep after(matmul) before(cache.write);\n  op add(x, y) >> y;\n");
  auto d = check(s);
  EXPECT_ERROR_AT(d, s, "dep after", "no earlier node 'matmul'");
  EXPECT_ERROR_AT(d, s, "dep after", "no later node 'cache.write'");
}

BOOST_AUTO_TEST_CASE(assign_outside_entry) {
  auto s = entry("  branch b;\n", "block b {\n  assign t: f32[B];\n  return;\n}\n");
  EXPECT_ERROR_AT(check(s), s, "assign t", "assign 't' outside block 'entry'");
}

BOOST_AUTO_TEST_CASE(assign_inside_loop) {
  auto s = entry("  loop l1 (i in 0..2) { assign t: f32[B]; }\n");
  EXPECT_ERROR_AT(check(s), s, "assign t", "assign 't' inside a loop");
}

BOOST_AUTO_TEST_CASE(assign_after_first_use) {
  auto s = entry("  op add(x, y) >> t;\n  assign t: f32[B];\n");
  EXPECT_ERROR_AT(check(s), s, "assign t", "assign 't' comes after its first use at 6:3");
}

// --- memory ---------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(op_writes_constant) {
  auto s = entry("  op add(x, y) >> c;\n");
  EXPECT_ERROR_AT(check(s), s, "op add", "op 'add' writes 'c', which is in constant memory");
}

BOOST_AUTO_TEST_CASE(transfer_into_constant) {
  auto s = entry("  transfer x >> c;\n");
  EXPECT_ERROR_AT(check(s), s, "transfer", "transfer writes 'c', which is in constant memory");
}

BOOST_AUTO_TEST_CASE(cache_write_into_constant) {
  auto s = entry("  cache.write x >> c;\n");
  auto d = check(s);
  EXPECT_ERROR_AT(d, s, "cache.write", "cache.write writes 'c', which is in constant memory");
  EXPECT_ERROR_AT(d, s, "cache.write", "cache.write needs a persistent variable; 'c' is constant");
}

BOOST_AUTO_TEST_CASE(op_writes_volatile_prefix_table_entry) {
  // The entries are the model's tensors, read in place (the simulator faulted writing one).
  const std::string s =
      "dynamic { x: f32[4]; }\nvolatile { V(l): f32[4]; y: f32[4]; }\n"
      "block entry {\n  op add(x, V[0]) >> V[1];\n  op add(x, V[1]) >> y;\n  return y;\n}\n";
  EXPECT_ERROR_AT(check(s), s, "op add(x, V[0])",
                  "op 'add' writes an entry of prefix table 'V' (its entries are the model's "
                  "tensors and read-only");
}

BOOST_AUTO_TEST_CASE(cache_read_from_volatile) {
  auto s = entry("  cache.read y >> y;\n");
  EXPECT_ERROR_AT(check(s), s, "cache.read", "needs a persistent variable; 'y' is volatile");
}

BOOST_AUTO_TEST_CASE(prefix_table_in_dynamic) {
  auto s = "dynamic { P(i): f32[4]; }\n" + entry("");
  EXPECT_ERROR_AT(check(s), s, "P(i)", "prefix table 'P' must be declared in volatile or constant");
}

BOOST_AUTO_TEST_CASE(table_outside_persistent) {
  auto s = "volatile { T(i): f32[4] @table; }\n" + entry("");
  EXPECT_ERROR_AT(check(s), s, "T(i)", "@table on 'T' needs persistent memory, not volatile");
}

BOOST_AUTO_TEST_CASE(auto_dim_outside_persistent) {
  auto s = "constant { M(i, j): f32[4, 4] @auto_dim(i, j); }\n" + entry("");
  EXPECT_ERROR_AT(check(s), s, "M(i, j)", "@auto_dim on 'M' needs persistent memory, not constant");
}

BOOST_AUTO_TEST_CASE(fixed_outside_persistent) {
  auto s = "volatile { F(i): f32[4] @fixed(i=4); }\n" + entry("");
  EXPECT_ERROR_AT(check(s), s, "F(i)", "@fixed on 'F' needs persistent memory");
}

BOOST_AUTO_TEST_CASE(fixed_bounds_an_unknown_index) {
  auto s = "persistent { F(i): f32[4] @table @fixed(j=4); }\n" + entry("");
  EXPECT_ERROR_AT(check(s), s, "F(i)", "@fixed bounds 'j', which is not an index of 'F'");
}

BOOST_AUTO_TEST_CASE(auto_dim_index_not_declared) {
  auto s = "persistent { M(i): f32[4] @auto_dim(q); }\n" + entry("");
  EXPECT_ERROR_AT(check(s), s, "M(i)", "@auto_dim index 'q' is not an index of 'M'");
}

BOOST_AUTO_TEST_CASE(pattern_with_unknown_placeholder) {
  auto s = "constant { P(l): f32[4] @pattern(\"w.{k}\"); }\n" + entry("");
  EXPECT_ERROR_AT(check(s), s, "P(l)", "uses {k}, which is not one of its indices");
}

// dsl.md: prefix tables (the declarations @pattern names) are volatile or constant only.
BOOST_AUTO_TEST_CASE(pattern_on_a_persistent_table) {
  auto s = "persistent { W(l): f32[4] @pattern(\"W.{l}\"); }\n" + entry("");
  EXPECT_ERROR_AT(check(s), s, "W(l)",
                  "@pattern on persistent table 'W': prefix tables are declared in volatile or "
                  "constant memory");
}

BOOST_AUTO_TEST_CASE(init_must_fit_the_dtype) {
  auto s = "volatile { u: u8[2] @init(300); f: i32 @init(1.5); b: bool @init(2); }\n" + entry("");
  auto d = check(s);
  EXPECT_ERROR_AT(d, s, "u: u8", "@init of 'u': 300 is out of range for u8 [0, 255]");
  EXPECT_ERROR_AT(d, s, "f: i32", "@init of 'f': a float literal does not fit i32");
  EXPECT_ERROR_AT(d, s, "b: bool", "@init of 'b': bool takes true, false, 0 or 1");
}

// A literal above INT64_MAX fits only u64 values (and floats); integer settings stay signed.
BOOST_AUTO_TEST_CASE(literals_above_int64_fit_only_u64) {
  auto s =
      "volatile { uw: u64[2] @init(18446744073709551615); i: i64 @init(9223372036854775808);"
      " fx: f32[2]; fy: f32[2]; iz: i64[2]; }\n" +
      entry(
          "  op clamp(uw, max=18446744073709551614) >> uw;\n"
          "  op clamp(iz, max=18446744073709551614) >> iz;\n"
          "  op softmax(fx, axis=18446744073709551614) >> fy;\n");
  auto d = check(s);
  EXPECT_ERROR_AT(d, s, "i: i64",
                  "@init of 'i': 9223372036854775808 is out of range for i64 "
                  "[-9223372036854775808, 9223372036854775807]");
  EXPECT_ERROR_AT(d, s, "max=18446744073709551614) >> iz",
                  "setting 'max' of op 'clamp': 18446744073709551614 is out of range for i64");
  EXPECT_ERROR_AT(d, s, "axis=",
                  "setting 'axis' of op 'softmax' is 18446744073709551614, out of range "
                  "(integer settings are signed 64-bit)");
  BOOST_TEST(d.messages().size() == 3u, d.format());
}

BOOST_AUTO_TEST_CASE(unknown_attribute_is_kept_with_a_warning) {
  auto s = "volatile { q: f32[4] @layout(\"nhwc\"); }\n" + entry("");
  auto d = check(s);
  BOOST_TEST(d.ok());
  BOOST_TEST(d.warning_count() == 1u);
  BOOST_TEST(d.messages().at(0).message.find("unknown attribute '@layout' on 'q'") !=
             std::string::npos);
  d.promote_warnings();
  BOOST_TEST(!d.ok());
}

BOOST_AUTO_TEST_CASE(increment_needs_an_integer) {
  auto s = "persistent { pf: f32 @init(0.0); }\n" + entry("  cache.increment pf;\n");
  EXPECT_ERROR_AT(check(s), s, "cache.increment",
                  "needs an integer scalar in persistent memory; 'pf' is persistent f32");
}

BOOST_AUTO_TEST_CASE(increment_needs_persistent_memory) {
  auto s = entry("  cache.decrement 2 w;\n");
  EXPECT_ERROR_AT(check(s), s, "cache.decrement", "'w' is volatile i32");
}

// --- ops ------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(unknown_op) {
  auto s = entry("  op fill_nan_like(x, value=0.0) >> y;\n");
  EXPECT_ERROR_AT(check(s), s, "op fill", "unknown op 'fill_nan_like'");
}

BOOST_AUTO_TEST_CASE(wrong_input_count) {
  auto s = entry("  op add(x) >> y;\n  op fma(x, y) >> y;\n");
  auto d = check(s);
  EXPECT_ERROR_AT(d, s, "op add", "op 'add' takes 2 inputs, got 1");
  EXPECT_ERROR_AT(d, s, "op fma", "op 'fma' takes 3 inputs, got 2");
}

BOOST_AUTO_TEST_CASE(unknown_setting) {
  auto s = entry("  op add(x, y, alpha=1.0) >> y;\n");
  EXPECT_ERROR_AT(check(s), s, "alpha=1.0", "op 'add' has no setting 'alpha' (it takes acc)");
}

BOOST_AUTO_TEST_CASE(setting_given_twice_through_an_alias) {
  auto s = entry("  op relu(x, alpha=0.1, negative_slope=0.2) >> y;\n");
  EXPECT_ERROR_AT(check(s), s, "negative_slope", "setting 'alpha' of op 'relu' is given twice");
}

BOOST_AUTO_TEST_CASE(ill_typed_setting) {
  auto s = entry("  op shl(z, bits=1.5) >> z;\n  op sum_axis(x, keepdims=1) >> y;\n");
  auto d = check(s);
  EXPECT_ERROR_AT(d, s, "bits=1.5", "setting 'bits' of op 'shl' takes int, got a float");
  EXPECT_ERROR_AT(d, s, "keepdims=1",
                  "setting 'keepdims' of op 'sum_axis' takes bool, got an integer");
}

BOOST_AUTO_TEST_CASE(shift_bits_out_of_range) {
  auto s = entry("  op shl(z, bits=8) >> z;\n  op shr(w, bits=31) >> w;\n");
  auto d = check(s);
  EXPECT_ERROR_AT(d, s, "bits=8", "setting 'bits' of op 'shl' is 8, outside 0..7 for i8");
  BOOST_TEST(d.error_count() == 1u, d.format());
}

BOOST_AUTO_TEST_CASE(rounding_mode_value) {
  auto s = entry("  op cast(x, to=i32, rounding_mode=\"up\") >> w;\n");
  EXPECT_ERROR_AT(check(s), s, "rounding_mode",
                  "setting 'rounding_mode' of op 'cast' is \"up\"; allowed: \"trunc\"");
}

BOOST_AUTO_TEST_CASE(cast_target_not_allowed) {
  auto s = entry("  op cast(x, to=t2) >> y;\n");
  EXPECT_ERROR_AT(check(s), s, "to=t2", "setting 'to' of op 'cast' is t2; allowed:");
}

BOOST_AUTO_TEST_CASE(required_setting_missing) {
  auto s = entry("  op shl(z) >> z;\n  op cast(x) >> w;\n");
  auto d = check(s);
  EXPECT_ERROR_AT(d, s, "op shl", "op 'shl' needs setting 'bits'");
  EXPECT_ERROR_AT(d, s, "op cast", "op 'cast' needs setting 'to'");
}

BOOST_AUTO_TEST_CASE(integer_settings_must_fit_the_dtype) {
  auto s = entry(
      "  op fill(z, value=200) >> z;\n  op clamp(z, min=-inf, max=6.5) >> z;\n  op clamp(z, "
      "max=6.0) >> z;\n");
  auto d = check(s);
  EXPECT_ERROR_AT(d, s, "value=200",
                  "setting 'value' of op 'fill': 200 is out of range for i8 [-128, 127]");
  EXPECT_ERROR_AT(d, s, "max=6.5",
                  "setting 'max' of op 'clamp': a non-integral number does not fit i8");
  BOOST_TEST(d.error_count() == 2u, d.format());
}

BOOST_AUTO_TEST_CASE(acc_pair_not_in_the_table) {
  auto s = entry("  op add(z, z, acc=u32) >> w;\n  op add(x, x, acc=f64) >> y;\n");
  auto d = check(s);
  EXPECT_ERROR_AT(d, s, "acc=u32",
                  "acc=u32 is not allowed for op 'add' on i8 (allowed: i16, i32, i64)");
  EXPECT_ERROR_AT(d, s, "acc=f64",
                  "acc=f64 is not allowed for op 'add' on f32 (no wider accumulation");
}

BOOST_AUTO_TEST_CASE(acc_output_must_have_the_acc_dtype) {
  auto s = entry("  op add(z, z, acc=i16) >> w;\n");
  EXPECT_ERROR_AT(check(s), s, "acc=i16", "with acc=i16 must write an i16 output; 'w' is i32");
}

BOOST_AUTO_TEST_CASE(acc_is_never_in_place) {
  auto s2 = kPrelude +
            "volatile { v16: i16[B]; }\nblock entry {\n  op add(v16, v16, acc=i32) >> v16;\n  "
            "return;\n}\n";
  EXPECT_ERROR_AT(check(s2), s2, "acc=i32", "with acc= never runs in place");
}

BOOST_AUTO_TEST_CASE(in_place_not_allowed) {
  auto s = entry("  op argmax_axis(w) >> w;\n");
  EXPECT_ERROR_AT(check(s), s, "op argmax", "op 'argmax_axis' cannot run in place");
}

// --- yield and await ------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(consumer_must_end_with_yield_of_its_set) {
  auto s = entry("  yield y;\n  await y;\n", "block c {\n  await y;\n  op add(y, x) >> y;\n}\n");
  EXPECT_ERROR_AT(check(s), s, "op add(y, x)", "consumer block 'c' must end with 'yield y;'");
}

BOOST_AUTO_TEST_CASE(yield_without_consumer) {
  auto s = entry("  yield y;\n  await y;\n");
  EXPECT_ERROR_AT(check(s), s, "yield y", "yield of y has no consumer");
}

BOOST_AUTO_TEST_CASE(await_block_that_no_yield_reaches) {
  auto s = entry("", "block c {\n  await y;\n  yield y;\n}\n");
  EXPECT_ERROR_AT(check(s), s, "await y",
                  "block 'c' awaits y but no yield in entry hands them over");
}

BOOST_AUTO_TEST_CASE(yielded_variable_never_awaited) {
  auto s = entry("  yield y;\n", "block c {\n  await y;\n  yield y;\n}\n");
  EXPECT_ERROR_AT(check(s), s, "yield y", "'y' is yielded here but never awaited again in entry");
}

BOOST_AUTO_TEST_CASE(await_in_entry_without_yield) {
  auto s = entry("  await y;\n");
  EXPECT_ERROR_AT(check(s), s, "await y", "await of 'y' in entry without an earlier yield");
}

BOOST_AUTO_TEST_CASE(entry_touches_yielded_variable) {
  auto s = entry("  yield y;\n  op add(x, y) >> x;\n  await y;\n",
                 "block c {\n  await y;\n  yield y;\n}\n");
  EXPECT_ERROR_AT(check(s), s, "op add(x, y)",
                  "entry reads 'y' between its yield at 6:3 and its await");
}

BOOST_AUTO_TEST_CASE(race_between_consumers_reported_at_both_places) {
  auto s = entry("  yield y, w;\n  await y, w;\n",
                 "block c1 {\n  await y;\n  op add(x, y) >> x;\n  yield y;\n}\n"
                 "block c2 {\n  await w;\n  op cast(x, to=i32) >> w;\n  yield w;\n}\n");
  auto d = check(s);
  EXPECT_ERROR_AT(d, s, "op add(x, y) >> x",
                  "data race on 'x': block 'c1' writes it here while block 'c2' reads it");
  EXPECT_ERROR_AT(d, s, "op cast(x",
                  "data race on 'x': block 'c2' reads it here while block 'c1' writes it");
}

BOOST_AUTO_TEST_CASE(two_consumers_writing_one_awaited_variable) {
  auto s = entry("  yield y;\n  await y;\n",
                 "block c1 {\n  await y;\n  op add(y, y) >> y;\n  yield y;\n}\n"
                 "block c2 {\n  await y;\n  op mul(y, y) >> y;\n  yield y;\n}\n");
  auto d = check(s);
  EXPECT_ERROR_AT(d, s, "op add(y, y)", "data race on 'y'");
  EXPECT_ERROR_AT(d, s, "op mul(y, y)", "data race on 'y'");
}

BOOST_AUTO_TEST_CASE(readers_of_an_awaited_variable_see_the_snapshot) {
  auto s = entry("  yield y;\n  await y;\n",
                 "block c1 {\n  await y;\n  op add(y, y) >> y;\n  yield y;\n}\n"
                 "block c2 {\n  await y;\n  op mul(y, y) >> c2out;\n  yield y;\n}\n");
  s = "volatile { c2out: f32[B]; }\n" + s;
  auto d = check(s);
  BOOST_TEST(d.ok(), d.format());
}

BOOST_AUTO_TEST_CASE(race_between_entry_and_consumer_reported_at_both_places) {
  auto s = entry("  yield y;\n  op add(x, x) >> x;\n  await y;\n",
                 "block c1 {\n  await y;\n  op mul(y, x) >> y;\n  yield y;\n}\n");
  auto d = check(s);
  EXPECT_ERROR_AT(d, s, "op add(x, x)",
                  "data race on 'x': block 'entry' writes it here while block 'c1' reads it");
  EXPECT_ERROR_AT(d, s, "op mul(y, x)",
                  "data race on 'x': block 'c1' reads it here while block 'entry' writes it");
}

BOOST_AUTO_TEST_CASE(consumer_may_not_branch_and_is_not_branched_to) {
  auto s = entry("  yield y;\n  await y;\n  branch c;\n",
                 "block c {\n  await y;\n  branch d;\n  yield y;\n}\nblock d { return; }\n");
  auto d = check(s);
  EXPECT_ERROR_AT(d, s, "branch c", "branch to consumer block 'c'");
  EXPECT_ERROR_AT(d, s, "branch d", "consumer block 'c' may not branch");
}

BOOST_AUTO_TEST_CASE(await_must_start_its_block) {
  auto s = entry("  branch b;\n", "block b {\n  op add(x, y) >> y;\n  await y;\n  return;\n}\n");
  EXPECT_ERROR_AT(check(s), s, "await y", "await in block 'b' must be its first node");
}

BOOST_AUTO_TEST_CASE(all_problems_reported_in_source_order) {
  auto s = entry("  op nope1(x) >> y;\n  op add(x) >> y;\n  op nope2(x) >> y;\n");
  auto d = check(s);
  BOOST_TEST(d.error_count() == 3u, d.format());
  BOOST_TEST(d.messages()[0].loc.line < d.messages()[1].loc.line);
  BOOST_TEST(d.messages()[1].loc.line < d.messages()[2].loc.line);
  BOOST_TEST(format_message(d.messages()[0]) ==
             "t.oi:6:3: error: unknown op 'nope1' (not in the op catalog)");
}
