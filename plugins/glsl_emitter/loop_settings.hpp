// Settings that name a loop index (`loop (i in 0..3) { op fill(v, value=i) >> v; }`, dsl.md):
// a shader's settings are constants in its code, so such a kernel is written once per value
// the indices take, each copy with the setting given as that integer (exactly as a literal
// setting), and the host program picks the copy for the indices' current values at each
// dispatch (the manifest step's `select`), where the values are known at synthesis (loop bounds
// that are integers, size variables or outer loop indices) and at most kMaxIndexedCopies.
// Otherwise the kernel is `runtime`: it runs the Vulkan backend's kernels, whose params words
// the host program sets from the index at each dispatch (loop_setting_params.hpp).
#pragma once

#include <boost/json.hpp>
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
  // After finite_classes: the indices (not in `by`) that name number settings only, set at
  // run time through params words in every copy; those of `by` (bool settings) that also name
  // number settings, set so in the copies where they are nonzero; `runtime` as it was.
  std::vector<std::string> params, patched;
  std::string why;
  // Per index of `by`, how the host maps its value to a row of `values` (empty: as it is;
  // "bool": 0 or 1, its value being nonzero; {"axis": R, "message": M}: the axis made
  // non-negative, a value outside [-R, R) the error M with {value}; its "errors" by value, or
  // with "keep": J by value and index J's keepdims, "V/0" or "V/1"), where the indices name
  // only settings of a finite domain (finite_classes).
  boost::json::array classes;
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

// The catalog's bool settings (a loop index's value taken as nonzero).
bool bool_setting(const std::string& key);

// Copy `row` of `ik.values` of kernel `k`, as kernel `id`: each setting naming an index of
// `ik.by` given that row's value, but a `patched` index's number settings where it is nonzero;
// `left` the indices still named (record_runtime_index sets them through params words).
KernelIn indexed_copy(const KernelIn& k, const IndexedKernel& ik, size_t row, uint32_t id,
                      std::vector<std::string>& left);

// A `runtime` kernel whose indices name settings of a finite domain becomes one copy per
// combination of their values, picked by the indices' values mapped into the domain
// (`classes`): bool settings (the catalog's `keepdims`, `select_first`, `saturate`,
// `count_include_pad`, `causal`, `interleaved`: any nonzero integer is true, as the simulator's
// setting_value takes it) false and true; the `axis` of an op (loop_setting_domains.hpp: each
// axis, or each value in [-R, R) where the index names other settings too, which then take the
// value itself; a value out of range, or one that does not fit the op's shape rule or the
// output, is the simulator's error there); conv's `group` (its one value that fits). Indices
// naming number settings only are left to params words (`params`), as are the number settings
// of an index naming bool ones too where it is nonzero (`patched`). `ik` rewritten (`by` the
// indices of a finite domain), true; false (ik unchanged) where no index is of a finite domain
// or one names a setting of another op or rule; glsl_gap where the copies would be more than
// kMaxIndexedCopies.
bool finite_classes(const PlanIn& plan, const KernelIn& k, IndexedKernel& ik);

}  // namespace oi::glsl
