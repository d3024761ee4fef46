#include "value_lists.hpp"

#include "openinfer/oinf_text.hpp"

namespace oi::oinf_text {

std::string dims_text(const Shape& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

std::string values_text(const Tensor& tensor, bool shorten) {
  const uint64_t n = tensor.numel();
  if (n == 0) return "{ }";
  constexpr uint64_t kShown = 5;
  const bool cut = shorten && n > 2 * kShown;
  std::string s = "{ ";
  for (uint64_t i = 0; i < n; ++i) {
    if (cut && i == kShown) {
      s += "..., ";
      i = n - kShown;
    }
    s += format_element(tensor.dtype(), tensor.get_raw(i));
    if (i + 1 < n) s += ", ";
  }
  return s + " }";
}

std::string bits_text(const MetaValue& bitset, bool shorten) {
  constexpr uint32_t kShown = 32;
  const uint32_t n = bitset.bit_count;
  const bool cut = shorten && n > 2 * kShown;
  std::string s = "0b";
  for (uint32_t i = 0; i < n; ++i) {
    if (cut && i == kShown) {
      s += "...";
      i = n - kShown;
    }
    s += bitset.bit(i) ? '1' : '0';
  }
  return s;
}

}  // namespace oi::oinf_text
