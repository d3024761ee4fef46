// `dump`: the complete text form of a package, each section sorted by name (byte order).
#include <algorithm>
#include <string>
#include <vector>

#include "openinfer/oinf_text.hpp"
#include "value_lists.hpp"

namespace oi {
namespace {

template <class Entry, class Key>
std::vector<const Entry*> sorted_by(std::span<const Entry> entries, Key key) {
  std::vector<const Entry*> out;
  for (const Entry& e : entries) out.push_back(&e);
  std::sort(out.begin(), out.end(),
            [&](const Entry* a, const Entry* b) { return key(*a) < key(*b); });
  return out;
}

std::string metadata_line(const std::string& key, const MetaValue& value) {
  using oinf_text::dims_text;
  std::string line = "@" + key + ": ";
  switch (value.kind) {
    case MetaValue::Kind::String:
      return line + "str = \"" + value.text + "\"";
    case MetaValue::Kind::Bitset:
      return line + "bitset[" + std::to_string(value.bit_count) +
             "] = " + oinf_text::bits_text(value, false);
    case MetaValue::Kind::NdArray:
      return line + "ndarray " + std::string(dtype_name(value.tensor.dtype())) +
             dims_text(value.tensor.shape()) + " = " + oinf_text::values_text(value.tensor, false);
    case MetaValue::Kind::Scalar:
      break;
  }
  return line + std::string(dtype_name(value.tensor.dtype())) + " = " +
         format_element(value.tensor.dtype(), value.tensor.get_raw(0));
}

}  // namespace

std::string dump_oinf_text(const Model& model) {
  std::string out = "# openinfer oinf text v1\n";
  for (const SizeVarEntry* s : sorted_by(
           model.sizevars(), [](const SizeVarEntry& e) -> const std::string& { return e.name; }))
    out += s->name + " := " + std::to_string(s->value) + "\n";
  for (const MetadataEntry* m : sorted_by(
           model.metadata(), [](const MetadataEntry& e) -> const std::string& { return e.key; }))
    out += metadata_line(m->key, model.metadata_value(*m)) + "\n";
  for (const TensorEntry* t : sorted_by(
           model.tensors(), [](const TensorEntry& e) -> const std::string& { return e.name; })) {
    out += t->name + ": " + std::string(dtype_name(t->dtype));
    if (!t->dims.empty()) out += oinf_text::dims_text(t->dims);
    if (t->has_data) {
      const Tensor data = model.tensor(*t);
      if (t->dims.empty())
        out += " = " + format_element(t->dtype, data.get_raw(0));
      else
        out += " = " + oinf_text::values_text(data, false);
    }
    out += "\n";
  }
  return out;
}

}  // namespace oi
