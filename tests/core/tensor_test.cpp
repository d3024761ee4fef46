#define BOOST_TEST_MODULE tensor
#include <boost/test/unit_test.hpp>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "openinfer/tensor.hpp"

using namespace oi;

namespace {

std::vector<std::byte> bytes_of(std::initializer_list<unsigned> values) {
  std::vector<std::byte> out;
  for (unsigned v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

// Bytes as numbers, so Boost.Test can print them in a failure message.
std::vector<unsigned> to_vector(std::span<const std::byte> s) {
  std::vector<unsigned> out;
  for (std::byte b : s) out.push_back(static_cast<unsigned>(b));
  return out;
}

// Checks that `f` throws oi::Error of kind Input whose message contains every `needle`.
template <class F>
void expect_error(F&& f, std::initializer_list<std::string> needles) {
  try {
    f();
    BOOST_ERROR("no oi::Error thrown");
  } catch (const Error& e) {
    BOOST_TEST((e.kind() == ErrorKind::Input));
    const std::string what = e.what();
    for (const auto& n : needles) BOOST_TEST(what.find(n) != std::string::npos, what << " ~ " << n);
  }
}

struct PackedCase {
  DType dtype;
  std::vector<int64_t> values;
  std::vector<std::byte> bytes;  // worked out by hand, LSB first
};

}  // namespace

BOOST_AUTO_TEST_CASE(shape_to_string_formats) {
  BOOST_TEST(shape_to_string(Shape{2, 3}) == "[2, 3]");
  BOOST_TEST(shape_to_string(Shape{}) == "[]");
  BOOST_TEST(shape_to_string(Shape{0}) == "[0]");
}

BOOST_AUTO_TEST_CASE(default_rank0_and_zero_sized) {
  const Tensor d;
  BOOST_TEST((d.dtype() == DType::f32));
  BOOST_TEST(d.rank() == 0u);
  BOOST_TEST(d.numel() == 1u);
  BOOST_TEST(d.nbytes() == 4u);
  BOOST_TEST(d.get_float(0) == 0.0);

  const Tensor s(DType::i4, Shape{});
  BOOST_TEST(s.numel() == 1u);
  BOOST_TEST(s.nbytes() == 1u);

  const Tensor z(DType::f32, Shape{2, 0, 3});
  BOOST_TEST(z.numel() == 0u);
  BOOST_TEST(z.nbytes() == 0u);
  BOOST_TEST(z.bytes().empty());
  BOOST_TEST(z.as<float>().empty());
  expect_error([&] { z.get_raw(0); }, {"index 0", "[2, 0, 3]"});
  const Tensor z2 = z;
  BOOST_TEST(z2.bit_equal(z));
}

BOOST_AUTO_TEST_CASE(packed_layouts_match_hand_worked_bytes) {
  const std::vector<PackedCase> cases = {
      {DType::i4, {-8, 7, 0, 1}, bytes_of({0x78, 0x10})},
      {DType::u4, {1, 2, 15}, bytes_of({0x21, 0x0F})},
      {DType::i2, {-2, -1, 0, 1, 1}, bytes_of({0x4E, 0x01})},
      {DType::u2, {3, 0, 1, 2}, bytes_of({0x93})},
      {DType::i1, {-1, 0, 0, -1, -1, 0, 0, 0, -1}, bytes_of({0x19, 0x01})},
      {DType::u1, {1, 0, 1, 1, 0, 0, 0, 1, 0, 1}, bytes_of({0x8D, 0x02})},
      {DType::t1, {-1, 1, 1, -1, -1, -1, -1, 1, 1}, bytes_of({0x86, 0x01})},
      {DType::t2, {-1, 0, 1, -1, 1}, bytes_of({0xD3, 0x01})},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(dtype_name(c.dtype)) {
      Tensor t(c.dtype, Shape{c.values.size()});
      BOOST_TEST(t.nbytes() == c.bytes.size());
      for (size_t i = 0; i < c.values.size(); ++i) t.set_int(i, c.values[i]);
      BOOST_TEST(to_vector(t.bytes()) == to_vector(c.bytes), boost::test_tools::per_element());

      const Tensor back = Tensor::from_bytes(c.dtype, Shape{c.values.size()}, c.bytes);
      for (size_t i = 0; i < c.values.size(); ++i) {
        BOOST_TEST(back.get_int(i) == c.values[i]);
        BOOST_TEST(back.get_float(i) == double(c.values[i]));
      }
      BOOST_TEST(back.bit_equal(t));
    }
  }
}

BOOST_AUTO_TEST_CASE(every_valid_value_round_trips_for_every_dtype) {
  for (DType d : all_dtypes()) {
    if (is_float(d)) continue;
    BOOST_TEST_CONTEXT(dtype_name(d)) {
      std::vector<int64_t> values;
      if (dtype_bits(d) <= 8) {
        for (int64_t v = int_min(d); v <= int64_t(int_max(d)); ++v)
          if (!(d == DType::t1 && v == 0)) values.push_back(v);
      } else {
        values = {int_min(d),         int_min(d) + 1, -1, 0, 1, int64_t(int_max(d) - 1),
                  int64_t(int_max(d))};
        if (is_unsigned_int(d)) values = {0, 1, 2, int64_t(int_max(d))};
      }
      // Odd count and an offset start: the elements straddle byte boundaries.
      Tensor t(d, Shape{values.size() + 3});
      for (size_t i = 0; i < values.size(); ++i) t.set_int(i + 3, values[i]);
      for (size_t i = 0; i < values.size(); ++i) {
        BOOST_TEST(t.get_int(i + 3) == values[i]);
        // raw is the value's bits zero-extended to the width (t1: 0 means -1).
        const uint32_t bits = dtype_bits(d);
        const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
        const uint64_t expected_raw =
            d == DType::t1 ? (values[i] == 1 ? 1 : 0) : (uint64_t(values[i]) & mask);
        BOOST_TEST(t.get_raw(i + 3) == expected_raw);
      }
      for (size_t i = 0; i < 3; ++i) BOOST_TEST(t.get_raw(i) == 0u);
    }
  }
}

BOOST_AUTO_TEST_CASE(wide_layouts_are_little_endian) {
  Tensor t(DType::i32, Shape{2});
  t.set_int(0, 0x01020304);
  t.set_int(1, -2);
  BOOST_TEST(to_vector(t.bytes()) ==
                 (std::vector<unsigned>{0x04, 0x03, 0x02, 0x01, 0xFE, 0xFF, 0xFF, 0xFF}),
             boost::test_tools::per_element());
  Tensor h(DType::f16, Shape{1});
  h.set_float(0, -2.0);
  BOOST_TEST(to_vector(h.bytes()) == (std::vector<unsigned>{0x00, 0xC0}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(set_int_wraps_and_rejects_invalid_values) {
  Tensor i4(DType::i4, Shape{2});
  i4.set_int(1, 9);  // 0b1001 -> -7
  BOOST_TEST(i4.get_int(1) == -7);
  Tensor u8(DType::u8, Shape{1});
  u8.set_int(0, -1);
  BOOST_TEST(u8.get_int(0) == 255);
  Tensor u64(DType::u64, Shape{1});
  u64.set_int(0, -1);
  BOOST_TEST(u64.get_raw(0) == std::numeric_limits<uint64_t>::max());
  BOOST_TEST(u64.get_int(0) == -1);
  BOOST_TEST(u64.get_float(0) == 18446744073709551615.0);
  Tensor bits(DType::bitset, Shape{1});
  bits.set_int(0, 0x1A5);
  BOOST_TEST(bits.get_raw(0) == 0xA5u);

  Tensor b(DType::boolean, Shape{1});
  expect_error([&] { b.set_int(0, 2); }, {"2", "bool"});
  Tensor t1(DType::t1, Shape{1});
  expect_error([&] { t1.set_int(0, 0); }, {"0", "t1"});
  Tensor t2(DType::t2, Shape{1});
  expect_error([&] { t2.set_int(0, -2); }, {"-2", "t2"});
  Tensor f(DType::f32, Shape{1});
  expect_error([&] { f.set_int(0, 1); }, {"f32", "set_float"});
  expect_error([&] { f.get_int(0); }, {"f32", "get_float"});
  expect_error([&] { i4.set_int(2, 0); }, {"index 2", "[2]"});
}

BOOST_AUTO_TEST_CASE(set_raw_rejects_invalid_patterns) {
  Tensor i4(DType::i4, Shape{1});
  expect_error([&] { i4.set_raw(0, 0x10); }, {"0x10", "i4"});
  Tensor b(DType::boolean, Shape{1});
  expect_error([&] { b.set_raw(0, 2); }, {"0x2", "bool"});
  Tensor t2(DType::t2, Shape{1});
  expect_error([&] { t2.set_raw(0, 2); }, {"0x2", "t2"});
  // Invalid patterns that came from bytes are reported when read as integers.
  const Tensor bad_t2 = Tensor::from_bytes(DType::t2, Shape{1}, bytes_of({0x02}));
  expect_error([&] { bad_t2.get_int(0); }, {"0x2", "t2"});
  // bool bytes are checked up front: reading 5 as a C++ bool would be undefined behaviour.
  expect_error(
      [] {
        Tensor::from_bytes(DType::boolean, Shape{2}, bytes_of({0x01, 0x05}));
      },
      {"bool element 1", "5"});
  const std::vector<std::byte> bad_bools = bytes_of({0x00, 0x02});
  expect_error([&] { Tensor::view(DType::boolean, Shape{2}, bad_bools.data(), {}); },
               {"bool element 1", "2"});
}

BOOST_AUTO_TEST_CASE(float_access_rounds_once_from_f64) {
  Tensor h(DType::f16, Shape{1});
  h.set_float(0, 1.0 + 0x1p-11 + 0x1p-40);  // just above the midpoint of 1 and 1+2^-10
  BOOST_TEST(h.get_raw(0) == 0x3C01u);
  BOOST_TEST(h.get_float(0) == 1.0 + 0x1p-10);
  Tensor b(DType::bf16, Shape{1});
  b.set_float(0, 3.0);
  BOOST_TEST(b.get_raw(0) == 0x4040u);
  Tensor e(DType::f8, Shape{1});
  e.set_float(0, 61440.0);  // midpoint past the largest finite: inf
  BOOST_TEST(e.get_raw(0) == 0x7Cu);
  BOOST_TEST(std::isinf(e.get_float(0)));
  Tensor f(DType::f32, Shape{1});
  f.set_float(0, 0.1);
  BOOST_TEST(f.get_float(0) == double(0.1f));
  Tensor d(DType::f64, Shape{1});
  d.set_float(0, -0.0);
  BOOST_TEST(d.get_raw(0) == 0x8000000000000000u);
}

BOOST_AUTO_TEST_CASE(set_float_on_integers_truncates_and_checks_range) {
  Tensor i8(DType::i8, Shape{1});
  i8.set_float(0, 127.9);
  BOOST_TEST(i8.get_int(0) == 127);
  i8.set_float(0, -128.9);
  BOOST_TEST(i8.get_int(0) == -128);
  expect_error([&] { i8.set_float(0, 128.0); }, {"128", "i8"});
  expect_error([&] { i8.set_float(0, std::nan("")); }, {"i8"});
  Tensor u64(DType::u64, Shape{1});
  u64.set_float(0, 0x1p63);
  BOOST_TEST(u64.get_raw(0) == uint64_t{1} << 63);
  expect_error([&] { u64.set_float(0, 0x1p64); }, {"u64"});
  expect_error([&] { u64.set_float(0, -1.0); }, {"u64"});
  Tensor i64(DType::i64, Shape{1});
  i64.set_float(0, -0x1p63);
  BOOST_TEST(i64.get_int(0) == std::numeric_limits<int64_t>::min());
  expect_error([&] { i64.set_float(0, 0x1p63); }, {"i64"});
  expect_error([&] { i64.set_float(0, INFINITY); }, {"i64"});
  Tensor b(DType::boolean, Shape{1});
  b.set_float(0, 0.5);
  BOOST_TEST(b.get_int(0) == 0);
  Tensor t1(DType::t1, Shape{1});
  t1.set_float(0, -1.0);
  BOOST_TEST(t1.get_float(0) == -1.0);
  expect_error([&] { t1.set_float(0, 0.0); }, {"t1"});
  Tensor u2(DType::u2, Shape{1});
  expect_error([&] { u2.set_float(0, 4.0); }, {"u2"});
}

BOOST_AUTO_TEST_CASE(views_and_owned_copies) {
  auto buffer = std::make_shared<std::vector<float>>(std::vector<float>{1.f, 2.f, 3.f, 4.f});
  const auto* data = reinterpret_cast<const std::byte*>(buffer->data());
  Tensor v = Tensor::view(DType::f32, Shape{2, 2}, data, buffer);
  buffer.reset();  // the tensor keeps the memory alive
  BOOST_TEST(v.is_view());
  BOOST_TEST(v.bytes().data() == data);
  BOOST_TEST(v.as<float>()[3] == 4.f);

  const Tensor view_copy = v;  // views copy as views
  BOOST_TEST(view_copy.is_view());
  BOOST_TEST(view_copy.bytes().data() == data);

  v.as_mut<float>()[0] = 10.f;  // mutable access copies to owned first
  BOOST_TEST(!v.is_view());
  BOOST_TEST(v.bytes().data() != data);
  BOOST_TEST(v.get_float(0) == 10.0);
  BOOST_TEST(view_copy.get_float(0) == 1.0);  // the viewed memory is untouched

  const Tensor owned_copy = v;  // owned tensors copy deeply
  BOOST_TEST(!owned_copy.is_view());
  BOOST_TEST(owned_copy.bytes().data() != v.bytes().data());
  BOOST_TEST(owned_copy.bit_equal(v));
  v.set_float(1, 20.0);
  BOOST_TEST(owned_copy.get_float(1) == 2.0);

  Tensor assigned;
  assigned = view_copy;
  BOOST_TEST(assigned.is_view());
  Tensor written = view_copy;
  written.set_raw(2, std::bit_cast<uint32_t>(7.f));
  BOOST_TEST(!written.is_view());
  BOOST_TEST(view_copy.get_float(2) == 3.0);
}

BOOST_AUTO_TEST_CASE(misaligned_view_is_copied) {
  alignas(8) unsigned char raw[12] = {};
  const float value = 1.5f;
  std::memcpy(raw + 1, &value, 4);
  const Tensor t = Tensor::view(DType::f32, Shape{1}, reinterpret_cast<std::byte*>(raw + 1), {});
  BOOST_TEST(!t.is_view());
  BOOST_TEST(t.as<float>()[0] == 1.5f);
  // Byte-sized elements have no alignment need: they stay a view.
  const Tensor u = Tensor::view(DType::u8, Shape{2}, reinterpret_cast<std::byte*>(raw + 1), {});
  BOOST_TEST(u.is_view());
  expect_error([] { Tensor::view(DType::f32, Shape{1}, nullptr, {}); }, {"null"});
}

BOOST_AUTO_TEST_CASE(moves_leave_a_rank0_zero) {
  Tensor a = Tensor::from<int32_t>({1, 2, 3});
  const std::byte* data = a.bytes().data();
  Tensor b = std::move(a);
  BOOST_TEST(b.bytes().data() == data);
  BOOST_TEST(b.get_int(2) == 3);
  BOOST_TEST(a.rank() == 0u);  // NOLINT(bugprone-use-after-move): the state is documented
  BOOST_TEST(a.get_float(0) == 0.0);
  a.set_float(0, 5.0);
  BOOST_TEST(a.get_float(0) == 5.0);
  Tensor c;
  c = std::move(b);
  BOOST_TEST(c.get_int(1) == 2);
}

BOOST_AUTO_TEST_CASE(typed_access_checks_dtype) {
  Tensor t = Tensor::from<float>({1.f, 2.f});
  expect_error([&] { t.as<int32_t>(); }, {"f32", "i32"});
  expect_error([&] { t.as_mut<double>(); }, {"f32", "f64"});
  const Tensor h = Tensor::from<f16>({f16(1.f), f16(-2.f)});
  BOOST_TEST(h.as<f16>()[1].bits == 0xC000u);
  expect_error([&] { h.as<bf16>(); }, {"f16", "bf16"});
}

BOOST_AUTO_TEST_CASE(from_scalar_and_from_bytes) {
  const Tensor m = Tensor::from<int64_t>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  BOOST_TEST(m.shape() == (Shape{2, 3}), boost::test_tools::per_element());
  BOOST_TEST(m.get_int(5) == 6);
  expect_error([] { Tensor::from<int64_t>({1, 2}, Shape{3}); }, {"2 values", "[3]"});

  const Tensor s = Tensor::scalar<int64_t>(-5);
  BOOST_TEST(s.rank() == 0u);
  BOOST_TEST(s.get_int(0) == -5);
  const Tensor b = Tensor::scalar(true);
  BOOST_TEST((b.dtype() == DType::boolean));
  BOOST_TEST(to_vector(b.bytes()) == (std::vector<unsigned>{0x01}),
             boost::test_tools::per_element());
  const Tensor flags = Tensor::from<bool>({true, false, true});
  BOOST_TEST(flags.get_int(2) == 1);

  const Tensor raw = Tensor::from_bytes(DType::u16, Shape{2}, bytes_of({0x34, 0x12, 0xFF, 0x00}));
  BOOST_TEST(raw.get_int(0) == 0x1234);
  BOOST_TEST(raw.get_int(1) == 0xFF);
  expect_error(
      [] {
        Tensor::from_bytes(DType::u16, Shape{2}, bytes_of({1, 2, 3}));
      },
      {"u16", "[2]", "4 bytes", "got 3"});
}

BOOST_AUTO_TEST_CASE(oversized_shapes_are_rejected) {
  const uint64_t big = uint64_t{1} << 32;
  expect_error([&] { Tensor(DType::f32, Shape{big, big}); }, {"[4294967296, 4294967296]"});
  expect_error([] { Tensor(DType::f32, Shape{uint64_t{1} << 62}); }, {"f32", "too large"});
  expect_error([] { Tensor(static_cast<DType>(14), Shape{1}); }, {"14"});
}

BOOST_AUTO_TEST_CASE(bit_equal_compares_element_bits) {
  const Tensor nan1 = Tensor::from_bytes(DType::f32, Shape{1}, bytes_of({1, 0, 0xC0, 0x7F}));
  const Tensor nan2 = Tensor::from_bytes(DType::f32, Shape{1}, bytes_of({2, 0, 0xC0, 0x7F}));
  BOOST_TEST(nan1.bit_equal(nan1));
  BOOST_TEST(!nan1.bit_equal(nan2));
  const Tensor a = Tensor::from<int32_t>({1, 2});
  BOOST_TEST(!a.bit_equal(Tensor::from<int32_t>({1, 2}, Shape{2, 1})));
  BOOST_TEST(!a.bit_equal(Tensor::from<uint32_t>({1, 2})));
  // Padding bits of a packed tensor's last byte do not matter.
  const Tensor p1 = Tensor::from_bytes(DType::u4, Shape{3}, bytes_of({0x21, 0x03}));
  const Tensor p2 = Tensor::from_bytes(DType::u4, Shape{3}, bytes_of({0x21, 0xF3}));
  const Tensor p3 = Tensor::from_bytes(DType::u4, Shape{3}, bytes_of({0x21, 0xF4}));
  BOOST_TEST(p1.bit_equal(p2));
  BOOST_TEST(!p1.bit_equal(p3));
}
