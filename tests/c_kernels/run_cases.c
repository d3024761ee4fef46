/* The C kernel library (plugins/c_kernels, docs/c-kernels.md) against the shared numpy cases
 * every backend passes: tests/plugins/cpu_kernel_cases.json, then every
 * tests/plugins/cases/<name>.json in name order (tests/common/kernel_cases.hpp), compared as
 * tests/plugins/cpu_kernels_test.cpp does: bit-exact, except NaN matches any NaN and a case's
 * "tolerance" [atol, rtol] or "ulp" bound where it gives one. Plain C: a small JSON reader, then
 * each case through the kernel table's entry point for its (op, input dtypes, output dtype, mode).
 *
 *   run_cases PLUGIN_TESTS_DIR [--report FILE] [--require-all] [--quiet]
 *
 * --report writes one line per kernel key of the cases: "KEY<TAB>pass|fail|missing" (what
 * tests/c_kernels/kernel_coverage.py reads). Exits 1 when a case fails, or with --require-all
 * when a kernel is missing; prints "N passed, N failed" for the cases last. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oi_kernels.h"

/*===--- A small JSON reader --------------------------------------------------------------===*/

enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

typedef struct jv {
  int type;
  const char* text; /* J_NUM: the literal; J_STR: the (unescaped, NUL-terminated) string */
  int boolean;
  struct jv** items; /* J_ARR: values; J_OBJ: alternating key (J_STR) and value */
  size_t count;
} jv;

typedef struct {
  char* p;
  char* end;
  int failed;
} jparser;

static void* xmalloc(size_t n) {
  void* p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  return p;
}

static void jskip(jparser* j) {
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t')) ++j->p;
}

static jv* jparse(jparser* j);

static jv* jnew(int type) {
  jv* v = xmalloc(sizeof *v);
  memset(v, 0, sizeof *v);
  v->type = type;
  return v;
}

static void jpush(jv* v, jv* item, size_t* cap) {
  if (v->count == *cap) {
    *cap = *cap ? 2 * *cap : 8;
    jv** items = xmalloc(*cap * sizeof *items);
    if (v->count) memcpy(items, v->items, v->count * sizeof *items);
    free(v->items);
    v->items = items;
  }
  v->items[v->count++] = item;
}

static jv* jstring(jparser* j) {
  ++j->p; /* the opening quote */
  char* start = j->p;
  char* out = j->p;
  while (j->p < j->end && *j->p != '"') {
    if (*j->p == '\\' && j->p + 1 < j->end) {
      ++j->p;
      char c = *j->p;
      *out++ = c == 'n' ? '\n' : c == 't' ? '\t' : c;
      ++j->p;
    } else {
      *out++ = *j->p++;
    }
  }
  if (j->p >= j->end) {
    j->failed = 1;
    return jnew(J_NULL);
  }
  ++j->p;
  *out = 0; /* the string ends where the closing quote was (or earlier) */
  jv* v = jnew(J_STR);
  v->text = start;
  return v;
}

static jv* jparse(jparser* j) {
  jskip(j);
  if (j->p >= j->end) {
    j->failed = 1;
    return jnew(J_NULL);
  }
  char c = *j->p;
  if (c == '{' || c == '[') {
    const int obj = c == '{';
    jv* v = jnew(obj ? J_OBJ : J_ARR);
    size_t cap = 0;
    ++j->p;
    jskip(j);
    if (j->p < j->end && *j->p == (obj ? '}' : ']')) {
      ++j->p;
      return v;
    }
    while (!j->failed) {
      if (obj) {
        jskip(j);
        if (j->p >= j->end || *j->p != '"') {
          j->failed = 1;
          break;
        }
        jpush(v, jstring(j), &cap);
        jskip(j);
        if (j->p >= j->end || *j->p != ':') {
          j->failed = 1;
          break;
        }
        ++j->p;
      }
      jpush(v, jparse(j), &cap);
      jskip(j);
      if (j->p < j->end && *j->p == ',') {
        ++j->p;
        continue;
      }
      if (j->p < j->end && *j->p == (obj ? '}' : ']')) {
        ++j->p;
        break;
      }
      j->failed = 1;
    }
    return v;
  }
  if (c == '"') return jstring(j);
  if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "false", 5)) {
    jv* v = jnew(J_BOOL);
    v->boolean = *j->p == 't';
    j->p += v->boolean ? 4 : 5;
    return v;
  }
  if (!strncmp(j->p, "null", 4)) {
    j->p += 4;
    return jnew(J_NULL);
  }
  jv* v = jnew(J_NUM);
  char* start = j->p;
  while (j->p < j->end && strchr("+-0123456789.eE", *j->p)) ++j->p;
  if (j->p == start) j->failed = 1;
  /* Copy the literal: the next character may be a delimiter the caller still reads. */
  size_t n = (size_t)(j->p - start);
  char* text = xmalloc(n + 1);
  memcpy(text, start, n);
  text[n] = 0;
  v->text = text;
  return v;
}

