// Kernels reading an @auto_dim matrix that an access grows along one axis, whose length L there
// is known only at run time (docs/synth-glsl.md, "@auto_dim matrices"): the op reads and writes
// scratch values (auto_dim_operands.hpp) whose shapes follow L, so the kernel is recorded through
// the Vulkan backend's kernels at every length lo..hi (hi: the @fixed bound, else a cap the
// scratch values are allocated for), each params word and workgroup count that changes is fitted
// as floor((a * L + b) / c) and checked at every recorded length, and lengths where the backend
// records other work (other dispatches, shaders, specialization constants) or where a word,
// count or axis of the result takes another form (a slice's count clamped) get dispatches of
// their own (segments); rope's cos/sin table's rows follow L alike. The host program evaluates the
// forms before each dispatch; a length past hi stops the run naming the gap.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plan_input.hpp"
#include "shader_writer.hpp"

namespace oi::glsl {

// Where no @fixed bound is, the longest run-time length (rows of an @auto_dim matrix, entries
// of a table window) kernels are recorded for, and the most bytes the scratch value holding it
// may take: the scratch values are allocated for it.
constexpr uint64_t kRuntimeLengthCap = 512;
constexpr uint64_t kRuntimeBytesCap = uint64_t{16} << 20;

// A kernel whose operands include a whole matrix of run-time length: `inputs` the scratch values
// holding it (each of the matrix's declared shape, axis `axis` of length L), `output` the
// scratch value of the result where the op writes a matrix (its shape follows L), else empty
// (a plain output of static shape, which the result must have at every length).
struct RuntimeOperand {
  std::string matrix, at;
  // what it is, and whether a refusal names the gap table-window-operand (a window of table
  // entries of run-time length, table_window_inputs.hpp: "a window of table 'K' (K[0])") or
  // auto-dim-operand
  std::string kind = "an @auto_dim matrix";
  bool table_window = false;
  size_t axis = 0;
  uint64_t lo = 0, hi = 0;
  std::vector<std::string> inputs;
  std::string output;
  // the output access as the copies name it (runtime_access.hpp: reshape and acc= need it)
  boost::json::object access;
};

// The result's shape of `op` for the inputs' shapes by its catalog shape rule (every rule but
// reshape and scalar: slice, conv and pool through openinfer/slice_range.hpp and window.hpp), or
// nullopt with `why` (another rule, or the rule's error); `*words` true where `why` is the
// simulator's words for the failed check (one a growing axis may fail at some lengths only).
std::optional<std::vector<uint64_t>> rule_result_shape(const OpIn& op,
                                                       const std::vector<std::vector<uint64_t>>& in,
                                                       std::string& why, bool* words = nullptr);

// Kernel `k` (one op) recorded at every length; `capacity` gets the scratch values' largest shapes
// at hi (what the host program allocates). Refuses (glsl_gap "auto-dim-operand") a kernel the
// backend cannot record at some length, a result of another shape than a plain output's, or
// more than 8 segments (a params word, count or result axis following no such form).
KernelShader record_runtime_length(
    const PlanIn& plan, const DeviceIn& device, const KernelIn& k, const RuntimeOperand& ro,
    std::vector<std::pair<std::string, std::vector<uint64_t>>>& capacity);

}  // namespace oi::glsl
