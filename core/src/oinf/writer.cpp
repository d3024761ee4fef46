// The canonical writer (oinf.md, "Canonical writer"): entries sorted by name in byte order,
// tables back to back each starting at the next multiple of 8, then the data section with
// all metadata payloads in table order followed by all tensor payloads, each padded to 8.
#include <algorithm>
#include <functional>

#include "atomic_file.hpp"
#include "byte_io.hpp"
#include "checked_math.hpp"
#include "layout.hpp"
#include "openinfer/error.hpp"
#include "openinfer/model.hpp"

namespace oi {

using namespace oinf;

namespace {

using Sink = std::function<void(std::span<const std::byte>)>;

// One payload of the data section: an encoded prefix (metadata headers, strings, bits),
// then bytes borrowed from a tensor, then zero padding to 8.
struct Chunk {
  std::vector<std::byte> prefix;
  std::span<const std::byte> data;
  uint64_t size() const { return prefix.size() + data.size(); }
};

void append_string(std::vector<std::byte>& out, std::string_view s) {
  const uint64_t start = out.size();
  append_u32le(out, static_cast<uint32_t>(s.size()));
  for (char c : s) out.push_back(static_cast<std::byte>(c));
  append_zeros(out, (8 - (out.size() - start) % 8) % 8);
}

void pad_to_8(std::vector<std::byte>& out) {
  append_zeros(out, (8 - out.size() % 8) % 8);
}

void check_name(const char* what, const std::string& name) {
  if (!is_valid_oinf_name(name))
    throw input_error("oinf writer: " + std::string(what) + " name '" + name +
                      "' must use only the characters [A-Za-z0-9._-], at least one");
}

template <class T, class NameOf>
std::vector<const T*> sorted_unique(const std::vector<T>& items, const char* what, NameOf name_of) {
  std::vector<const T*> sorted;
  for (const auto& item : items) {
    check_name(what, name_of(item));
    sorted.push_back(&item);
  }
  std::sort(sorted.begin(), sorted.end(),
            [&](const T* a, const T* b) { return name_of(*a) < name_of(*b); });
  for (size_t i = 1; i < sorted.size(); ++i)
    if (name_of(*sorted[i]) == name_of(*sorted[i - 1]))
      throw input_error("oinf writer: duplicate " + std::string(what) + " name '" +
                        name_of(*sorted[i]) + "'");
  return sorted;
}

Chunk encode_metadata(const std::string& key, const MetaValue& v) {
  const auto fail = [&](const std::string& problem) {
    return input_error("oinf writer: metadata '" + key + "': " + problem);
  };
  Chunk c;
  switch (v.kind) {
    case MetaValue::Kind::Scalar:
      if (v.tensor.rank() != 0) throw fail("a scalar must have rank 0");
      if (v.tensor.dtype() == DType::bitset) throw fail("a scalar cannot have dtype bitset");
      c.data = v.tensor.bytes();
      break;
    case MetaValue::Kind::String:
      if (!is_valid_oinf_name(v.text))
        throw fail("string value must use only the characters [A-Za-z0-9._-], at least one");
      append_string(c.prefix, v.text);
      break;
    case MetaValue::Kind::Bitset:
      if (v.bits.size() != (uint64_t{v.bit_count} + 7) / 8)
        throw fail("bitset of " + std::to_string(v.bit_count) + " bits has " +
                   std::to_string(v.bits.size()) + " bytes");
      append_u32le(c.prefix, v.bit_count);
      append_u32le(c.prefix, static_cast<uint32_t>(v.bits.size()));
      for (uint8_t b : v.bits) c.prefix.push_back(std::byte{b});
      pad_to_8(c.prefix);
      break;
    case MetaValue::Kind::NdArray:
      if (v.tensor.dtype() == DType::bitset) throw fail("an ndarray cannot hold bitset elements");
      if (v.tensor.rank() > UINT32_MAX) throw fail("ndarray rank does not fit in 32 bits");
      append_u32le(c.prefix, static_cast<uint32_t>(v.tensor.dtype()));
      append_u32le(c.prefix, static_cast<uint32_t>(v.tensor.rank()));
      for (uint64_t d : v.tensor.shape()) append_u64le(c.prefix, d);
      c.data = v.tensor.bytes();
      break;
  }
  return c;
}

// value_nbytes: the raw size for scalars, the padded length for the other kinds.
uint64_t metadata_nbytes(const MetaValue& v, const Chunk& c) {
  if (v.kind == MetaValue::Kind::Scalar) return c.size();
  return (c.size() + 7) / 8 * 8;
}

void serialize(const std::vector<SizeVarEntry>& sizevars_in,
               const std::vector<std::pair<std::string, MetaValue>>& metadata_in,
               const auto& tensors_in, const Sink& sink) {
  const auto sizevars = sorted_unique(
      sizevars_in, "sizevar", [](const SizeVarEntry& s) -> const std::string& { return s.name; });
  const auto metadata = sorted_unique(
      metadata_in, "metadata",
      [](const std::pair<std::string, MetaValue>& m) -> const std::string& { return m.first; });
  const auto tensors = sorted_unique(tensors_in, "tensor",
                                     [](const auto& t) -> const std::string& { return t.name; });
  if (tensors.size() > UINT32_MAX || metadata.size() > UINT32_MAX || sizevars.size() > UINT32_MAX)
    throw input_error("oinf writer: more than 2^32 - 1 entries in one table");

  std::vector<Chunk> meta_chunks;
  for (const auto* m : metadata) meta_chunks.push_back(encode_metadata(m->first, m->second));

  // Tables are built with placeholder payload offsets, patched once the data section starts.
  std::vector<std::byte> head(kHeaderPaddedBytes, std::byte{0});
  const uint64_t off_sizevars = head.size();
  for (const auto* s : sizevars) {
    append_string(head, s->name);
    append_u64le(head, s->value);
  }
  pad_to_8(head);
  const uint64_t off_metadata = head.size();
  std::vector<size_t> meta_offset_slots;
  for (size_t i = 0; i < metadata.size(); ++i) {
    append_string(head, metadata[i]->first);
    append_u32le(head, metadata[i]->second.type_tag());
    append_u32le(head, 0);
    append_u64le(head, metadata_nbytes(metadata[i]->second, meta_chunks[i]));
    meta_offset_slots.push_back(head.size());
    append_u64le(head, 0);
  }
  pad_to_8(head);
  const uint64_t off_tensors = head.size();
  std::vector<size_t> tensor_offset_slots;
  for (const auto* t : tensors) {
    if (t->dims.size() > UINT32_MAX)
      throw input_error("oinf writer: tensor '" + t->name + "': rank does not fit in 32 bits");
    append_string(head, t->name);
    append_u32le(head, static_cast<uint32_t>(t->dtype));
    append_u32le(head, static_cast<uint32_t>(t->dims.size()));
    append_u32le(head, t->data ? kTensorHasData : 0);
    for (uint64_t d : t->dims) append_u64le(head, d);
    append_u64le(head, t->data ? t->data->nbytes() : 0);
    tensor_offset_slots.push_back(head.size());
    append_u64le(head, 0);
  }
  pad_to_8(head);
  const uint64_t off_data = head.size();

  uint64_t cursor = off_data;
  const auto place = [&](size_t slot, uint64_t size) {
    store_u64le(head.data() + slot, cursor);
    cursor += (size + 7) / 8 * 8;
  };
  for (size_t i = 0; i < meta_chunks.size(); ++i)
    place(meta_offset_slots[i], meta_chunks[i].size());
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i]->data) place(tensor_offset_slots[i], tensors[i]->data->nbytes());

