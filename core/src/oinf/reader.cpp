// Validation and decoding of an OINF file (oinf.md, "Validation"). Nothing is trusted
// before it is checked: every read is bounds-checked against its table, every count is
// bounded by the bytes that could hold it before anything is allocated, and all offset
// arithmetic is overflow-checked.
//
// Points oinf.md leaves open, decided here:
// - Header `flags` and `reserved` must be 0, metadata `value_flags` must be 0, and a tensor's
//   flags may only carry HAS_DATA (bit 0): anything else is a newer format we cannot read.
// - The first table may not start inside the 72-byte (padded) header.
// - Bytes between a table's last entry and the next table, string padding and payload
//   padding are never read, so they are not required to be zero; an empty table may likewise
//   start before the next one (a gap). Only overlaps are errors.
// - A zero-length payload (an empty tensor or ndarray data) occupies no bytes: its offset must
//   still be 8-aligned and within [offset_data, file_size], and it overlaps nothing.
// - Element values are not checked (a bool byte of 2, a t2 of 0b10, bits past a bitset's
//   bit_count): that would touch every page of a lazily mapped file.
// - An ndarray's element type is a numeric, bool or packed dtype: bitset, string and ndarray
//   tags are rejected. A packed scalar's byte may carry bits above its width; decoding ignores
//   them.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string_view>

#include "byte_io.hpp"
#include "checked_math.hpp"
#include "layout.hpp"
#include "model_impl.hpp"
#include "openinfer/error.hpp"

