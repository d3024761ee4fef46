// One `#version 450` compute shader per fused elementwise chain (numpy broadcasting; a chain of
// the plan's, or the elementwise epilogue of a matmul or reduction, whose head runs the Vulkan
// backend's shader: output_writer.cpp's write_kernel). Sizes are baked in as constants: the
// plan's shapes are static. Every other op has no writer here: it runs the Vulkan backend's
// shaders (vulkan_kernels.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "plan_input.hpp"

namespace oi::glsl {

struct Binding {
  uint32_t binding = 0;
  std::string value;
  bool read = false;
  bool write = false;
  // A table entry: its index terms as the plan writes them ("b", "0", "pos"); the host
  // program binds the entry they select at each dispatch.
  std::vector<std::string> entry;
  std::string at;  // the entry's source position, for run-time messages
};

// One dispatch of a Vulkan backend shader (vulkan_kernels.hpp): the variant, its specialization
// constants and params words, the values bound whole at bindings 1..6 ("@arena": the arena).
struct VulkanDispatch {
  std::string variant;       // a base variant of plugins/vulkan/shaders/*.variants: "ew_math"
  uint32_t float_width = 0;  // 32/64: the "_fc" or "_ieee" variant where the device allows
  bool also_f64 = false;
  uint8_t exact_f32 = 0;  // the backend's Dispatch::exact_f32: "_exact" variants (device.cpp)
  std::vector<uint32_t> spec, params;
  std::vector<std::string> values;  // binding i + 1
  std::array<uint32_t, 3> groups{1, 1, 1};
};

// A gather's indices, checked by the host program before the kernel runs (the backend checks
// them on the host too): `count` i32 (or i64 when `wide`) values in [-bound, bound).
struct IndexCheck {
  std::string value;
  uint64_t count = 0;
  bool wide = false;
  int64_t bound = 0;
  std::string message;  // "{value}": the index
};

// rope's cos/sin table, computed by the host program from the position it reads back (as the
// Vulkan backend computes it on the host): for i < half, t < T, angle = (pos + t) *
// theta^(-2i/D) in f64, (cos, sin) at 2 (t * half + i), stored as f32 (f64 when `f64`).
struct RopeTable {
  std::string pos;  // an i32 (i64 when `wide`) scalar
  bool wide = false;
  double theta = 10000.0;
  uint64_t T = 0, D = 0;
  bool f64 = false;
  std::string table;  // the scratch value it is written to
  // Non-empty: theta is this loop index's value at run time (a setting naming it whose values
  // are known only then, loop_setting_params.hpp)
  std::string theta_index;
  // In a kernel of run-time length (runtime_length.hpp): T and D as floor((a L + b) / c) of
  // the length L, {a, b, c}, where they follow L (D: a matrix growing its last axis).
  std::optional<std::array<int64_t, 3>> T_length, D_length;
};

// A buffer of the program's own for a recorded kernel (scratch of the kernel, a value the
// plan fused away, an in-place result before it is copied over its input).
struct ScratchValue {
  std::string name;
  uint64_t bytes = 0;
};

// A params word of a recorded dispatch that carries a setting naming a loop index whose values
// are known only at run time: the host program writes the index's value there, in `kind`
// ("f32", "i32", "f64_lo", "f64_hi", "i64_hi": the word of that encoding of the integer; "f16",
// "bf16", "f8": the narrow float's bits, "f16_f32", ...: the f32 of the integer rounded once to
// the narrow float).
struct ParamPatch {
  size_t dispatch = 0, word = 0;
  std::string index, kind;
};

// A kernel reading an @auto_dim matrix whose length along one axis is known only at run time
// (runtime_length.hpp): recorded at every length lo..hi, its dispatches split into segments of
// one layout each; within a segment each params word and workgroup count that changes is
// floor((a * L + b) / c) of the length L, and so is each axis of the result's scratch value.
// Non-empty `values`: no form fits (runtime_length.cpp's fallback), the recorded value at each
// length from `from` on instead (0 at lengths where the op stops the step).
struct LengthForm {
  size_t dispatch = 0;
  size_t slot = 0;  // 0..2: the workgroup counts x, y, z; 3 + w: params word w
  int64_t a = 0, b = 0, c = 1;
  std::vector<int64_t> values{};
  uint64_t from = 0;
};
struct LengthShape {
  std::string value;
  size_t axis = 0;
  int64_t a = 0, b = 0, c = 1;
  uint64_t from = 0, to = 0;  // the lengths it holds for (a segment's)
  std::vector<int64_t> values{};
};
struct LengthSegment {
  uint64_t from = 0, to = 0;    // lengths from..to (inclusive)
  size_t first = 0, count = 0;  // its dispatches
};
struct RuntimeLengthKernel {
  std::string value;  // the scratch value holding the matrix read: L is its axis `axis`
  size_t axis = 0;
  uint64_t lo = 0, hi = 0;
  std::string matrix, at;  // for the run-time message past hi
  std::vector<LengthSegment> segments;
  std::vector<LengthForm> forms;
  std::vector<LengthShape> shapes;
  // reshape's result the output access's shape, acc= reading the access (runtime_access.hpp)
  boost::json::object access;
  boost::json::array errors;        // lengths where the op stops (runtime_length_errors.hpp)
  boost::json::object same_length;  // several matrices of one length (runtime_access.hpp)
};

struct KernelShader {
  // Non-empty: the kernel runs the Vulkan backend's shaders (glsl is then empty): the index
  // checks, the scratch values zeroed, the dispatches with a barrier after each, then the
  // copies (from, to) of whole values.
  std::vector<VulkanDispatch> dispatches;
  std::vector<IndexCheck> checks;
  std::vector<RopeTable> rope_tables;
  std::vector<ScratchValue> scratch;
  std::vector<std::pair<std::string, std::string>> copies;
  // The table entries among the dispatches' values (by their text, "W[b]"): the host program
  // binds the entry at each dispatch.
  std::map<std::string, Binding> entries;
  bool recorded = false;  // through the Vulkan backend's kernels (even with no dispatch)
  std::vector<ParamPatch> patches;
  std::optional<RuntimeLengthKernel> length;
  std::string glsl;
  std::array<uint32_t, 3> local_size{1, 1, 1};
  std::array<uint64_t, 3> workgroups{0, 0, 0};  // 0 in any: nothing to dispatch
  std::vector<Binding> bindings;
  bool float64 = false;  // uses f64 arithmetic: the device must enable shaderFloat64
  // A matmul or reduction kernel's elementwise epilogue (at most one): an own fused chain that
  // runs after the head's recorded dispatches, reading the head's result from memory; the
  // manifest makes it a kernel of its own, dispatched right after this one.
  std::vector<KernelShader> epilogue;
};

// Throws UNIMPLEMENTED naming the op, dtype or setting it cannot express.
KernelShader write_kernel_shader(const PlanIn& plan, const DeviceIn& device,
                                 const KernelIn& kernel);

// The shader of a host step that adds `delta` to an i32/u32 scalar (cache.increment and
// cache.decrement, wrapping), kernel `id` of the manifest (after the plan's kernels).
KernelShader write_counter_shader(const PlanIn& plan, const DeviceIn& device, uint32_t id,
                                  const std::string& value, int64_t delta,
                                  const std::string& where);

// The GLSL type of a dtype the emitter supports in kernels ("float", "double", "int", "uint"),
// else throws.
std::string glsl_type(const std::string& dtype, const std::string& where);
// Whether buffers of `dtype` can be bound at all (the writers refuse what they cannot compute).
bool storable_dtype(const std::string& dtype);
inline bool is_float_type(const std::string& t) {
  return t == "float" || t == "double";
}

}  // namespace oi::glsl
