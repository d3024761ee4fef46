// A dense, row-major tensor of any OINF dtype. Storage is either owned or a read-only
// view into memory someone else keeps alive (a memory-mapped model file). Packed types
// (i1/i2/i4/u1/u2/u4/t1/t2) stay packed; use get/set for single elements.
#pragma once

#include <algorithm>
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
// clang-format off
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
// clang-format on

class Tensor {
 public:
  // A rank-0 f32 zero.
  Tensor();
  // Owned, zero-filled storage. Throws oi::Error when the element count or byte size
  // overflows 64 bits.
  Tensor(DType dtype, Shape shape);

  // A read-only view of `data` (exactly storage_bytes(dtype, numel) bytes), kept alive by
  // `owner` (may be null for memory that outlives the tensor). Writing through a view first
  // copies it into owned storage. Data not aligned for its element type is copied at once,
  // so as<T>() never reads misaligned memory. A bool byte other than 0/1 throws.
  static Tensor view(DType dtype, Shape shape, const std::byte* data,
                     std::shared_ptr<const void> owner);
  // Owned copy of raw little-endian bytes; throws if the size does not match or a bool byte
  // is not 0/1.
  static Tensor from_bytes(DType dtype, Shape shape, std::span<const std::byte> bytes);

  template <class T>
  static Tensor from(const std::vector<T>& values, Shape shape) {
    Tensor t(dtype_of_v<T>, std::move(shape));
    if (values.size() != t.numel())
      throw input_error("Tensor::from: " + std::to_string(values.size()) + " values for shape " +
                        shape_to_string(t.shape()));
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
  // A moved-from tensor is a rank-0 f32 zero (a view of static memory, so moving never
  // allocates).
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(Tensor&& other) noexcept;
  ~Tensor() = default;

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  size_t rank() const { return shape_.size(); }
  uint64_t numel() const { return numel_; }
  uint64_t nbytes() const { return nbytes_; }
  bool is_view() const { return is_view_; }

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

  // Element access for every dtype, packed ones included; `index` is the flat row-major
  // index and must be < numel(). `raw` is the element's storage bits, zero-extended (an i4 of
  // -1 is 0xF). Integer views sign-extend; t1 gives -1/+1. Errors throw oi::Error (Input).
  uint64_t get_raw(uint64_t index) const;
  // Throws when `raw` has bits beyond the element's width, or is not a valid bool (0/1) or
  // t2 (-2 is not a ternary value) pattern.
  void set_raw(uint64_t index, uint64_t raw);
  // Integer, bool, bitset and ternary dtypes; u64 values above INT64_MAX come back as their
  // two's complement. Throws for float dtypes and for invalid stored bool/t2 patterns.
  int64_t get_int(uint64_t index) const;
  // Integers and bitset wrap to the width (u64 via two's complement); bool takes only 0/1,
  // t1 only -1/+1 and t2 only -1/0/1, else it throws.
  void set_int(uint64_t index, int64_t v);
  double get_float(uint64_t index) const;  // any dtype, widened exactly where possible
  // Floats round to nearest even from f64 directly. Other dtypes truncate toward zero and
  // then go through set_int; NaN, inf and values outside the dtype's range throw.
  void set_float(uint64_t index, double v);

  // Same dtype, shape and element bits (NaN payloads compared bitwise; the padding bits of a
  // packed tensor's last byte are ignored).
  bool bit_equal(const Tensor& other) const;

 private:
  void check_type(DType wanted) const;
  void check_index(uint64_t index) const;
  void make_owned();
  void reset_to_empty() noexcept;

  DType dtype_ = DType::f32;
  Shape shape_;
  uint64_t numel_ = 1;
  uint64_t nbytes_ = 4;
  std::vector<std::byte> storage_;     // owned storage (empty for views)
  std::shared_ptr<const void> owner_;  // keeps a view's memory alive
  const std::byte* data_ = nullptr;    // storage_.data() or the view's data
  bool is_view_ = false;
};

}  // namespace oi