static void jfree(jv* v) {
  if (!v) return;
  for (size_t i = 0; i < v->count; ++i) jfree(v->items[i]);
  free(v->items);
  if (v->type == J_NUM) free((char*)v->text);
  free(v);
}

static const jv* jget(const jv* obj, const char* key) {
  if (!obj || obj->type != J_OBJ) return NULL;
  for (size_t i = 0; i + 1 < obj->count; i += 2)
    if (!strcmp(obj->items[i]->text, key)) return obj->items[i + 1];
  return NULL;
}

static double jnum(const jv* v) {
  if (v->type == J_STR) return strtod(v->text, NULL); /* "inf", "-inf" */
  if (v->type == J_BOOL) return v->boolean;
  return strtod(v->text, NULL);
}

/* An integer literal as int64 (u64 above INT64_MAX as its two's-complement bits). */
static int64_t jint(const jv* v) {
  if (v->type == J_BOOL) return v->boolean;
  if (v->text[0] == '-') return strtoll(v->text, NULL, 10);
  if (strchr(v->text, '.') || strchr(v->text, 'e') || strchr(v->text, 'E'))
    return (int64_t)strtod(v->text, NULL);
  return (int64_t)strtoull(v->text, NULL, 10);
}

/*===--- Cases ----------------------------------------------------------------------------===*/

static uint32_t dtype_named(const char* name) {
  for (uint32_t t = 1; t <= 25; ++t) {
    const char* n = oik_dtype_name(t);
    if (n && !strcmp(n, name)) return t;
  }
  fprintf(stderr, "unknown dtype %s\n", name);
  exit(2);
}

typedef struct {
  uint32_t dtype;
  uint32_t rank;
  uint64_t dims[OIK_MAX_RANK];
  unsigned char* bytes;
  size_t size;
} operand;

static int hexval(char c) {
  return c <= '9' ? c - '0' : (c | 32) - 'a' + 10;
}

static void read_operand(const jv* o, operand* t) {
  t->dtype = dtype_named(jget(o, "dtype")->text);
  const jv* dims = jget(o, "dims");
  t->rank = (uint32_t)dims->count;
  for (size_t k = 0; k < dims->count; ++k) t->dims[k] = (uint64_t)jint(dims->items[k]);
  const char* hex = jget(o, "hex")->text;
  t->size = strlen(hex) / 2;
  t->bytes = xmalloc(t->size);
  for (size_t i = 0; i < t->size; ++i)
    t->bytes[i] = (unsigned char)(hexval(hex[2 * i]) * 16 + hexval(hex[2 * i + 1]));
}

static oik_tensor view(operand* o, void* data) {
  oik_tensor t = {data, o->dtype, o->rank, o->dims};
  return t;
}

/* Settings of one case. */
typedef struct {
  const jv* list;
} settings;

static const jv* setting(settings s, const char* name) {
  for (size_t i = 0; i < s.list->count; ++i) {
    const jv* e = s.list->items[i];
    if (!strcmp(jget(e, "name")->text, name)) return jget(e, "value");
  }
  return NULL;
}
static double s_float(settings s, const char* name, double fallback) {
  const jv* v = setting(s, name);
  return v ? jnum(v) : fallback;
}
static int64_t s_int(settings s, const char* name, int64_t fallback) {
  const jv* v = setting(s, name);
  return v ? jint(v) : fallback;
}
static const char* s_string(settings s, const char* name, const char* fallback) {
  const jv* v = setting(s, name);
  return v ? v->text : fallback;
}
/* An int_list setting into `out` (NULL when absent); *count gets its length. */
static const int64_t* s_list(settings s, const char* name, int64_t* out, uint32_t* count) {
  const jv* v = setting(s, name);
  if (count) *count = 0;
  if (!v) return NULL;
  for (size_t i = 0; i < v->count && i < 32; ++i) out[i] = jint(v->items[i]);
  if (count) *count = (uint32_t)v->count;
  return out;
}

