// C++ compute types of the dtypes the CPU kernels handle, and unaligned element access.
// Tensors may sit at any byte offset (a view into a mapped model file), so every scalar access
// goes through memcpy; bool is stored as one byte and read as "non-zero".
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "openinfer/plugin_abi.h"

namespace oi::cpu {

template <class T>
struct dtype_tag;
template <>
struct dtype_tag<float> {
  static constexpr uint32_t value = OI_DTYPE_F32;
};
template <>
struct dtype_tag<double> {
  static constexpr uint32_t value = OI_DTYPE_F64;
};
template <>
struct dtype_tag<int8_t> {
  static constexpr uint32_t value = OI_DTYPE_I8;
};
template <>
struct dtype_tag<int16_t> {
  static constexpr uint32_t value = OI_DTYPE_I16;
};
template <>
struct dtype_tag<int32_t> {
  static constexpr uint32_t value = OI_DTYPE_I32;
};
template <>
struct dtype_tag<int64_t> {
  static constexpr uint32_t value = OI_DTYPE_I64;
};
template <>
struct dtype_tag<uint8_t> {
  static constexpr uint32_t value = OI_DTYPE_U8;
};
template <>
struct dtype_tag<uint16_t> {
  static constexpr uint32_t value = OI_DTYPE_U16;
};
template <>
struct dtype_tag<uint32_t> {
  static constexpr uint32_t value = OI_DTYPE_U32;
};
template <>
struct dtype_tag<uint64_t> {
  static constexpr uint32_t value = OI_DTYPE_U64;
};
template <>
struct dtype_tag<bool> {
  static constexpr uint32_t value = OI_DTYPE_BOOL;
};
template <class T>
inline constexpr uint32_t dtype_tag_v = dtype_tag<T>::value;

template <class T>
inline constexpr bool is_wrapping_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <class T>
inline T load(const std::byte* base, uint64_t index) {
  if constexpr (std::is_same_v<T, bool>) {
    return std::to_integer<uint8_t>(base[index]) != 0;
  } else {
    T value;
    std::memcpy(&value, base + index * sizeof(T), sizeof(T));
    return value;
  }
}

template <class T>
inline void store(std::byte* base, uint64_t index, T value) {
  if constexpr (std::is_same_v<T, bool>) {
    base[index] = std::byte{static_cast<uint8_t>(value ? 1 : 0)};
  } else {
    std::memcpy(base + index * sizeof(T), &value, sizeof(T));
  }
}

template <class T>
inline bool is_aligned(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % alignof(T) == 0;
}

// Two's-complement wrapping arithmetic at T's width (no signed overflow, no int promotion UB).
template <class T>
inline T wrap_add(T a, T b) {
  return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
template <class T>
inline T wrap_sub(T a, T b) {
  return static_cast<T>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
template <class T>
inline T wrap_mul(T a, T b) {
  return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// The operands' data: the host passes host addresses because the CPU device is host memory.
inline const std::byte* input_data(const oi_kernel_call& call, uint32_t i) {
  return static_cast<const std::byte*>(call.inputs[i].host_data);
}
inline std::byte* output_data(const oi_kernel_call& call, uint32_t i) {
  return static_cast<std::byte*>(call.outputs[i].host_data);
}

}  // namespace oi::cpu
