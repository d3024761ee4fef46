// Tensor storage: construction, views, copies and moves. Element access lives in
// tensor_elements.cpp.
#include <cstdint>
#include <cstring>
#include <string>

#include "openinfer/tensor.hpp"

namespace oi {
namespace {

// What a moved-from tensor views: a rank-0 f32 zero that needs no allocation.
alignas(8) constexpr std::byte kStaticZero[8]{};

struct Sizes {
  uint64_t numel;
  uint64_t nbytes;
};

Sizes checked_sizes(DType dtype, const Shape& shape) {
  if (!dtype_from_tag(static_cast<uint32_t>(dtype)))
    throw input_error("unknown dtype tag " + std::to_string(static_cast<uint32_t>(dtype)));
  const auto numel = checked_numel(shape);
  if (!numel) throw input_error("shape " + shape_to_string(shape) + " has more than 2^64 elements");
  const auto nbytes = storage_bytes(dtype, *numel);
  if (!nbytes || *nbytes > SIZE_MAX)
    throw input_error(std::string(dtype_name(dtype)) + " tensor of shape " +
                      shape_to_string(shape) + " is too large to store");
  return {*numel, *nbytes};
}

// Alignment that as<T>() needs for the dtype's element type (1 for packed types).
uintptr_t element_alignment(DType dtype) {
  const uint32_t bits = dtype_bits(dtype);
  return bits <= 8 ? 1 : bits / 8;
}

// bool storage must hold 0 or 1: any other byte read as a C++ bool is undefined behaviour.
void check_bool_bytes(DType dtype, const std::byte* data, uint64_t nbytes) {
  if (dtype != DType::boolean) return;
  for (uint64_t i = 0; i < nbytes; ++i)
    if (static_cast<unsigned>(data[i]) > 1)
      throw input_error("bool element " + std::to_string(i) + " holds " +
                        std::to_string(static_cast<unsigned>(data[i])) + "; bool is 0 or 1");
}

}  // namespace

std::string shape_to_string(std::span<const uint64_t> shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

Tensor::Tensor() : storage_(4), data_(storage_.data()) {}

Tensor::Tensor(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  const Sizes sizes = checked_sizes(dtype_, shape_);
  numel_ = sizes.numel;
  nbytes_ = sizes.nbytes;
  storage_.assign(static_cast<size_t>(nbytes_), std::byte{0});
  data_ = storage_.data();
}

Tensor Tensor::view(DType dtype, Shape shape, const std::byte* data,
                    std::shared_ptr<const void> owner) {
  const Sizes sizes = checked_sizes(dtype, shape);
  if (data == nullptr && sizes.nbytes != 0)
    throw input_error("Tensor::view: null data for " + std::to_string(sizes.nbytes) + " bytes");
  check_bool_bytes(dtype, data, sizes.nbytes);
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.numel_ = sizes.numel;
  t.nbytes_ = sizes.nbytes;
  t.storage_.clear();
  t.storage_.shrink_to_fit();
  t.owner_ = std::move(owner);
  t.data_ = data;
  t.is_view_ = true;
  if (reinterpret_cast<uintptr_t>(data) % element_alignment(dtype) != 0) t.make_owned();
  return t;
}

Tensor Tensor::from_bytes(DType dtype, Shape shape, std::span<const std::byte> bytes) {
  Tensor t(dtype, std::move(shape));
  if (bytes.size() != t.nbytes_)
    throw input_error("Tensor::from_bytes: " + std::string(dtype_name(dtype)) +
                      " tensor of shape " + shape_to_string(t.shape_) + " needs " +
                      std::to_string(t.nbytes_) + " bytes, got " + std::to_string(bytes.size()));
  check_bool_bytes(dtype, bytes.data(), bytes.size());
  if (!bytes.empty()) std::memcpy(t.storage_.data(), bytes.data(), bytes.size());
  return t;
}

Tensor::Tensor(const Tensor& other)
    : dtype_(other.dtype_),
      shape_(other.shape_),
      numel_(other.numel_),
      nbytes_(other.nbytes_),
      storage_(other.is_view_ ? std::vector<std::byte>{} : other.storage_),
      owner_(other.owner_),
      data_(other.is_view_ ? other.data_ : storage_.data()),
      is_view_(other.is_view_) {}

Tensor& Tensor::operator=(const Tensor& other) {
  if (this != &other) *this = Tensor(other);
  return *this;
}

Tensor::Tensor(Tensor&& other) noexcept
    : dtype_(other.dtype_),
      shape_(std::move(other.shape_)),
      numel_(other.numel_),
      nbytes_(other.nbytes_),
      storage_(std::move(other.storage_)),
      owner_(std::move(other.owner_)),
      data_(other.is_view_ ? other.data_ : storage_.data()),
      is_view_(other.is_view_) {
  other.reset_to_empty();
}

Tensor& Tensor::operator=(Tensor&& other) noexcept {
  if (this == &other) return *this;
  dtype_ = other.dtype_;
  shape_ = std::move(other.shape_);
  numel_ = other.numel_;
  nbytes_ = other.nbytes_;
  storage_ = std::move(other.storage_);
  owner_ = std::move(other.owner_);
  data_ = other.is_view_ ? other.data_ : storage_.data();
  is_view_ = other.is_view_;
  other.reset_to_empty();
  return *this;
}

void Tensor::reset_to_empty() noexcept {
  dtype_ = DType::f32;
  shape_.clear();
  numel_ = 1;
  nbytes_ = 4;
  storage_.clear();
  owner_.reset();
  data_ = kStaticZero;
  is_view_ = true;
}

std::span<std::byte> Tensor::mutable_bytes() {
  make_owned();
  return {storage_.data(), static_cast<size_t>(nbytes_)};
}

void Tensor::make_owned() {
  if (!is_view_) return;
  std::vector<std::byte> copy(data_, data_ + nbytes_);
  storage_ = std::move(copy);
  data_ = storage_.data();
  owner_.reset();
  is_view_ = false;
}

void Tensor::check_type(DType wanted) const {
  if (wanted != dtype_)
    throw input_error("tensor of dtype " + std::string(dtype_name(dtype_)) + " accessed as " +
                      std::string(dtype_name(wanted)));
}

bool Tensor::bit_equal(const Tensor& other) const {
  if (dtype_ != other.dtype_ || shape_ != other.shape_) return false;
  if (nbytes_ == 0) return true;
  const uint64_t used_bits = (numel_ * dtype_bits(dtype_)) % 8;
  const size_t full = static_cast<size_t>(used_bits == 0 ? nbytes_ : nbytes_ - 1);
  if (full != 0 && std::memcmp(data_, other.data_, full) != 0) return false;
  if (used_bits == 0) return true;
  const auto mask = static_cast<unsigned>((1u << used_bits) - 1);
  return (static_cast<unsigned>(data_[full]) & mask) ==
         (static_cast<unsigned>(other.data_[full]) & mask);
}

}  // namespace oi
