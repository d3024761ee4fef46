/* attention(q, k, v[, mask]) (ops-nn.md): softmax(q.k^T * scale + mask).v per batch.
 * q [..., Tq, D], k [..., Tk, D], v [..., Tk, Dv] -> y [..., Tq, Dv]; leading dims broadcast
 * (one k/v head can serve many q heads); scale defaults to 1/sqrt(D); the mask (NULL: none; F or
 * bool, false = masked) broadcasts to [..., Tq, Tk]: a bool mask drops a key outright, a float
 * mask is added. With `causal`, query i sees keys j <= i + (Tk - Tq). f8/bf16/f16/f32 compute in
 * f32, f64 in f64, rounded once to y's dtype. A row whose keys are all masked gives 0, not NaN;
 * a NaN score makes its row NaN.
 *
 * No scratch: per query row, one pass over the keys finds the largest score, a second sums
 * e^(s - max), and the output columns are accumulated OIK_ATTN_COLS at a time on the stack,
 * recomputing the scores each pass (the Tq x Tk matrix is never stored). */
#include "oik_ew.h"

#define OIK_ATTN_COLS 64

/* Where each batch's matrices start, and the mask's layout. */
typedef struct {
  uint64_t tq, d, tk, dv;
  uint64_t mask_rows, mask_cols, mask_row_stride, mask_col_stride;
  oik_walk walk; /* the output's batch dims; in[0..3]: the q, k, v and mask matrix indices */
} attn_layout;

static int layout_of(const oik_tensor* q, const oik_tensor* k, const oik_tensor* v,
                     const oik_tensor* mask, const oik_tensor* y, attn_layout* l, oik_error* err) {
  if (q->rank < 2 || k->rank < 2 || v->rank < 2 || y->rank < 2)
    return oik_fail_s(err, OIK_ERR_INVALID_ARGUMENT,
                      "attention: q, k, v and y need rank 2 or more");
  l->tq = q->dims[q->rank - 2];
  l->d = q->dims[q->rank - 1];
  l->tk = k->dims[k->rank - 2];
  l->dv = v->dims[v->rank - 1];
  l->mask_rows = l->mask_cols = 1;
  l->mask_row_stride = l->mask_col_stride = 0;
  oik_tensor batch[4] = {{q->data, q->dtype, q->rank - 2, q->dims},
                         {k->data, k->dtype, k->rank - 2, k->dims},
                         {v->data, v->dtype, v->rank - 2, v->dims},
                         {NULL, 0, 0, NULL}};
  if (mask) {
    /* The mask's last two dims (where present) run along Tq and Tk. */
    if (mask->rank >= 1) l->mask_cols = mask->dims[mask->rank - 1];
    if (mask->rank >= 2) l->mask_rows = mask->dims[mask->rank - 2];
    l->mask_col_stride = l->mask_cols != 1 ? 1 : 0;
    l->mask_row_stride = l->mask_rows != 1 ? l->mask_cols : 0;
    if (mask->rank > 2) {
      batch[3].rank = mask->rank - 2;
      batch[3].dims = mask->dims;
    }
  }
  const oik_tensor yb = {y->data, y->dtype, y->rank - 2, y->dims};
  const oik_tensor* ins[4] = {&batch[0], &batch[1], &batch[2], &batch[3]};
  return oik_walk_init(&l->walk, &yb, 4, ins, err);
}

/* One compute type C (float or double) with S its name; loads go through the dtype tags, so
 * one instance serves every dtype of that compute type. */
