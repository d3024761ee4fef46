// A corpus of broken files made from valid ones: each must be rejected with an Input error
// naming the entry and the problem, never a crash. Offsets of the example file are those of
// the hex dump in oinf.md (header fields at 5, 9, 13, ...; "B" at 0x48; "mode" at 0x58;
// tensor "a" at 0x78; data at 0xa8).
#include <boost/test/unit_test.hpp>

#include "openinfer/model.hpp"
#include "test_support.hpp"

using namespace oinf_test;

namespace {

constexpr size_t kVersion = 5, kFlags = 9, kNSizevars = 13, kNMetadata = 17, kNTensors = 21,
                 kReserved = 25, kOffMetadata = 37, kOffTensors = 45, kOffData = 53, kFileSize = 61;
// Tensor "a": name length 0x78, name 0x7c, dtype 0x80, ndim 0x84, flags 0x88, dims 0x8c,
// data_nbytes 0x94, data_offset 0x9c. Metadata "mode": key length 0x58, type 0x60, flags 0x64,
// nbytes 0x68, offset 0x70. Sizevar "B": name length 0x48.
constexpr size_t kTensorNameLen = 0x78, kTensorName = 0x7c, kTensorDtype = 0x80, kTensorNdim = 0x84,
                 kTensorFlags = 0x88, kTensorDim0 = 0x8c, kTensorNbytes = 0x94,
                 kTensorOffset = 0x9c;
constexpr size_t kMetaKey = 0x5c, kMetaType = 0x60, kMetaFlags = 0x64, kMetaNbytes = 0x68,
                 kMetaOffset = 0x70, kMetaStringLen = 0xa8;
constexpr size_t kSizevarNameLen = 0x48;

Bytes example() {
  return fixture("example.oinf");
}

Bytes truncated(Bytes b, size_t n, bool patch_file_size) {
  b.resize(n);
  if (patch_file_size && n >= 72) b = patch_u64(b, kFileSize, n);
  return b;
}

// One metadata entry "k" and nothing else: key at 72, type 80, flags 84, nbytes 88,
// offset 96, payload at 104.
Bytes single_metadata(oi::MetaValue v) {
  oi::ModelWriter w;
  w.add_metadata("k", std::move(v));
  return w.to_bytes();
}
constexpr size_t kSingleNbytes = 88, kSinglePayload = 104;

}  // namespace

