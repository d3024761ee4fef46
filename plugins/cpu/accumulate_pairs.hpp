// The acc= pairs of the catalog among the byte-sized integer dtypes the CPU kernels handle.
#pragma once

#include <cstdint>

namespace oi::cpu {

// Calls add.template operator()<In, Out>() for each pair.
template <class Add>
void for_each_accumulate_pair(Add&& add) {
  add.template operator()<int8_t, int16_t>();
  add.template operator()<int8_t, int32_t>();
  add.template operator()<int8_t, int64_t>();
  add.template operator()<int16_t, int32_t>();
  add.template operator()<int16_t, int64_t>();
  add.template operator()<int32_t, int64_t>();
  add.template operator()<uint8_t, uint16_t>();
  add.template operator()<uint8_t, uint32_t>();
  add.template operator()<uint8_t, uint64_t>();
  add.template operator()<uint16_t, uint32_t>();
  add.template operator()<uint16_t, uint64_t>();
  add.template operator()<uint32_t, uint64_t>();
}

}  // namespace oi::cpu
