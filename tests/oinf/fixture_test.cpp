// Round trips of every dtype and every metadata kind, checked against fixtures written by
// make_fixtures.py (numpy), so the bytes are known independently of this writer.
#include <boost/test/unit_test.hpp>

#include "fixture_values.hpp"
#include "openinfer/model.hpp"
#include "test_support.hpp"

using namespace oinf_test;
using oi::DType;

namespace {

oi::ModelWriter metadata_writer() {
  oi::ModelWriter w;
  w.add_sizevar("N", uint64_t{1} << 40);
  w.add_sizevar("B", 4);
  for (DType d : oi::all_dtypes())
    if (d != DType::bitset)
      w.add_metadata("s_" + std::string(oi::dtype_name(d)),
                     oi::MetaValue::scalar(fixture_scalar(d)));
  w.add_metadata("str", oi::MetaValue::string("clamp_up"));
  w.add_metadata("str9", oi::MetaValue::string("a.b_c-D09"));
  // Bits 1,0,1,0,0,1,0,1,0,1 LSB first: 0b10100101, 0b10.
  w.add_metadata("bits10", oi::MetaValue::bitset(10, {0xA5, 0x02}));
  w.add_metadata("bits0", oi::MetaValue::bitset(0, {}));
  w.add_metadata("nd_i16",
                 oi::MetaValue::ndarray(ints(DType::i16, {2, 2}, std::vector{-1, 2, 3, 4})));
  w.add_metadata("nd_i4", oi::MetaValue::ndarray(ints(DType::i4, {3}, std::vector{-1, 2, 3})));
  w.add_metadata("nd_t2",
                 oi::MetaValue::ndarray(ints(DType::t2, {5}, std::vector{-1, 0, 1, 1, -1})));
  w.add_metadata("nd_f32_rank0", oi::MetaValue::ndarray(oi::Tensor::scalar(2.5f)));
  w.add_metadata("nd_u8_empty", oi::MetaValue::ndarray(oi::Tensor(DType::u8, {2, 0})));
  return w;
}

oi::ModelWriter tensors_writer() {
  oi::ModelWriter w;
  for (DType d : oi::all_dtypes())
    w.add_tensor("t_" + std::string(oi::dtype_name(d)), fixture_tensor(d, {3, 5}));
  w.add_declaration("decl_f32", DType::f32, {2, 3});
  w.add_declaration("decl_u4", DType::u4, {7});
  w.add_declaration("decl_rank0", DType::i8, {});
  w.add_tensor("empty_f32", oi::Tensor(DType::f32, {2, 0, 3}));
  w.add_tensor("empty_i1", oi::Tensor(DType::i1, {0}));
  w.add_tensor("scalar_i64", oi::Tensor::scalar(int64_t{-2}));
  w.add_tensor("scalar_t1", ints(DType::t1, {}, std::vector{1}));
  return w;
}

// Rewrites everything a model holds; canonical input must come back byte for byte.
Bytes rewrite(const oi::Model& m) {
  oi::ModelWriter w;
  for (const auto& s : m.sizevars()) w.add_sizevar(s.name, s.value);
  for (const auto& e : m.metadata()) w.add_metadata(e.key, m.metadata_value(e));
  for (const auto& t : m.tensors()) {
    if (t.has_data)
      w.add_tensor(t.name, m.tensor(t));
    else
      w.add_declaration(t.name, t.dtype, t.dims);
  }
  return w.to_bytes();
}

void require_same_bytes(const Bytes& got, const Bytes& want) {
  BOOST_REQUIRE_EQUAL(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) BOOST_FAIL("first difference at byte " << i);
}

}  // namespace

BOOST_AUTO_TEST_CASE(writer_matches_numpy_fixture_for_every_metadata_kind) {
  require_same_bytes(metadata_writer().to_bytes(), fixture("metadata.oinf"));
}

BOOST_AUTO_TEST_CASE(writer_matches_numpy_fixture_for_every_dtype) {
  require_same_bytes(tensors_writer().to_bytes(), fixture("tensors.oinf"));
}

BOOST_AUTO_TEST_CASE(empty_package_is_the_72_byte_header) {
  const Bytes empty = oi::ModelWriter().to_bytes();
  require_same_bytes(empty, fixture("empty.oinf"));
  const auto m = oi::Model::from_bytes(empty);
  BOOST_TEST(m.sizevars().empty());
  BOOST_TEST(m.metadata().empty());
  BOOST_TEST(m.tensors().empty());
}

