// `inspect`: sizevars, metadata and tensors for a human; long value lists are shortened and
// each tensor with data gets a statistics line.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "openinfer/oinf_text.hpp"
#include "value_lists.hpp"

namespace oi {
namespace {

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.7g", v);
  return buf;
}

// True when element i sorts below element j (NaNs are skipped before this is asked).
bool less_than(const Tensor& t, uint64_t i, uint64_t j) {
  switch (dtype_class(t.dtype())) {
    case DTypeClass::Float:
      return t.get_float(i) < t.get_float(j);
    case DTypeClass::Unsigned:
      return t.get_raw(i) < t.get_raw(j);
    default:
      return t.get_int(i) < t.get_int(j);
  }
}

bool has_stats(DType dtype) {
  const DTypeClass c = dtype_class(dtype);
  return c == DTypeClass::Float || c == DTypeClass::Signed || c == DTypeClass::Unsigned ||
         c == DTypeClass::Ternary;
}

// "- [nbytes: N, min: .., max: .., mean: .., std: ..]" (population std; NaNs left out and
// counted).
std::string stats_line(const Tensor& t) {
  std::string line = "- [nbytes: " + std::to_string(t.nbytes());
  if (!has_stats(t.dtype())) return line + "]";
  const bool is_fp = is_float(t.dtype());
  uint64_t nans = 0, min_i = 0, max_i = 0, n = 0;
  long double sum = 0;
  for (uint64_t i = 0; i < t.numel(); ++i) {
    const double v = t.get_float(i);
    if (is_fp && std::isnan(v)) {
      ++nans;
      continue;
    }
    if (n == 0 || less_than(t, i, min_i)) min_i = i;
    if (n == 0 || less_than(t, max_i, i)) max_i = i;
    sum += v;
    ++n;
  }
  if (n > 0) {
    const long double mean = sum / n;
    long double squares = 0;
    for (uint64_t i = 0; i < t.numel(); ++i) {
      const double v = t.get_float(i);
      if (is_fp && std::isnan(v)) continue;
      squares += (v - mean) * (v - mean);
    }
    line += ", min: " + format_element(t.dtype(), t.get_raw(min_i)) +
            ", max: " + format_element(t.dtype(), t.get_raw(max_i)) +
            ", mean: " + number_text(static_cast<double>(mean)) +
            ", std: " + number_text(static_cast<double>(std::sqrt(squares / n)));
  }
  if (nans > 0) line += ", nans: " + std::to_string(nans);
  return line + "]";
}

class InspectView {
 public:
  explicit InspectView(const Model& model) : model_(model) {
    std::map<uint64_t, int> uses;
    for (const SizeVarEntry& s : model.sizevars()) ++uses[s.value];
    for (const SizeVarEntry& s : model.sizevars())
      if (uses[s.value] == 1) name_of_size_[s.value] = s.name;
  }

  std::string render() const {
    std::string out;
    auto sizevars = std::vector<SizeVarEntry>(model_.sizevars().begin(), model_.sizevars().end());
    std::sort(sizevars.begin(), sizevars.end(), [](auto& a, auto& b) { return a.name < b.name; });
    for (const SizeVarEntry& s : sizevars) out += s.name + " := " + std::to_string(s.value) + "\n";

    std::vector<std::string> keys;
    for (const MetadataEntry& m : model_.metadata()) keys.push_back(m.key);
    std::sort(keys.begin(), keys.end());
    for (const std::string& key : keys) out += metadata_line(key, model_.metadata_value(key));

    std::vector<std::string> names;
    for (const TensorEntry& t : model_.tensors()) names.push_back(t.name);
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) out += tensor_lines(*model_.find_tensor(name));
    return out;
  }

 private:
  // Dims with a sizevar's name where exactly one sizevar has that value.
  std::string dims_with_names(const Shape& dims) const {
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) {
      auto it = name_of_size_.find(dims[i]);
      s += (i ? ", " : "") + (it != name_of_size_.end() ? it->second : std::to_string(dims[i]));
    }
    return s + "]";
  }

  std::string metadata_line(const std::string& key, const MetaValue& v) const {
    std::string line = key + ": ";
    switch (v.kind) {
      case MetaValue::Kind::String:
        return line + "str = \"" + v.text + "\"\n";
      case MetaValue::Kind::Bitset:
        return line + "bitset[" + std::to_string(v.bit_count) +
               "] = " + oinf_text::bits_text(v, true) + "\n";
      case MetaValue::Kind::NdArray:
        return line + "ndarray " + std::string(dtype_name(v.tensor.dtype())) +
               dims_with_names(v.tensor.shape()) + " = " + oinf_text::values_text(v.tensor, true) +
               "\n";
      case MetaValue::Kind::Scalar:
        break;
    }
    return line + std::string(dtype_name(v.tensor.dtype())) + " = " +
           format_element(v.tensor.dtype(), v.tensor.get_raw(0)) + "\n";
  }

  std::string tensor_lines(const TensorEntry& t) const {
    std::string line = t.name + ": " + std::string(dtype_name(t.dtype));
    if (!t.dims.empty()) line += dims_with_names(t.dims);
    if (!t.has_data) return line + " -- uninitialized\n";
    const Tensor data = model_.tensor(t);
    if (t.dims.empty()) return line + " = " + format_element(t.dtype, data.get_raw(0)) + "\n";
    return line + " = " + oinf_text::values_text(data, true) + "\n" + stats_line(data) + "\n";
  }

  const Model& model_;
  std::map<uint64_t, std::string> name_of_size_;
};

}  // namespace

std::string inspect_oinf(const Model& model) {
  return InspectView(model).render();
}

}  // namespace oi
