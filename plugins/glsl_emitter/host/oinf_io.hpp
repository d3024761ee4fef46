// A small reader and canonical writer of OINF packages (docs/oinf.md, version 1) for the
// generated host program, which depends on no OpenInfer library. The reader checks every
// offset and size against the file before using it; problems are std::runtime_error naming
// the file and the entry.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace oinf_io {

struct Tensor {
  std::string name;
  uint32_t dtype = 0;  // OINF tag
  std::vector<uint64_t> dims;
  bool has_data = false;
  std::vector<uint8_t> data;
};

struct Package {
  std::map<std::string, uint64_t> sizevars;
  std::map<std::string, Tensor> tensors;
};

// Bits per element of a tensor dtype tag, 0 when unknown.
inline uint32_t dtype_bits(uint32_t tag) {
  switch (tag) {
    case 1:
    case 5:
    case 12:
    case 13:
    case 17:
      return 8;
    case 2:
    case 6:
    case 9:
    case 16:
      return 16;
    case 3:
    case 7:
    case 10:
      return 32;
    case 4:
    case 8:
    case 11:
      return 64;
    case 18:
    case 21:
      return 4;
    case 19:
    case 22:
    case 24:
      return 2;
    case 20:
    case 23:
    case 25:
      return 1;
    default:
      return 0;
  }
}

inline uint32_t dtype_tag(const std::string& name) {
  static const std::map<std::string, uint32_t> tags = {
      {"i8", 1},      {"i16", 2},   {"i32", 3}, {"i64", 4},  {"u8", 5},   {"u16", 6},
      {"u32", 7},     {"u64", 8},   {"f16", 9}, {"f32", 10}, {"f64", 11}, {"bool", 12},
      {"bitset", 13}, {"bf16", 16}, {"f8", 17}, {"i4", 18},  {"i2", 19},  {"i1", 20},
      {"u4", 21},     {"u2", 22},   {"u1", 23}, {"t2", 24},  {"t1", 25}};
  auto it = tags.find(name);
  return it == tags.end() ? 0 : it->second;
}

class Reader {
 public:
  Reader(std::vector<uint8_t> bytes, std::string path)
      : b_(std::move(bytes)), path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(path_ + ": " + what);
  }
  uint64_t size() const { return b_.size(); }
  void need(uint64_t at, uint64_t n, const std::string& what) const {
    if (at > b_.size() || n > b_.size() - at) fail(what + " runs past the end of the file");
  }
  uint32_t u32(uint64_t& at, const std::string& what) const {
    need(at, 4, what);
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | b_[at + static_cast<uint64_t>(i)];
    at += 4;
    return v;
  }
  uint64_t u64(uint64_t& at, const std::string& what) const {
    need(at, 8, what);
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | b_[at + static_cast<uint64_t>(i)];
    at += 8;
    return v;
  }
  std::string str(uint64_t& at, const std::string& what) const {
    const uint32_t n = u32(at, what);
    if (n == 0) fail(what + ": empty name");
    need(at, n, what);
    std::string s(reinterpret_cast<const char*>(b_.data() + at), n);
    for (char c : s)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
        fail(what + ": a character outside [A-Za-z0-9._-]");
    at += (4 + uint64_t{n} + 7) / 8 * 8 - 4;
    return s;
  }
  const uint8_t* at(uint64_t offset) const { return b_.data() + offset; }

 private:
  std::vector<uint8_t> b_;
  std::string path_;
};

