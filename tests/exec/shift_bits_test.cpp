// A `bits` setting of shl/shr that names a loop index or a scalar (dsl.md) is range-checked
// when the step resolves it (ops.md: 0 <= bits < the input's width), as the validator checks a
// literal: the step stops with the validator's words instead of shifting by a count the dtype
// does not take.
#include "test_support.hpp"

using namespace exec_test;
using oi::Tensor;
namespace tt = boost::test_tools;

BOOST_AUTO_TEST_SUITE(shift_bits)

BOOST_AUTO_TEST_CASE(a_loop_index_past_the_width_stops_at_that_iteration) {
  // shr of i8 by i in 6..b: b = 8 the first step (i = 6, 7), 9 the second (i = 6, 7, 8).
  oi::ModelWriter w;
  auto sim = simulate(w, R"(
dynamic { x: i8[2]; }
persistent { b: i32 @init(8); y: i8[2]; }
volatile { total: i8[2]; }
block entry {
  op fill(total, value=0) >> total;
  loop shifts (i in 6..b) {
    op shr(x, bits=i) >> y;
    op add(total, y) >> total;
  }
  cache.increment b;
  return total;
}
)");
  auto exec = sim.make_executor();
  // -128 >> 6 = -2, >> 7 = -1 (arithmetic); 64 >> 6 = 1, >> 7 = 0. Sums -3 and 1; y the last.
  exec.insert("x", Tensor::from<int8_t>({-128, 64}, {2}));
  exec.step();
  BOOST_TEST(values<int8_t>(exec, "total") == std::vector<int8_t>({-3, 1}), tt::per_element());
  BOOST_TEST(values<int8_t>(exec, "y") == std::vector<int8_t>({-1, 0}), tt::per_element());
  exec.insert("x", Tensor::from<int8_t>({-128, 64}, {2}));
  const std::string msg = error_of([&] { exec.step(); });
  BOOST_TEST(contains(msg, "test.oi:8:5: setting 'bits' of op 'shr' is 8, outside 0..7 for i8"),
             msg);
}

BOOST_AUTO_TEST_CASE(a_scalar_below_zero_stops_the_step) {
  oi::ModelWriter w;
  auto sim = simulate(w, R"(
dynamic { x: u32[1]; }
constant { n: i64 @init(-1); }
volatile { y: u32[1]; }
block entry {
  op shl(x, bits=n) >> y;
  return y;
}
)");
  auto exec = sim.make_executor();
  exec.insert("x", Tensor::from<uint32_t>({1}, {1}));
  const std::string msg = error_of([&] { exec.step(); });
  BOOST_TEST(contains(msg, "test.oi:6:3: setting 'bits' of op 'shl' is -1, outside 0..31 for u32"),
             msg);
}

BOOST_AUTO_TEST_CASE(a_size_variable_at_the_width_stops_the_step) {
  oi::ModelWriter w;
  w.add_sizevar("W", 16);
  auto sim = simulate(w, R"(
dynamic { x: i16[1]; }
volatile { y: i16[1]; }
block entry {
  op shl(x, bits=W) >> y;
  return y;
}
)");
  auto exec = sim.make_executor();
  exec.insert("x", Tensor::from<int16_t>({1}, {1}));
  const std::string msg = error_of([&] { exec.step(); });
  BOOST_TEST(contains(msg, "test.oi:5:3: setting 'bits' of op 'shl' is 16, outside 0..15 for i16"),
             msg);
}

BOOST_AUTO_TEST_CASE(a_loop_of_fixed_bounds_past_the_width_stops_the_step) {
  oi::ModelWriter w;
  auto sim = simulate(w, R"(
dynamic { x: i32[2]; }
volatile { y: i32[2]; }
block entry {
  loop s (i in 30..33) {
    op shl(x, bits=i) >> y;
  }
  return y;
}
)");
  auto exec = sim.make_executor();
  exec.insert("x", Tensor::from<int32_t>({1, 3}, {2}));
  const std::string msg = error_of([&] { exec.step(); });
  BOOST_TEST(contains(msg, "test.oi:6:5: setting 'bits' of op 'shl' is 32, outside 0..31 for i32"),
             msg);
}

BOOST_AUTO_TEST_SUITE_END()
