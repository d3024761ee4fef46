// int_op for i32 (IT int): wrapping arithmetic (SPIR-V integer ops are modular), division
// truncating toward zero, INT_MIN / -1 wrapping and a zero divisor giving the mask or 0. i64 has
// its own in eltwise.comp, over int64_ops.glsl.
#define I_RESULT uint
#define I_RET(v) uint(v)
#define I_SETTING(k) int(p[6u + 2u * (k)])

I_RESULT int_op(IT x, IT z) {
  if (OP == OP_ADD) return I_RET(x + z);
  if (OP == OP_SUB) return I_RET(x - z);
  if (OP == OP_MUL) return I_RET(x * z);
  if (OP == OP_DIV) {
    if (z == I_ZERO) return flag(HAS_MASK) ? I_RET(I_SETTING(0)) : I_RET(I_ZERO);
    if (z == IT(-1)) return I_RET(I_ZERO - x);
    return I_RET(x / z);
  }
  IT r = x >= I_ZERO ? x : I_SETTING(0) * x;
  if (flag(HAS_LO) && r < I_SETTING(1)) r = I_SETTING(1);
  if (flag(HAS_HI) && r > I_SETTING(2)) r = I_SETTING(2);
  return I_RET(r);
}
