// The SDK's header-only geometry (plugin_api/include/openinfer/): slice ranges, windows and
// broadcasting. Expected values are worked out by hand from the rules in ops-nn.md / ONNX
// (Python's range() semantics for slices), not from the code under test.
#define BOOST_TEST_MODULE sdk_geometry
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <limits>
#include <vector>

#include "openinfer/broadcast.hpp"
#include "openinfer/slice_range.hpp"
#include "openinfer/window.hpp"

using namespace oi::geometry;
using U = std::vector<uint64_t>;
using I = std::vector<int64_t>;

namespace {
void expect_axis(SliceAxis got, int64_t start, int64_t step, uint64_t count) {
  BOOST_TEST(got.count == count);
  BOOST_TEST(got.step == step);
  if (count > 0) BOOST_TEST(got.start == start);
}
}  // namespace

BOOST_AUTO_TEST_CASE(slice_axis_positive_negative_and_clamped_bounds) {
  // range(10)[2:7] = 2..6; [-3:] = 7, 8, 9; [1:100:3] = 1, 4, 7; [-100:2] = 0, 1.
  expect_axis(slice_axis(2, 7, 1, 10), 2, 1, 5);
  expect_axis(slice_axis(-3, std::numeric_limits<int64_t>::max(), 1, 10), 7, 1, 3);
  expect_axis(slice_axis(1, 100, 3, 10), 1, 3, 3);
  expect_axis(slice_axis(-100, 2, 1, 10), 0, 1, 2);
  // Empty: [5:5], [7:2].
  expect_axis(slice_axis(5, 5, 1, 10), 5, 1, 0);
  expect_axis(slice_axis(7, 2, 1, 10), 7, 1, 0);
}

BOOST_AUTO_TEST_CASE(slice_axis_negative_steps) {
  // range(10)[::-1] with ONNX's "end below -dim" = 9..0; [8:2:-2] = 8, 6, 4; [-1:-4:-1] = 9, 8, 7.
  expect_axis(slice_axis(-1, std::numeric_limits<int64_t>::min(), -1, 10), 9, -1, 10);
  expect_axis(slice_axis(8, 2, -2, 10), 8, -2, 3);
  expect_axis(slice_axis(-1, -4, -1, 10), 9, -1, 3);
  // A start past the end clamps to dim - 1: [100:5:-2] = 9, 7.
  expect_axis(slice_axis(100, 5, -2, 10), 9, -2, 2);
  // INT64_MIN as a step: one element from the start.
  expect_axis(slice_axis(4, -100, std::numeric_limits<int64_t>::min(), 10), 4,
              std::numeric_limits<int64_t>::min(), 1);
  // An empty axis gives nothing in either direction.
  expect_axis(slice_axis(0, 5, 1, 0), 0, 1, 0);
  expect_axis(slice_axis(-1, -5, -1, 0), 0, -1, 0);
}

BOOST_AUTO_TEST_CASE(slice_ranges_fill_every_axis_and_report_errors) {
  const U dims{4, 6, 8};
  const I starts{1, -1}, ends{3, 0}, axes{0, -1}, steps{1, -2};
  SliceRanges r = slice_ranges(dims, {starts, ends, axes, steps, true, true});
  BOOST_TEST(r.ok());
  BOOST_TEST(r.counts() == (U{2, 6, 4}), boost::test_tools::per_element());  // 7, 5, 3, 1
  BOOST_TEST(r.axes[2].start == 7);
  BOOST_TEST(r.axes[1].start == 0);

  const I one{0}, two{0, 0}, zero{0}, three{3};
  BOOST_TEST((slice_ranges(dims, {one, two, {}, {}, false, false}).error == SliceError::lengths));
  const I four{0, 0, 0, 0};
  BOOST_TEST(
      (slice_ranges(dims, {four, four, {}, {}, false, false}).error == SliceError::too_many));
  r = slice_ranges(dims, {one, one, three, {}, true, false});
  BOOST_TEST((r.error == SliceError::axis_range));
  BOOST_TEST(r.axis == 3);
  const I rep{1, -2};
  r = slice_ranges(dims, {two, two, rep, {}, true, false});
  BOOST_TEST((r.error == SliceError::axis_repeated));
  BOOST_TEST(r.entry == 1u);
  BOOST_TEST(
      (slice_ranges(dims, {one, one, {}, zero, false, true}).error == SliceError::zero_step));
}

