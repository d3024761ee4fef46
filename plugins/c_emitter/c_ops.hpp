// The C emitter's op generators, one family per ops_*.cpp, looked up by op name:
//   - elementwise: the C expression of one element (fused kernels and epilogues);
//   - heads: matmul and reductions, which accumulate before an elementwise epilogue;
//   - single ops: the whole body of a kernel of kind `op` (movement, conv, pools, norms).
#pragma once

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "c_common.hpp"

namespace oi::c_emitter {

struct ElementwiseCall {
  const std::string& op;
  const std::string& dtype;       // the output's
  const std::string& from_dtype;  // input 0's (cast)
  const std::vector<std::string>& args;
  const json::object& settings;
  const std::string& where;  // "op 'add' (line 3)"
};
using ElementwiseFn = std::string (*)(const ElementwiseCall&);

// Writes the accumulation of a matmul or reduction kernel's head into `c` and returns the
// head's output name; `value` is set to the C expression of output element i.
using HeadFn = std::string (*)(KernelEnv& env, const json::object& kernel, std::ostringstream& c,
                               std::string& value);

// Writes a whole single-op kernel: inputs are `p_NAME` (const pointers of their C type), the
// result goes to `o` (never aliasing an input: the caller provides scratch when needed).
using OpFn = void (*)(KernelEnv& env, const json::object& op, std::ostringstream& c);

struct OpTable {
  std::map<std::string, ElementwiseFn> elementwise;
  std::map<std::string, HeadFn> heads;
  std::map<std::string, OpFn> ops;
  // C helper functions a family's code calls (static inline), written once into each NAME.c.
  std::vector<const char*> helpers;
  // Single ops that may fail at run time: they set s->failed (an error code, the message in
  // s->error) and return; the step stops there.
  std::set<std::string> fallible;
  // Elementwise ops whose output dtype differs from their inputs' (comparisons); their inputs
  // share one dtype. `cast` is the other such op.
  std::set<std::string> mixed_dtypes;
};

const OpTable& op_table();

// acc[M, N] += a[M, K] x b[K, N] (row-major C arrays named by the expressions a and b; `acc`
// declared by the caller), by the register blocks of ops_matmul.cpp: each element takes its
// K products in k order. Declares loop variables i0, j0, j1, k, j and locals c0.., a0_0..,
// b0.., v0.. in nested blocks.
struct ProductNames {
  std::string a, b, T;
  uint64_t K, N;
};
void emit_product(std::ostringstream& c, const ProductNames& names, uint64_t M);

// The families (each in its ops_*.cpp).
void register_arith_ops(OpTable& t);
void register_matmul_ops(OpTable& t);
void register_reduce_ops(OpTable& t);
void register_math_ops(OpTable& t);
void register_movement_ops(OpTable& t);
void register_conv_ops(OpTable& t);
void register_pool_ops(OpTable& t);
void register_norm_ops(OpTable& t);
void register_compare_ops(OpTable& t);
void register_attention_ops(OpTable& t);

}  // namespace oi::c_emitter