/* Calls kernel k on the case's tensors; returns its status. */
static int call_kernel(const oik_kernel* k, const char* op, oik_tensor* in, uint32_t n,
                       const oik_tensor* y, settings s, oik_error* err) {
  const uint32_t t = in[0].dtype;
  const int is_float = t == OIK_F8 || t == OIK_BF16 || t == OIK_F16 || t == OIK_F32 || t == OIK_F64;
  int64_t l1[32], l2[32], l3[32], l4[32];
  uint32_t c1 = 0;
  switch (k->sig) {
    case OIK_SIG_EW1:
      return ((oik_sig_ew1)k->fn)(&in[0], y, err);
    case OIK_SIG_EW2:
      return ((oik_sig_ew2)k->fn)(&in[0], &in[1], y, err);
    case OIK_SIG_EW3:
      return ((oik_sig_ew3)k->fn)(&in[0], &in[1], &in[2], y, err);
    case OIK_SIG_DIV_F:
      return ((oik_sig_div_f)k->fn)(&in[0], &in[1], y, setting(s, "div_by_zero_mask") != NULL,
                                    s_float(s, "div_by_zero_mask", 0), err);
    case OIK_SIG_DIV_I:
      return ((oik_sig_div_i)k->fn)(&in[0], &in[1], y, setting(s, "div_by_zero_mask") != NULL,
                                    s_int(s, "div_by_zero_mask", 0), err);
    case OIK_SIG_RECIP:
      return ((oik_sig_recip)k->fn)(&in[0], y, setting(s, "div_by_zero_mask") != NULL,
                                    s_float(s, "div_by_zero_mask", 0), err);
    case OIK_SIG_CLAMP_F:
      return ((oik_sig_clamp_f)k->fn)(&in[0], y, s_float(s, "min", -INFINITY),
                                      s_float(s, "max", INFINITY), err);
    case OIK_SIG_CLAMP_I: {
      const int has_min = isfinite(s_float(s, "min", -INFINITY));
      const int has_max = isfinite(s_float(s, "max", INFINITY));
      return ((oik_sig_clamp_i)k->fn)(&in[0], y, has_min, has_min ? s_int(s, "min", 0) : 0, has_max,
                                      has_max ? s_int(s, "max", 0) : 0, err);
    }
    case OIK_SIG_RELU_F: {
      const double alpha =
          setting(s, "alpha") ? s_float(s, "alpha", 0) : s_float(s, "negative_slope", 0);
      return ((oik_sig_relu_f)k->fn)(&in[0], y, alpha, s_float(s, "clamp_min", -INFINITY),
                                     s_float(s, "clamp_max", INFINITY), err);
    }
    case OIK_SIG_RELU_I: {
      const int64_t alpha =
          setting(s, "alpha") ? s_int(s, "alpha", 0) : s_int(s, "negative_slope", 0);
      const int has_min = isfinite(s_float(s, "clamp_min", -INFINITY));
      const int has_max = isfinite(s_float(s, "clamp_max", INFINITY));
      return ((oik_sig_relu_i)k->fn)(&in[0], y, alpha, has_min,
                                     has_min ? s_int(s, "clamp_min", 0) : 0, has_max,
                                     has_max ? s_int(s, "clamp_max", 0) : 0, err);
    }
    case OIK_SIG_SHIFT:
      return ((oik_sig_shift)k->fn)(&in[0], y, s_int(s, "bits", 0), err);
    case OIK_SIG_FILL_F:
      return ((oik_sig_fill_f)k->fn)(y, s_float(s, "value", 0), err);
    case OIK_SIG_FILL_I:
      return ((oik_sig_fill_i)k->fn)(
          y, t == OIK_BOOL ? s_float(s, "value", 0) != 0 : s_int(s, "value", 0), err);
    case OIK_SIG_REDUCE: {
      const int64_t* axes = s_list(s, "axes", l1, &c1);
      return ((oik_sig_reduce)k->fn)(&in[0], y, axes, axes ? (int64_t)c1 : -1, err);
    }
    case OIK_SIG_ARG:
      return ((oik_sig_arg)k->fn)(&in[0], y, s_int(s, "axis", 0), (int)s_int(s, "select_first", 1),
                                  err);
    case OIK_SIG_CAST: {
      const char* r = s_string(s, "rounding_mode", "trunc");
      const oik_rounding rounding = !strcmp(r, "floor")          ? OIK_ROUND_FLOOR
                                    : !strcmp(r, "ceil")         ? OIK_ROUND_CEIL
                                    : !strcmp(r, "nearest_even") ? OIK_ROUND_NEAREST_EVEN
                                                                 : OIK_ROUND_TRUNC;
      return ((oik_sig_cast)k->fn)(&in[0], y, rounding, (int)s_int(s, "saturate", 1), err);
    }
    case OIK_SIG_GELU:
      return ((oik_sig_gelu)k->fn)(
          &in[0], y,
          strcmp(s_string(s, "approximate", "none"), "tanh") ? OIK_GELU_NONE : OIK_GELU_TANH, err);
    case OIK_SIG_AXIS:
      return ((oik_sig_axis)k->fn)(&in[0], y, s_int(s, "axis", -1), err);
    case OIK_SIG_LAYER_NORM:
      return ((oik_sig_layer_norm)k->fn)(&in[0], &in[1], n > 2 ? &in[2] : NULL, y,
                                         s_int(s, "axis", -1), s_float(s, "epsilon", 1e-5), err);
    case OIK_SIG_RMS_NORM:
      return ((oik_sig_rms_norm)k->fn)(&in[0], &in[1], y, s_int(s, "axis", -1),
                                       s_float(s, "epsilon", 1e-6), err);
    case OIK_SIG_BATCH_NORM:
      return ((oik_sig_batch_norm)k->fn)(&in[0], &in[1], &in[2], &in[3], &in[4], y,
                                         s_float(s, "epsilon", 1e-5), err);
    case OIK_SIG_TRANSPOSE:
      return ((oik_sig_transpose)k->fn)(&in[0], y, s_list(s, "perm", l1, NULL), err);
    case OIK_SIG_CONCAT: {
      const oik_tensor* xs[16];
      for (uint32_t i = 0; i < n; ++i) xs[i] = &in[i];
      return ((oik_sig_concat)k->fn)(xs, n, y, s_int(s, "axis", 0), err);
    }
    case OIK_SIG_SLICE: {
      const int64_t* starts = s_list(s, "starts", l1, &c1); /* sets c1 before the call */
      return ((oik_sig_slice)k->fn)(&in[0], y, starts, s_list(s, "ends", l2, NULL),
                                    s_list(s, "axes", l3, NULL), s_list(s, "steps", l4, NULL), c1,
                                    err);
    }
    case OIK_SIG_GATHER:
      return ((oik_sig_gather)k->fn)(&in[0], &in[1], y, s_int(s, "axis", 0), err);
    case OIK_SIG_PAD_F:
    case OIK_SIG_PAD_I: {
      const char* m = s_string(s, "mode", "constant");
      const oik_pad_mode mode = !strcmp(m, "reflect") ? OIK_PAD_REFLECT
                                : !strcmp(m, "edge")  ? OIK_PAD_EDGE
                                                      : OIK_PAD_CONSTANT;
      const int64_t* pads = s_list(s, "pads", l1, NULL);
      if (k->sig == OIK_SIG_PAD_F)
        return ((oik_sig_pad_f)k->fn)(&in[0], y, pads, mode, s_float(s, "value", 0), err);
      return ((oik_sig_pad_i)k->fn)(
          &in[0], y, pads, mode, t == OIK_BOOL ? s_float(s, "value", 0) != 0 : s_int(s, "value", 0),
          err);
    }
    case OIK_SIG_CONV:
      return ((oik_sig_conv)k->fn)(&in[0], &in[1], n > 2 ? &in[2] : NULL, y,
                                   s_list(s, "strides", l1, NULL), s_list(s, "pads", l2, NULL),
                                   s_list(s, "dilations", l3, NULL), s_int(s, "group", 1), err);
    case OIK_SIG_MAX_POOL:
      return ((oik_sig_max_pool)k->fn)(&in[0], y, s_list(s, "kernel", l1, NULL),
                                       s_list(s, "strides", l2, NULL), s_list(s, "pads", l3, NULL),
                                       s_list(s, "dilations", l4, NULL), err);
    case OIK_SIG_AVG_POOL:
      return ((oik_sig_avg_pool)k->fn)(&in[0], y, s_list(s, "kernel", l1, NULL),
                                       s_list(s, "strides", l2, NULL), s_list(s, "pads", l3, NULL),
                                       (int)s_int(s, "count_include_pad", 0), err);
    case OIK_SIG_ATTENTION:
      return ((oik_sig_attention)k->fn)(&in[0], &in[1], &in[2], n > 3 ? &in[3] : NULL, y,
                                        setting(s, "scale") != NULL, s_float(s, "scale", 0),
                                        (int)s_int(s, "causal", 0), err);
    case OIK_SIG_ROPE:
      return ((oik_sig_rope)k->fn)(&in[0], &in[1], y, s_float(s, "theta", 10000),
                                   (int)s_int(s, "interleaved", 0), err);
    case OIK_SIG_DEQUANTIZE:
      return ((oik_sig_dequantize)k->fn)(&in[0], &in[1], n > 2 ? &in[2] : NULL, y,
                                         s_int(s, "axis", 1), err);
    case OIK_SIG_MATMUL: {
      const size_t bytes = oik_matmul_scratch_size(&in[0], &in[1], y);
      void* scratch = bytes ? xmalloc(bytes) : NULL;
      const int rc = ((oik_sig_matmul)k->fn)(&in[0], &in[1], y, scratch, err);
      free(scratch);
      return rc;
    }
  }
  (void)is_float;
  fprintf(stderr, "%s: unknown signature class %u\n", op, k->sig);
  return -1;
}

