// libFuzzer entry point for `openinfer run --input NAME=FILE[:TENSOR]` (cli/run_inputs.cpp):
// any argument must parse or be refused with a usage error; what parses must put the text
// back together exactly, and `{step}` substitution must replace every occurrence and nothing
// else.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "run_inputs.hpp"

namespace oi::cli {
// cli/main.cpp defines this for the real CLI.
void usage_error(const std::string& message) {
  throw Error(ErrorKind::Usage, message);
}
}  // namespace oi::cli

namespace {

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size()))
    ++n;
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  oi::cli::InputSpec spec;
  try {
    spec = oi::cli::parse_input_spec(text);
  } catch (const oi::Error& e) {
    oi_fuzz::check_message(e);
    if (e.kind() != oi::ErrorKind::Usage) __builtin_trap();
    return 0;
  }
  if (spec.name.empty() || spec.file.empty() || spec.tensor.empty()) __builtin_trap();
  const std::string back =
      spec.name + "=" + spec.file + (spec.explicit_tensor ? ":" + spec.tensor : "");
  if (back != text) __builtin_trap();

  const uint64_t step = size * 7919;
  const std::string out = oi::cli::substitute_step(spec.tensor, step);
  const size_t holes = count(spec.tensor, "{step}");
  const size_t grown = holes * std::to_string(step).size();
  if (out.size() + holes * 6 != spec.tensor.size() + grown) __builtin_trap();
  if (holes == 0 && out != spec.tensor) __builtin_trap();
  return 0;
}
