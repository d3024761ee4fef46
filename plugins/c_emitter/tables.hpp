// Persistent tables (`K(l, t): f16[H, Dh] @table @fixed(l=L)`) in generated C: the plan's
// access texts ("K[l, pos]", "K[layer, 0..32]") parsed, the C that resolves an access into a
// start and a length per table index with the simulator's run-time checks and messages, and
// the run-time support (oi_table: a dense array over the table indices, grown geometrically).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace oi::c_emitter {

// An index as the plan writes it: a literal, or a name plus an offset ("t-1").
struct IndexText {
  bool literal = true;
  int64_t value = 0;  // the literal, or the offset added to `name`
  std::string name;
};

// One slot of an access: a single index, or a range a..b (either end may be omitted).
struct SlotText {
  bool range = false;
  std::optional<IndexText> index, start, end;
};

struct AccessText {
  std::string name;
  bool brackets = false;
  std::vector<SlotText> slots;
};

// Parses "K", "K[l, pos]", "K[layer, 0..32]", "A[..-3]", "K[l, t-1]"; throws on other text.
AccessText parse_access(const std::string& text);

// The contents of a C string literal that printf prints as `s` (% doubled, quotes escaped).
std::string format_text(const std::string& s);

// What the access code needs of a table.
struct TableDecl {
  std::string name;
  std::vector<std::string> indices;
  std::vector<int64_t> bounds;  // @fixed bound per index, -1 where it grows
};

// C statements resolving `access` of `table` into `int64_t st[], ln[]` (declared here, one per
// table index; missing trailing slots are whole axes): negative indices and @fixed bounds are
// checked with the simulator's messages, prefixed by `at` ("gpt.oi:137:15: "). `index_c` gives
// the C expression of a name; `stop` ends the step after s->failed is set. With `lead` the
// range lengths are checked against the other side's stacked dims too.
struct LeadCheck {
  std::vector<uint64_t> lead;   // the stacked dims the other side has
  std::vector<uint64_t> entry;  // one entry's dims
  std::string dtype;
  std::string other;     // the variable read into or stored from
  std::string other_at;  // its position ("g.oi:10:24: "): a read's mismatch is reported there
  bool write = false;
};
std::string span_code(const TableDecl& table, const AccessText& access,
                      const std::function<std::string(const std::string&)>& index_c,
                      const std::string& at, const std::string& prefix, const std::string& stop,
                      const std::string& indent, const LeadCheck* lead);

// The stacked leading dims of an access whose ranges have bounds known when the code is
// written (`constant` gives a literal or size variable's value); nullopt otherwise.
std::optional<std::vector<uint64_t>> static_lead(
    const TableDecl& table, const AccessText& access,
    const std::function<std::optional<int64_t>(const std::string&)>& constant);

// The run-time support: oi_table and its functions (static, OI_HELPER). In both profiles a
// step's first change of each entry goes to the undo record of the state's oi_mem, put back
// when the step fails (oi_mem_end, oi_tab_end). Hosted, tables grow with malloc under the
// budget, and so does the record; freestanding, every index is @fixed, a table and its flags
// live in arrays of the state (oi_tab_create takes them), the record in a region of the arena
// sized at synthesis (undo_record_bytes), and the type comes from the header (tables_type_c).
std::string tables_c(bool freestanding);
std::string tables_type_c(size_t rank);
// oi_mem (the table budget and the undo record of a step) and oi_table, which keeps per-entry
// flags and counts for them: written into every hosted NAME.c (tables_type_c: the same, in the
// freestanding header, guarded for several models in one program: the first one's rank).
std::string tables_hosted_type_c(size_t rank);  // oi_table of `rank` indices at most
// The bytes of the undo record of one entry of a table of `rank` indices, written before.
uint64_t undo_record_bytes(size_t rank, uint64_t entry_bytes);

}  // namespace oi::c_emitter