BOOST_AUTO_TEST_CASE(every_dtype_reads_back) {
  const auto m = oi::Model::from_bytes(fixture("tensors.oinf"), "tensors.oinf");
  for (DType d : oi::all_dtypes()) {
    const std::string name = "t_" + std::string(oi::dtype_name(d));
    BOOST_TEST_CONTEXT(name) {
      const auto* e = m.find_tensor(name);
      BOOST_REQUIRE(e != nullptr);
      BOOST_TEST((e->dims == oi::Shape{3, 5}));
      // ceil(15 * bits / 8) by formula.
      BOOST_TEST(e->data_nbytes == (15u * oi::dtype_bits(d) + 7) / 8);
      BOOST_TEST(e->data_offset % 8 == 0u);
      const auto t = m.tensor(name);
      BOOST_TEST(t.is_view());
      BOOST_TEST(t.bit_equal(fixture_tensor(d, {3, 5})));
      for (uint64_t i = 0; i < 15; ++i) {
        if (oi::is_float(d))
          BOOST_TEST(t.get_float(i) == float_value(i));
        else
          BOOST_TEST(t.get_int(i) == int_value(d, i));
      }
    }
  }
  const auto* decl = m.find_tensor("decl_u4");
  BOOST_REQUIRE(decl != nullptr);
  BOOST_TEST(!decl->has_data);
  BOOST_TEST(decl->data_nbytes == 0u);
  BOOST_TEST(decl->data_offset == 0u);
  const auto zeros = m.tensor("decl_u4");
  BOOST_TEST(!zeros.is_view());
  BOOST_TEST((zeros.dtype() == DType::u4));
  for (uint64_t i = 0; i < 7; ++i) BOOST_TEST(zeros.get_int(i) == 0);
  BOOST_TEST(m.tensor("decl_rank0").rank() == 0u);
  BOOST_TEST(m.tensor("empty_f32").numel() == 0u);
  BOOST_TEST(m.tensor("empty_i1").nbytes() == 0u);
  BOOST_TEST(m.tensor("scalar_i64").get_int(0) == -2);
  BOOST_TEST(m.tensor("scalar_t1").get_int(0) == 1);
}

BOOST_AUTO_TEST_CASE(packed_layout_is_lsb_first) {
  const auto m = oi::Model::from_bytes(metadata_writer().to_bytes());
  // i4 {-1, 2, 3}: nibbles 0xF, 0x2, 0x3 -> bytes 0x2F, 0x03.
  const auto i4 = m.metadata_value("nd_i4").tensor;
  BOOST_REQUIRE_EQUAL(i4.nbytes(), 2u);
  BOOST_TEST(std::to_integer<int>(i4.bytes()[0]) == 0x2F);
  BOOST_TEST(std::to_integer<int>(i4.bytes()[1]) == 0x03);
  // t2 {-1, 0, 1, 1, -1}: 11 00 01 01 | 11 -> 0b01010011, 0b11.
  const auto t2 = m.metadata_value("nd_t2").tensor;
  BOOST_TEST(std::to_integer<int>(t2.bytes()[0]) == 0x53);
  BOOST_TEST(std::to_integer<int>(t2.bytes()[1]) == 0x03);
}

BOOST_AUTO_TEST_CASE(every_metadata_kind_reads_back) {
  const auto m = oi::Model::from_bytes(fixture("metadata.oinf"), "metadata.oinf");
  BOOST_TEST(m.size_of("N") == uint64_t{1} << 40);
  BOOST_TEST(m.sizevars()[0].name == "B");  // sorted by name

  for (DType d : oi::all_dtypes()) {
    if (d == DType::bitset) continue;
    const std::string key = "s_" + std::string(oi::dtype_name(d));
    BOOST_TEST_CONTEXT(key) {
      const auto* e = m.find_metadata(key);
      BOOST_REQUIRE(e != nullptr);
      BOOST_TEST(e->value_type == static_cast<uint32_t>(d));
      BOOST_TEST(e->value_nbytes == (oi::is_packed(d) ? 1u : oi::dtype_bits(d) / 8));
      const auto v = m.metadata_value(key);
      BOOST_TEST((v.kind == oi::MetaValue::Kind::Scalar));
      BOOST_TEST(v.tensor.rank() == 0u);
      BOOST_TEST(v.tensor.bit_equal(fixture_scalar(d)));
    }
  }
  BOOST_TEST(m.metadata_value("s_i64").tensor.get_int(0) == INT64_MAX);
  BOOST_TEST(m.metadata_value("s_f8").tensor.get_float(0) == -3.0);
  BOOST_TEST(m.metadata_value("s_t1").tensor.get_int(0) == 1);

  BOOST_TEST(m.metadata_value("str9").text == "a.b_c-D09");
  BOOST_TEST(m.find_metadata("str9")->value_nbytes == 16u);  // 4 + 9 padded to 16

  const auto bits = m.metadata_value("bits10");
  BOOST_TEST((bits.kind == oi::MetaValue::Kind::Bitset));
  BOOST_TEST(bits.bit_count == 10u);
  const bool expected_bits[10] = {1, 0, 1, 0, 0, 1, 0, 1, 0, 1};
  for (uint32_t i = 0; i < 10; ++i) BOOST_TEST(bits.bit(i) == expected_bits[i]);
  BOOST_TEST(m.find_metadata("bits10")->value_nbytes == 16u);
  const auto bits0 = m.metadata_value("bits0");
  BOOST_TEST(bits0.bit_count == 0u);
  BOOST_TEST(bits0.bits.empty());
  BOOST_TEST(m.find_metadata("bits0")->value_nbytes == 8u);

  const auto nd = m.metadata_value("nd_i16");
  BOOST_TEST((nd.kind == oi::MetaValue::Kind::NdArray));
  BOOST_TEST((nd.tensor.shape() == oi::Shape{2, 2}));
  BOOST_TEST(nd.tensor.get_int(0) == -1);
  BOOST_TEST(nd.tensor.get_int(3) == 4);
  BOOST_TEST(m.find_metadata("nd_i16")->value_nbytes == 32u);  // 8 + 2 * 8 + 8
  BOOST_TEST(m.metadata_value("nd_f32_rank0").tensor.rank() == 0u);
  BOOST_TEST(m.metadata_value("nd_f32_rank0").tensor.get_float(0) == 2.5);
  BOOST_TEST((m.metadata_value("nd_u8_empty").tensor.shape() == oi::Shape{2, 0}));
}

