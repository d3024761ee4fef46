// The host program's range checks of shl/shr's named `bits` (shift_bits_ranges.hpp).
#include "shift_bits_ranges.hpp"

#include <string>

#include "openinfer/shift_bits.hpp"

namespace oi::glsl {

namespace json = boost::json;

namespace {

// The bits of an integer dtype ("i4" 4, "u32" 32, "bitset" 8); 0 for another.
int64_t int_width(const std::string& dtype) {
  if (dtype == "bitset") return 8;
  if (dtype.size() < 2 || (dtype[0] != 'i' && dtype[0] != 'u')) return 0;
  for (size_t i = 1; i < dtype.size(); ++i)
    if (dtype[i] < '0' || dtype[i] > '9') return 0;
  return std::stoll(dtype.substr(1));
}

}  // namespace

json::array shift_bits_ranges(const PlanIn& plan, const KernelIn& k) {
  json::array out;
  for (const OpIn& op : k.ops) {
    if ((op.op != "shl" && op.op != "shr") || op.inputs.empty()) continue;
    const json::value* bits = op.settings.if_contains("bits");
    if (!bits) continue;
    const std::string dtype = plan.value(op.inputs[0]).dtype;
    const int64_t width = int_width(dtype);
    if (width == 0) continue;  // the validator refuses a shift of another dtype
    json::object check{{"width", width},
                       {"message", (op.at.empty() ? "" : op.at + ": ") +
                                       shift_bits_message(op.op, "{value}", width, dtype)}};
    const json::object* named = bits->if_object();
    const json::value* index = named ? named->if_contains("name") : nullptr;
    if (index && index->is_string()) {
      check["index"] = index->as_string();
    } else if (bits->is_int64() && !shift_bits_in_range(bits->as_int64(), width)) {
      check["value"] = bits->as_int64();
    } else if (bits->is_uint64()) {  // a u64 constant above INT64_MAX: negative as an int64
      check["value"] = static_cast<int64_t>(bits->as_uint64());
    } else {
      continue;
    }
    out.push_back(std::move(check));
  }
  return out;
}

}  // namespace oi::glsl
