// The parts of a synthesizer plan (docs/synth.md, JSON version 1) and of a device description
// (docs/devices.md) the GLSL emitter uses, read from the JSON the host sends. Everything the
// emitter cannot express is refused here or in the writers with an UNIMPLEMENTED status that
// names the value, op or construct, so no partial or wrong code is ever returned.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "refusal.hpp"

namespace oi::glsl {

struct ValueIn {
  std::string name;
  std::string storage;  // dynamic, constant, persistent, step, arena, internal
  std::string dtype;    // f32, f64, i32, u32, bool
  std::vector<uint64_t> shape;
  uint64_t elements = 1;
  uint64_t bytes = 0;
  uint64_t offset = 0;  // arena values
  bool zero_fill = false;
  std::string link;                        // model tensor
  std::optional<boost::json::value> init;  // @init literal (number, bool, "inf", "-inf")
  // Tables (`W(l)`, `K(l, t)`): `shape` and `elements` are one entry's; `bytes` is the whole
  // table's where its size is fixed. `bound` per index, 0 where it grows at run time.
  std::vector<std::string> indices;
  std::vector<uint64_t> bound;
  std::string pattern;  // a prefix table's @pattern ("layer.{l}.w")
  uint64_t entry_bytes = 0;
  bool is_table() const { return !indices.empty(); }
  // An @auto_dim matrix (`M(i, j): f32[D, H] @auto_dim(i, j)`, storage "auto_dim"): kept by the
  // host program, reached by cache operations only; `shape` is the declared one, the auto
  // indices its leading axes, `auto_bound` their @fixed bounds (0: none).
  // A table of matrices (`C(l, i, j) @table @auto_dim(i, j)`): the @table indices before the
  // auto ones and their @fixed bounds (0: grows).
  std::vector<std::string> auto_indices, auto_table;
  std::vector<uint64_t> auto_bound, auto_table_bound;
  bool is_auto_dim() const { return !auto_indices.empty(); }
  // A scratch value of a kernel of run-time length (runtime_length.hpp): its shape is the
  // capacity the host program allocates; -2: every axis follows the length (a result), else
  // the one axis that does (a matrix read), -1: static.
  int runtime_axis = -1;
};

// A use of a value as written in the plan: "x", "W[b]", "K[l, pos]", "K[layer, 0..32]".
// Each index is an integer, a name (loop index, size variable, integer scalar), a name plus
// or minus an integer, or a range "a..b" of such terms (cache.read windows).
struct ValueRef {
  std::string name;
  std::vector<std::string> index;  // empty: the whole value
  bool all = false;                // "T[]": every entry of table T
};
ValueRef parse_ref(const std::string& text);

struct OpIn {
  std::string op;
  int64_t line = 0;
  std::vector<std::string> inputs;
  boost::json::object settings;
  std::string output;
  // Source positions ("graph.oi:11:20") of the output and each input, for run-time messages
  // about their table entries (empty when the plan has none).
  std::string output_at;
  std::vector<std::string> inputs_at;
  std::string at;  // the op's own position (the simulator's messages about its shapes)
  // A setting named a variable in the plan (a loop index, a constant, a size variable), before
  // resolve_settings: the planner then left the op's result shape open.
  bool named_settings = false;
  // The catalog's output-shape rule ("broadcast", "matmul", ...) and whether the inputs
  // broadcast, as the plan gives them (for results evaluated at run time).
  std::string shape_rule;
  bool broadcast = false;
};

struct KernelIn {
  uint32_t id = 0;
  std::string kind;  // elementwise, matmul, reduction, op
  std::vector<uint64_t> shape;
  std::vector<OpIn> ops;
  std::vector<std::string> reads, writes, internal;
};

// A constant a setting was given the value of, from the model at synthesis: the host checks
// the model it loads holds the same bytes.
struct BakedConstant {
  std::string value, link, bytes;
};

struct PlanIn {
  std::string graph;
  std::vector<ValueIn> values;
  std::map<std::string, size_t> value_index;
  std::vector<KernelIn> kernels;
  boost::json::array blocks;  // kept as JSON: the manifest writer walks the steps
  uint64_t arena_bytes = 0;
  uint32_t alignment = 64;
  std::map<std::string, uint64_t> sizevars;  // the model's size variables
  std::vector<BakedConstant> baked;          // resolve_settings' constants from the model

  // The value `name` names; for a table entry ("W[b]") the table, whose shape is the entry's.
  // A slice or a window is refused (only copies take windows, through parse_ref).
  const ValueIn& value(const std::string& name) const;  // throws UNIMPLEMENTED/INVALID
};

struct DeviceIn {
  std::string name;
  std::string type;
  uint64_t wg_size[3] = {0, 0, 0};
  uint64_t wg_invocations = 0;
  uint64_t shared_bytes = 0;
  uint64_t max_buffer_range = 0;
  bool fp16 = false;
  bool fp64 = true;            // features.fp64 (absent: assumed, as most Vulkan GPUs offer it)
  bool int64 = true;           // features.int64 (absent: as fp64)
  bool subgroup_ops = false;   // features.subgroup_ops: basic, vote, arithmetic and shuffle
  uint64_t subgroup_size = 0;  // limits.subgroup_size (0: unknown)
  // limits.max_rank, limits.max_head_dim: at most the Vulkan backend's shaders' 8 and 1024
  static constexpr uint64_t kShaderMaxRank = 8, kShaderMaxHeadDim = 1024;
  uint64_t max_rank = kShaderMaxRank, max_head_dim = kShaderMaxHeadDim;
  // limits.max_elements: the most elements of one tensor a kernel addresses, at most the
  // Vulkan backend's shaders' 2^31 - 1 (32-bit sizes, indices and strides)
  static constexpr uint64_t kShaderMaxElements = (uint64_t{1} << 31) - 1;
  uint64_t max_elements = kShaderMaxElements;
};

PlanIn read_plan(const std::string& json_text);

// The bytes of a model tensor (the request's, ABI 3) that has dtype tag `dtype` (oi_dtype)
// and one element; nullopt where the model lacks it or holds something else.
using ModelScalar =
    std::function<std::optional<std::string>(const std::string& name, uint32_t dtype)>;

// Replaces each setting {"name": N} of the kernels' ops by N's value, by dsl.md's precedence:
// a loop index of a loop around the kernel stays a name (loop_settings.hpp gives its values), a
// declared constant scalar gives the model's tensor (`model`, noted in plan.baked) or its @init,
// a size variable its value. Anything else is a graph the validator refuses (invalid_plan).
void resolve_settings(PlanIn& plan, const ModelScalar& model);
DeviceIn read_device(const std::string& json_text);

std::string op_where(const OpIn& op);  // "op 'add' (line 13)"

// Drops from k's reads and writes the values its ops no longer name (an operand rewritten to a
// scratch value: auto_dim_operands.cpp, window_outputs.cpp, table_window_inputs.cpp).
void drop_unnamed(KernelIn& k);

}  // namespace oi::glsl