BOOST_AUTO_TEST_CASE(window_output_sizes) {
  // in 7, kernel 3, stride 2, dilation 1, pads 1/1: padded 9, span 3, (9 - 3) / 2 + 1 = 4.
  BOOST_TEST(WindowAxis({7, 3, 2, 1, 1, 1}).output() == 4u);
  // dilation 2: span 5, (9 - 5) / 2 + 1 = 3.
  BOOST_TEST(WindowAxis({7, 3, 2, 2, 1, 1}).span() == 5u);
  BOOST_TEST(WindowAxis({7, 3, 2, 2, 1, 1}).output() == 3u);
  // Floor mode: in 8, kernel 2, stride 3: (8 - 2) / 3 + 1 = 3 (the last partial window dropped).
  BOOST_TEST(WindowAxis({8, 2, 3, 1, 0, 0}).output() == 3u);
  // A window larger than the padded input does not fit.
  BOOST_TEST(!WindowAxis({2, 5, 1, 1, 1, 0}).fits());
  BOOST_TEST(WindowAxis({2, 5, 1, 1, 1, 0}).output() == 0u);
}

BOOST_AUTO_TEST_CASE(window_valid_ranges) {
  // in 5, kernel 3, stride 2, pad 1 each side: out 3; output o reads 2o - 1 + t.
  const WindowAxis a{5, 3, 2, 1, 1, 1};
  // Tap 0 reads 2o - 1: inside for o = 1, 2.
  IndexRange r = valid_outputs(a, 3, 0);
  BOOST_TEST(r.lo == 1u);
  BOOST_TEST(r.hi == 3u);
  // Tap 2 reads 2o + 1: inside for o = 0, 1 (o = 2 reads 5).
  r = valid_outputs(a, 3, 2);
  BOOST_TEST(r.lo == 0u);
  BOOST_TEST(r.hi == 2u);
  // Output 0 reads -1, 0, 1: taps 1 and 2; output 2 reads 3, 4, 5: taps 0 and 1.
  r = valid_taps(a, 0);
  BOOST_TEST(r.lo == 1u);
  BOOST_TEST(r.hi == 3u);
  r = valid_taps(a, 2);
  BOOST_TEST(r.lo == 0u);
  BOOST_TEST(r.hi == 2u);
}

BOOST_AUTO_TEST_CASE(window_2d_runs_1d_as_2d_and_checks_y) {
  Window2d g;
  const U x{2, 3, 10}, y{2, 4, 4}, k{3};
  const I s{3}, d{1}, p{1, 2};  // padded 13, span 3: (13 - 3) / 3 + 1 = 4
  BOOST_TEST(window_2d(x, y, k, s, d, p, g).ok);
  BOOST_TEST(g.in_h == 1u);
  BOOST_TEST(g.k_h == 1u);
  BOOST_TEST(g.in_w == 10u);
  BOOST_TEST(g.out_w == 4u);
  BOOST_TEST(g.pad_left == 1u);
  BOOST_TEST(g.pad_right == 2u);
  const U wrong{2, 4, 5};
  const WindowMismatch m = window_2d(x, wrong, k, s, d, p, g);
  BOOST_TEST(!m.ok);
  BOOST_TEST(m.axis == 0u);
  BOOST_TEST(m.want == 4u);
  // An empty input axis gives an empty output whatever the window.
  const U x0{1, 1, 0}, y0{1, 1, 0}, big{5};
  const I one{1}, none{0, 0};
  BOOST_TEST(window_2d(x0, y0, big, one, one, none, g).ok);
}

BOOST_AUTO_TEST_CASE(broadcasting) {
  BOOST_TEST(*broadcast_shape(U{3, 1, 5}, U{4, 1}) == (U{3, 4, 5}),
             boost::test_tools::per_element());
  BOOST_TEST(*broadcast_shape(U{}, U{2, 3}) == (U{2, 3}), boost::test_tools::per_element());
  BOOST_TEST(!broadcast_shape(U{2, 3}, U{3, 2}).has_value());
  // [4, 1] inside [3, 4, 5]: axis 0 missing, axis 1 stride 1, axis 2 repeats.
  BOOST_TEST(broadcast_strides(U{4, 1}, U{3, 4, 5}) == (U{0, 1, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(broadcast_strides(U{3, 4, 5}, U{3, 4, 5}) == (U{20, 5, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(broadcast_strides(U{1, 1}, U{2, 2}) == (U{0, 0}), boost::test_tools::per_element());
}