  std::copy(kMagic.begin(), kMagic.end(), reinterpret_cast<char*>(head.data()));
  const auto put_u32 = [&](uint64_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) head[at + i] = static_cast<std::byte>((v >> (8 * i)) & 0xFF);
  };
  put_u32(oinf::kOffVersion, oinf::kVersion);
  put_u32(oinf::kOffNSizevars, static_cast<uint32_t>(sizevars.size()));
  put_u32(oinf::kOffNMetadata, static_cast<uint32_t>(metadata.size()));
  put_u32(oinf::kOffNTensors, static_cast<uint32_t>(tensors.size()));
  store_u64le(head.data() + oinf::kOffOffsetSizevars, off_sizevars);
  store_u64le(head.data() + oinf::kOffOffsetMetadata, off_metadata);
  store_u64le(head.data() + oinf::kOffOffsetTensors, off_tensors);
  store_u64le(head.data() + oinf::kOffOffsetData, off_data);
  store_u64le(head.data() + oinf::kOffFileSize, cursor);

  static constexpr std::byte kZeros[8] = {};
  const auto emit_padded = [&](std::span<const std::byte> prefix, std::span<const std::byte> data) {
    sink(prefix);
    sink(data);
    sink(std::span(kZeros, (8 - (prefix.size() + data.size()) % 8) % 8));
  };
  sink(head);
  for (const auto& c : meta_chunks) emit_padded(c.prefix, c.data);
  for (const auto* t : tensors)
    if (t->data) emit_padded({}, t->data->bytes());
}

}  // namespace

void ModelWriter::add_sizevar(std::string name, uint64_t value) {
  sizevars_.push_back({std::move(name), value});
}

void ModelWriter::add_metadata(std::string key, MetaValue value) {
  metadata_.emplace_back(std::move(key), std::move(value));
}

void ModelWriter::add_tensor(std::string name, Tensor tensor) {
  DType dtype = tensor.dtype();
  Shape dims = tensor.shape();
  tensors_.push_back({std::move(name), dtype, std::move(dims), std::move(tensor)});
}

void ModelWriter::add_declaration(std::string name, DType dtype, Shape dims) {
  if (!checked_numel(dims) || !storage_bytes(dtype, *checked_numel(dims)))
    throw input_error("oinf writer: tensor '" + name + "': dims overflow 64 bits");
  tensors_.push_back({std::move(name), dtype, std::move(dims), std::nullopt});
}

std::vector<std::byte> ModelWriter::to_bytes() const {
  std::vector<std::byte> out;
  serialize(sizevars_, metadata_, tensors_,
            [&](std::span<const std::byte> b) { out.insert(out.end(), b.begin(), b.end()); });
  return out;
}

void ModelWriter::write(const std::filesystem::path& path) const {
  AtomicFile file(path);
  serialize(sizevars_, metadata_, tensors_, [&](std::span<const std::byte> b) { file.write(b); });
  file.commit();
}

}  // namespace oi
