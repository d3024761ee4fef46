// Plan JSON (docs/synth.md) -> NAME.h, NAME.c and NAME_main.c. A plan with anything this
// emitter cannot express yet is refused with a message naming it (CUnsupported), never
// partial or wrong code.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace oi::c_emitter {

class CUnsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct GeneratedFile {
  std::string path;
  std::string text;
};

// A model tensor's dtype tag, dims and bytes; nullopt when absent or declared without data.
struct ModelTensor {
  uint32_t dtype = 0;
  std::vector<uint64_t> dims;
  std::string bytes;
};
using WeightLookup = std::function<std::optional<ModelTensor>(const std::string& name)>;

class KernelLibrary;

// Throws CUnsupported for constructs outside this emitter's coverage, std::runtime_error for
// a malformed plan. With `embed` (--embed-weights) the model's tensors become arrays of the
// generated source and create() reads no file. `model` (the model at synthesis, when known)
// gives the values of constant scalars that settings name. Ops, dtypes and modes the
// emitter's own writers refuse become calls into `library` (the C kernel library,
// kernel_library.hpp), whose files the output then ships; without it they are refused,
// `library_missing` saying why.
std::vector<GeneratedFile> generate_c(const std::string& plan_json, const std::string& name,
                                      const WeightLookup* embed = nullptr,
                                      const WeightLookup* model = nullptr,
                                      const KernelLibrary* library = nullptr,
                                      const std::string& library_missing = "not given");

// The fixed C support code (OINF reader and writer, the driver's option parsing), with NAME_
// spelled as "@NAME@".
extern const char* const kRuntimeC;
extern const char* const kRuntimeH;
extern const char* const kMainC;

}  // namespace oi::c_emitter
