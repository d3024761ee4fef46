#include "dtype_io.hpp"

#include <cstring>
#include <type_traits>

#include "cpu_status.hpp"
#include "openinfer/float_formats.hpp"

namespace oi::cpu {
namespace {

template <class T>
T raw(const std::byte* base, uint64_t i) {
  T v;
  std::memcpy(&v, base + i * sizeof(T), sizeof(T));
  return v;
}
template <class T>
void put(std::byte* base, uint64_t i, T v) {
  std::memcpy(base + i * sizeof(T), &v, sizeof(T));
}

// Full-width integers (and bitset as u8).
template <class T>
struct Int {
  static int64_t ld_i(const std::byte* b, uint64_t i) { return static_cast<int64_t>(raw<T>(b, i)); }
  static void st_i(std::byte* b, uint64_t i, int64_t v) { put<T>(b, i, static_cast<T>(v)); }
  static float ld_f32(const std::byte* b, uint64_t i) { return static_cast<float>(raw<T>(b, i)); }
  static double ld_f64(const std::byte* b, uint64_t i) { return static_cast<double>(raw<T>(b, i)); }
  static void st_f32(std::byte* b, uint64_t i, float v) { st_i(b, i, static_cast<int64_t>(v)); }
  static void st_f64(std::byte* b, uint64_t i, double v) { st_i(b, i, static_cast<int64_t>(v)); }
  static uint64_t ld_bits(const std::byte* b, uint64_t i) {
    using U = std::make_unsigned_t<T>;
    return static_cast<U>(raw<T>(b, i));
  }
  static void st_bits(std::byte* b, uint64_t i, uint64_t v) { st_i(b, i, static_cast<int64_t>(v)); }
};

struct Bool {
  static int64_t ld_i(const std::byte* b, uint64_t i) { return b[i] != std::byte{0}; }
  static void st_i(std::byte* b, uint64_t i, int64_t v) { b[i] = std::byte{v != 0}; }
  static float ld_f32(const std::byte* b, uint64_t i) { return static_cast<float>(ld_i(b, i)); }
  static double ld_f64(const std::byte* b, uint64_t i) { return static_cast<double>(ld_i(b, i)); }
  static void st_f32(std::byte* b, uint64_t i, float v) { st_i(b, i, v != 0.0f); }
  static void st_f64(std::byte* b, uint64_t i, double v) { st_i(b, i, v != 0.0); }
  static uint64_t ld_bits(const std::byte* b, uint64_t i) { return std::to_integer<uint8_t>(b[i]); }
  static void st_bits(std::byte* b, uint64_t i, uint64_t v) { b[i] = std::byte(v); }
};

// Packed integers: element i lives in byte i / (8 / Bits), at bit (i % (8 / Bits)) * Bits.
template <unsigned Bits, bool Signed>
struct Packed {
  static constexpr unsigned per_byte = 8 / Bits;
  static constexpr uint8_t mask = (1u << Bits) - 1;
  static uint64_t ld_bits(const std::byte* b, uint64_t i) {
    return (std::to_integer<uint8_t>(b[i / per_byte]) >> ((i % per_byte) * Bits)) & mask;
  }
  static void st_bits(std::byte* b, uint64_t i, uint64_t v) {
    const unsigned shift = (i % per_byte) * Bits;
    uint8_t byte = std::to_integer<uint8_t>(b[i / per_byte]);
    byte = static_cast<uint8_t>((byte & ~(mask << shift)) | ((v & mask) << shift));
    b[i / per_byte] = std::byte{byte};
  }
  static int64_t ld_i(const std::byte* b, uint64_t i) {
    int64_t v = static_cast<int64_t>(ld_bits(b, i));
    if (Signed && (v >> (Bits - 1)) != 0) v -= int64_t{1} << Bits;
    return v;
  }
  static void st_i(std::byte* b, uint64_t i, int64_t v) { st_bits(b, i, static_cast<uint64_t>(v)); }
  static float ld_f32(const std::byte* b, uint64_t i) { return static_cast<float>(ld_i(b, i)); }
  static double ld_f64(const std::byte* b, uint64_t i) { return static_cast<double>(ld_i(b, i)); }
  static void st_f32(std::byte* b, uint64_t i, float v) { st_i(b, i, static_cast<int64_t>(v)); }
  static void st_f64(std::byte* b, uint64_t i, double v) { st_i(b, i, static_cast<int64_t>(v)); }
};

// Narrow floats: Bits is the storage type, From/To the bit conversions of float_formats.hpp.
template <class Bits, float (*Widen)(Bits), Bits (*From32)(float), Bits (*From64)(double)>
struct Narrow {
  static float ld_f32(const std::byte* b, uint64_t i) { return Widen(raw<Bits>(b, i)); }
  static double ld_f64(const std::byte* b, uint64_t i) { return Widen(raw<Bits>(b, i)); }
  static void st_f32(std::byte* b, uint64_t i, float v) { put<Bits>(b, i, From32(v)); }
  static void st_f64(std::byte* b, uint64_t i, double v) { put<Bits>(b, i, From64(v)); }
  static int64_t ld_i(const std::byte* b, uint64_t i) { return static_cast<int64_t>(ld_f32(b, i)); }
  static void st_i(std::byte* b, uint64_t i, int64_t v) { st_f64(b, i, static_cast<double>(v)); }
  static uint64_t ld_bits(const std::byte* b, uint64_t i) { return raw<Bits>(b, i); }
  static void st_bits(std::byte* b, uint64_t i, uint64_t v) {
    put<Bits>(b, i, static_cast<Bits>(v));
  }
};

template <class T>
struct Ieee {
  static float ld_f32(const std::byte* b, uint64_t i) { return static_cast<float>(raw<T>(b, i)); }
  static double ld_f64(const std::byte* b, uint64_t i) { return raw<T>(b, i); }
  static void st_f32(std::byte* b, uint64_t i, float v) { put<T>(b, i, static_cast<T>(v)); }
  static void st_f64(std::byte* b, uint64_t i, double v) { put<T>(b, i, static_cast<T>(v)); }
  static int64_t ld_i(const std::byte* b, uint64_t i) { return static_cast<int64_t>(raw<T>(b, i)); }
  static void st_i(std::byte* b, uint64_t i, int64_t v) { put<T>(b, i, static_cast<T>(v)); }
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  static uint64_t ld_bits(const std::byte* b, uint64_t i) { return raw<U>(b, i); }
  static void st_bits(std::byte* b, uint64_t i, uint64_t v) { put<U>(b, i, static_cast<U>(v)); }
};

template <class A>
constexpr ElemIO make(uint32_t tag, uint32_t bits, bool is_float, bool is_signed,
                      bool is_bool = false) {
  return ElemIO{tag,        bits,     is_float,   is_signed,  is_bool,  bits < 8,    &A::ld_f32,
                &A::ld_f64, &A::ld_i, &A::st_f32, &A::st_f64, &A::st_i, &A::ld_bits, &A::st_bits};
}

using F16 = Narrow<uint16_t, f16_bits_to_f32, f32_to_f16_bits, f64_to_f16_bits>;
using BF16 = Narrow<uint16_t, bf16_bits_to_f32, f32_to_bf16_bits, f64_to_bf16_bits>;
using F8 = Narrow<uint8_t, f8_bits_to_f32, f32_to_f8_bits, f64_to_f8_bits>;

const ElemIO kTable[] = {
    make<F8>(OI_DTYPE_F8, 8, true, true),
    make<BF16>(OI_DTYPE_BF16, 16, true, true),
    make<F16>(OI_DTYPE_F16, 16, true, true),
    make<Ieee<float>>(OI_DTYPE_F32, 32, true, true),
    make<Ieee<double>>(OI_DTYPE_F64, 64, true, true),
    make<Int<int8_t>>(OI_DTYPE_I8, 8, false, true),
    make<Int<int16_t>>(OI_DTYPE_I16, 16, false, true),
    make<Int<int32_t>>(OI_DTYPE_I32, 32, false, true),
    make<Int<int64_t>>(OI_DTYPE_I64, 64, false, true),
    make<Int<uint8_t>>(OI_DTYPE_U8, 8, false, false),
    make<Int<uint16_t>>(OI_DTYPE_U16, 16, false, false),
    make<Int<uint32_t>>(OI_DTYPE_U32, 32, false, false),
    make<Int<uint64_t>>(OI_DTYPE_U64, 64, false, false),
    make<Int<uint8_t>>(OI_DTYPE_BITSET, 8, false, false),
    make<Bool>(OI_DTYPE_BOOL, 8, false, false, true),
    make<Packed<1, true>>(OI_DTYPE_I1, 1, false, true),
    make<Packed<2, true>>(OI_DTYPE_I2, 2, false, true),
    make<Packed<4, true>>(OI_DTYPE_I4, 4, false, true),
    make<Packed<1, false>>(OI_DTYPE_U1, 1, false, false),
    make<Packed<2, false>>(OI_DTYPE_U2, 2, false, false),
    make<Packed<4, false>>(OI_DTYPE_U4, 4, false, false),
};

}  // namespace

const ElemIO& elem_io(uint32_t tag) {
  for (const ElemIO& io : kTable) {
    if (io.tag == tag) return io;
  }
  fail(OI_STATUS_UNIMPLEMENTED, "cpu: dtype tag " + std::to_string(tag) + " has no kernels");
}

}  // namespace oi::cpu
