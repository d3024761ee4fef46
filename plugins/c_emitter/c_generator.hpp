// Plan JSON (docs/synth.md) -> NAME.h, NAME.c and NAME_main.c. A plan is emitted completely or
// not at all, never as partial or wrong code. Four ways out besides success, each one type:
// - LibraryInstead: an op writer (ops_*.cpp) leaves an op, a dtype or a mode to the C kernel
//   library; caught at the one dispatch point (kernel() in c_generator.cpp), never a refusal;
// - oi::emit::DeviceLimit (openinfer/device_limit.hpp, refuse_device_limit): the target
//   device's description lacks what the graph needs, naming the description's key;
// - InvalidPlan (invalid_plan): the plan is not one the planner produces (hand-broken JSON);
// - CGap (c_gap): a listed gap of this emitter (tests/repo/check_plugin_structure.py C_GAPS,
//   docs/synth.md "What the C target refuses").
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace oi::c_emitter {

class LibraryInstead : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
class InvalidPlan : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
class CGap : public std::runtime_error {
 public:
  CGap(std::string key, const std::string& message)
      : std::runtime_error(message), key_(std::move(key)) {}
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

// "c emitter: invalid plan: WHAT".
[[noreturn]] void invalid_plan(const std::string& what);
// A gap listed in C_GAPS (tests/repo/check_plugin_structure.py) under `key`: "c emitter:
// WHAT", WHAT saying what is not supported.
[[noreturn]] void c_gap(const std::string& key, const std::string& what);

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

// Throws CGap for the listed gaps, oi::emit::DeviceLimit for what the device lacks,
// InvalidPlan for a plan the planner never produces. With `embed` (--embed-weights) the model's
// tensors become arrays of the generated source and create() reads no file. `model` (the model at
// synthesis, when known) gives the values of constant scalars that settings name. Ops, dtypes and
// modes the emitter's own writers refuse become calls into `library` (the C kernel library,
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
