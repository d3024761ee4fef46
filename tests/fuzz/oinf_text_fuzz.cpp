// libFuzzer entry point for the OINF text form (`openinfer oinf pack`): any text must either
// pack or be rejected with oi::Error. What packs must load, and its dump must pack to the same
// bytes. An input starting with '!' is instead one element token: "!DTYPE TOKEN" must parse
// or be rejected, and what parses must print and parse back to the same bits.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "openinfer/dtype.hpp"
#include "openinfer/oinf_text.hpp"

namespace {

void element(std::string_view text) {
  const size_t space = text.find(' ');
  if (space == std::string_view::npos) return;
  const auto dtype = oi::dtype_from_name(text.substr(1, space - 1));
  if (!dtype) return;
  uint64_t raw = 0;
  try {
    raw = oi::parse_element(*dtype, text.substr(space + 1));
  } catch (const oi::Error& e) {
    oi_fuzz::check_message(e);
    return;
  }
  const std::string printed = oi::format_element(*dtype, raw);
  if (oi::parse_element(*dtype, printed) != raw) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (!text.empty() && text[0] == '!') {
    element(text);
    return 0;
  }
  std::vector<std::byte> bytes;
  try {
    bytes = oi::parse_oinf_text(text, "fuzz.txt").to_bytes();
  } catch (const oi::Error& e) {
    oi_fuzz::check_message(e);
    return 0;
  }
  const auto model = oi::Model::from_bytes(bytes, "packed.oinf");
  const std::string dump = oi::dump_oinf_text(model);
  (void)oi::inspect_oinf(model);
  if (oi::parse_oinf_text(dump, "dump.txt").to_bytes() != bytes) __builtin_trap();
  return 0;
}
