// Kernels whose shapes are known only at run time (docs/synth.md, "@auto_dim matrices"): an op
// reading an @auto_dim matrix that an access of the plan grows, or a part of one of run-time
// length. As the simulator (core/src/exec/interpreter_op.cpp, op_result_shape.cpp): the output
// access is read first (growing the matrix where its indices are scalars), then the inputs in
// order; the op's result shape comes from its catalog rule at run time (the rule's error, word
// for word, where the shapes do not fit it); a result equal to the output's shape is stored,
// one that broadcasts to a matrix access is computed in its own shape and spread over it, and
// any other is the store's error. The op runs as a call into the C kernel library, whose entry
// points take the shapes as arguments.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "auto_dim.hpp"
#include "c_common.hpp"
#include "kernel_library.hpp"

namespace oi::c_emitter {

// A prefix table's entry among an op's inputs (`W[l]`, `p[1]`, `p[n]`): the C of its number,
// and with that number in C variable `var`, the condition under which the model lacks it, the
// statements failing the step with the simulator's message, and the C of its bytes.
struct PrefixEntryC {
  std::string at, missing, fail, data;
};

// A persistent table's slice of run-time length as the output (`K[0..n]`): the C declaring its
// start and length per table index (`int64_t st[], ln[]`, with the simulator's checks), its shape
// as C expressions, and the C storing `data` of that shape there (failing with `stop`).
struct RuntimeSliceC {
  std::string span;
  std::vector<std::string> dims;
  std::function<std::string(const std::string& data, const std::string& stop)> store;
};

struct RuntimeKernelEnv {
  KernelEnv& env;               // the generator: operands, values, the program's name
  const KernelLibrary* lib;     // nullptr: the library is missing beside the plugin
  std::set<std::string>& used;  // the library's ops the program ships
  const std::map<std::string, AutoDimDecl>& autodims;
  std::function<std::string(const std::string&)> index_c;  // C of an index name
  std::string stop, indent;                                // goto done / return; the indent
  bool freestanding = false;                               // positions without directories
  // The entry `text` names with its number in `var`; nullopt for another operand.
  std::function<std::optional<PrefixEntryC>(const std::string& text, const std::string& var)>
      prefix_entry;
  // The output `text` when it is a table slice of run-time length (indent, the failure's stop);
  // nullopt otherwise.
  std::function<std::optional<RuntimeSliceC>(const std::string& text, const std::string& indent,
                                             const std::string& stop)>
      runtime_slice;
  // The inputs that are table accesses of run-time length (`K[l]` of `K(l, t)`, t growable):
  // read in the kernel, in their turn, into buffers of their run-time shapes (runtime_copy.hpp's
  // table_slice_read).
  std::set<std::string> slice_inputs;
};

// The C (in the step's body) of single-op kernel `k` (c_generator.cpp splits a fused one), whose
// operands include an @auto_dim matrix whose shape is known only at run time. Its other operands:
// plain values, a persistent table's access through its buffer (the caller reads it before and
// stores it after; a slice of run-time length through runtime_slice), a prefix table's entry (its
// number at run time); packed dtypes (a matrix's cells packed for the library and its packed result
// unpacked), acc= (the kernel runs over the output access, which the result must have, or broadcast
// to for an elementwise op), settings naming a loop index. Throws CGap (c_gap) for an op whose
// shape rule it does not know.
std::string runtime_kernel(const RuntimeKernelEnv& e, const json::object& k);

}  // namespace oi::c_emitter
