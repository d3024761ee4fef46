// A kernel's ops as calls into the portable C kernel library (plugins/c_kernels,
// docs/c-kernels.md): the C emitter's fallback wherever its own writers refuse an op, a dtype
// or a mode (integer and packed dtypes, f16/bf16/f8 heads, acc= pairs, ops without a writer).
#pragma once

#include <set>
#include <sstream>
#include <string>

#include "c_common.hpp"
#include "kernel_library.hpp"

namespace oi::c_emitter {

// Writes the body of kernel `k` (a fused group, a head with its epilogue, or a single op) as
// one library call per op, in the ops' order, on whole tensors: `oik_tensor` views of the
// operands, the settings as C arguments. The caller has declared p_NAME for every value the
// kernel reads or writes and every table entry it reads; values fused away get scratch. A call
// that fails stops the step with the kernel's message (s->failed, NAME_ERR_RUN). The ops whose
// files the program must ship are added to `used`. Throws CGap (c_gap) where the library has
// no entry point or a setting names a loop index.
void write_library_calls(KernelEnv& env, const json::object& k, const KernelLibrary& lib,
                         std::set<std::string>& used, std::ostringstream& c);

// One op as a call into the library on tensors given as C (`xs`: an oik_tensor initializer per
// input, `y` the output's), in a block of its own; a failed call sets s->failed to the
// kernel's message and runs `on_fail`; `after` is C run after a call that succeeded, inside the
// block. Throws CGap as write_library_calls does.
std::string library_call(const KernelEnv& env, const json::object& op, const KernelLibrary& lib,
                         std::set<std::string>& used, const std::vector<std::string>& xs,
                         const std::string& y, const std::string& on_fail,
                         const std::string& after = "");

// The library's entry point for op `op` of a kernel (docs/c-kernels.md "Names").
std::string library_entry_point(const KernelEnv& env, const json::object& op);

}  // namespace oi::c_emitter