// A package from its bytes; `what` names them in errors (the file, or "embedded weights").
inline Package decode(std::vector<uint8_t> bytes, const std::string& what_bytes) {
  Reader r(std::move(bytes), what_bytes);
  if (r.size() < 72 || std::memcmp(r.at(0), "OINF\0", 5) != 0)
    r.fail("not an OINF file (bad magic)");
  uint64_t p = 5;
  if (r.u32(p, "header") != 1) r.fail("unsupported OINF version");
  r.u32(p, "header");
  const uint32_t n_sizevars = r.u32(p, "header"), n_metadata = r.u32(p, "header"),
                 n_tensors = r.u32(p, "header");
  r.u32(p, "header");
  uint64_t off_sizevars = r.u64(p, "header"), off_metadata = r.u64(p, "header"),
           off_tensors = r.u64(p, "header"), off_data = r.u64(p, "header");
  if (r.u64(p, "header") != r.size()) r.fail("file_size does not match the file's length");
  if (!(off_sizevars <= off_metadata && off_metadata <= off_tensors && off_tensors <= off_data &&
        off_data <= r.size()) ||
      (off_sizevars | off_metadata | off_tensors | off_data) % 8 != 0)
    r.fail("table offsets are out of order, unaligned or past the end");
  Package pkg;
  p = off_sizevars;
  for (uint32_t i = 0; i < n_sizevars; ++i) {
    std::string name = r.str(p, "size variable #" + std::to_string(i));
    pkg.sizevars[name] = r.u64(p, "size variable '" + name + "'");
  }
  p = off_metadata;
  for (uint32_t i = 0; i < n_metadata; ++i) {  // skipped: the host program needs none
    std::string name = r.str(p, "metadata #" + std::to_string(i));
    p += 24;
    r.need(p, 0, "metadata '" + name + "'");
  }
  p = off_tensors;
  for (uint32_t i = 0; i < n_tensors; ++i) {
    Tensor t;
    t.name = r.str(p, "tensor #" + std::to_string(i));
    const std::string what = "tensor '" + t.name + "'";
    t.dtype = r.u32(p, what);
    const uint32_t ndim = r.u32(p, what), flags = r.u32(p, what);
    if (dtype_bits(t.dtype) == 0) r.fail(what + ": unknown dtype tag " + std::to_string(t.dtype));
    r.need(p, uint64_t{ndim} * 8, what);
    uint64_t numel = 1;
    for (uint32_t d = 0; d < ndim; ++d) {
      t.dims.push_back(r.u64(p, what));
      if (t.dims.back() != 0 && numel > (uint64_t{1} << 62) / t.dims.back())
        r.fail(what + ": the dims product overflows");
      numel *= t.dims.back();
    }
    const uint64_t nbytes = r.u64(p, what), offset = r.u64(p, what);
    t.has_data = (flags & 1u) != 0;
    if (t.has_data) {
      if (nbytes != (numel * dtype_bits(t.dtype) + 7) / 8)
        r.fail(what + ": data_nbytes does not match its dtype and dims");
      if (offset < off_data || offset % 8 != 0) r.fail(what + ": payload outside the data section");
      r.need(offset, nbytes, what + " payload");
      t.data.assign(r.at(offset), r.at(offset) + nbytes);
    }
    if (!pkg.tensors.emplace(t.name, t).second) r.fail(what + " appears twice");
  }
  return pkg;
}

inline Package read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  return decode(std::move(bytes), path);
}

// A canonical package of size variables and tensors (both sorted by name, every payload
// padded to 8), no metadata.
inline std::vector<uint8_t> encode(std::vector<Tensor> tensors,
                                   const std::map<std::string, uint64_t>& sizevars = {}) {
  std::sort(tensors.begin(), tensors.end(),
            [](const Tensor& a, const Tensor& b) { return a.name < b.name; });
  std::vector<uint8_t> out(72, 0);
  auto put32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  auto put64 = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  auto pad8 = [&] { out.resize((out.size() + 7) / 8 * 8, 0); };
  auto put_name = [&](const std::string& name) {
    put32(static_cast<uint32_t>(name.size()));
    out.insert(out.end(), name.begin(), name.end());
    out.resize(out.size() + (8 - (4 + name.size()) % 8) % 8, 0);  // string padding
  };
  for (const auto& [name, value] : sizevars) {
    put_name(name);
    put64(value);
  }
  const uint64_t tensors_start = out.size();
  std::vector<size_t> offset_slots;
  for (const Tensor& t : tensors) {
    put_name(t.name);
    put32(t.dtype);
    put32(static_cast<uint32_t>(t.dims.size()));
    put32(1);
    for (uint64_t d : t.dims) put64(d);
    put64(t.data.size());
    offset_slots.push_back(out.size());
    put64(0);
  }
  pad8();
  const uint64_t data_start = out.size();
  for (size_t i = 0; i < tensors.size(); ++i) {
    const uint64_t at = out.size();
    for (int b = 0; b < 8; ++b) out[offset_slots[i] + b] = static_cast<uint8_t>(at >> (8 * b));
    out.insert(out.end(), tensors[i].data.begin(), tensors[i].data.end());
    pad8();
  }
  std::vector<uint8_t> head = {'O', 'I', 'N', 'F', 0};
  head.reserve(72);
  auto h32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) head.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  auto h64 = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i) head.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  h32(1);
  h32(0);
  h32(static_cast<uint32_t>(sizevars.size()));
  h32(0);
  h32(static_cast<uint32_t>(tensors.size()));
  h32(0);
  h64(72);
  h64(tensors_start);
  h64(tensors_start);
  h64(data_start);
  h64(out.size());
  std::copy(head.begin(), head.end(), out.begin());
  return out;
}

// A canonical file holding only tensors, written whole or not at all.
inline void write(const std::string& path, std::vector<Tensor> tensors) {
  const std::vector<uint8_t> out = encode(std::move(tensors));
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(out.data()), static_cast<std::streamsize>(out.size()));
    if (!f) throw std::runtime_error(path + ": cannot write");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw std::runtime_error(path + ": cannot write");
}

}  // namespace oinf_io
