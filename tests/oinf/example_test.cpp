// The 200-byte example of oinf.md: written byte for byte, and read back.
#include <boost/test/unit_test.hpp>

#include "openinfer/model.hpp"
#include "test_support.hpp"

using namespace oinf_test;

namespace {

// Typed in from the hex dump in oinf.md, section "Example".
const char* const kSpecExampleHex = R"(
4f49 4e46 0001 0000 0000 0000 0001 0000
0001 0000 0001 0000 0000 0000 0048 0000
0000 0000 0058 0000 0000 0000 0078 0000
0000 0000 00a8 0000 0000 0000 00c8 0000
0000 0000 0000 0000 0100 0000 4200 0000
0400 0000 0000 0000 0400 0000 6d6f 6465
0e00 0000 0000 0000 1000 0000 0000 0000
a800 0000 0000 0000 0100 0000 6100 0000
0a00 0000 0100 0000 0100 0000 0400 0000
0000 0000 1000 0000 0000 0000 b800 0000
0000 0000 0000 0000 0800 0000 636c 616d
705f 7570 0000 0000 0000 803f 0000 0040
0000 4040 0000 8040
)";

oi::ModelWriter example_writer() {
  oi::ModelWriter w;
  w.add_tensor("a", oi::Tensor::from(std::vector<float>{1, 2, 3, 4}));
  w.add_metadata("mode", oi::MetaValue::string("clamp_up"));
  w.add_sizevar("B", 4);
  return w;
}

}  // namespace

BOOST_AUTO_TEST_CASE(spec_hex_dump_is_200_bytes) {
  const Bytes spec = from_hex(kSpecExampleHex);
  BOOST_TEST(spec.size() == 200u);
  BOOST_TEST((fixture("example.oinf") == spec));  // the numpy fixture writer agrees
}

BOOST_AUTO_TEST_CASE(writer_reproduces_spec_example_byte_for_byte) {
  const Bytes written = example_writer().to_bytes();
  const Bytes spec = from_hex(kSpecExampleHex);
  BOOST_REQUIRE_EQUAL(written.size(), spec.size());
  for (size_t i = 0; i < spec.size(); ++i)
    BOOST_TEST(std::to_integer<int>(written[i]) == std::to_integer<int>(spec[i]), "byte " << i);
}

BOOST_AUTO_TEST_CASE(reader_decodes_spec_example) {
  const auto model = oi::Model::from_bytes(from_hex(kSpecExampleHex), "example.oinf");
  BOOST_TEST(model.origin() == "example.oinf");
  BOOST_TEST(model.file_size() == 200u);

  BOOST_REQUIRE_EQUAL(model.sizevars().size(), 1u);
  BOOST_TEST(model.sizevars()[0].name == "B");
  BOOST_TEST(model.size_of("B") == 4u);
  BOOST_TEST(!model.find_sizevar("C").has_value());

  BOOST_REQUIRE_EQUAL(model.metadata().size(), 1u);
  const auto& m = model.metadata()[0];
  BOOST_TEST(m.key == "mode");
  BOOST_TEST(m.value_type == 14u);
  BOOST_TEST(m.value_nbytes == 16u);
  BOOST_TEST(m.value_offset == 0xa8u);
  const auto mode = model.metadata_value("mode");
  BOOST_TEST((mode.kind == oi::MetaValue::Kind::String));
  BOOST_TEST(mode.text == "clamp_up");

  BOOST_REQUIRE_EQUAL(model.tensors().size(), 1u);
  const auto& e = model.tensors()[0];
  BOOST_TEST(e.name == "a");
  BOOST_TEST((e.dtype == oi::DType::f32));
  BOOST_TEST((e.dims == oi::Shape{4}));
  BOOST_TEST(e.has_data);
  BOOST_TEST(e.data_nbytes == 16u);
  BOOST_TEST(e.data_offset == 0xb8u);
  const auto a = model.tensor("a");
  BOOST_TEST(a.is_view());
  const auto values = a.as<float>();
  BOOST_TEST((std::vector<float>(values.begin(), values.end()) == std::vector<float>{1, 2, 3, 4}));
}

BOOST_AUTO_TEST_CASE(insertion_order_does_not_change_the_bytes) {
  oi::ModelWriter w;
  w.add_sizevar("B", 4);
  w.add_metadata("mode", oi::MetaValue::string("clamp_up"));
  w.add_tensor("a", oi::Tensor::from(std::vector<float>{1, 2, 3, 4}));
  BOOST_TEST((w.to_bytes() == example_writer().to_bytes()));
}

BOOST_AUTO_TEST_CASE(missing_names_are_errors) {
  const auto model = oi::Model::from_bytes(from_hex(kSpecExampleHex), "example.oinf");
  BOOST_CHECK_EXCEPTION(model.size_of("C"), oi::Error, [](const oi::Error& e) {
    return std::string(e.what()) == "example.oinf: no sizevar named 'C'";
  });
  BOOST_CHECK_EXCEPTION(model.tensor("b"), oi::Error, [](const oi::Error& e) {
    return std::string(e.what()) == "example.oinf: no tensor named 'b'";
  });
  BOOST_CHECK_EXCEPTION(model.metadata_value("mod"), oi::Error, [](const oi::Error& e) {
    return std::string(e.what()) == "example.oinf: no metadata named 'mod'";
  });
  BOOST_TEST(model.find_tensor("") == nullptr);
  BOOST_TEST(model.find_metadata("modes") == nullptr);
}

BOOST_AUTO_TEST_CASE(entries_copied_out_of_the_model_are_looked_up_by_name) {
  const auto model = oi::Model::from_bytes(from_hex(kSpecExampleHex), "example.oinf");
  oi::TensorEntry copy = model.tensors()[0];
  copy.data_offset = 0;  // a caller's copy is never trusted for offsets
  BOOST_TEST(model.tensor(copy).as<float>()[3] == 4.0f);
  oi::MetadataEntry key_copy = model.metadata()[0];
  BOOST_TEST(model.metadata_value(key_copy).text == "clamp_up");
}
