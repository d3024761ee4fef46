/* Element access per dtype, the pieces the op files instantiate their dtype variants from.
 * For each dtype token T (f8 bf16 f16 f32 f64 i8 ... u64 i1 i2 i4 u1 u2 u4 bool bitset):
 *   OIK_TAG_T, OIK_ISF_T (float), OIK_ISD_T (f64), OIK_SIGNED_T, OIK_BITS_T, OIK_ISBOOL_T
 *   oik_ct_T                 the compute type: float for f8/bf16/f16/f32, double for f64,
 *                            int64_t for integers, bool and bitset
 *   oik_ldc_T / oik_stc_T    element i in/out of the compute type (narrow floats widen
 *                            exactly and round once to nearest even; integers sign- or
 *                            zero-extend and store their low bits; bool is 0/1, stores v != 0)
 *   oik_ldf_T / oik_ldd_T / oik_ldi_T and oik_stf_T / oik_std_T / oik_sti_T
 *                            the same as float, double or int64 whatever the class
 *   oik_ldb_T / oik_stb_T    the element's raw bits
 * Every access is a memcpy (any alignment); packed dtypes read and write their bits in place,
 * element i in byte i / (8 / bits) at bit (i % (8 / bits)) * bits. The oik_ld_*_dt/oik_st_*_dt
 * functions do the same for a dtype tag known only at run time. */
#ifndef OIK_DTYPE_H
#define OIK_DTYPE_H

#include "oik_base.h"

/* IEEE f32/f64 stored as themselves. */
#define OIK_DEF_IEEE(T, CT, UT)                                  \
  typedef CT oik_ct_##T;                                         \
  OIK_INLINE CT oik_ldc_##T(const void* p, uint64_t i) {         \
    CT v;                                                        \
    memcpy(&v, (const char*)p + i * sizeof(CT), sizeof(CT));     \
    return v;                                                    \
  }                                                              \
  OIK_INLINE void oik_stc_##T(void* p, uint64_t i, CT v) {       \
    memcpy((char*)p + i * sizeof(CT), &v, sizeof(CT));           \
  }                                                              \
  OIK_INLINE float oik_ldf_##T(const void* p, uint64_t i) {      \
    return (float)oik_ldc_##T(p, i);                             \
  }                                                              \
  OIK_INLINE double oik_ldd_##T(const void* p, uint64_t i) {     \
    return (double)oik_ldc_##T(p, i);                            \
  }                                                              \
  OIK_INLINE int64_t oik_ldi_##T(const void* p, uint64_t i) {    \
    return oik_f64_to_i64_sat(oik_ldc_##T(p, i));                \
  }                                                              \
  OIK_INLINE void oik_stf_##T(void* p, uint64_t i, float v) {    \
    oik_stc_##T(p, i, (CT)v);                                    \
  }                                                              \
  OIK_INLINE void oik_std_##T(void* p, uint64_t i, double v) {   \
    oik_stc_##T(p, i, (CT)v);                                    \
  }                                                              \
  OIK_INLINE void oik_sti_##T(void* p, uint64_t i, int64_t v) {  \
    oik_stc_##T(p, i, (CT)v);                                    \
  }                                                              \
  OIK_INLINE uint64_t oik_ldb_##T(const void* p, uint64_t i) {   \
    UT v;                                                        \
    memcpy(&v, (const char*)p + i * sizeof(UT), sizeof(UT));     \
    return v;                                                    \
  }                                                              \
  OIK_INLINE void oik_stb_##T(void* p, uint64_t i, uint64_t b) { \
    UT v = (UT)b;                                                \
    memcpy((char*)p + i * sizeof(UT), &v, sizeof(UT));           \
  }