/*===--- Comparison (cpu_kernels_test.cpp's rules) ----------------------------------------===*/

static int64_t ordered_bits(uint64_t bits, unsigned width) {
  const uint64_t sign = (uint64_t)1 << (width - 1);
  return (bits & sign) ? -(int64_t)(bits & ~sign) : (int64_t)bits;
}

static int narrow_special(uint32_t t, unsigned bits) {
  if (t == OIK_F16) return (bits & 0x7c00) == 0x7c00;
  if (t == OIK_BF16) return (bits & 0x7f80) == 0x7f80;
  return (bits & 0x7c) == 0x7c;
}
static int narrow_nan(uint32_t t, unsigned bits) {
  if (t == OIK_F16) return (bits & 0x7c00) == 0x7c00 && (bits & 0x03ff) != 0;
  if (t == OIK_BF16) return (bits & 0x7f80) == 0x7f80 && (bits & 0x007f) != 0;
  return (bits & 0x7c) == 0x7c && (bits & 0x03) != 0;
}

static int quiet = 0;

/* Number of differing elements (up to a few reported on stderr). */
static int compare(const char* key, uint32_t t, const unsigned char* got, const unsigned char* want,
                   size_t size, const jv* c) {
  const jv* tol = jget(c, "tolerance");
  const jv* ulpv = jget(c, "ulp");
  const double atol = tol ? jnum(tol->items[0]) : 0, rtol = tol ? jnum(tol->items[1]) : 0;
  const int has_ulp = ulpv != NULL;
  const int64_t ulp = ulpv ? jint(ulpv) : 0;
  int bad = 0;
  if (t == OIK_F32 || t == OIK_F64) {
    const size_t w = t == OIK_F32 ? 4 : 8;
    for (size_t i = 0; i < size / w; ++i) {
      double g, e;
      uint64_t gb = 0, eb = 0;
      memcpy(&gb, got + i * w, w);
      memcpy(&eb, want + i * w, w);
      if (w == 4) {
        float gf, ef;
        memcpy(&gf, got + i * w, 4);
        memcpy(&ef, want + i * w, 4);
        g = gf;
        e = ef;
      } else {
        memcpy(&g, got + i * w, 8);
        memcpy(&e, want + i * w, 8);
      }
      int ok;
      if (isnan(e)) {
        ok = isnan(g);
      } else if (tol && isfinite(e)) {
        ok = fabs(g - e) <= atol + rtol * fabs(e);
      } else if (has_ulp && isfinite(e)) {
        const int64_t d = ordered_bits(gb, (unsigned)w * 8) - ordered_bits(eb, (unsigned)w * 8);
        ok = isfinite(g) && llabs(d) <= ulp;
      } else {
        ok = gb == eb;
      }
      if (!ok && bad++ < 3 && !quiet)
        fprintf(stderr, "%s element %zu: got %.17g, want %.17g\n", key, i, g, e);
    }
    return bad;
  }
  if (t == OIK_F16 || t == OIK_BF16 || t == OIK_F8) {
    const size_t w = t == OIK_F8 ? 1 : 2;
    for (size_t i = 0; i < size / w; ++i) {
      unsigned g = 0, e = 0;
      memcpy(&g, got + i * w, w);
      memcpy(&e, want + i * w, w);
      int ok = narrow_nan(t, e) ? narrow_nan(t, g) : g == e;
      if (!ok && has_ulp && !narrow_special(t, e) && !narrow_special(t, g))
        ok = llabs(ordered_bits(g, (unsigned)w * 8) - ordered_bits(e, (unsigned)w * 8)) <= ulp;
      if (!ok && bad++ < 3 && !quiet)
        fprintf(stderr, "%s element %zu: got bits 0x%x, want 0x%x\n", key, i, g, e);
    }
    return bad;
  }
  for (size_t i = 0; i < size; ++i) {
    if (got[i] != want[i] && bad++ < 3 && !quiet)
      fprintf(stderr, "%s byte %zu: got 0x%02x, want 0x%02x\n", key, i, got[i], want[i]);
  }
  return bad;
}

