// Plan JSON (docs/synth.md) -> NAME.h, NAME.c and NAME_main.c. A plan with anything this
// emitter cannot express yet is refused with a message naming it (CUnsupported), never
// partial or wrong code.
#pragma once

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

// Throws CUnsupported for constructs outside this emitter's coverage, std::runtime_error for
// a malformed plan.
std::vector<GeneratedFile> generate_c(const std::string& plan_json, const std::string& name);

// The fixed C support code (OINF reader and writer, the driver's option parsing), with NAME_
// spelled as "@NAME@".
extern const char* const kRuntimeC;
extern const char* const kRuntimeH;
extern const char* const kMainC;

}  // namespace oi::c_emitter
