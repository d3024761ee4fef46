// Environment variables that force a kernel's tuning (OPENINFER_VULKAN_MATMUL_TILE,
// OPENINFER_VULKAN_ATTENTION_TILE, OPENINFER_VULKAN_CONV_TILE, ...): read and checked in one
// place, a bad value an INVALID_ARGUMENT error naming the op and the variable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace oi::vulkan {

// The variable's text, or nullptr when it is unset or empty.
const char* tuning_env(const char* name);

// Throws abi::StatusError(INVALID_ARGUMENT, "vulkan OP: NAME WHY").
[[noreturn]] void bad_tuning(const char* op, const char* name, const std::string& why);

// "a,b,...": exactly `count` integers in 1..`max`, else bad_tuning ("needs COUNT numbers" plus
// `shape`, e.g. ": BM,BN,BK").
std::vector<uint32_t> parse_tuning_list(const char* op, const char* name, const char* text,
                                        size_t count, uint32_t max = 4096,
                                        const std::string& shape = "");

}  // namespace oi::vulkan
