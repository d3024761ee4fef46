// @auto_dim matrices (`M(i, j): f32[D, H] @auto_dim(i, j)`, dsl.md) in generated C: the
// run-time support (oi_auto: the matrix in its current shape, regrown with its cells kept in
// place) and the C of the cache operations on one, with the simulator's checks.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tables.hpp"

namespace oi::c_emitter {

struct AutoDimDecl {
  std::string name, dtype;
  std::vector<std::string> indices;  // the auto axes, leading axes of the matrix
  std::vector<int64_t> bounds;       // @fixed bound per auto axis, -1 where it grows
  std::vector<uint64_t> base;        // the declared shape
  uint64_t esize = 0;                // a cell's bytes (1 for a packed dtype, its bits in the cell)
  unsigned bits = 0;                 // a packed dtype's bits; 0 otherwise
  // A table of matrices (`C(l, i, j) @table @fixed(l=2) @auto_dim(i, j)`): the @table indices
  // before the auto ones and their @fixed bounds; s->a_NAME holds one matrix per key,
  // row-major. Empty for a plain matrix (one oi_auto).
  std::vector<std::string> table_indices;
  std::vector<int64_t> table_bounds;
  // A @table index without @fixed (bound -1): s->a_NAME is grown at run time (oi_adt_reserve),
  // s->ac_NAME its capacities, s->as_NAME the sizes (s->au_NAME: at the step's start),
  // s->ap_NAME the fresh matrix a key past the capacities reads as. Hosted only.
  bool growable() const {
    for (int64_t b : table_bounds)
      if (b < 0) return true;
    return false;
  }
  // The matrices s->a_NAME holds (@fixed bounds only).
  uint64_t entries() const {
    uint64_t n = 1;
    for (int64_t b : table_bounds) n *= static_cast<uint64_t>(b);
    return n;
  }
};

// What the generated C of an access needs from the generator.
struct AutoDimContext {
  std::function<std::string(const std::string&)> index_c;  // C of an index name
  std::string prefix, at, stop, indent;                    // NAME, "FILE:L:C", goto/return
};

// A read: zero padded into a larger destination (cache.read, as the simulator) or only into
// one of its shape (a transfer, whose store checks the shape); where a shape that does not
// fit the destination is reported (empty: `at`); and that message, around the shape read,
// when the destination is not `var` (empty: "cannot store DTYPE" ... " into 'VAR' of ...").
struct AutoDimRead {
  bool pad = true;
  std::string store_at, mismatch_pre, mismatch_post;
};

// The support functions (static, OI_HELPER), for matrices of `rank` dims at most (>= 8).
std::string auto_dim_c(size_t rank);

// The C of NAME_fetch for a table of matrices: the matrices stacked into s->af_NAME (equal
// shapes, else the simulator's error), `*data` and `*bytes` set; `prefix` is the program's name;
// the code runs where `w` is the (non-const) state. A growable table: the keys within its sizes,
// a key past them read as the fresh matrix.
std::string auto_dim_fetch_stacked(const AutoDimDecl& m, const std::string& prefix);

// The other side of an access whose shape is known only at run time (an op's operand or result
// in a kernel of run-time shapes, runtime_kernel.hpp): C names of its bytes (`unsigned char*`)
// and of its dims (`int64_t[OI_AD_RANK]`) and rank (`uint32_t`). A read mallocs `data` (the
// caller frees it; NULL before) and sets the dims and rank to the box read; a write stores
// `data` of those dims.
struct AutoDimRuntime {
  std::string data, dims, rank;
};

// cache.read ACCESS >> var (write = false) or cache.write var >> ACCESS (write = true), `var`
// of `var_shape`: scalar auto indices grow the matrix and take it whole, slices take a part.
// With `rt` (a plain matrix only), the other side is rt's instead of var's.
std::string auto_dim_access(const AutoDimDecl& m, const AccessText& access, const std::string& var,
                            const std::vector<uint64_t>& var_shape, bool write,
                            const AutoDimContext& ctx, const AutoDimRead& read = AutoDimRead(),
                            const AutoDimRuntime* rt = nullptr);

}  // namespace oi::c_emitter
