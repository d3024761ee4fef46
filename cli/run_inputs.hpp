// `openinfer run --input NAME=FILE[:TENSOR]`: which model tensor feeds which dynamic variable
// in which step.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "openinfer/model.hpp"
#include "openinfer/simulator.hpp"

namespace oi::cli {

struct InputSpec {
  std::string name;              // the dynamic variable
  std::string file;              // the OINF file
  std::string tensor;            // the tensor in it; may hold `{step}`
  bool explicit_tensor = false;  // NAME=FILE:TENSOR (a missing tensor then inserts nothing)
};

// Parses NAME=FILE or NAME=FILE:TENSOR. A value whose whole right side names an existing file
// is FILE even when it holds ':'. Throws a usage error (exit 2) when malformed.
InputSpec parse_input_spec(const std::string& text);

// The opened input files, shared between specs that name the same file.
class StepInputs {
 public:
  // Opens every file (exit 1 when one is missing or corrupt). A NAME=FILE spec whose file lacks
  // the tensor NAME is an error here: it could never insert anything.
  explicit StepInputs(std::vector<InputSpec> specs);

  // Inserts what step `step` gets. Returns the names inserted.
  std::vector<std::string> insert_for_step(Executor& exec, uint64_t step) const;

 private:
  std::vector<InputSpec> specs_;
  std::map<std::string, Model> files_;
};

// `{step}` in `pattern` replaced with `step`.
std::string substitute_step(const std::string& pattern, uint64_t step);

}  // namespace oi::cli
