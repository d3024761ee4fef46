// Model: opening (mmap or bytes in memory), lookups, lazy tensor views, metadata decoding.
#include <algorithm>

#include "file_mapping.hpp"
#include "model_impl.hpp"
#include "openinfer/error.hpp"

namespace oi {
namespace {

// Binary search of `name` in entries sorted by `order`; nullptr when absent.
template <class Entry, class NameOf>
const Entry* find_sorted(const std::vector<Entry>& entries, const std::vector<uint32_t>& order,
                         std::string_view name, NameOf name_of) {
  auto it = std::lower_bound(order.begin(), order.end(), name, [&](uint32_t i, std::string_view n) {
    return std::string_view(name_of(entries[i])) < n;
  });
  if (it == order.end() || name_of(entries[*it]) != name) return nullptr;
  return &entries[*it];
}

// The index of `entry` when it is one of `entries`' own elements (not a caller's copy).
template <class Entry>
std::optional<size_t> own_index(const std::vector<Entry>& entries, const Entry& entry) {
  const Entry* first = entries.data();
  if (entries.empty() || std::less<const Entry*>{}(&entry, first) ||
      !std::less<const Entry*>{}(&entry, first + entries.size()))
    return std::nullopt;
  return static_cast<size_t>(&entry - first);
}

}  // namespace

Model Model::open(const std::filesystem::path& path) {
  const std::string origin = path.string();
  auto mapping = oinf::FileMapping::open(path, origin);
  const auto bytes = mapping->bytes();
  return Model(oinf::parse_oinf(origin, std::move(mapping), bytes));
}

Model Model::from_bytes(std::vector<std::byte> bytes, std::string origin) {
  auto owned = std::make_shared<const std::vector<std::byte>>(std::move(bytes));
  const std::span<const std::byte> view(*owned);
  return Model(oinf::parse_oinf(std::move(origin), std::move(owned), view));
}

const std::string& Model::origin() const {
  return impl_->origin;
}
uint64_t Model::file_size() const {
  return impl_->bytes.size();
}

std::span<const SizeVarEntry> Model::sizevars() const {
  return impl_->sizevars;
}

std::optional<uint64_t> Model::find_sizevar(std::string_view name) const {
  const auto* e = find_sorted(impl_->sizevars, impl_->sizevar_order, name,
                              [](const SizeVarEntry& s) -> const std::string& { return s.name; });
  if (e == nullptr) return std::nullopt;
  return e->value;
}

uint64_t Model::size_of(std::string_view name) const {
  if (auto v = find_sizevar(name)) return *v;
  throw input_error(impl_->origin + ": no sizevar named '" + std::string(name) + "'");
}

std::span<const MetadataEntry> Model::metadata() const {
  return impl_->metadata;
}

const MetadataEntry* Model::find_metadata(std::string_view key) const {
  return find_sorted(impl_->metadata, impl_->metadata_order, key,
                     [](const MetadataEntry& m) -> const std::string& { return m.key; });
}

MetaValue Model::metadata_value(std::string_view key) const {
  const auto* e = find_metadata(key);
  if (e == nullptr)
    throw input_error(impl_->origin + ": no metadata named '" + std::string(key) + "'");
  return metadata_value(*e);
}

MetaValue Model::metadata_value(const MetadataEntry& entry) const {
  auto index = own_index(impl_->metadata, entry);
  if (!index) {
    const auto* own = find_metadata(entry.key);
    if (own == nullptr)
      throw input_error(impl_->origin + ": no metadata named '" + entry.key + "'");
    index = static_cast<size_t>(own - impl_->metadata.data());
  }
  const MetaLayout& m = impl_->metadata_layouts[*index];
  const auto payload = impl_->bytes.subspan(m.data_offset, m.data_nbytes);
  switch (m.kind) {
    case MetaValue::Kind::String:
      return MetaValue::string(
          std::string(reinterpret_cast<const char*>(payload.data()), payload.size()));
    case MetaValue::Kind::Bitset: {
      std::vector<uint8_t> bits(payload.size());
      for (size_t i = 0; i < bits.size(); ++i) bits[i] = std::to_integer<uint8_t>(payload[i]);
      return MetaValue::bitset(m.bit_count, std::move(bits));
    }
    case MetaValue::Kind::NdArray:
      return MetaValue::ndarray(Tensor::view(m.dtype, m.dims, payload.data(), impl_->owner));
    case MetaValue::Kind::Scalar:
      break;
  }
  if (is_packed(m.dtype)) {
    // Only the low bits are the value (see reader.cpp).
    const auto mask = static_cast<uint8_t>((1u << dtype_bits(m.dtype)) - 1);
    const std::byte low{static_cast<uint8_t>(std::to_integer<uint8_t>(payload[0]) & mask)};
    return MetaValue::scalar(Tensor::from_bytes(m.dtype, Shape{}, std::span(&low, 1)));
  }
  return MetaValue::scalar(Tensor::from_bytes(m.dtype, Shape{}, payload));
}

std::span<const TensorEntry> Model::tensors() const {
  return impl_->tensors;
}

const TensorEntry* Model::find_tensor(std::string_view name) const {
  return find_sorted(impl_->tensors, impl_->tensor_order, name,
                     [](const TensorEntry& t) -> const std::string& { return t.name; });
}

Tensor Model::tensor(std::string_view name) const {
  const auto* e = find_tensor(name);
  if (e == nullptr)
    throw input_error(impl_->origin + ": no tensor named '" + std::string(name) + "'");
  return tensor(*e);
}

Tensor Model::tensor(const TensorEntry& entry) const {
  // Offsets are only trusted from this model's own validated entries.
  const TensorEntry* e = &entry;
  if (!own_index(impl_->tensors, entry)) {
    e = find_tensor(entry.name);
    if (e == nullptr) throw input_error(impl_->origin + ": no tensor named '" + entry.name + "'");
  }
  if (!e->has_data) return Tensor(e->dtype, e->dims);
  return Tensor::view(e->dtype, e->dims, impl_->bytes.data() + e->data_offset, impl_->owner);
}

bool Model::holds(const std::byte* data, uint64_t bytes) const {
  const auto begin = reinterpret_cast<uintptr_t>(impl_->bytes.data());
  const auto p = reinterpret_cast<uintptr_t>(data);
  return p >= begin && bytes <= impl_->bytes.size() && p - begin <= impl_->bytes.size() - bytes;
}

}  // namespace oi