BOOST_AUTO_TEST_CASE(reading_then_rewriting_reproduces_the_fixtures) {
  for (const char* name : {"example.oinf", "metadata.oinf", "tensors.oinf", "empty.oinf"}) {
    BOOST_TEST_CONTEXT(name) {
      const Bytes original = fixture(name);
      require_same_bytes(rewrite(oi::Model::from_bytes(original, name)), original);
    }
  }
}

BOOST_AUTO_TEST_CASE(packed_scalar_ignores_bits_above_its_width) {
  Bytes b = fixture("metadata.oinf");
  const auto m = oi::Model::from_bytes(b);
  const uint64_t at = m.find_metadata("s_i4")->value_offset;
  b = patch_u8(b, at, 0xF7);  // high nibble set; low nibble 7 is the value
  BOOST_TEST(oi::Model::from_bytes(b).metadata_value("s_i4").tensor.get_int(0) == 7);
}

BOOST_AUTO_TEST_CASE(writer_rejects_bad_content) {
  const auto expect = [](oi::ModelWriter w, const std::string& fragment) {
    BOOST_CHECK_EXCEPTION(w.to_bytes(), oi::Error, [&](const oi::Error& e) {
      BOOST_TEST_MESSAGE(e.what());
      return std::string(e.what()).find(fragment) != std::string::npos;
    });
  };
  oi::ModelWriter bad_name;
  bad_name.add_tensor("a b", oi::Tensor::scalar(1.0f));
  expect(bad_name, "tensor name 'a b' must use only the characters");
  oi::ModelWriter dup;
  dup.add_sizevar("B", 1);
  dup.add_sizevar("B", 2);
  expect(dup, "duplicate sizevar name 'B'");
  oi::ModelWriter empty_key;
  empty_key.add_metadata("", oi::MetaValue::string("x"));
  expect(empty_key, "metadata name '' must use only");
  oi::ModelWriter bad_scalar;
  oi::MetaValue v;  // fields are public: the writer checks them again
  v.tensor = oi::Tensor(DType::f32, {2});
  bad_scalar.add_metadata("k", v);
  expect(bad_scalar, "metadata 'k': a scalar must have rank 0");
  oi::ModelWriter bad_bits;
  oi::MetaValue bits;
  bits.kind = oi::MetaValue::Kind::Bitset;
  bits.bit_count = 9;
  bits.bits = {1};
  bad_bits.add_metadata("k", bits);
  expect(bad_bits, "bitset of 9 bits has 1 bytes");

  BOOST_CHECK_THROW(oi::MetaValue::string("no spaces"), oi::Error);
  BOOST_CHECK_THROW(oi::MetaValue::bitset(9, {1}), oi::Error);
  BOOST_CHECK_THROW(oi::MetaValue::scalar(oi::Tensor(DType::f32, {1})), oi::Error);
  BOOST_CHECK_THROW(oi::MetaValue::ndarray(oi::Tensor(DType::bitset, {1})), oi::Error);
  BOOST_CHECK_THROW(oi::ModelWriter().add_declaration("d", DType::f32, {1ull << 32, 1ull << 32}),
                    oi::Error);
}
