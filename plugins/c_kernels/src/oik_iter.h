/* Index walks shared by the kernels: the numpy broadcast walk of the elementwise ops (each
 * output element in row-major order with the element index it reads from each input), the
 * outer x len x inner split around one axis, and the walk over the kept and reduced axes of a
 * reduction. No allocation: coordinates live in fixed arrays of OIK_MAX_RANK. */
#ifndef OIK_ITER_H
#define OIK_ITER_H

#include "oik_base.h"

#define OIK_WALK_MAX_INPUTS 4

typedef struct oik_walk {
  uint64_t n, o;                    /* the output's element count and the current element */
  uint64_t in[OIK_WALK_MAX_INPUTS]; /* the current element index of each input */
  uint32_t rank, inputs, same;
  uint64_t dims[OIK_MAX_RANK], coord[OIK_MAX_RANK];
  uint64_t stride[OIK_WALK_MAX_INPUTS][OIK_MAX_RANK]; /* 0 along a broadcast axis */
} oik_walk;

/* Prepares the walk of y's elements over `inputs` operands that broadcast to y's shape (the
 * caller checked that they do). Fails only for a rank above OIK_MAX_RANK. */
OIK_INLINE int oik_walk_init(oik_walk* w, const oik_tensor* y, uint32_t inputs,
                             const oik_tensor* const* ins, oik_error* err) {
  int rc = oik_check_rank(y, err);
  if (rc) return rc;
  w->rank = y->rank;
  w->inputs = inputs;
  w->n = oik_numel(y);
  w->o = 0;
  w->same = 1;
  for (uint32_t k = 0; k < y->rank; ++k) {
    w->dims[k] = y->dims[k];
    w->coord[k] = 0;
  }
  for (uint32_t j = 0; j < inputs; ++j) {
    const oik_tensor* t = ins[j];
    rc = oik_check_rank(t, err);
    if (rc) return rc;
    w->in[j] = 0;
    if (t->rank != y->rank) w->same = 0;
    for (uint32_t k = 0; k < y->rank; ++k) w->stride[j][k] = 0;
    uint64_t stride = 1;
    for (uint32_t q = 0; q < t->rank && q < y->rank; ++q) {
      const uint32_t ia = t->rank - 1 - q, oa = y->rank - 1 - q;
      const uint64_t d = t->dims[ia];
      w->stride[j][oa] = d == 1 ? 0 : stride;
      if (d != y->dims[oa]) w->same = 0;
      stride *= d;
    }
  }
  return OIK_OK;
}

/* Moves to the next output element. */
OIK_INLINE void oik_walk_next(oik_walk* w) {
  ++w->o;
  if (w->same) {
    for (uint32_t j = 0; j < w->inputs; ++j) w->in[j] = w->o;
    return;
  }
  for (uint32_t k = w->rank; k-- > 0;) {
    for (uint32_t j = 0; j < w->inputs; ++j) w->in[j] += w->stride[j][k];
    if (++w->coord[k] < w->dims[k]) return;
    for (uint32_t j = 0; j < w->inputs; ++j) w->in[j] -= w->stride[j][k] * w->dims[k];
    w->coord[k] = 0;
  }
}

/* Products of the dims before, at and after `axis`. */
typedef struct oik_split {
  uint64_t outer, len, inner;
} oik_split;

OIK_INLINE oik_split oik_split_at(const oik_tensor* t, uint32_t axis) {
  oik_split s = {1, 1, 1};
  for (uint32_t k = 0; k < t->rank; ++k) {
    if (k < axis) {
      s.outer *= t->dims[k];
    } else if (k == axis) {
      s.len *= t->dims[k];
    } else {
      s.inner *= t->dims[k];
    }
  }
  return s;
}

/* A reduction's walk: for each output element (the kept axes in row-major order) the input
 * elements it folds, in row-major input order. */
typedef struct oik_reduce {
  uint32_t rank, nkept, nred;
  uint64_t out_n, count; /* output elements; input elements per output */
  uint64_t kept_dim[OIK_MAX_RANK], kept_stride[OIK_MAX_RANK];
  uint64_t red_dim[OIK_MAX_RANK], red_stride[OIK_MAX_RANK];
} oik_reduce;

