// The consumers of one `yield` that each await a table or @auto_dim matrix another of them
// writes (docs/synth.md "Consumers of a yield"): no order runs every reader before the writer,
// so each such table is copied at the yield (entries, written flags, sizes; a matrix's cells and
// counts), and the copy is swapped in for the readers that run after its writer, the writer's
// result swapped back after the last consumer: every reader sees the table as yielded, as the
// simulator's Memory::table_snapshot gives it. Hosted, the copies are allocated at the yield and
// freed after the consumers; freestanding (tables only, every index @fixed), they are arrays of
// the state, counted in its RAM.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "openinfer/consumer_order.hpp"

namespace oi::c_emitter {

// One table or matrix copied at the yield.
struct YieldCopy {
  std::string name;
  enum class Kind { Table, Matrices, GrowableMatrices } kind = Kind::Table;
  std::string count_c;    // Matrices: how many s->a_NAME holds
  size_t table_rank = 0;  // GrowableMatrices: the @table indices
};

// The support functions (static, OI_HELPER): with tables oi_tab_clone/swap(/drop hosted) and,
// hosted with matrices, oi_ad_clone_n/drop_n.
std::string yield_copy_c(bool freestanding, bool tables, bool matrices);

// The C at the yield: declares and fills the copies (`prefix` the program's name for its
// error codes, `line` the yield's line for the out-of-memory message), ending the step on
// failure with `stop`.
std::string take_copies(const std::vector<YieldCopy>& copies, bool freestanding,
                        const std::string& prefix, const std::string& line, const std::string& stop,
                        const std::string& indent);
// Swaps the copy of `c` with the live one (after its writer, and back after the consumers).
std::string swap_copy(const YieldCopy& c, const std::string& indent);
// Frees the copies (hosted; nothing freestanding).
std::string drop_copies(const std::vector<YieldCopy>& copies, bool freestanding,
                        const std::string& indent);

}  // namespace oi::c_emitter
