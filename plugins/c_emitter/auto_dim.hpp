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
  uint64_t esize = 0;
};

// What the generated C of an access needs from the generator.
struct AutoDimContext {
  std::function<std::string(const std::string&)> index_c;  // C of an index name
  std::string prefix, at, stop, indent;                    // NAME, "FILE:L:C", goto/return
};

// The support functions (static, OI_HELPER).
std::string auto_dim_c();

// cache.read ACCESS >> var (write = false) or cache.write var >> ACCESS (write = true), `var`
// of `var_shape`: scalar auto indices grow the matrix and take it whole, slices take a part.
std::string auto_dim_access(const AutoDimDecl& m, const AccessText& access, const std::string& var,
                            const std::vector<uint64_t>& var_shape, bool write,
                            const AutoDimContext& ctx);

}  // namespace oi::c_emitter
