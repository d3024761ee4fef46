/* batch_norm(x, scale, bias, mean, var) -> y (ops-nn.md, ONNX BatchNormalization inference
 * form) over channel axis 1 of x [N, C, ...], F dtypes, in place allowed:
 *   y = (x - mean) * (scale / sqrt(var + epsilon)) + bias,
 * computed in f32 (f64 for f64) and rounded once to y's dtype. Each element is read before its
 * own slot is written, so in place is safe. */
#include "oik_ew.h"

static int check(const oik_tensor* x, const oik_tensor* const* params, oik_error* err) {
  if (x->rank < 2)
    return oik_fail_s(err, OIK_ERR_INVALID_ARGUMENT,
                      "batch_norm takes x [N, C, ...], scale, bias, mean and var [C]");
  for (int i = 0; i < 4; ++i)
    if (params[i]->rank != 1 || params[i]->dims[0] != x->dims[1])
      return oik_fail_s(err, OIK_ERR_INVALID_ARGUMENT,
                        "batch_norm: scale, bias, mean and var must be [C]");
  return OIK_OK;
}

#define DEF(T)                                                                                 \
  int oik_batch_norm_##T(const oik_tensor* x, const oik_tensor* scale, const oik_tensor* bias, \
                         const oik_tensor* mean, const oik_tensor* var, const oik_tensor* y,   \
                         double epsilon, oik_error* err) {                                     \
    typedef oik_ct_##T CT;                                                                     \
    const oik_tensor* params[4] = {scale, bias, mean, var};                                    \
    const int rc = check(x, params, err);                                                      \
    if (rc) return rc;                                                                         \
    const uint64_t batch = x->dims[0], channels = x->dims[1];                                  \
    uint64_t inner = 1;                                                                        \
    for (uint32_t k = 2; k < x->rank; ++k) inner *= x->dims[k];                                \
    const CT eps = (CT)epsilon;                                                                \
    for (uint64_t c = 0; c < channels; ++c) {                                                  \
      const CT mul = oik_ldc_##T(scale->data, c) / oik_sqrt(oik_ldc_##T(var->data, c) + eps);  \
      const CT mu = oik_ldc_##T(mean->data, c), b = oik_ldc_##T(bias->data, c);                \
      for (uint64_t n = 0; n < batch; ++n) {                                                   \
        const uint64_t base = (n * channels + c) * inner;                                      \
        for (uint64_t i = base; i < base + inner; ++i)                                         \
          oik_stc_##T(y->data, i, (oik_ldc_##T(x->data, i) - mu) * mul + b);                   \
      }                                                                                        \
    }                                                                                          \
    return oik_ok(err);                                                                        \
  }

OIK_batch_norm_F(DEF)