/* Narrow floats: UT storage, WIDEN to f32 exactly, FROM32/FROM64 round once. */
#define OIK_DEF_NARROW(T, UT, WIDEN, FROM32, FROM64)             \
  typedef float oik_ct_##T;                                      \
  OIK_INLINE uint64_t oik_ldb_##T(const void* p, uint64_t i) {   \
    UT v;                                                        \
    memcpy(&v, (const char*)p + i * sizeof(UT), sizeof(UT));     \
    return v;                                                    \
  }                                                              \
  OIK_INLINE void oik_stb_##T(void* p, uint64_t i, uint64_t b) { \
    UT v = (UT)b;                                                \
    memcpy((char*)p + i * sizeof(UT), &v, sizeof(UT));           \
  }                                                              \
  OIK_INLINE float oik_ldc_##T(const void* p, uint64_t i) {      \
    return WIDEN((UT)oik_ldb_##T(p, i));                         \
  }                                                              \
  OIK_INLINE void oik_stc_##T(void* p, uint64_t i, float v) {    \
    oik_stb_##T(p, i, FROM32(v));                                \
  }                                                              \
  OIK_INLINE float oik_ldf_##T(const void* p, uint64_t i) {      \
    return oik_ldc_##T(p, i);                                    \
  }                                                              \
  OIK_INLINE double oik_ldd_##T(const void* p, uint64_t i) {     \
    return oik_ldc_##T(p, i);                                    \
  }                                                              \
  OIK_INLINE int64_t oik_ldi_##T(const void* p, uint64_t i) {    \
    return oik_f64_to_i64_sat(oik_ldc_##T(p, i));                \
  }                                                              \
  OIK_INLINE void oik_stf_##T(void* p, uint64_t i, float v) {    \
    oik_stc_##T(p, i, v);                                        \
  }                                                              \
  OIK_INLINE void oik_std_##T(void* p, uint64_t i, double v) {   \
    oik_stb_##T(p, i, FROM64(v));                                \
  }                                                              \
  OIK_INLINE void oik_sti_##T(void* p, uint64_t i, int64_t v) {  \
    oik_std_##T(p, i, oik_int_to_double_odd(v, 1));              \
  }

/* Integer dtypes of BITS bits: whole bytes (ST storage, UT its unsigned twin) or packed. */
#define OIK_DEF_INT_COMMON(T, SIGNED, BITS)                       \
  typedef int64_t oik_ct_##T;                                     \
  OIK_INLINE int64_t oik_ldc_##T(const void* p, uint64_t i) {     \
    return oik_wrap_to((int64_t)oik_ldb_##T(p, i), BITS, SIGNED); \
  }                                                               \
  OIK_INLINE void oik_stc_##T(void* p, uint64_t i, int64_t v) {   \
    oik_stb_##T(p, i, (uint64_t)v);                               \
  }                                                               \
  OIK_INLINE int64_t oik_ldi_##T(const void* p, uint64_t i) {     \
    return oik_ldc_##T(p, i);                                     \
  }                                                               \
  OIK_INLINE float oik_ldf_##T(const void* p, uint64_t i) {       \
    return oik_int_to_f32(oik_ldc_##T(p, i), SIGNED);             \
  }                                                               \
  OIK_INLINE double oik_ldd_##T(const void* p, uint64_t i) {      \
    return oik_int_to_f64(oik_ldc_##T(p, i), SIGNED);             \
  }                                                               \
  OIK_INLINE void oik_sti_##T(void* p, uint64_t i, int64_t v) {   \
    oik_stc_##T(p, i, v);                                         \
  }                                                               \
  OIK_INLINE void oik_std_##T(void* p, uint64_t i, double v) {    \
    oik_stc_##T(p, i, oik_f64_to_i64_sat(v));                     \
  }                                                               \
  OIK_INLINE void oik_stf_##T(void* p, uint64_t i, float v) {     \
    oik_std_##T(p, i, v);                                         \
  }

#define OIK_DEF_INT(T, UT, SIGNED, BITS)                         \
  OIK_INLINE uint64_t oik_ldb_##T(const void* p, uint64_t i) {   \
    UT v;                                                        \
    memcpy(&v, (const char*)p + i * sizeof(UT), sizeof(UT));     \
    return v;                                                    \
  }                                                              \
  OIK_INLINE void oik_stb_##T(void* p, uint64_t i, uint64_t b) { \
    UT v = (UT)b;                                                \
    memcpy((char*)p + i * sizeof(UT), &v, sizeof(UT));           \
  }                                                              \
  OIK_DEF_INT_COMMON(T, SIGNED, BITS)

#define OIK_DEF_PACKED(T, SIGNED, BITS)                                                \
  OIK_INLINE uint64_t oik_ldb_##T(const void* p, uint64_t i) {                         \
    const unsigned char byte = ((const unsigned char*)p)[i / (8 / BITS)];              \
    return (byte >> ((i % (8 / BITS)) * BITS)) & ((1u << BITS) - 1);                   \
  }                                                                                    \
  OIK_INLINE void oik_stb_##T(void* p, uint64_t i, uint64_t b) {                       \
    unsigned char* q = (unsigned char*)p + i / (8 / BITS);                             \
    const unsigned shift = (unsigned)(i % (8 / BITS)) * BITS, mask = (1u << BITS) - 1; \
    *q = (unsigned char)((*q & ~(mask << shift)) | (((unsigned)b & mask) << shift));   \
  }                                                                                    \
  OIK_DEF_INT_COMMON(T, SIGNED, BITS)

