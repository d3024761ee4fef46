// MetaValue constructors and the name rule shared by the reader, the writer and the text form.
#include "openinfer/error.hpp"
#include "openinfer/model.hpp"

namespace oi {

MetaValue MetaValue::scalar(Tensor t) {
  if (t.rank() != 0)
    throw input_error("metadata scalar must have rank 0, got shape " + shape_to_string(t.shape()));
  if (t.dtype() == DType::bitset)
    throw input_error("metadata scalar cannot have dtype bitset (use MetaValue::bitset)");
  MetaValue v;
  v.kind = Kind::Scalar;
  v.tensor = std::move(t);
  return v;
}

MetaValue MetaValue::string(std::string s) {
  if (!is_valid_oinf_name(s))
    throw input_error("metadata string \"" + s +
                      "\" must use only the characters [A-Za-z0-9._-], at least one");
  MetaValue v;
  v.kind = Kind::String;
  v.text = std::move(s);
  return v;
}

MetaValue MetaValue::bitset(uint32_t bit_count, std::vector<uint8_t> bytes) {
  const uint64_t needed = (uint64_t{bit_count} + 7) / 8;
  if (bytes.size() != needed)
    throw input_error("metadata bitset of " + std::to_string(bit_count) + " bits needs " +
                      std::to_string(needed) + " bytes, got " + std::to_string(bytes.size()));
  MetaValue v;
  v.kind = Kind::Bitset;
  v.bit_count = bit_count;
  v.bits = std::move(bytes);
  return v;
}

MetaValue MetaValue::ndarray(Tensor t) {
  if (t.dtype() == DType::bitset)
    throw input_error("metadata ndarray cannot have element type bitset");
  MetaValue v;
  v.kind = Kind::NdArray;
  v.tensor = std::move(t);
  return v;
}

uint32_t MetaValue::type_tag() const {
  switch (kind) {
    case Kind::String:
      return kOinfTagString;
    case Kind::NdArray:
      return kOinfTagNdarray;
    case Kind::Bitset:
      return static_cast<uint32_t>(DType::bitset);
    case Kind::Scalar:
      break;
  }
  return static_cast<uint32_t>(tensor.dtype());
}

bool is_valid_oinf_name(std::string_view s) {
  if (s.empty()) return false;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace oi
