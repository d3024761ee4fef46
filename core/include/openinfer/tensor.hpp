// A dense, row-major tensor of any OINF dtype. Storage is either owned or a read-only
// view into memory someone else keeps alive (a memory-mapped model file). Packed types
// (i1/i2/i4/u1/u2/u4/t1/t2) stay packed; use get/set for single elements.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "openinfer/dtype.hpp"
#include "openinfer/error.hpp"
#include "openinfer/float_formats.hpp"

namespace oi {

using Shape = std::vector<uint64_t>;

std::string shape_to_string(std::span<const uint64_t> shape);  // "[2, 3]", "[]" for a scalar

// The C++ element type that stores a non-packed dtype.
template <class T> struct dtype_of;
template <> struct dtype_of<float> { static constexpr DType value = DType::f32; };
template <> struct dtype_of<double> { static constexpr DType value = DType::f64; };
template <> struct dtype_of<int8_t> { static constexpr DType value = DType::i8; };
template <> struct dtype_of<int16_t> { static constexpr DType value = DType::i16; };
template <> struct dtype_of<int32_t> { static constexpr DType value = DType::i32; };
template <> struct dtype_of<int64_t> { static constexpr DType value = DType::i64; };
template <> struct dtype_of<uint8_t> { static constexpr DType value = DType::u8; };
template <> struct dtype_of<uint16_t> { static constexpr DType value = DType::u16; };
template <> struct dtype_of<uint32_t> { static constexpr DType value = DType::u32; };
template <> struct dtype_of<uint64_t> { static constexpr DType value = DType::u64; };
template <> struct dtype_of<bool> { static constexpr DType value = DType::boolean; };
template <> struct dtype_of<f16> { static constexpr DType value = DType::f16; };
template <> struct dtype_of<bf16> { static constexpr DType value = DType::bf16; };
template <> struct dtype_of<f8> { static constexpr DType value = DType::f8; };
template <class T> inline constexpr DType dtype_of_v = dtype_of<T>::value;

class Tensor {
 public:
  // A rank-0 f32 zero.
  Tensor();
  // Owned, zero-filled storage.
  Tensor(DType dtype, Shape shape);

  // A read-only view of `data` (exactly storage_bytes(dtype, numel) bytes), kept alive by
  // `owner`. Writing through a view first copies it into owned storage.
  static Tensor view(DType dtype, Shape shape, const std::byte* data,
                     std::shared_ptr<const void> owner);
  // Owned copy of raw little-endian bytes; throws if the size does not match.
  static Tensor from_bytes(DType dtype, Shape shape, std::span<const std::byte> bytes);

  template <class T>
  static Tensor from(const std::vector<T>& values, Shape shape) {
    Tensor t(dtype_of_v<T>, std::move(shape));
    if (values.size() != t.numel())
      throw input_error("Tensor::from: " + std::to_string(values.size()) +
                        " values for shape " + shape_to_string(t.shape()));
    std::copy(values.begin(), values.end(), t.as_mut<T>().begin());
    return t;
  }
  template <class T>
  static Tensor from(const std::vector<T>& values) {
    return from(values, Shape{values.size()});
  }
  template <class T>
  static Tensor scalar(T value) {
    Tensor t(dtype_of_v<T>, Shape{});
    t.as_mut<T>()[0] = value;
    return t;
  }

  Tensor(const Tensor& other);  // views stay views; owned storage is copied
  Tensor& operator=(const Tensor& other);
  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(Tensor&&) noexcept = default;
  ~Tensor() = default;

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  size_t rank() const { return shape_.size(); }
  uint64_t numel() const { return numel_; }
  uint64_t nbytes() const { return nbytes_; }
  bool is_view() const { return owner_ != nullptr; }

  std::span<const std::byte> bytes() const { return {data_, static_cast<size_t>(nbytes_)}; }
  std::span<std::byte> mutable_bytes();  // copies a view into owned storage first

  template <class T>
  std::span<const T> as() const {
    check_type(dtype_of_v<T>);
    return {reinterpret_cast<const T*>(data_), static_cast<size_t>(numel_)};
  }
  template <class T>
  std::span<T> as_mut() {
    check_type(dtype_of_v<T>);
    auto b = mutable_bytes();
    return {reinterpret_cast<T*>(b.data()), static_cast<size_t>(numel_)};
  }

  // Element access for every dtype, packed ones included. `raw` is the element's storage
  // bits, zero-extended (an i4 of -1 is 0xF). Integer views sign-extend; t1 gives -1/+1.
  uint64_t get_raw(uint64_t index) const;
  void set_raw(uint64_t index, uint64_t raw);
  int64_t get_int(uint64_t index) const;     // integer, bool, bitset, ternary dtypes
  void set_int(uint64_t index, int64_t v);   // wraps to the width (u64 via two's complement)
  double get_float(uint64_t index) const;    // any dtype, widened exactly where possible
  void set_float(uint64_t index, double v);  // floats round to nearest even; ints truncate

  // Same dtype, shape and bytes (NaN payloads compared bitwise).
  bool bit_equal(const Tensor& other) const;

 private:
  void check_type(DType wanted) const;
  void make_owned();

  DType dtype_ = DType::f32;
  Shape shape_;
  uint64_t numel_ = 1;
  uint64_t nbytes_ = 4;
  std::vector<std::byte> storage_;      // owned storage (empty for views)
  std::shared_ptr<const void> owner_;   // keeps a view's memory alive
  const std::byte* data_ = nullptr;     // storage_.data() or the view's data
};

}  // namespace oi