/* reduced[k] says whether input axis k is folded. */
OIK_INLINE void oik_reduce_init(oik_reduce* r, const oik_tensor* x, const unsigned char* reduced) {
  uint64_t stride[OIK_MAX_RANK];
  uint64_t s = 1;
  for (uint32_t k = x->rank; k-- > 0;) {
    stride[k] = s;
    s *= x->dims[k];
  }
  r->rank = x->rank;
  r->nkept = r->nred = 0;
  r->out_n = r->count = 1;
  for (uint32_t k = 0; k < x->rank; ++k) {
    if (reduced[k]) {
      r->red_dim[r->nred] = x->dims[k];
      r->red_stride[r->nred++] = stride[k];
      r->count *= x->dims[k];
    } else {
      r->kept_dim[r->nkept] = x->dims[k];
      r->kept_stride[r->nkept++] = stride[k];
      r->out_n *= x->dims[k];
    }
  }
}

/* Sets up the fold of x over `axes` (num_axes < 0: every axis; 0: none, the output equals the
 * input). Negative axes count from the end; repeated ones count once. */
OIK_INLINE int oik_reduce_setup(oik_reduce* r, const oik_tensor* x, const int64_t* axes,
                                int64_t num_axes, const char* op, oik_error* err) {
  unsigned char reduced[OIK_MAX_RANK];
  const int rc = oik_check_rank(x, err);
  if (rc) return rc;
  for (uint32_t k = 0; k < x->rank; ++k) reduced[k] = num_axes < 0;
  for (int64_t i = 0; i < num_axes; ++i) {
    const int64_t a = oik_norm_axis(axes[i], x->rank);
    if (a < 0) {
      oik_msg m = {{0}, 0};
      oik_msg_s(&m, op);
      oik_msg_s(&m, ": axis ");
      oik_msg_i(&m, axes[i]);
      oik_msg_s(&m, " is out of range");
      return oik_fail(err, OIK_ERR_INVALID_ARGUMENT, &m);
    }
    reduced[a] = 1;
  }
  oik_reduce_init(r, x, reduced);
  return OIK_OK;
}

/* "<op>: max/min/argmax/argmin over an empty axis" (ops.md: an error, not a made-up value). */
OIK_INLINE int oik_fail_empty_axis(oik_error* err, const char* op) {
  oik_msg m = {{0}, 0};
  oik_msg_s(&m, op);
  oik_msg_s(&m, ": max/min/argmax/argmin over an empty axis");
  return oik_fail(err, OIK_ERR_INVALID_ARGUMENT, &m);
}

/* The input index of the first element folded into output element o. */
OIK_INLINE uint64_t oik_reduce_base(const oik_reduce* r, uint64_t o) {
  uint64_t base = 0;
  for (uint32_t k = r->nkept; k-- > 0;) {
    base += (o % r->kept_dim[k]) * r->kept_stride[k];
    o /= r->kept_dim[k];
  }
  return base;
}

/* Offsets of the folded elements relative to the base, in row-major order: start with
 * offset 0 and coord all zero, then call oik_reduce_step after each element. */
OIK_INLINE uint64_t oik_reduce_step(const oik_reduce* r, uint64_t* coord, uint64_t offset) {
  for (uint32_t k = r->nred; k-- > 0;) {
    offset += r->red_stride[k];
    if (++coord[k] < r->red_dim[k]) return offset;
    offset -= r->red_stride[k] * r->red_dim[k];
    coord[k] = 0;
  }
  return offset;
}

/* ops.md: a float sum over `count` elements starts at -0.0, the identity of IEEE addition (-0 + x
 * is x for every x, +0 included), so a sum of only -0.0 terms is -0.0; an empty sum is +0.0. */
#define OIK_SUM_START(CT, count) ((count) ? (CT)-0.0 : (CT)0.0)

/* Walks the reduction of x into y: for each output element o, INIT, then STEP(v, e) for each
 * folded element v (e counts them from 0) in row-major order, then STORE(o, e). CT, LD: the
 * compute type and the loader of x's elements. */
#define OIK_REDUCE_LOOP(r, x, CT, LD, INIT, STEP, STORE) \
  for (uint64_t o = 0; o < (r).out_n; ++o) {             \
    const uint64_t base = oik_reduce_base(&(r), o);      \
    uint64_t coord[OIK_MAX_RANK] = {0}, off = 0, e = 0;  \
    INIT;                                                \
    for (; e < (r).count; ++e) {                         \
      const CT v = LD((x)->data, base + off);            \
      STEP;                                              \
      off = oik_reduce_step(&(r), coord, off);           \
    }                                                    \
    STORE;                                               \
  }

#endif
