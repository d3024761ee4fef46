// Settings that name a loop index (`loop (i in 0..3) { op fill(v, value=i) >> v; }`, dsl.md):
// a shader's settings are constants in its code, so such a kernel is written once per value
// the indices take, each copy with the setting given as that integer (exactly as a literal
// setting), and the host program picks the copy for the indices' current values at each
// dispatch (the manifest step's `select`), where the values are known at synthesis (loop bounds
// that are integers, size variables or outer loop indices) and at most kMaxIndexedCopies.
// Otherwise the kernel is `runtime`: it runs the Vulkan backend's kernels, whose params words
// the host program sets from the index at each dispatch (loop_setting_params.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "plan_input.hpp"

namespace oi::glsl {

struct IndexedKernel {
  std::vector<std::string> by;               // the loop indices its settings name
  std::vector<std::vector<int64_t>> values;  // each combination the loops give them
  std::string runtime;                       // non-empty: why they are known only at run time
};

// The plan's kernels whose settings (after resolve_settings) still name a loop index around
// them, with the values those indices take, or `runtime` where a loop around such a kernel has
// bounds known only at run time or the combinations are more than kMaxIndexedCopies.
std::map<uint32_t, IndexedKernel> indexed_kernels(const PlanIn& plan);

// Kernel `k` with every setting naming one of `by` replaced by that index's value, as kernel
// `id` (the copies are kernels of their own in the manifest).
KernelIn with_index_values(const KernelIn& k, const std::vector<std::string>& by,
                           const std::vector<int64_t>& values, uint32_t id);

constexpr size_t kMaxIndexedCopies = 256;

}  // namespace oi::glsl