/*===--- Kernel keys and the report -------------------------------------------------------===*/

enum { K_PASS, K_FAIL, K_MISSING };

typedef struct {
  char key[256];
  int state;
} keyrec;

static keyrec* keys;
static size_t nkeys, capkeys;

static keyrec* key_record(const char* key) {
  for (size_t i = nkeys; i-- > 0;)
    if (!strcmp(keys[i].key, key)) return &keys[i];
  if (nkeys == capkeys) {
    capkeys = capkeys ? 2 * capkeys : 1024;
    keyrec* k = xmalloc(capkeys * sizeof *k);
    if (nkeys) memcpy(k, keys, nkeys * sizeof *k);
    free(keys);
    keys = k;
  }
  keyrec* r = &keys[nkeys++];
  snprintf(r->key, sizeof r->key, "%s", key);
  r->state = K_PASS;
  return r;
}

static char* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* text = xmalloc((size_t)n + 1);
  if (fread(text, 1, (size_t)n, f) != (size_t)n) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(2);
  }
  fclose(f);
  text[n] = 0;
  *size = (size_t)n;
  return text;
}

static int cmp_names(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

static long passed, failed, missing_cases;

static void run_file(const char* path) {
  size_t size;
  char* text = read_file(path, &size);
  jparser j = {text, text + size, 0};
  jv* root = jparse(&j);
  const jv* cases = jget(root, "cases");
  if (j.failed || !cases) {
    fprintf(stderr, "%s: not a cases file\n", path);
    exit(2);
  }
  for (size_t ci = 0; ci < cases->count; ++ci) {
    const jv* c = cases->items[ci];
    const char* op = jget(c, "op")->text;
    const char* mode_name = jget(c, "mode")->text;
    const uint32_t mode = !strcmp(mode_name, "inplace")      ? OIK_MODE_INPLACE
                          : !strcmp(mode_name, "accumulate") ? OIK_MODE_ACCUMULATE
                                                             : OIK_MODE_NORMAL;
    const jv* ins = jget(c, "inputs");
    uint32_t n = (uint32_t)ins->count;
    operand in[16], want;
    uint32_t dts[16];
    for (uint32_t i = 0; i < n; ++i) {
      read_operand(ins->items[i], &in[i]);
      dts[i] = in[i].dtype;
    }
    read_operand(jget(c, "output"), &want);
    char key[256];
    size_t len = (size_t)snprintf(key, sizeof key, "%s(", op);
    for (uint32_t i = 0; i < n; ++i)
      len += (size_t)snprintf(key + len, sizeof key - len, "%s%s", i ? "," : "",
                              oik_dtype_name(dts[i]));
    snprintf(key + len, sizeof key - len, ")->%s %s", oik_dtype_name(want.dtype), mode_name);
    keyrec* rec = key_record(key);
    const oik_kernel* k = oik_find_kernel(op, dts, n, want.dtype, mode);
    if (!k) {
      rec->state = K_MISSING;
      ++missing_cases;
    } else {
      oik_tensor views[16];
      for (uint32_t i = 0; i < n; ++i) views[i] = view(&in[i], in[i].bytes);
      unsigned char* out;
      const jv* alias = jget(c, "inplace_input");
      if (alias) {
        out = in[jint(alias)].bytes;
      } else {
        out = xmalloc(want.size);
        memset(out, 0, want.size);
      }
      oik_tensor y = view(&want, out);
      oik_error err = {0, {0}};
      settings s = {jget(c, "settings")};
      const int rc = call_kernel(k, op, views, n, &y, s, &err);
      int bad;
      if (rc != 0) {
        if (!quiet) fprintf(stderr, "%s: error %d: %s\n", key, rc, err.message);
        bad = 1;
      } else {
        bad = compare(key, want.dtype, out, want.bytes, want.size, c);
      }
      if (bad) {
        rec->state = K_FAIL;
        ++failed;
        if (!quiet) fprintf(stderr, "FAIL %s (case %zu of %s)\n", key, ci, path);
      } else {
        ++passed;
      }
      if (!alias) free(out);
    }
    for (uint32_t i = 0; i < n; ++i) free(in[i].bytes);
    free(want.bytes);
  }
  jfree(root);
  free(text);
}

/*===--- Checks the cases do not make: errors, unaligned data, NULL errors ----------------===*/

static void check(int ok, const char* what) {
  if (ok) {
    ++passed;
  } else {
    ++failed;
    fprintf(stderr, "FAIL self-check: %s\n", what);
  }
}

static void self_checks(void) {
  /* gather: an index out of range is an error naming the op, the index and the bound; all
   * indices are checked before anything is written. */
  {
    const float data[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    float out[4] = {-1, -1, -1, -1};
    const uint64_t ddims[2] = {4, 2}, idims[1] = {2}, odims[2] = {2, 2};
    const int64_t bad[2][2] = {{1, 4}, {1, -5}};
    const char* want[2] = {"gather: index 4 is out of range for axis 0 of size 4 (allowed -4..3)",
                           "gather: index -5 is out of range for axis 0 of size 4"};
    for (int c = 0; c < 2; ++c) {
      oik_tensor d = {(void*)data, OIK_F32, 2, ddims}, i = {(void*)bad[c], OIK_I64, 1, idims};
      oik_tensor y = {out, OIK_F32, 2, odims};
      oik_error err = {0, {0}};
      const int rc = oik_gather_f32(&d, &i, &y, 0, &err);
      check(rc == OIK_ERR_INVALID_ARGUMENT && err.code == rc && strstr(err.message, want[c]),
            "gather index out of range");
      check(out[0] == -1 && out[3] == -1, "gather writes nothing on an error");
      check(oik_gather_f32(&d, &i, &y, 0, NULL) == OIK_ERR_INVALID_ARGUMENT,
            "an error without an oik_error");
    }
  }
  /* max/min/argmax over an empty axis are errors (ops.md). */
  {
    float in[1] = {0}, out[2] = {0};
    const uint64_t xdims[2] = {2, 0}, ydims[1] = {2};
    const int64_t axes[1] = {1};
    oik_tensor x = {in, OIK_F32, 2, xdims}, y = {out, OIK_F32, 1, ydims};
    int64_t idx[2];
    oik_tensor yi = {idx, OIK_I64, 1, ydims};
    oik_error err = {0, {0}};
    check(oik_max_axis_f32(&x, &y, axes, 1, &err) == OIK_ERR_INVALID_ARGUMENT &&
              strstr(err.message, "over an empty axis"),
          "max_axis over an empty axis");
    check(oik_argmin_axis_f32(&x, &yi, 1, 1, &err) == OIK_ERR_INVALID_ARGUMENT,
          "argmin_axis over an empty axis");
    check(oik_sum_axis_f32(&x, &y, axes, 1, &err) == OIK_OK && out[0] == 0 && out[1] == 0,
          "sum_axis over an empty axis is 0");
  }
  /* matmul in place needs its scratch. */
  {
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1};
    const uint64_t dims[2] = {2, 2};
    oik_tensor ta = {a, OIK_F32, 2, dims}, tb = {b, OIK_F32, 2, dims};
    oik_error err = {0, {0}};
    check(oik_matmul_scratch_size(&ta, &tb, &ta) == 4 * 8, "matmul scratch size in place");
    check(oik_matmul_scratch_size(&ta, &tb, &tb) == 4 * 8, "matmul scratch size in place");
    check(oik_matmul_f32(&ta, &tb, &ta, NULL, &err) == OIK_ERR_INVALID_ARGUMENT,
          "matmul in place without scratch");
  }
  /* Ranks above OIK_MAX_RANK are refused, never overrun. */
  {
    uint64_t dims[OIK_MAX_RANK + 1];
    for (int k = 0; k <= OIK_MAX_RANK; ++k) dims[k] = 1;
    float a = 1, b = 2, c = 0;
    oik_tensor ta = {&a, OIK_F32, OIK_MAX_RANK + 1, dims},
               tb = {&b, OIK_F32, OIK_MAX_RANK + 1, dims};
    oik_tensor tc = {&c, OIK_F32, OIK_MAX_RANK + 1, dims};
    oik_error err = {0, {0}};
    check(oik_add_f32(&ta, &tb, &tc, &err) == OIK_ERR_UNIMPLEMENTED, "rank above OIK_MAX_RANK");
  }
  /* rope needs an even last dim. */
  {
    float x[3] = {0}, y[3];
    int32_t pos = 0;
    const uint64_t dims[2] = {1, 3};
    oik_tensor tx = {x, OIK_F32, 2, dims}, ty = {y, OIK_F32, 2, dims},
               tp = {&pos, OIK_I32, 0, NULL};
    oik_error err = {0, {0}};
    check(oik_rope_f32(&tx, &tp, &ty, 10000, 0, &err) == OIK_ERR_INVALID_ARGUMENT &&
              strstr(err.message, "rope: the last dim must be even, got 3"),
          "rope with an odd last dim");
  }
  /* Tensors at any byte offset (a view into a mapped model file), normal and in place: relu
   * with alpha 0 gives +0.0 for negatives and -0.0. */
  {
    unsigned char model[1 + 5 * 4], out[1 + 5 * 4];
    const float values[5] = {-2.0f, -0.0f, 0.5f, 3.0f, -7.25f}, want[5] = {0, 0, 0.5f, 3.0f, 0};
    memcpy(model + 1, values, sizeof values);
    const uint64_t dims[1] = {5};
    oik_tensor x = {model + 1, OIK_F32, 1, dims}, y = {out + 1, OIK_F32, 1, dims};
    check(oik_relu_f32(&x, &y, 0, -INFINITY, INFINITY, NULL) == 0 &&
              memcmp(out + 1, want, sizeof want) == 0,
          "relu on unaligned data");
    check(oik_relu_f32(&x, &x, 0, -INFINITY, INFINITY, NULL) == 0 &&
              memcmp(model + 1, want, sizeof want) == 0,
          "relu in place on unaligned data");
  }
  /* Packed outputs leave the bits past the last element alone. */
  {
    unsigned char a = 0x21, b = 0x13, y = 0xf0; /* i4 [1, 2] + [3, 1], y's high nibble unused */
    const uint64_t dims[1] = {1};
    oik_tensor ta = {&a, OIK_I4, 1, dims}, tb = {&b, OIK_I4, 1, dims}, ty = {&y, OIK_I4, 1, dims};
    check(oik_add_i4(&ta, &tb, &ty, NULL) == 0 && y == 0xf4, "packed store keeps its neighbours");
  }
}

int main(int argc, char** argv) {
  const char* dir = NULL;
  const char* report = NULL;
  int require_all = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--report") && i + 1 < argc) {
      report = argv[++i];
    } else if (!strcmp(argv[i], "--require-all")) {
      require_all = 1;
    } else if (!strcmp(argv[i], "--quiet")) {
      quiet = 1;
    } else {
      dir = argv[i];
    }
  }
  if (!dir) {
    fprintf(stderr,
            "usage: run_cases PLUGIN_TESTS_DIR [--report FILE] [--require-all] [--quiet]\n");
    return 2;
  }
  self_checks();
  char path[4096];
  snprintf(path, sizeof path, "%s/cpu_kernel_cases.json", dir);
  run_file(path);
  snprintf(path, sizeof path, "%s/cases", dir);
  DIR* d = opendir(path);
  char* names[256];
  size_t nn = 0;
  if (d) {
    struct dirent* e;
    while ((e = readdir(d)) && nn < 256) {
      const size_t l = strlen(e->d_name);
      if (l > 5 && !strcmp(e->d_name + l - 5, ".json")) {
        names[nn] = xmalloc(l + 1);
        memcpy(names[nn++], e->d_name, l + 1);
      }
    }
    closedir(d);
  }
  qsort(names, nn, sizeof names[0], cmp_names);
  for (size_t i = 0; i < nn; ++i) {
    snprintf(path, sizeof path, "%s/cases/%s", dir, names[i]);
    run_file(path);
    free(names[i]);
  }
  long per_mode[3][3] = {{0}};
  for (size_t i = 0; i < nkeys; ++i) {
    const char* m = strrchr(keys[i].key, ' ') + 1;
    const int mode = !strcmp(m, "inplace") ? 1 : !strcmp(m, "accumulate") ? 2 : 0;
    per_mode[mode][keys[i].state]++;
  }
  if (report) {
    FILE* f = strcmp(report, "-") ? fopen(report, "w") : stdout;
    if (!f) {
      fprintf(stderr, "cannot write %s\n", report);
      return 2;
    }
    static const char* names_of[] = {"pass", "fail", "missing"};
    for (size_t i = 0; i < nkeys; ++i) fprintf(f, "%s\t%s\n", keys[i].key, names_of[keys[i].state]);
    if (f != stdout) fclose(f);
  }
  static const char* modes[] = {"normal", "inplace", "accumulate"};
  for (int m = 0; m < 3; ++m) {
    const long total = per_mode[m][0] + per_mode[m][1] + per_mode[m][2];
    printf("%s: %ld of %ld kernels pass their cases (%ld failing, %ld missing)\n", modes[m],
           per_mode[m][K_PASS], total, per_mode[m][K_FAIL], per_mode[m][K_MISSING]);
  }
  if (missing_cases) printf("%ld cases skipped: their kernel is missing\n", missing_cases);
  free(keys);
  printf("%ld passed, %ld failed\n", passed, failed);
  const long missing_keys = per_mode[0][2] + per_mode[1][2] + per_mode[2][2];
  return failed || (require_all && missing_keys) ? 1 : 0;
}