/* clang-format off */
OIK_DEF_IEEE(f32, float, uint32_t)
OIK_DEF_IEEE(f64, double, uint64_t)
OIK_DEF_NARROW(f16, uint16_t, oik_f16_to_f32, oik_f32_to_f16, oik_f64_to_f16)
OIK_DEF_NARROW(bf16, uint16_t, oik_bf16_to_f32, oik_f32_to_bf16, oik_f64_to_bf16)
OIK_DEF_NARROW(f8, uint8_t, oik_f8_to_f32, oik_f32_to_f8, oik_f64_to_f8)
OIK_DEF_INT(i8, uint8_t, 1, 8)
OIK_DEF_INT(i16, uint16_t, 1, 16)
OIK_DEF_INT(i32, uint32_t, 1, 32)
OIK_DEF_INT(i64, uint64_t, 1, 64)
OIK_DEF_INT(u8, uint8_t, 0, 8)
OIK_DEF_INT(u16, uint16_t, 0, 16)
OIK_DEF_INT(u32, uint32_t, 0, 32)
OIK_DEF_INT(u64, uint64_t, 0, 64)
OIK_DEF_INT(bitset, uint8_t, 0, 8)
OIK_DEF_PACKED(i1, 1, 1)
OIK_DEF_PACKED(i2, 1, 2)
OIK_DEF_PACKED(i4, 1, 4)
OIK_DEF_PACKED(u1, 0, 1)
OIK_DEF_PACKED(u2, 0, 2)
OIK_DEF_PACKED(u4, 0, 4)

/* bool: one byte, read as non-zero, stored as 0/1. */
typedef int64_t oik_ct_bool;
OIK_INLINE uint64_t oik_ldb_bool(const void* p, uint64_t i) { return ((const unsigned char*)p)[i]; }
OIK_INLINE void oik_stb_bool(void* p, uint64_t i, uint64_t b) { ((unsigned char*)p)[i] = (unsigned char)b; }
OIK_INLINE int64_t oik_ldc_bool(const void* p, uint64_t i) { return oik_ldb_bool(p, i) != 0; }
OIK_INLINE void oik_stc_bool(void* p, uint64_t i, int64_t v) { oik_stb_bool(p, i, v != 0); }
OIK_INLINE int64_t oik_ldi_bool(const void* p, uint64_t i) { return oik_ldc_bool(p, i); }
OIK_INLINE float oik_ldf_bool(const void* p, uint64_t i) { return (float)oik_ldc_bool(p, i); }
OIK_INLINE double oik_ldd_bool(const void* p, uint64_t i) { return (double)oik_ldc_bool(p, i); }
OIK_INLINE void oik_sti_bool(void* p, uint64_t i, int64_t v) { oik_stc_bool(p, i, v); }
OIK_INLINE void oik_stf_bool(void* p, uint64_t i, float v) { oik_stb_bool(p, i, v != 0.0f); }
OIK_INLINE void oik_std_bool(void* p, uint64_t i, double v) { oik_stb_bool(p, i, v != 0.0); }

/* Traits: tag, float class, f64, signedness, width, bool. */
#define OIK_TAG_f8 17
#define OIK_TAG_bf16 16
#define OIK_TAG_f16 9
#define OIK_TAG_f32 10
#define OIK_TAG_f64 11
#define OIK_TAG_i8 1
#define OIK_TAG_i16 2
#define OIK_TAG_i32 3
#define OIK_TAG_i64 4
#define OIK_TAG_u8 5
#define OIK_TAG_u16 6
#define OIK_TAG_u32 7
#define OIK_TAG_u64 8
#define OIK_TAG_bool 12
#define OIK_TAG_bitset 13
#define OIK_TAG_i4 18
#define OIK_TAG_i2 19
#define OIK_TAG_i1 20
#define OIK_TAG_u4 21
#define OIK_TAG_u2 22
#define OIK_TAG_u1 23

#define OIK_ISF_f8 1
#define OIK_ISF_bf16 1
#define OIK_ISF_f16 1
#define OIK_ISF_f32 1
#define OIK_ISF_f64 1
#define OIK_ISF_i8 0
#define OIK_ISF_i16 0
#define OIK_ISF_i32 0
#define OIK_ISF_i64 0
#define OIK_ISF_u8 0
#define OIK_ISF_u16 0
#define OIK_ISF_u32 0
#define OIK_ISF_u64 0
#define OIK_ISF_bool 0
#define OIK_ISF_bitset 0
#define OIK_ISF_i4 0
#define OIK_ISF_i2 0
#define OIK_ISF_i1 0
#define OIK_ISF_u4 0
#define OIK_ISF_u2 0
#define OIK_ISF_u1 0

