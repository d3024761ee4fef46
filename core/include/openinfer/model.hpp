// The OINF model package (oinf.md): a validating, memory-mapped reader and a canonical writer.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "openinfer/tensor.hpp"

namespace oi {

// OINF value-type tags beyond the dtypes (metadata only).
inline constexpr uint32_t kOinfTagString = 14;
inline constexpr uint32_t kOinfTagNdarray = 15;

// A metadata value: a scalar (a rank-0 tensor of any dtype but bitset; packed types take one
// byte), a string, a bitset of `bit_count` bits, or an ndarray (any dtype but bitset). The
// factories check these rules and throw oi::Error; the writer checks them again.
struct MetaValue {
  enum class Kind { Scalar, String, Bitset, NdArray };
  Kind kind = Kind::Scalar;
  Tensor tensor;              // Scalar: rank 0; NdArray: the array
  std::string text;           // String
  uint32_t bit_count = 0;     // Bitset
  std::vector<uint8_t> bits;  // Bitset: ceil(bit_count / 8) bytes, LSB first

  static MetaValue scalar(Tensor t);
  static MetaValue string(std::string s);
  static MetaValue bitset(uint32_t bit_count, std::vector<uint8_t> bytes);
  static MetaValue ndarray(Tensor t);
  bool bit(uint32_t i) const { return (bits.at(i / 8) >> (i % 8)) & 1u; }
  // The value-type tag written in the metadata table.
  uint32_t type_tag() const;
};

struct SizeVarEntry {
  std::string name;
  uint64_t value;
};

struct TensorEntry {
  std::string name;
  DType dtype;
  Shape dims;
  bool has_data = false;
  uint64_t data_nbytes = 0;
  uint64_t data_offset = 0;
};

struct MetadataEntry {
  std::string key;
  uint32_t value_type = 0;
  uint64_t value_nbytes = 0;
  uint64_t value_offset = 0;
};

class Model {
 public:
  // Maps the file and validates every rule of oinf.md before returning. Throws oi::Error
  // (ErrorKind::Input) "ORIGIN: ENTRY: PROBLEM", e.g. "model.oinf: tensor 'w' (entry 3):
  // data_nbytes 10 does not match dtype f32 and dims [4] (16 bytes)". Open points of the spec
  // are decided (and listed) in core/src/oinf/reader.cpp.
  static Model open(const std::filesystem::path& path);
  // The same over bytes in memory (fuzzing, tests). `origin` names the input in errors.
  static Model from_bytes(std::vector<std::byte> bytes, std::string origin = "<memory>");

  const std::string& origin() const;
  uint64_t file_size() const;

  std::span<const SizeVarEntry> sizevars() const;
  std::optional<uint64_t> find_sizevar(std::string_view name) const;
  uint64_t size_of(std::string_view name) const;  // throws when missing

  std::span<const MetadataEntry> metadata() const;
  const MetadataEntry* find_metadata(std::string_view key) const;
  MetaValue metadata_value(std::string_view key) const;  // decodes; throws when missing
  MetaValue metadata_value(const MetadataEntry& entry) const;

  std::span<const TensorEntry> tensors() const;
  const TensorEntry* find_tensor(std::string_view name) const;
  // A read-only view into the mapping (the page is read on first touch). A declaration
  // without data gives a zero-filled owned tensor of its dtype and dims.
  Tensor tensor(std::string_view name) const;
  Tensor tensor(const TensorEntry& entry) const;
  // Whether [data, data + bytes) lies in the model's (immutable) file bytes: such views never
  // change, so a device backend may keep its copy of them for the model's lifetime.
  bool holds(const std::byte* data, uint64_t bytes) const;

  struct Impl;

 private:
  explicit Model(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;  // shared: copies are cheap; views keep the map alive
};

// Builds a canonical OINF file: entries sorted by name, tables and payloads 8-aligned.
class ModelWriter {
 public:
  void add_sizevar(std::string name, uint64_t value);
  void add_metadata(std::string key, MetaValue value);
  void add_tensor(std::string name, Tensor tensor);                 // with data
  void add_declaration(std::string name, DType dtype, Shape dims);  // without data
  // Throws oi::Error on invalid names, duplicates or unwritable content.
  std::vector<std::byte> to_bytes() const;
  // Writes atomically (temporary file, then rename): never a partial file.
  void write(const std::filesystem::path& path) const;

 private:
  struct PendingTensor {
    std::string name;
    DType dtype;
    Shape dims;
    std::optional<Tensor> data;
  };
  std::vector<SizeVarEntry> sizevars_;
  std::vector<std::pair<std::string, MetaValue>> metadata_;
  std::vector<PendingTensor> tensors_;
};

// Characters allowed in OINF names and string values: [A-Za-z0-9._-], at least one.
bool is_valid_oinf_name(std::string_view s);

}  // namespace oi
