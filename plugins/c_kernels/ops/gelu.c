/* gelu (ops-nn.md, ONNX Gelu opset 20), F dtypes, normal and in place.
 * approximate="none": a * Phi(a) = a/2 * erfc(-a/sqrt(2)) (erfc, not 1 + erf, so that large
 * negative a keeps its relative accuracy); "tanh": a/2 * (1 + tanh(u)) with
 * u = sqrt(2/pi) * (a + 0.044715 a^3), computed as a / (1 + e^(-2u)) for the same reason.
 * Evaluated in double and rounded once to f32 (f64 stays f64), then to a narrow dtype. */
#include "oik_ew.h"

static inline double gelu(double a, oik_gelu_approx approximate) {
  if (approximate == OIK_GELU_TANH) {
    const double u = 0.7978845608028654 * (a + 0.044715 * a * a * a);
    return a / (1.0 + exp(-2.0 * u));
  }
  return a * 0.5 * erfc(-a * 0.7071067811865476);
}

#define OP(a, T) ((oik_ct_##T)gelu(a, approximate))
#define DEF_F(T) OIK_EW1_SAME_P(gelu, T, (oik_gelu_approx approximate), OP)

OIK_gelu_F(DEF_F)
