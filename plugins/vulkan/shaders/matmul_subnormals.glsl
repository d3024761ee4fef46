// Subnormal operands on devices that flush them (no FLOAT_CONTROLS): NVIDIA would read a
// subnormal as 0, so subnormal * inf gives NaN and subnormal * 1e38 gives 0. Such an operand is
// scaled by 2^64 (exact, from its bits), multiplied, and the product scaled back: the product
// then rounds once, as with preserved subnormals. Used by matmul_tiled.comp and matmul_gemv.comp
// only on the rare tiles and elements that hold one. -DNO_SUBNORMAL_SCALING leaves it out (the
// fast pass of matmul_tiled.comp, which runs only when a scan found no subnormal operand).
#if !defined(FLOAT_CONTROLS) && !defined(NO_SUBNORMAL_SCALING)
#define SCALE_SUBNORMALS 1

const float TWO_M64 = 5.42101086242752217e-20;  // 2^-64

bool is_subnormal(uint bits) {
  return (bits & 0x7f800000u) == 0u && (bits & 0x7fffffu) != 0u;
}

// The value of `bits`, times 2^64 where it is subnormal (then `scaled` is set).
float staged(uint bits, inout bool scaled) {
  if (!is_subnormal(bits)) return uintBitsToFloat(bits);
  scaled = true;  // frac * 2^-149 * 2^64: the int to float conversion and the scaling are exact
  return uintBitsToFloat((bits & 0x80000000u) | floatBitsToUint(float(bits & 0x7fffffu) *
                                                                uintBitsToFloat(0x15000000u)));
}

// a * b rounded once, with either operand possibly subnormal.
float exact_product(uint a, uint b) {
  bool sa = false, sb = false;
  precise float prod = staged(a, sa) * staged(b, sb);
  if (sa) prod = prod * TWO_M64;
  if (sb) prod = prod * TWO_M64;
  return prod;
}
#endif
