/* cast: to the output dtype (ops.md). float -> float and integer -> float round once to nearest
 * even (narrow floats from the integer rounded to odd at 53 bits, so the one rounding is right);
 * float -> integer first rounds with rounding_mode, then saturate clamps to the target's range
 * (NaN -> 0) or, without it, wraps modulo 2^width (NaN and +-inf -> 0); integer -> integer
 * saturates or wraps the same way; -> bool is x != 0 (NaN is true); bool -> anything is 0 or 1. */
#include "oik_ew.h"

#define DEF(I, O)                                                                                 \
  int oik_cast_##I##_##O(const oik_tensor* x, const oik_tensor* y, oik_rounding rounding,         \
                         int saturate, oik_error* err) {                                          \
    const uint64_t n = oik_numel(y);                                                              \
    for (uint64_t i = 0; i < n; ++i) {                                                            \
      if (OIK_ISF_##I) {                                                                          \
        const double v = oik_ldd_##I(x->data, i); /* exact for every float dtype */               \
        if (OIK_ISBOOL_##O) {                                                                     \
          oik_sti_##O(y->data, i, v != 0.0 || v != v);                                            \
        } else if (OIK_ISF_##O) {                                                                 \
          oik_std_##O(y->data, i, v);                                                             \
        } else {                                                                                  \
          oik_sti_##O(y->data, i,                                                                 \
                      oik_float_to_int(v, rounding, saturate, OIK_BITS_##O, OIK_SIGNED_##O));     \
        }                                                                                         \
      } else {                                                                                    \
        const int64_t v = oik_ldi_##I(x->data, i); /* bool: 0 or 1 */                             \
        if (OIK_ISBOOL_##O) {                                                                     \
          oik_sti_##O(y->data, i, v != 0);                                                        \
        } else if (!OIK_ISF_##O) {                                                                \
          oik_sti_##O(y->data, i,                                                                 \
                      oik_int_to_int(v, OIK_SIGNED_##I, OIK_BITS_##O, OIK_SIGNED_##O, saturate)); \
        } else if (OIK_TAG_##O == OIK_F32) {                                                      \
          oik_stf_##O(y->data, i, oik_int_to_f32(v, OIK_SIGNED_##I));                             \
        } else if (OIK_TAG_##O == OIK_F64) {                                                      \
          oik_std_##O(y->data, i, oik_int_to_f64(v, OIK_SIGNED_##I));                             \
        } else {                                                                                  \
          oik_std_##O(y->data, i, oik_int_to_double_odd(v, OIK_SIGNED_##I));                      \
        }                                                                                         \
      }                                                                                           \
    }                                                                                             \
    return oik_ok(err);                                                                           \
  }

OIK_cast_PAIRS(DEF)