#define OIK_ISD_f8 0
#define OIK_ISD_bf16 0
#define OIK_ISD_f16 0
#define OIK_ISD_f32 0
#define OIK_ISD_f64 1
#define OIK_ISD_i8 0
#define OIK_ISD_i16 0
#define OIK_ISD_i32 0
#define OIK_ISD_i64 0
#define OIK_ISD_u8 0
#define OIK_ISD_u16 0
#define OIK_ISD_u32 0
#define OIK_ISD_u64 0
#define OIK_ISD_bool 0
#define OIK_ISD_bitset 0
#define OIK_ISD_i4 0
#define OIK_ISD_i2 0
#define OIK_ISD_i1 0
#define OIK_ISD_u4 0
#define OIK_ISD_u2 0
#define OIK_ISD_u1 0

#define OIK_SIGNED_f8 1
#define OIK_SIGNED_bf16 1
#define OIK_SIGNED_f16 1
#define OIK_SIGNED_f32 1
#define OIK_SIGNED_f64 1
#define OIK_SIGNED_i8 1
#define OIK_SIGNED_i16 1
#define OIK_SIGNED_i32 1
#define OIK_SIGNED_i64 1
#define OIK_SIGNED_u8 0
#define OIK_SIGNED_u16 0
#define OIK_SIGNED_u32 0
#define OIK_SIGNED_u64 0
#define OIK_SIGNED_bool 0
#define OIK_SIGNED_bitset 0
#define OIK_SIGNED_i4 1
#define OIK_SIGNED_i2 1
#define OIK_SIGNED_i1 1
#define OIK_SIGNED_u4 0
#define OIK_SIGNED_u2 0
#define OIK_SIGNED_u1 0

#define OIK_BITS_f8 8
#define OIK_BITS_bf16 16
#define OIK_BITS_f16 16
#define OIK_BITS_f32 32
#define OIK_BITS_f64 64
#define OIK_BITS_i8 8
#define OIK_BITS_i16 16
#define OIK_BITS_i32 32
#define OIK_BITS_i64 64
#define OIK_BITS_u8 8
#define OIK_BITS_u16 16
#define OIK_BITS_u32 32
#define OIK_BITS_u64 64
#define OIK_BITS_bool 8
#define OIK_BITS_bitset 8
#define OIK_BITS_i4 4
#define OIK_BITS_i2 2
#define OIK_BITS_i1 1
#define OIK_BITS_u4 4
#define OIK_BITS_u2 2
#define OIK_BITS_u1 1

#define OIK_ISBOOL_f8 0
#define OIK_ISBOOL_bf16 0
#define OIK_ISBOOL_f16 0
#define OIK_ISBOOL_f32 0
#define OIK_ISBOOL_f64 0
#define OIK_ISBOOL_i8 0
#define OIK_ISBOOL_i16 0
#define OIK_ISBOOL_i32 0
#define OIK_ISBOOL_i64 0
#define OIK_ISBOOL_u8 0
#define OIK_ISBOOL_u16 0
#define OIK_ISBOOL_u32 0
#define OIK_ISBOOL_u64 0
#define OIK_ISBOOL_bool 1
#define OIK_ISBOOL_bitset 0
#define OIK_ISBOOL_i4 0
#define OIK_ISBOOL_i2 0
#define OIK_ISBOOL_i1 0
#define OIK_ISBOOL_u4 0
#define OIK_ISBOOL_u2 0
#define OIK_ISBOOL_u1 0

/* Every dtype with element access, as an X-macro list. */
#define OIK_ALL_DTYPES(X) \
  X(f8) X(bf16) X(f16) X(f32) X(f64) X(i8) X(i16) X(i32) X(i64) X(u8) X(u16) X(u32) X(u64) \
  X(bool) X(bitset) X(i1) X(i2) X(i4) X(u1) X(u2) X(u4)
/* clang-format on */

/*===--- Dtype tags known only at run time -----------------------------------------------===*/

#define OIK_DT_CASE_LD(T, KIND) \
  case OIK_TAG_##T:             \
    return oik_ld##KIND##_##T(p, i);