BOOST_AUTO_TEST_CASE(truncated_at_every_byte) {
  const Bytes good = example();
  for (size_t n = 0; n < good.size(); ++n) {
    BOOST_TEST_CONTEXT("length " << n) {
      if (n < 72) {
        expect_rejected(truncated(good, n, false), "header: file is " + std::to_string(n) +
                                                       " bytes, shorter than the 72-byte header");
      } else {
        expect_rejected(
            truncated(good, n, false),
            "header: file_size 200 does not match the file length " + std::to_string(n));
        // With file_size patched, a deeper check must still catch the cut.
        expect_rejected(truncated(good, n, true), "");
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(truncated_at_section_boundaries) {
  const Bytes good = example();
  expect_rejected(truncated(good, 0x58, true),
                  "header: offset_tensors 120 is past the end of the file (file_size 88)");
  expect_rejected(truncated(good, 0x78, true),
                  "header: offset_data 168 is past the end of the file (file_size 120)");
  expect_rejected(truncated(good, 0xa8, true),
                  "metadata 'mode' (entry 0): payload [168, 184) is outside the data section "
                  "[168, 168)");
  expect_rejected(truncated(good, 0xb8, true),
                  "tensor 'a' (entry 0): payload [184, 200) is outside the data section "
                  "[168, 184)");
}

BOOST_AUTO_TEST_CASE(header_fields) {
  const Bytes good = example();
  expect_rejected(patch_u8(good, 0, 'X'), "header: bad magic");
  expect_rejected(patch_u8(good, 4, '1'), "header: bad magic");
  expect_rejected(patch_u32(good, kVersion, 2), "header: version 2 is not supported (expected 1)");
  expect_rejected(patch_u32(good, kVersion, 0), "header: version 0 is not supported");
  expect_rejected(patch_u32(good, kFlags, 1), "header: flags 1 must be 0");
  expect_rejected(patch_u32(good, kReserved, 9), "header: reserved field 9 must be 0");
  expect_rejected(patch_u64(good, kFileSize, 300),
                  "header: file_size 300 does not match the file length 200");
}

BOOST_AUTO_TEST_CASE(table_offsets) {
  const Bytes good = example();
  expect_rejected(patch_u64(good, kOffMetadata, 0x59),
                  "header: offset_metadata 89 is not a multiple of 8");
  expect_rejected(patch_u64(good, kOffTensors, 0x50),
                  "header: offset_tensors 80 is before offset_metadata 88");
  expect_rejected(patch_u64(good, kOffData, 0x100),
                  "header: offset_data 256 is past the end of the file (file_size 200)");
  expect_rejected(patch_u64(good, kOffData, UINT64_MAX - 7),
                  "header: offset_data 18446744073709551608 is past the end of the file");
  expect_rejected(patch_u64(good, 29, 0x40),
                  "header: offset_sizevars 64 lies inside the 72-byte header");
  // Tables too small for what they declare.
  expect_rejected(patch_u64(good, kOffTensors, 0x70),
                  "header: n_metadata 1 cannot fit in the metadata table [88, 112) (24 bytes; an "
                  "entry takes at least 32)");
  expect_rejected(patch_u32(good, kTensorNdim, 2),
                  "tensor 'a' (entry 0): data_offset at offset 164 runs past the end of the "
                  "tensor table [120, 168)");
}

BOOST_AUTO_TEST_CASE(huge_counts_are_bounded_by_the_table_bytes) {
  const Bytes good = example();
  expect_rejected(patch_u32(good, kNTensors, 0xFFFFFFFF),
                  "header: n_tensors 4294967295 cannot fit in the tensor table [120, 168)");
  expect_rejected(patch_u32(good, kNMetadata, 0xFFFFFFFF),
                  "header: n_metadata 4294967295 cannot fit in the metadata table [88, 120)");
  expect_rejected(patch_u32(good, kNSizevars, 2),
                  "header: n_sizevars 2 cannot fit in the sizevars table [72, 88)");
  // A bare 100-byte file (all tables empty at 72, data [72, 100)) claiming 2^32 - 1 tensors.
  Bytes tiny = oi::ModelWriter().to_bytes();
  tiny.resize(100);
  tiny = patch_u64(tiny, kFileSize, 100);
  BOOST_REQUIRE_NO_THROW(oi::Model::from_bytes(tiny));  // gap bytes in the data section are fine
  expect_rejected(patch_u32(tiny, kNTensors, 0xFFFFFFFF),
                  "header: n_tensors 4294967295 cannot fit in the tensor table [72, 72)");
}

BOOST_AUTO_TEST_CASE(strings) {
  const Bytes good = example();
  expect_rejected(patch_u32(good, kTensorNameLen, 0xFFFFFFFF),
                  "tensor entry 0: name length 4294967295 at offset 124 runs past the end of the "
                  "tensor table [120, 168)");
  expect_rejected(patch_u32(good, kSizevarNameLen, 0xFFFFFFFF),
                  "sizevar entry 0: name length 4294967295");
  expect_rejected(patch_u32(good, kTensorNameLen, 0), "tensor entry 0: name is empty");
  expect_rejected(patch_u8(good, kTensorName, '%'),
                  "tensor entry 0: name contains byte 0x25 '%' at position 0 (allowed: "
                  "[A-Za-z0-9._-])");
  expect_rejected(patch_u8(good, kMetaKey + 2, 0),
                  "metadata entry 0: key contains byte 0x00 at position 2");
  expect_rejected(patch_u8(good, kMetaKey + 3, 0xE9), "key contains byte 0xe9 at position 3");
  expect_rejected(patch_u8(good, 0xac + 5, ' '),
                  "metadata 'mode' (entry 0): string value contains byte 0x20 ' ' at position 5");
  expect_rejected(patch_u32(good, kMetaStringLen, 0xFFFFFFFF),
                  "metadata 'mode' (entry 0): value_nbytes 16 does not match the string length "
                  "4294967295 (4294967304 bytes with padding)");
  expect_rejected(patch_u32(good, kMetaStringLen, 0),
                  "metadata 'mode' (entry 0): string value is empty");
}

BOOST_AUTO_TEST_CASE(duplicate_names) {
  oi::ModelWriter w;
  w.add_tensor("a", oi::Tensor::scalar(1.0f));
  w.add_tensor("b", oi::Tensor::scalar(2.0f));
  w.add_sizevar("x", 1);
  w.add_sizevar("y", 2);
  w.add_metadata("k1", oi::MetaValue::string("v"));
  w.add_metadata("k2", oi::MetaValue::string("v"));
  const Bytes good = w.to_bytes();
  BOOST_REQUIRE_NO_THROW(oi::Model::from_bytes(good));
  Bytes dup = good;
  dup = patch_u8(dup, find(dup, std::string("\x01\0\0\0b", 5)) + 4, 'a');
  expect_rejected(dup, "tensor 'a' (entry 1): duplicate name (entry 0 has the same name)");
  dup = patch_u8(good, find(good, std::string("\x01\0\0\0y", 5)) + 4, 'x');
  expect_rejected(dup, "sizevar 'x' (entry 1): duplicate name");
  dup = patch_u8(good, find(good, "k2") + 1, '1');
  expect_rejected(dup, "metadata 'k1' (entry 1): duplicate name");
}

BOOST_AUTO_TEST_CASE(tensor_entries) {
  const Bytes good = example();
  expect_rejected(patch_u64(good, kTensorNbytes, 10),
                  "tensor 'a' (entry 0): data_nbytes 10 does not match dtype f32 and dims [4] "
                  "(16 bytes)");
  expect_rejected(patch_u32(good, kTensorDtype, 26), "tensor 'a' (entry 0): unknown dtype tag 26");
  expect_rejected(patch_u32(good, kTensorDtype, 0), "tensor 'a' (entry 0): unknown dtype tag 0");
  expect_rejected(patch_u32(good, kTensorDtype, 14),
                  "tensor 'a' (entry 0): dtype string (tag 14) is only allowed in metadata");
  expect_rejected(patch_u32(good, kTensorDtype, 15), "dtype ndarray (tag 15) is only allowed");
  expect_rejected(patch_u32(good, kTensorFlags, 3),
                  "tensor 'a' (entry 0): flags 3 has unknown bits (only bit 0, HAS_DATA, is "
                  "defined)");
  expect_rejected(patch_u32(good, kTensorFlags, 0),
                  "tensor 'a' (entry 0): a declaration without data (HAS_DATA = 0) has "
                  "data_nbytes 16 and data_offset 184 (both must be 0)");
  expect_rejected(patch_u32(good, kTensorNdim, 0xFFFFFFFF),
                  "tensor 'a' (entry 0): ndim 4294967295 runs past the end of the tensor table");
  expect_rejected(patch_u64(good, kTensorDim0, uint64_t{1} << 62),
                  "tensor 'a' (entry 0): dtype f32 and dims [4611686018427387904] need more than "
                  "2^64 bytes");
  // f32 -> f16 halves the size: the dtype is part of the size rule.
  expect_rejected(patch_u32(good, kTensorDtype, 9),
                  "data_nbytes 16 does not match dtype f16 and dims [4] (8 bytes)");
}

BOOST_AUTO_TEST_CASE(dims_product_overflowing_64_bits) {
  // Declaration "w" f32 [2, 3] alone: name at 72, dtype 80, ndim 84, flags 88, dims 92, 100.
  oi::ModelWriter w;
  w.add_declaration("w", oi::DType::f32, {2, 3});
  const Bytes good = w.to_bytes();
  BOOST_REQUIRE_NO_THROW(oi::Model::from_bytes(good));
  Bytes bad = patch_u64(good, 92, uint64_t{1} << 32);
  bad = patch_u64(bad, 100, (uint64_t{1} << 32) + 1);
  expect_rejected(bad, "tensor 'w' (entry 0): dims [4294967296, 4294967297] overflow 64 bits");
  // An empty dim does not excuse an overflowing product.
  Bytes zero_dim = patch_u64(good, 92, 0);
  BOOST_REQUIRE_NO_THROW(oi::Model::from_bytes(zero_dim));
  // Declaration with data fields set.
  expect_rejected(patch_u64(good, 116, 8),
                  "tensor 'w' (entry 0): a declaration without data (HAS_DATA = 0) has "
                  "data_nbytes 0 and data_offset 8");
}

BOOST_AUTO_TEST_CASE(payload_ranges) {
  const Bytes good = example();
  expect_rejected(patch_u64(good, kTensorOffset, 0xb9),
                  "tensor 'a' (entry 0): payload offset 185 is not a multiple of 8");
  expect_rejected(patch_u64(good, kTensorOffset, 0xb0),
                  "tensor 'a' (entry 0): payload [176, 192) overlaps the payload [168, 184) of "
                  "metadata 'mode' (entry 0)");
  expect_rejected(patch_u64(good, kTensorOffset, 0xa8),
                  "payload [168, 184) overlaps the payload [168, 184)");
  expect_rejected(patch_u64(good, kMetaOffset, 0xc8),
                  "metadata 'mode' (entry 0): payload [200, 216) is outside the data section "
                  "[168, 200)");
  expect_rejected(patch_u64(good, kMetaOffset, 0x70),
                  "metadata 'mode' (entry 0): payload [112, 128) is outside the data section");
  expect_rejected(patch_u64(good, kTensorOffset, UINT64_MAX - 7),
                  "tensor 'a' (entry 0): payload at offset 18446744073709551608 with 16 bytes "
                  "overflows 64 bits");
  expect_rejected(patch_u64(good, kMetaNbytes, UINT64_MAX),
                  "metadata 'mode' (entry 0): payload at offset 168 with 18446744073709551615 "
                  "bytes overflows 64 bits");
}

BOOST_AUTO_TEST_CASE(metadata_entries) {
  const Bytes good = example();
  expect_rejected(patch_u32(good, kMetaType, 99),
                  "metadata 'mode' (entry 0): unknown value type 99");
  expect_rejected(patch_u32(good, kMetaType, 0), "metadata 'mode' (entry 0): unknown value type 0");
  expect_rejected(patch_u32(good, kMetaFlags, 1),
                  "metadata 'mode' (entry 0): value_flags 1 must be 0");
  expect_rejected(patch_u64(good, kMetaNbytes, 24),
                  "value_nbytes 24 does not match the string length 8 (16 bytes with padding)");
  expect_rejected(patch_u64(good, kMetaNbytes, 2),
                  "metadata 'mode' (entry 0): string payload of 2 bytes is shorter than its "
                  "4-byte header");
  // The 16-byte string payload read as a scalar f64 (8 bytes).
  expect_rejected(
      patch_u32(good, kMetaType, 11),
      "metadata 'mode' (entry 0): value_nbytes 16 does not match the 8-byte f64 scalar");

  const Bytes scalar = single_metadata(oi::MetaValue::scalar(oi::Tensor::scalar(int32_t{7})));
  expect_rejected(patch_u64(scalar, kSingleNbytes, 3),
                  "metadata 'k' (entry 0): value_nbytes 3 does not match the 4-byte i32 scalar");
}

BOOST_AUTO_TEST_CASE(bitset_payloads) {
  // Payload at 104: bit_count 104, byte_count 108, bytes 112 (16 bytes with padding).
  const Bytes good = single_metadata(oi::MetaValue::bitset(10, {0xA5, 0x02}));
  BOOST_REQUIRE_NO_THROW(oi::Model::from_bytes(good));
  expect_rejected(patch_u32(good, kSinglePayload + 4, 5),
                  "metadata 'k' (entry 0): bitset byte_count 5 does not match bit_count 10 (2 "
                  "bytes)");
  Bytes longer = patch_u32(good, kSinglePayload, 100);
  longer = patch_u32(longer, kSinglePayload + 4, 13);
  expect_rejected(longer,
                  "metadata 'k' (entry 0): value_nbytes 16 does not match the bitset of 100 bits "
                  "(24 bytes with padding)");
  expect_rejected(patch_u64(good, kSingleNbytes, 4),
                  "metadata 'k' (entry 0): bitset payload of 4 bytes is shorter than its 8-byte "
                  "header");
}

BOOST_AUTO_TEST_CASE(ndarray_payloads) {
  // Payload at 104: element type 104, ndim 108, dims 112 and 120, data 128 (32 bytes).
  oi::Tensor t(oi::DType::i16, {2, 2});
  const Bytes good = single_metadata(oi::MetaValue::ndarray(t));
  BOOST_REQUIRE_NO_THROW(oi::Model::from_bytes(good));
  expect_rejected(patch_u32(good, kSinglePayload + 4, 0xFFFFFFFF),
                  "metadata 'k' (entry 0): ndarray ndim 4294967295 does not fit in its 32-byte "
                  "payload");
  expect_rejected(patch_u32(good, kSinglePayload + 4, 1),
                  "metadata 'k' (entry 0): value_nbytes 32 does not match the ndarray i16[2] (24 "
                  "bytes with padding)");
  expect_rejected(patch_u32(good, kSinglePayload, 13),
                  "metadata 'k' (entry 0): ndarray element type bitset is not a numeric, bool or "
                  "packed dtype");
  expect_rejected(patch_u32(good, kSinglePayload, 14), "ndarray element type string is not");
  expect_rejected(patch_u32(good, kSinglePayload, 77), "ndarray element type tag 77 is not");
  Bytes huge = patch_u64(good, 112, uint64_t{1} << 32);
  huge = patch_u64(huge, 120, uint64_t{1} << 32);
  expect_rejected(huge,
                  "metadata 'k' (entry 0): ndarray dims [4294967296, 4294967296] overflow "
                  "64 bits");
  expect_rejected(patch_u64(good, 112, uint64_t{1} << 62),
                  "value_nbytes 32 does not match the ndarray i16[4611686018427387904, 2] (more "
                  "than 2^64 bytes)");
}

BOOST_AUTO_TEST_CASE(every_single_byte_change_is_handled) {
  // Each byte of the example set to 0x00, 0xFF and flipped: accepted or rejected with an Input
  // error, never a crash (AddressSanitizer checks the reads). Accepted files decode fully.
  const Bytes good = example();
  for (size_t i = 0; i < good.size(); ++i) {
    for (uint8_t v :
         {uint8_t{0}, uint8_t{0xFF}, static_cast<uint8_t>(~std::to_integer<uint8_t>(good[i]))}) {
      try {
        const auto m = oi::Model::from_bytes(patch_u8(good, i, v), "model.oinf");
        for (const auto& e : m.metadata()) (void)m.metadata_value(e);
        for (const auto& e : m.tensors()) (void)m.tensor(e).bit_equal(m.tensor(e));
      } catch (const oi::Error& e) {
        BOOST_TEST((e.kind() == oi::ErrorKind::Input));
        BOOST_TEST(std::string(e.what()).rfind("model.oinf: ", 0) == 0u);
      }
    }
  }
}