#define CORE(C, S, LD, ST)                                                                      \
  static C score_##S(const oik_tensor* q, const oik_tensor* k, const oik_tensor* mask,          \
                     const attn_layout* l, uint64_t q0, uint64_t k0, uint64_t m0, uint64_t i,   \
                     uint64_t j, C scale) {                                                     \
    C s = 0;                                                                                    \
    for (uint64_t c = 0; c < l->d; ++c)                                                         \
      s += LD(q->dtype, q->data, q0 + i * l->d + c) * LD(k->dtype, k->data, k0 + j * l->d + c); \
    s = l->d > 0 ? s * scale : 0;                                                               \
    if (mask) {                                                                                 \
      const uint64_t at = m0 + i * l->mask_row_stride + j * l->mask_col_stride;                 \
      if (mask->dtype == OIK_BOOL) {                                                            \
        if (!oik_ldc_bool(mask->data, at)) s = -INFINITY;                                       \
      } else {                                                                                  \
        s += LD(mask->dtype, mask->data, at);                                                   \
      }                                                                                         \
    }                                                                                           \
    return s;                                                                                   \
  }                                                                                             \
  static int attention_##S(const oik_tensor* q, const oik_tensor* k, const oik_tensor* v,       \
                           const oik_tensor* mask, const oik_tensor* y, int has_scale,          \
                           double scale_setting, int causal, oik_error* err) {                  \
    attn_layout l;                                                                              \
    const int rc = layout_of(q, k, v, mask, y, &l, err);                                        \
    if (rc) return rc;                                                                          \
    const double default_scale = l.d > 0 ? 1.0 / sqrt((double)l.d) : 1.0;                       \
    const C scale = (C)(has_scale ? scale_setting : default_scale);                             \
    const int64_t offset = (int64_t)l.tk - (int64_t)l.tq;                                       \
    C acc[OIK_ATTN_COLS];                                                                       \
    for (; l.walk.o < l.walk.n; oik_walk_next(&l.walk)) {                                       \
      const uint64_t q0 = l.walk.in[0] * l.tq * l.d, k0 = l.walk.in[1] * l.tk * l.d;            \
      const uint64_t v0 = l.walk.in[2] * l.tk * l.dv;                                           \
      const uint64_t m0 = l.walk.in[3] * l.mask_rows * l.mask_cols;                             \
      for (uint64_t i = 0; i < l.tq; ++i) {                                                     \
        const uint64_t y0 = (l.walk.o * l.tq + i) * l.dv;                                       \
        /* keys j < visible: all, or j <= i + Tk - Tq under causal */                           \
        uint64_t visible = l.tk;                                                                \
        if (causal) {                                                                           \
          const int64_t n = (int64_t)i + 1 + offset;                                            \
          visible = n < 0 ? 0 : n > (int64_t)l.tk ? l.tk : (uint64_t)n;                         \
        }                                                                                       \
        C mx = -INFINITY;                                                                       \
        int nan = 0;                                                                            \
        for (uint64_t j = 0; j < visible; ++j) {                                                \
          const C s = score_##S(q, k, mask, &l, q0, k0, m0, i, j, scale);                       \
          if (s != s) nan = 1;                                                                  \
          if (s > mx) mx = s; /* a NaN never wins; it propagates through e^(s - max) */         \
        }                                                                                       \
        if (mx == -INFINITY) { /* every key masked: 0, or NaN when a score was NaN */           \
          for (uint64_t c = 0; c < l.dv; ++c) ST(y->dtype, y->data, y0 + c, nan ? (C)NAN : 0);  \
          continue;                                                                             \
        }                                                                                       \
        C sum = 0;                                                                              \
        for (uint64_t j = 0; j < visible; ++j)                                                  \
          sum += oik_exp(score_##S(q, k, mask, &l, q0, k0, m0, i, j, scale) - mx);              \
        const C inv = 1 / sum;                                                                  \
        for (uint64_t c0 = 0; c0 < l.dv; c0 += OIK_ATTN_COLS) {                                 \
          const uint64_t cols = l.dv - c0 < OIK_ATTN_COLS ? l.dv - c0 : OIK_ATTN_COLS;          \
          for (uint64_t c = 0; c < cols; ++c) acc[c] = 0;                                       \
          for (uint64_t j = 0; j < visible; ++j) {                                              \
            const C p = oik_exp(score_##S(q, k, mask, &l, q0, k0, m0, i, j, scale) - mx);       \
            for (uint64_t c = 0; c < cols; ++c)                                                 \
              acc[c] += p * LD(v->dtype, v->data, v0 + j * l.dv + c0 + c);                      \
          }                                                                                     \
          for (uint64_t c = 0; c < cols; ++c) ST(y->dtype, y->data, y0 + c0 + c, acc[c] * inv); \
        }                                                                                       \
      }                                                                                         \
    }                                                                                           \
    return oik_ok(err);                                                                         \
  }

CORE(float, f, oik_ldf_dt, oik_stf_dt)
CORE(double, d, oik_ldd_dt, oik_std_dt)

#define DEF(T)                                                                                    \
  int oik_attention_##T(const oik_tensor* q, const oik_tensor* k, const oik_tensor* v,            \
                        const oik_tensor* mask, const oik_tensor* y, int has_scale, double scale, \
                        int causal, oik_error* err) {                                             \
    return OIK_ISD_##T ? attention_d(q, k, v, mask, y, has_scale, scale, causal, err)             \
                       : attention_f(q, k, v, mask, y, has_scale, scale, causal, err);            \
  }

OIK_attention_F(DEF)