namespace oi::oinf {
namespace {

std::string range_text(uint64_t begin, uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

// "[2, 3]"; long dim lists (possible in corrupt files) are cut short.
std::string dims_text(std::span<const uint64_t> dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i == 8) {
      s += ", ... (" + std::to_string(dims.size()) + " dims)";
      break;
    }
    if (i > 0) s += ", ";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

std::string tag_text(uint32_t tag) {
  if (auto dt = dtype_from_tag(tag)) return std::string(dtype_name(*dt));
  if (tag == kOinfTagString) return "string";
  if (tag == kOinfTagNdarray) return "ndarray";
  return "tag " + std::to_string(tag);
}

bool allowed_char(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

// Describes the first disallowed character of `s`, or nullopt when all are allowed.
std::optional<std::string> bad_char(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (allowed_char(c)) continue;
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", c);
    std::string what = "byte " + std::string(hex);
    if (c >= 0x20 && c < 0x7f) what += " '" + std::string(1, static_cast<char>(c)) + "'";
    return what + " at position " + std::to_string(i) + " (allowed: [A-Za-z0-9._-])";
  }
  return std::nullopt;
}

struct Table {
  const char* name;  // "sizevars", "metadata", "tensor"
  uint64_t begin;
  uint64_t end;
};

struct Payload {
  uint64_t begin;
  uint64_t end;
  std::string label;
};

class Parser;

// Reads fields of consecutive entries inside one table, never past its end.
class Cursor {
 public:
  Cursor(const Parser& parser, Table table) : parser_(parser), table_(table), pos_(table.begin) {}
  void start_entry(std::string label) { label_ = std::move(label); }
  void rename_entry(std::string label) { label_ = std::move(label); }
  const std::string& label() const { return label_; }

  uint32_t u32(const char* field);
  uint64_t u64(const char* field);
  // A string (u32 length, characters, zero padding to a multiple of 8 overall).
  std::string string(const char* field);

 private:
  void need(uint64_t n, const std::string& what);

  const Parser& parser_;
  Table table_;
  uint64_t pos_;
  std::string label_;
};

class Parser {
 public:
  Parser(std::string origin, std::span<const std::byte> bytes)
      : origin_(std::move(origin)), bytes_(bytes) {}

  [[noreturn]] void fail(std::string_view where, const std::string& problem) const {
    throw input_error(origin_ + ": " + std::string(where) + ": " + problem);
  }
  const std::byte* at(uint64_t offset) const { return bytes_.data() + offset; }

  std::shared_ptr<Model::Impl> run(std::shared_ptr<const void> owner) {
    auto impl = std::make_shared<Model::Impl>();
    parse_header();
    parse_sizevars(*impl);
    parse_metadata(*impl);
    parse_tensors(*impl);
    check_overlaps();
    impl->origin = origin_;
    impl->owner = std::move(owner);
    impl->bytes = bytes_;
    return impl;
  }

 private:
  void parse_header();
  void parse_sizevars(Model::Impl& impl);
  void parse_metadata(Model::Impl& impl);
  void parse_tensors(Model::Impl& impl);
  void check_count(const char* count_name, uint32_t count, const Table& table,
                   uint64_t min_entry) const;
  void check_payload(const std::string& label, uint64_t offset, uint64_t nbytes);
  MetaLayout parse_meta_payload(const std::string& label, uint32_t type, uint64_t offset,
                                uint64_t nbytes) const;
  void check_overlaps() const;
  template <class Names>
  std::vector<uint32_t> unique_order(const Names& names, const char* table) const;

  std::string origin_;
  std::span<const std::byte> bytes_;
  uint32_t n_sizevars_ = 0, n_metadata_ = 0, n_tensors_ = 0;
  uint64_t off_sizevars_ = 0, off_metadata_ = 0, off_tensors_ = 0, off_data_ = 0;
  std::vector<Payload> payloads_;
};

void Cursor::need(uint64_t n, const std::string& what) {
  if (table_.end - pos_ < n)
    parser_.fail(label_, what + " at offset " + std::to_string(pos_) +
                             " runs past the end of the " + table_.name + " table " +
                             range_text(table_.begin, table_.end));
}

uint32_t Cursor::u32(const char* field) {
  need(4, field);
  const uint32_t v = load_u32le(parser_.at(pos_));
  pos_ += 4;
  return v;
}

uint64_t Cursor::u64(const char* field) {
  need(8, field);
  const uint64_t v = load_u64le(parser_.at(pos_));
  pos_ += 8;
  return v;
}

std::string Cursor::string(const char* field) {
  const uint32_t length = u32((std::string(field) + " length").c_str());
  if (length == 0) parser_.fail(label_, std::string(field) + " is empty");
  // 4 + length fits easily in 64 bits; the padded rest must lie inside the table.
  const uint64_t rest = (4 + uint64_t{length} + 7) / 8 * 8 - 4;
  need(rest, std::string(field) + " length " + std::to_string(length));
  std::string s(reinterpret_cast<const char*>(parser_.at(pos_)), length);
  if (auto bad = bad_char(s)) parser_.fail(label_, std::string(field) + " contains " + *bad);
  pos_ += rest;
  return s;
}

void Parser::parse_header() {
  const uint64_t size = bytes_.size();
  if (size < kHeaderPaddedBytes)
    fail("header", "file is " + std::to_string(size) + " bytes, shorter than the " +
                       std::to_string(kHeaderPaddedBytes) + "-byte header");
  for (size_t i = 0; i < kMagic.size(); ++i)
    if (std::to_integer<char>(bytes_[i]) != kMagic[i])
      fail("header", "bad magic (expected \"OINF\\0\"): not an OINF file");
  const uint32_t version = load_u32le(at(kOffVersion));
  if (version != kVersion)
    fail("header", "version " + std::to_string(version) + " is not supported (expected 1)");
  if (const uint32_t flags = load_u32le(at(kOffFlags)); flags != 0)
    fail("header", "flags " + std::to_string(flags) + " must be 0");
  if (const uint32_t reserved = load_u32le(at(kOffReserved)); reserved != 0)
    fail("header", "reserved field " + std::to_string(reserved) + " must be 0");
  const uint64_t file_size = load_u64le(at(kOffFileSize));
  if (file_size != size)
    fail("header", "file_size " + std::to_string(file_size) + " does not match the file length " +
                       std::to_string(size));

  n_sizevars_ = load_u32le(at(kOffNSizevars));
  n_metadata_ = load_u32le(at(kOffNMetadata));
  n_tensors_ = load_u32le(at(kOffNTensors));
  off_sizevars_ = load_u64le(at(kOffOffsetSizevars));
  off_metadata_ = load_u64le(at(kOffOffsetMetadata));
  off_tensors_ = load_u64le(at(kOffOffsetTensors));
  off_data_ = load_u64le(at(kOffOffsetData));

  const std::pair<const char*, uint64_t> offsets[] = {{"offset_sizevars", off_sizevars_},
                                                      {"offset_metadata", off_metadata_},
                                                      {"offset_tensors", off_tensors_},
                                                      {"offset_data", off_data_}};
  uint64_t previous = kHeaderPaddedBytes;
  const char* previous_name = nullptr;
  for (const auto& [name, offset] : offsets) {
    if (offset % 8 != 0)
      fail("header", std::string(name) + " " + std::to_string(offset) + " is not a multiple of 8");
    if (offset > size)
      fail("header", std::string(name) + " " + std::to_string(offset) +
                         " is past the end of the file (file_size " + std::to_string(size) + ")");
    if (offset < previous) {
      if (previous_name == nullptr)
        fail("header", std::string(name) + " " + std::to_string(offset) + " lies inside the " +
                           std::to_string(kHeaderPaddedBytes) + "-byte header");
      fail("header", std::string(name) + " " + std::to_string(offset) + " is before " +
                         previous_name + " " + std::to_string(previous) +
                         " (table offsets must not decrease)");
    }
    previous = offset;
    previous_name = name;
  }
}

void Parser::check_count(const char* count_name, uint32_t count, const Table& table,
                         uint64_t min_entry) const {
  const uint64_t room = table.end - table.begin;
  if (count > room / min_entry)
    fail("header", std::string(count_name) + " " + std::to_string(count) + " cannot fit in the " +
                       table.name + " table " + range_text(table.begin, table.end) + " (" +
                       std::to_string(room) + " bytes; an entry takes at least " +
                       std::to_string(min_entry) + ")");
}

template <class Names>
std::vector<uint32_t> Parser::unique_order(const Names& names, const char* table) const {
  std::vector<uint32_t> order(names.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return names[a] < names[b]; });
  for (size_t i = 1; i < order.size(); ++i) {
    const uint32_t first = order[i - 1], again = order[i];
    if (names[first] == names[again])
      fail(std::string(table) + " '" + std::string(names[again]) + "' (entry " +
               std::to_string(again) + ")",
           "duplicate name (entry " + std::to_string(first) + " has the same name)");
  }
  return order;
}

void Parser::parse_sizevars(Model::Impl& impl) {
  const Table table{"sizevars", off_sizevars_, off_metadata_};
  check_count("n_sizevars", n_sizevars_, table, kMinSizevarEntry);
  Cursor cur(*this, table);
  impl.sizevars.reserve(n_sizevars_);
  for (uint32_t i = 0; i < n_sizevars_; ++i) {
    cur.start_entry("sizevar entry " + std::to_string(i));
    std::string name = cur.string("name");
    cur.rename_entry("sizevar '" + name + "' (entry " + std::to_string(i) + ")");
    const uint64_t value = cur.u64("value");
    impl.sizevars.push_back({std::move(name), value});
  }
  std::vector<std::string_view> names;
  for (const auto& s : impl.sizevars) names.push_back(s.name);
  impl.sizevar_order = unique_order(names, "sizevar");
}

void Parser::parse_metadata(Model::Impl& impl) {
  const Table table{"metadata", off_metadata_, off_tensors_};
  check_count("n_metadata", n_metadata_, table, kMinMetadataEntry);
  Cursor cur(*this, table);
  impl.metadata.reserve(n_metadata_);
  impl.metadata_layouts.reserve(n_metadata_);
  for (uint32_t i = 0; i < n_metadata_; ++i) {
    cur.start_entry("metadata entry " + std::to_string(i));
    MetadataEntry e;
    e.key = cur.string("key");
    cur.rename_entry("metadata '" + e.key + "' (entry " + std::to_string(i) + ")");
    e.value_type = cur.u32("value_type");
    const uint32_t value_flags = cur.u32("value_flags");
    e.value_nbytes = cur.u64("value_nbytes");
    e.value_offset = cur.u64("value_offset");
    if (e.value_type == 0 || e.value_type > 25)
      fail(cur.label(), "unknown value type " + std::to_string(e.value_type));
    if (value_flags != 0)
      fail(cur.label(), "value_flags " + std::to_string(value_flags) + " must be 0");
    check_payload(cur.label(), e.value_offset, e.value_nbytes);
    impl.metadata_layouts.push_back(
        parse_meta_payload(cur.label(), e.value_type, e.value_offset, e.value_nbytes));
    impl.metadata.push_back(std::move(e));
  }
  std::vector<std::string_view> names;
  for (const auto& m : impl.metadata) names.push_back(m.key);
  impl.metadata_order = unique_order(names, "metadata");
}

void Parser::parse_tensors(Model::Impl& impl) {
  const Table table{"tensor", off_tensors_, off_data_};
  check_count("n_tensors", n_tensors_, table, kMinTensorEntry);
  Cursor cur(*this, table);
  impl.tensors.reserve(n_tensors_);
  for (uint32_t i = 0; i < n_tensors_; ++i) {
    cur.start_entry("tensor entry " + std::to_string(i));
    TensorEntry e;
    e.name = cur.string("name");
    cur.rename_entry("tensor '" + e.name + "' (entry " + std::to_string(i) + ")");
    const uint32_t tag = cur.u32("dtype");
    const uint32_t ndim = cur.u32("ndim");
    const uint32_t flags = cur.u32("flags");
    const auto dtype = dtype_from_tag(tag);
    if (!dtype) {
      if (tag == kOinfTagString || tag == kOinfTagNdarray)
        fail(cur.label(), "dtype " + tag_text(tag) + " (tag " + std::to_string(tag) +
                              ") is only allowed in metadata");
      fail(cur.label(), "unknown dtype tag " + std::to_string(tag));
    }
    e.dtype = *dtype;
    if ((flags & ~kTensorHasData) != 0)
      fail(cur.label(), "flags " + std::to_string(flags) +
                            " has unknown bits (only bit 0, HAS_DATA, is defined)");
    // Bounded before allocating: ndim * 8 bytes must lie in the table.
    if (uint64_t{ndim} * 8 > table.end - table.begin)
      fail(cur.label(), "ndim " + std::to_string(ndim) + " runs past the end of the tensor table " +
                            range_text(table.begin, table.end));
    e.dims.reserve(ndim);
    for (uint32_t d = 0; d < ndim; ++d) e.dims.push_back(cur.u64("dims"));
    e.data_nbytes = cur.u64("data_nbytes");
    e.data_offset = cur.u64("data_offset");
    e.has_data = (flags & kTensorHasData) != 0;

    const auto numel = checked_numel(e.dims);
    if (!numel) fail(cur.label(), "dims " + dims_text(e.dims) + " overflow 64 bits");
    const auto expected = storage_bytes(e.dtype, *numel);
    if (!expected)
      fail(cur.label(), "dtype " + tag_text(tag) + " and dims " + dims_text(e.dims) +
                            " need more than 2^64 bytes");
    if (!e.has_data) {
      if (e.data_nbytes != 0 || e.data_offset != 0)
        fail(cur.label(), "a declaration without data (HAS_DATA = 0) has data_nbytes " +
                              std::to_string(e.data_nbytes) + " and data_offset " +
                              std::to_string(e.data_offset) + " (both must be 0)");
    } else {
      if (e.data_nbytes != *expected)
        fail(cur.label(), "data_nbytes " + std::to_string(e.data_nbytes) +
                              " does not match dtype " + tag_text(tag) + " and dims " +
                              dims_text(e.dims) + " (" + std::to_string(*expected) + " bytes)");
      check_payload(cur.label(), e.data_offset, e.data_nbytes);
    }
    impl.tensors.push_back(std::move(e));
  }
  std::vector<std::string_view> names;
  for (const auto& t : impl.tensors) names.push_back(t.name);
  impl.tensor_order = unique_order(names, "tensor");
}

void Parser::check_payload(const std::string& label, uint64_t offset, uint64_t nbytes) {
  if (offset % 8 != 0)
    fail(label, "payload offset " + std::to_string(offset) + " is not a multiple of 8");
  const auto end = checked_add(offset, nbytes);
  if (!end)
    fail(label, "payload at offset " + std::to_string(offset) + " with " + std::to_string(nbytes) +
                    " bytes overflows 64 bits");
  if (offset < off_data_ || *end > bytes_.size())
    fail(label, "payload " + range_text(offset, *end) + " is outside the data section " +
                    range_text(off_data_, bytes_.size()));
  if (nbytes > 0) payloads_.push_back({offset, *end, label});
}

MetaLayout Parser::parse_meta_payload(const std::string& label, uint32_t type, uint64_t offset,
                                      uint64_t nbytes) const {
  MetaLayout m;
  const auto short_payload = [&](uint64_t header) {
    if (nbytes < header)
      fail(label, tag_text(type) + " payload of " + std::to_string(nbytes) +
                      " bytes is shorter than its " + std::to_string(header) + "-byte header");
  };
  const auto padded_size_must_be = [&](const std::string& what, std::optional<uint64_t> unpadded) {
    const auto padded = unpadded ? checked_round_up8(*unpadded) : std::nullopt;
    if (!padded || *padded != nbytes)
      fail(label, "value_nbytes " + std::to_string(nbytes) + " does not match the " + what +
                      (padded ? " (" + std::to_string(*padded) + " bytes with padding)"
                              : " (more than 2^64 bytes)"));
  };

  if (type == kOinfTagString) {
    m.kind = MetaValue::Kind::String;
    short_payload(4);
    const uint32_t length = load_u32le(at(offset));
    if (length == 0) fail(label, "string value is empty");
    padded_size_must_be("string length " + std::to_string(length), 4 + uint64_t{length});
    m.data_offset = offset + 4;
    m.data_nbytes = length;
    std::string_view text(reinterpret_cast<const char*>(at(m.data_offset)), length);
    if (auto bad = bad_char(text)) fail(label, "string value contains " + *bad);
    return m;
  }
  if (type == kOinfTagNdarray) {
    m.kind = MetaValue::Kind::NdArray;
    short_payload(8);
    const uint32_t elem = load_u32le(at(offset));
    const uint32_t ndim = load_u32le(at(offset + 4));
    const auto dtype = dtype_from_tag(elem);
    if (!dtype || *dtype == DType::bitset)
      fail(label,
           "ndarray element type " + tag_text(elem) + " is not a numeric, bool or packed dtype");
    const uint64_t header = 8 + uint64_t{ndim} * 8;
    if (header > nbytes)
      fail(label, "ndarray ndim " + std::to_string(ndim) + " does not fit in its " +
                      std::to_string(nbytes) + "-byte payload");
    m.dtype = *dtype;
    m.dims.reserve(ndim);
    for (uint32_t d = 0; d < ndim; ++d) m.dims.push_back(load_u64le(at(offset + 8 + 8 * d)));
    const auto numel = checked_numel(m.dims);
    if (!numel) fail(label, "ndarray dims " + dims_text(m.dims) + " overflow 64 bits");
    const auto data = storage_bytes(m.dtype, *numel);
    padded_size_must_be("ndarray " + tag_text(elem) + dims_text(m.dims),
                        data ? checked_add(header, *data) : std::nullopt);
    m.data_offset = offset + header;
    m.data_nbytes = *data;
    return m;
  }
  if (type == static_cast<uint32_t>(DType::bitset)) {
    m.kind = MetaValue::Kind::Bitset;
    short_payload(8);
    const uint32_t bit_count = load_u32le(at(offset));
    const uint32_t byte_count = load_u32le(at(offset + 4));
    const uint64_t needed = (uint64_t{bit_count} + 7) / 8;
    if (byte_count != needed)
      fail(label, "bitset byte_count " + std::to_string(byte_count) + " does not match bit_count " +
                      std::to_string(bit_count) + " (" + std::to_string(needed) + " bytes)");
    padded_size_must_be("bitset of " + std::to_string(bit_count) + " bits",
                        8 + uint64_t{byte_count});
    m.bit_count = bit_count;
    m.data_offset = offset + 8;
    m.data_nbytes = byte_count;
    return m;
  }
  // A scalar: the raw value, one byte for bool and packed types.
  m.kind = MetaValue::Kind::Scalar;
  m.dtype = *dtype_from_tag(type);  // 1..25 minus 13..15, checked by the caller
  const uint64_t size = is_packed(m.dtype) ? 1 : dtype_bits(m.dtype) / 8;
  if (nbytes != size)
    fail(label, "value_nbytes " + std::to_string(nbytes) + " does not match the " +
                    std::to_string(size) + "-byte " + tag_text(type) + " scalar");
  m.data_offset = offset;
  m.data_nbytes = size;
  return m;
}

void Parser::check_overlaps() const {
  std::vector<const Payload*> sorted;
  sorted.reserve(payloads_.size());
  for (const auto& p : payloads_) sorted.push_back(&p);
  std::sort(sorted.begin(), sorted.end(), [](const Payload* a, const Payload* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  const Payload* reach = nullptr;  // the payload ending furthest so far
  for (const Payload* p : sorted) {
    if (reach != nullptr && p->begin < reach->end)
      fail(p->label, "payload " + range_text(p->begin, p->end) + " overlaps the payload " +
                         range_text(reach->begin, reach->end) + " of " + reach->label);
    if (reach == nullptr || p->end > reach->end) reach = p;
  }
}

}  // namespace

std::shared_ptr<const Model::Impl> parse_oinf(std::string origin, std::shared_ptr<const void> owner,
                                              std::span<const std::byte> bytes) {
  return Parser(std::move(origin), bytes).run(std::move(owner));
}

}  // namespace oi::oinf
