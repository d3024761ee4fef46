/* OpenInfer's portable C11 kernel library (docs/c-kernels.md): one entry point per catalog
 * (op, dtypes) with the semantics of docs/ops.md and docs/ops-nn.md, the same results as the
 * CPU backend (plugins/cpu), no allocation, no global state, libm only for the transcendental
 * ops.
 *
 * A tensor is a view: a data pointer (any alignment), an oi_dtype tag, a rank and row-major
 * dims. Packed dtypes (i1 i2 i4 u1 u2 u4) are LSB-first in memory and stay packed; bool is one
 * byte read as "non-zero"; bitset is computed like u8. Entry points are named
 * oik_<op>_<dtype> (oik_add_f32), oik_<op>_<in>_<out> for acc= kernels (oik_add_i8_i32) and
 * casts (oik_cast_f32_i8), oik_dequantize_<x>_<scale>. Settings are plain C arguments; every
 * entry point ends with an oik_error* (may be NULL) and returns 0 or an error code that the
 * error's message explains. In-place mode is the same entry point called with the output's
 * data equal to the input of the output's shape. The caller has checked shapes, dtypes and
 * settings against the op's schema as the OpenInfer validator does; kernels still refuse what
 * they cannot run safely (a gather index out of range, a rank above OIK_MAX_RANK). */
#ifndef OI_KERNELS_H
#define OI_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The OINF dtype tags, numbered as plugin_abi.h's oi_dtype. */
/* clang-format off */
typedef enum oik_dtype {
  OIK_I8 = 1, OIK_I16 = 2, OIK_I32 = 3, OIK_I64 = 4,
  OIK_U8 = 5, OIK_U16 = 6, OIK_U32 = 7, OIK_U64 = 8,
  OIK_F16 = 9, OIK_F32 = 10, OIK_F64 = 11,
  OIK_BOOL = 12, OIK_BITSET = 13,
  OIK_BF16 = 16, OIK_F8 = 17,
  OIK_I4 = 18, OIK_I2 = 19, OIK_I1 = 20,
  OIK_U4 = 21, OIK_U2 = 22, OIK_U1 = 23,
  OIK_T2 = 24, OIK_T1 = 25
} oik_dtype;
/* clang-format on */

/* Kernel modes, numbered as plugin_abi.h's oi_kernel_mode. */
typedef enum oik_mode {
  OIK_MODE_NORMAL = 0,    /* the output is a different tensor from every input */
  OIK_MODE_INPLACE = 1,   /* the output's data is the input of the output's shape */
  OIK_MODE_ACCUMULATE = 2 /* acc=: inputs widened exactly to the output's dtype */
} oik_mode;

/* Tensors of a higher rank are refused (OIK_ERR_UNIMPLEMENTED). */
#define OIK_MAX_RANK 16

typedef struct oik_tensor {
  void* data;     /* the first element; inputs are only read */
  uint32_t dtype; /* oik_dtype */
  uint32_t rank;
  const uint64_t* dims; /* rank entries; may be NULL when rank == 0 */
} oik_tensor;

/* Error codes, numbered as plugin_abi.h's oi_status_code. */
enum {
  OIK_OK = 0,
  OIK_ERR_INVALID_ARGUMENT = 1, /* bad operands or settings found at run time */
  OIK_ERR_UNIMPLEMENTED = 3     /* a valid request the library cannot run (rank too high) */
};

typedef struct oik_error {
  int code;
  char message[256];
} oik_error;

/* cast's rounding_mode. */
typedef enum oik_rounding {
  OIK_ROUND_TRUNC = 0,
  OIK_ROUND_FLOOR = 1,
  OIK_ROUND_CEIL = 2,
  OIK_ROUND_NEAREST_EVEN = 3
} oik_rounding;

/* pad's mode. */
typedef enum oik_pad_mode {
  OIK_PAD_CONSTANT = 0,
  OIK_PAD_REFLECT = 1,
  OIK_PAD_EDGE = 2
} oik_pad_mode;

/* gelu's approximate. */
typedef enum oik_gelu_approx { OIK_GELU_NONE = 0, OIK_GELU_TANH = 1 } oik_gelu_approx;

/* The kernel table (oik_table.c): which entry point serves each (op, input dtypes, output
 * dtype, mode) of the catalog, and its C signature class (OIK_SIG_*, oi_kernels_ops.h). */
typedef void (*oik_fn)(void);
typedef struct oik_kernel {
  const char* op;
  uint32_t num_inputs;
  uint8_t inputs[16]; /* oik_dtype tags */
  uint32_t output;
  uint32_t mode; /* oik_mode */
  uint32_t sig;  /* OIK_SIG_* */
  const char* symbol;
  oik_fn fn; /* cast to the signature class's function type before calling */
} oik_kernel;

extern const oik_kernel oik_kernels[];
extern const uint32_t oik_kernel_count;

/* The table entry of a kernel, or NULL. */
const oik_kernel* oik_find_kernel(const char* op, const uint32_t* inputs, uint32_t num_inputs,
                                  uint32_t output, uint32_t mode);

/* A dtype's catalog name ("f32"), or NULL for an unknown tag. */
const char* oik_dtype_name(uint32_t dtype);

#ifdef __cplusplus
}
#endif

#include "oi_kernels_ops.h"

#endif
