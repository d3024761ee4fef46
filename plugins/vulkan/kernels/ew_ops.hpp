// The elementwise ops on shaders/ew.comp: every op but relu (add/sub/mul/div/fill only for the
// dtypes eltwise.comp lacks) for the dtypes of 1 to 32 bits, with numpy broadcasting over up to
// three inputs.
#pragma once

#include "../kernel_registry.hpp"

namespace oi::vulkan {

// The shader's OP constant (shaders/ew.comp).
enum class EwOp : uint32_t {
  Neg = 0,
  Abs = 1,
  Sign = 2,
  Recip = 3,
  Floor = 4,
  Ceil = 5,
  Round = 6,
  Trunc = 7,
  Not = 8,
  Popcount = 9,
  IsNan = 10,
  IsInf = 11,
  IsNeg = 12,
  Shl = 13,
  Shr = 14,
  Clamp = 15,
  Cast = 16,
  Iota = 17,
  Filter = 18,
  Min = 20,
  Max = 21,
  FloorDiv = 22,
  Rem = 23,
  And = 24,
  Or = 25,
  Xor = 26,
  Eq = 27,
  Ne = 28,
  Lt = 29,
  Le = 30,
  Gt = 31,
  Ge = 32,
  Add = 33,  // add/sub/mul/div/fill of the dtypes eltwise.comp leaves out (narrow, packed, f8)
  Sub = 34,
  Mul = 35,
  Div = 36,
  Fill = 37,
  Relu = 38,
  Exp = 40,
  Log = 41,
  Sqrt = 42,
  Sin = 43,
  Cos = 44,
  Tanh = 45,
  Erf = 46,
  Rsqrt = 47,
  Sigmoid = 48,
  Silu = 49,
  Gelu = 50,
  GeluTanh = 51,
  Pow = 52,
  Fma = 53,
};

// The transcendental ops (and fma): computed in f64 (shaders/math_f64.glsl, variant ew_math)
// on a device with shaderFloat64, else in f32 arithmetic (shaders/math_f32.glsl, ew_math32).
constexpr bool is_math_op(EwOp op) {
  return static_cast<uint32_t>(op) >= 40;
}

// Whether f32 (and narrower) math runs on ew_math (f64) rather than ew_math32 on a device:
// OPENINFER_VULKAN_F32_MATH=f32 forces the f32 code (for testing it on any device), =f64 the
// f64 code (an error without shaderFloat64), unset or `auto` takes f64 where the device has it.
bool f32_math_in_f64(bool device_has_f64);

oi_status* run_ew(const oi_kernel_call* call, EwOp op);

template <EwOp Op>
oi_status* ew_kernel(const oi_kernel_call* call) {
  return run_ew(call, Op);
}

// Registers `op` for each dtype: `num_inputs` inputs of that dtype, the output of that dtype or
// of `output` when it is not 0; in place too when `inplace`.
void add_ew(std::vector<VulkanKernel>& list, const char* op, oi_kernel_fn run, uint32_t num_inputs,
            const std::vector<uint32_t>& dtypes, bool inplace, uint32_t output = 0,
            Needs needs = Needs::Nothing);

// The same for the 8-byte dtypes on ew64.comp: f64 needs shaderFloat64, i64/u64 shaderInt64.
void add_ew_wide(std::vector<VulkanKernel>& list, const char* op, oi_kernel_fn run,
                 uint32_t num_inputs, const std::vector<uint32_t>& dtypes, bool inplace,
                 uint32_t output = 0);
Needs wide_needs(uint32_t dtype);

// The wider integers an integer accumulates into (acc=, ops.md): the catalog's accumulate
// tables for add/sub/mul/abs/sum_axis/prod_axis (i1/i2/i4 -> i8 ... i64, i8 -> i16 ..., u alike).
std::vector<uint32_t> accumulate_targets(uint32_t dtype);
// Registers `op` accumulating from each of `dtypes` into each wider target (i64/u64 targets
// need shaderInt64: they run on ew64.comp).
void add_ew_accumulate(std::vector<VulkanKernel>& list, const char* op, oi_kernel_fn run,
                       uint32_t num_inputs, const std::vector<uint32_t>& dtypes);

// The dtype sets the shader addresses.
inline const std::vector<uint32_t> kEwFloats = {OI_DTYPE_F32, OI_DTYPE_F16, OI_DTYPE_BF16};
inline const std::vector<uint32_t> kEwSigned = {OI_DTYPE_I32, OI_DTYPE_I16, OI_DTYPE_I8};
inline const std::vector<uint32_t> kEwUnsigned = {OI_DTYPE_U32, OI_DTYPE_U16, OI_DTYPE_U8};
// ew.comp only: f8 (computed in f32 like f16) and the packed integers (LSB-first).
inline const std::vector<uint32_t> kEwF8 = {OI_DTYPE_F8};
inline const std::vector<uint32_t> kEwPackedSigned = {OI_DTYPE_I4, OI_DTYPE_I2, OI_DTYPE_I1};
inline const std::vector<uint32_t> kEwPackedUnsigned = {OI_DTYPE_U4, OI_DTYPE_U2, OI_DTYPE_U1};
// ew64.comp: the 8-byte dtypes.
inline const std::vector<uint32_t> kEwWideInts = {OI_DTYPE_I64, OI_DTYPE_U64};
inline const std::vector<uint32_t> kEwWide = {OI_DTYPE_F64, OI_DTYPE_I64, OI_DTYPE_U64};

std::vector<uint32_t> dtype_union(std::initializer_list<std::vector<uint32_t>> sets);

// The shader's dtype code of an oi dtype, or -1 where ew.comp cannot address it.
int ew_dtype_code(uint32_t dtype);
// ew.comp's codes plus the 8-byte types (10 f64, 11 i64, 12 u64) of the shaders that address
// them (spatial.comp, reduce.comp); -1 for the rest.
int wide_dtype_code(uint32_t dtype);
// Where a double goes into two params words, low first (the f64 shader variants' settings).
void put_f64(std::vector<uint32_t>& params, size_t at, double v);
uint32_t dtype_bytes(uint32_t dtype);
// Bits per element: 1, 2 or 4 for the packed integers (i1 ... u4), else 8 * dtype_bytes.
uint32_t dtype_bits(uint32_t dtype);
}  // namespace oi::vulkan
