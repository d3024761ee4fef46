// A copy of whole 32-bit words between device buffers as a dispatch of move.comp (reshape's
// copy of rank 1), for buffer_copy: its offsets are parameters, so a replay meeting the same copy
// at other offsets rewrites them in place (docs/vulkan.md, "Replay").
#pragma once

#include <cstdint>

#include "openinfer/plugin_abi.h"

namespace oi::vulkan {

// `words` words from word `from` of `src` to word `to` of `dst` (ranges that do not overlap).
void run_word_copy(oi_device* device, oi_buffer* src, uint32_t from, oi_buffer* dst, uint32_t to,
                   uint32_t words);

}  // namespace oi::vulkan
