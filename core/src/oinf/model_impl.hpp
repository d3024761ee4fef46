// What a validated OINF file decodes to. Built once by parse_oinf, immutable afterwards.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "openinfer/model.hpp"

namespace oi {

// Where a metadata payload's parts lie, found while validating so that decoding a value
// later needs no further checks.
struct MetaLayout {
  MetaValue::Kind kind = MetaValue::Kind::Scalar;
  DType dtype = DType::u8;   // Scalar: the value's dtype; NdArray: the element dtype
  Shape dims;                // NdArray only
  uint64_t data_offset = 0;  // absolute offset of the value bytes / string chars / bitset bytes
  uint64_t data_nbytes = 0;
  uint32_t bit_count = 0;  // Bitset only
};

struct Model::Impl {
  std::string origin;
  std::shared_ptr<const void> owner;  // keeps `bytes` alive; tensor views share it
  std::span<const std::byte> bytes;
  std::vector<SizeVarEntry> sizevars;
  std::vector<MetadataEntry> metadata;
  std::vector<MetaLayout> metadata_layouts;  // parallel to `metadata`
  std::vector<TensorEntry> tensors;
  // Entry indices sorted by name, for binary-search lookups (files need not be canonical).
  std::vector<uint32_t> sizevar_order, metadata_order, tensor_order;
};

namespace oinf {

// Validates every rule of oinf.md's "Validation" section over `bytes` and decodes the
// tables. Throws oi::Error (Input) "ORIGIN: ENTRY: PROBLEM" on the first violation.
std::shared_ptr<const Model::Impl> parse_oinf(std::string origin, std::shared_ptr<const void> owner,
                                              std::span<const std::byte> bytes);

}  // namespace oinf
}  // namespace oi
