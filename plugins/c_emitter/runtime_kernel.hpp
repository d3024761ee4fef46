// Kernels whose shapes are known only at run time (docs/synth.md, "@auto_dim matrices"): an op
// reading an @auto_dim matrix that an access of the plan grows, or a part of one of run-time
// length, a table access of run-time length (e.slice_inputs), or writing a table slice of
// run-time length where the plan does not give the result's shape (e.slice_store). As the
// simulator (core/src/exec/interpreter_op.cpp, op_result_shape.cpp): the output
// access is read first (growing the matrix where its indices are scalars), then the inputs in
// order; the op's result shape comes from its catalog rule at run time (the rule's error, word
// for word, where the shapes do not fit it); a result equal to the output's shape is stored,
// one that broadcasts to a matrix access is computed in its own shape and spread over it, and
// any other is the store's error. The op runs as a call into the C kernel library, whose entry
// points take the shapes as arguments.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>

#include "auto_dim.hpp"
#include "c_common.hpp"
#include "kernel_library.hpp"

namespace oi::c_emitter {

struct RuntimeKernelEnv {
  KernelEnv& env;               // the generator: operands, values, the program's name
  const KernelLibrary* lib;     // nullptr: the library is missing beside the plugin
  std::set<std::string>& used;  // the library's ops the program ships
  const std::map<std::string, AutoDimDecl>& autodims;
  std::function<std::string(const std::string&)> index_c;  // C of an index name
  std::string stop, indent;                                // goto done / return; the indent
  bool freestanding = false;                               // positions without directories
  // Set where the output is a table slice of run-time length (c_generator's broadcast_store):
  // the C, `indent` deep, that stores the result (br, rs, rr) there or fails the step with
  // `stop`; the output's own shape is then not read.
  std::function<std::string(const std::string& indent, const std::string& stop)> slice_store;
  // The inputs that are table accesses of run-time length (`K[l]` of `K(l, t)`, t growable):
  // read in the kernel, in their turn, into buffers of their run-time shapes (runtime_copy.hpp's
  // table_slice_read).
  std::set<std::string> slice_inputs;
};

// The C (in the step's body) of single-op kernel `k`, whose operands include an @auto_dim matrix
// of a plain (not @table) declaration. Throws CGap (c_gap) for what it does not cover yet: a
// kernel of several ops, a table entry or slice among the operands, packed dtypes, an op whose
// shape rule it does not know, settings naming a loop index, acc=.
std::string runtime_kernel(const RuntimeKernelEnv& e, const json::object& k);

}  // namespace oi::c_emitter