#define OIK_DT_CASE_LDF(T) OIK_DT_CASE_LD(T, f)
#define OIK_DT_CASE_LDD(T) OIK_DT_CASE_LD(T, d)
#define OIK_DT_CASE_LDI(T) OIK_DT_CASE_LD(T, i)
#define OIK_DT_CASE_LDB(T) OIK_DT_CASE_LD(T, b)
#define OIK_DT_CASE_ST(T, KIND)  \
  case OIK_TAG_##T:              \
    oik_st##KIND##_##T(p, i, v); \
    return;
#define OIK_DT_CASE_STF(T) OIK_DT_CASE_ST(T, f)
#define OIK_DT_CASE_STD(T) OIK_DT_CASE_ST(T, d)
#define OIK_DT_CASE_STI(T) OIK_DT_CASE_ST(T, i)
#define OIK_DT_CASE_STB(T) OIK_DT_CASE_ST(T, b)

OIK_INLINE float oik_ldf_dt(uint32_t dt, const void* p, uint64_t i) {
  switch (dt) { OIK_ALL_DTYPES(OIK_DT_CASE_LDF) }
  return 0;
}
OIK_INLINE double oik_ldd_dt(uint32_t dt, const void* p, uint64_t i) {
  switch (dt) { OIK_ALL_DTYPES(OIK_DT_CASE_LDD) }
  return 0;
}
OIK_INLINE int64_t oik_ldi_dt(uint32_t dt, const void* p, uint64_t i) {
  switch (dt) { OIK_ALL_DTYPES(OIK_DT_CASE_LDI) }
  return 0;
}
OIK_INLINE uint64_t oik_ldb_dt(uint32_t dt, const void* p, uint64_t i) {
  switch (dt) { OIK_ALL_DTYPES(OIK_DT_CASE_LDB) }
  return 0;
}
OIK_INLINE void oik_stf_dt(uint32_t dt, void* p, uint64_t i, float v) {
  switch (dt) { OIK_ALL_DTYPES(OIK_DT_CASE_STF) }
}
OIK_INLINE void oik_std_dt(uint32_t dt, void* p, uint64_t i, double v) {
  switch (dt) { OIK_ALL_DTYPES(OIK_DT_CASE_STD) }
}
OIK_INLINE void oik_sti_dt(uint32_t dt, void* p, uint64_t i, int64_t v) {
  switch (dt) { OIK_ALL_DTYPES(OIK_DT_CASE_STI) }
}
OIK_INLINE void oik_stb_dt(uint32_t dt, void* p, uint64_t i, uint64_t v) {
  switch (dt) { OIK_ALL_DTYPES(OIK_DT_CASE_STB) }
}

/* Width in bits of a dtype tag (0 for unknown, t1/t2). */
OIK_INLINE unsigned oik_dt_bits(uint32_t dt) {
#define OIK_DT_CASE_BITS(T) \
  case OIK_TAG_##T:         \
    return OIK_BITS_##T;
  switch (dt) { OIK_ALL_DTYPES(OIK_DT_CASE_BITS) }
#undef OIK_DT_CASE_BITS
  return 0;
}
OIK_INLINE int oik_dt_is_float(uint32_t dt) {
  return dt == OIK_F8 || dt == OIK_BF16 || dt == OIK_F16 || dt == OIK_F32 || dt == OIK_F64;
}

/* Copies `count` consecutive elements of dtype token T, src[si..] -> dst[di..]. */
#define OIK_MOVE(T, dst, di, src, si, count)                                                 \
  do {                                                                                       \
    if (OIK_BITS_##T >= 8) {                                                                 \
      memmove((char*)(dst) + (di) * (OIK_BITS_##T / 8),                                      \
              (const char*)(src) + (si) * (OIK_BITS_##T / 8), (count) * (OIK_BITS_##T / 8)); \
    } else {                                                                                 \
      for (uint64_t mv_k = 0; mv_k < (count); ++mv_k)                                        \
        oik_stb_##T(dst, (di) + mv_k, oik_ldb_##T(src, (si) + mv_k));                        \
    }                                                                                        \
  } while (0)

/* Copies `count` consecutive elements src[si..] -> dst[di..] of one dtype: bytes for whole-byte
 * dtypes, raw bits element by element for packed ones (they stay packed). */
OIK_INLINE void oik_move(uint32_t dt, void* dst, uint64_t di, const void* src, uint64_t si,
                         uint64_t count) {
  const unsigned bits = oik_dt_bits(dt);
  if (count == 0) return;
  if (bits >= 8) {
    const uint64_t size = bits / 8;
    memmove((char*)dst + di * size, (const char*)src + si * size, count * size);
    return;
  }
  for (uint64_t k = 0; k < count; ++k) oik_stb_dt(dt, dst, di + k, oik_ldb_dt(dt, src, si + k));
}

#endif
