// Persistent tables in generated C (tables.hpp). dsl.md: a table grows on write (its size
// along an index is the highest index written + 1), entries never written read as the @init
// value (zeros without one), slices past the size of a growable index read unwritten entries,
// and @fixed bounds are run-time errors naming the table, the index and the bound.
#include "tables.hpp"

#include <cctype>
#include <stdexcept>

#include "c_generator.hpp"

namespace oi::c_emitter {
namespace {

std::string trim(std::string s) {
  s.erase(0, s.find_first_not_of(' '));
  s.erase(s.find_last_not_of(' ') + 1);
  return s;
}

IndexText parse_index(const std::string& raw, const std::string& whole) {
  const std::string s = trim(raw);
  IndexText out;
  if (s.empty()) invalid_plan("empty index in '" + whole + "'");
  const bool numeric = s.find_first_not_of("-0123456789") == std::string::npos;
  if (numeric) {
    out.value = std::stoll(s);
    return out;
  }
  out.literal = false;
  size_t op = s.find_first_of("+-", 1);
  out.name = trim(s.substr(0, op));
  if (op != std::string::npos) {
    const std::string num = trim(s.substr(op + 1));
    if (num.empty() || num.find_first_not_of("0123456789") != std::string::npos)
      invalid_plan("index '" + s + "' of '" + whole + "' is not NAME+N");
    out.value = std::stoll(num) * (s[op] == '-' ? -1 : 1);
  }
  for (char ch : out.name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_')
      invalid_plan("index '" + s + "' of '" + whole + "' is not NAME+N");
  return out;
}

std::string index_expr(const IndexText& i,
                       const std::function<std::string(const std::string&)>& index_c) {
  if (i.literal) return "(int64_t)" + std::to_string(i.value) + "ll";
  std::string e = index_c(i.name);
  if (i.value != 0) e = "(" + e + " + (int64_t)" + std::to_string(i.value) + "ll)";
  return e;
}

}  // namespace

std::string format_text(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '%')
      out += "%%";
    else if (ch == '"' || ch == '\\')
      out += std::string("\\") + ch;
    else if (ch == '\n')
      out += "\\n";
    else
      out += ch;
  }
  return out;
}

AccessText parse_access(const std::string& text) {
  AccessText a;
  const size_t open = text.find('[');
  a.name = trim(text.substr(0, open));
  if (open == std::string::npos) return a;
  const size_t close = text.rfind(']');
  if (close == std::string::npos || close < open) invalid_plan("malformed access '" + text + "'");
  a.brackets = true;
  const std::string inner = text.substr(open + 1, close - open - 1);
  if (trim(inner).empty()) return a;  // K[]: every entry
  size_t from = 0;
  while (true) {
    const size_t comma = inner.find(',', from);
    const std::string part = inner.substr(from, comma == std::string::npos ? comma : comma - from);
    SlotText slot;
    const size_t dots = part.find("..");
    if (trim(part).empty()) {
      slot.range = true;  // an empty slot: the whole axis
    } else if (dots == std::string::npos) {
      slot.index = parse_index(part, text);
    } else {
      slot.range = true;
      const std::string a_text = trim(part.substr(0, dots)), b_text = trim(part.substr(dots + 2));
      if (!a_text.empty()) slot.start = parse_index(a_text, text);
      if (!b_text.empty()) slot.end = parse_index(b_text, text);
    }
    a.slots.push_back(std::move(slot));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  return a;
}

std::string span_code(const TableDecl& table, const AccessText& access,
                      const std::function<std::string(const std::string&)>& index_c,
                      const std::string& at, const std::string& prefix, const std::string& stop,
                      const std::string& indent, const LeadCheck* lead) {
  const size_t rank = table.indices.size();
  if (access.slots.size() > rank)
    invalid_plan("'" + table.name + "' takes " + std::to_string(rank) +
                 " indices, the access gives " + std::to_string(access.slots.size()));
  const std::string where = format_text(at.empty() ? "" : at + ": ");
  const std::string tname = format_text(table.name);
  std::string c;
  c += indent + "int64_t st[" + std::to_string(rank) + "], ln[" + std::to_string(rank) + "];\n";
  auto failure = [&](const std::string& message, const std::string& arg) {
    return indent + "    s->failed = fail(s, " + prefix + "_ERR_RUN, \"" + where + message +
           "\", (long long)" + arg + ");\n" + indent + "    " + stop + "\n";
  };
  std::vector<size_t> ranges;
  for (size_t k = 0; k < rank; ++k) {
    const std::string idx = format_text(table.indices[k]);
    const std::string K = std::to_string(k), bound = std::to_string(table.bounds[k]);
    const bool fixed = table.bounds[k] >= 0;
    const SlotText slot = k < access.slots.size() ? access.slots[k] : SlotText{true, {}, {}, {}};
    c += indent + "{\n";
    if (!slot.range) {
      c += indent + "  const int64_t v = " + index_expr(*slot.index, index_c) + ";\n";
      c += indent + "  if (v < 0) {\n" +
           failure("table '" + tname + "': index " + idx + " = %lld is negative", "v") + indent +
           "  }\n";
      if (fixed)
        c += indent + "  if (v >= " + bound + "ll) {\n" +
             failure("table '" + tname + "': index " + idx + " = %lld exceeds its @fixed bound " +
                         idx + "=" + bound,
                     "v") +
             indent + "  }\n";
      c += indent + "  st[" + K + "] = v;\n" + indent + "  ln[" + K + "] = 1;\n";
    } else {
      ranges.push_back(k);
      c += indent + "  const int64_t size = " +
           (fixed ? bound + "ll" : "s->t_" + table.name + ".size[" + K + "]") + ";\n";
      c += indent + "  (void)size;\n";
      c += indent + "  const int64_t a = " +
           (slot.start ? index_expr(*slot.start, index_c) : std::string("0")) + ";\n";
      if (slot.end)
        c += indent + "  const int64_t e = " + index_expr(*slot.end, index_c) + ";\n" + indent +
             "  int64_t b = e < 0 ? size + e : e;\n";
      else
        c += indent + "  int64_t b = size;\n";
      c +=
          indent + "  if (a < 0) {\n" +
          failure("table '" + tname + "': slice start %lld of index " + idx + " is negative", "a") +
          indent + "  }\n";
      if (fixed)
        c += indent + "  if (b > " + bound + "ll) {\n" +
             failure("table '" + tname + "': slice end %lld of index " + idx +
                         " exceeds its @fixed bound " + idx + "=" + bound,
                     "b") +
             indent + "  }\n";
      c += indent + "  if (b < a) b = a;\n" + indent + "  st[" + K + "] = a;\n" + indent + "  ln[" +
           K + "] = b - a;\n";
    }
    c += indent + "}\n";
  }
  if (lead && !ranges.empty()) {
    if (lead->lead.size() != ranges.size())
      invalid_plan("the access of '" + table.name + "' stacks " + std::to_string(ranges.size()) +
                   " axes, '" + lead->other + "' has " + std::to_string(lead->lead.size()));
    // The simulator's words (core/src/exec/memory.cpp write_table, interpreter.cpp for a read).
    auto shape_text = [&](bool run_time) {
      std::string s = "[";
      for (size_t j = 0; j < ranges.size(); ++j)
        s += (j ? ", " : "") + (run_time ? std::string("%lld") : std::to_string(lead->lead[j]));
      for (uint64_t d : lead->entry) s += ", " + std::to_string(d);
      return s + "]";
    };
    std::string cond, args;
    for (size_t j = 0; j < ranges.size(); ++j) {
      const std::string K = std::to_string(ranges[j]);
      cond += (j ? " || ln[" : "ln[") + K + "] != " + std::to_string(lead->lead[j]) + "ll";
      args += ", (long long)ln[" + K + "]";
    }
    const std::string message =
        lead->write
            ? where + "cannot store a value of shape " + shape_text(false) + " into '" + tname +
                  "' where the access has shape " + shape_text(true)
            : format_text(lead->other_at) + "cannot store " + lead->dtype + shape_text(true) +
                  " into '" + format_text(lead->other) + "' of " + lead->dtype + shape_text(false);
    c += indent + "if (" + cond + ") {\n" + indent + "  s->failed = fail(s, " + prefix +
         "_ERR_RUN, \"" + message + "\"" + args + ");\n" + indent + "  " + stop + "\n" + indent +
         "}\n";
  }
  return c;
}

std::optional<std::vector<uint64_t>> static_lead(
    const TableDecl& table, const AccessText& access,
    const std::function<std::optional<int64_t>(const std::string&)>& constant) {
  auto value = [&](const IndexText& i) -> std::optional<int64_t> {
    if (i.literal) return i.value;
    auto v = constant(i.name);
    if (!v) return std::nullopt;
    return *v + i.value;
  };
  std::vector<uint64_t> lead;
  for (size_t k = 0; k < table.indices.size(); ++k) {
    const SlotText slot = k < access.slots.size() ? access.slots[k] : SlotText{true, {}, {}, {}};
    if (!slot.range) continue;
    const int64_t bound = table.bounds[k];
    // `n+c..n+d` (one name, d >= c): d - c entries whenever the access is in range (the start
    // is then at least 0, so the end is too and is never taken from the end).
    if (slot.start && slot.end && !slot.start->literal && !slot.end->literal &&
        slot.start->name == slot.end->name && slot.end->value >= slot.start->value) {
      lead.push_back(static_cast<uint64_t>(slot.end->value - slot.start->value));
      continue;
    }
    std::optional<int64_t> a = slot.start ? value(*slot.start) : std::optional<int64_t>(0);
    std::optional<int64_t> b;
    if (slot.end) {
      b = value(*slot.end);
      if (b && *b < 0) b = bound >= 0 ? std::optional<int64_t>(bound + *b) : std::nullopt;
    } else if (bound >= 0) {
      b = bound;
    }
    if (!a || !b) return std::nullopt;
    lead.push_back(*b > *a ? static_cast<uint64_t>(*b - *a) : 0);
  }
  return lead;
}

namespace {

const char* const kTablesComment = R"C(
/* ---- persistent tables (dsl.md) ----
 * A table is a dense array over its indices: capacity cap[k] along index k (the @fixed bound,
 * or grown geometrically on write for a growable index), entries row-major over the
 * capacities. size[k] is the highest index written + 1. Entries not allocated or never written
 * read as the @init entry (zeros without one). */
)C";

// The table and the state's oi_mem, in both profiles: what the table budget (hosted) and the
// undo record of a step (docs/synth.md "Table budget and failed steps") need: a flag byte per
// cell, the count of written entries (the simulator's entries: what the budget counts).
const char* const kTablesTypeC =
    R"C(/* The state's table memory: the budget (0: none), what the tables hold now (written entries x
 * entry bytes, plus @auto_dim matrices), the numbers of a refused growth for the message, and
 * the undo record of the step: one record per entry the step first overwrote or erased (grown
 * with realloc, hosted; a region of the arena sized at synthesis, freestanding). */
typedef struct oi_mem {
  uint64_t limit, total, before_total;
  uint64_t refused_from, refused_to, refused_total;
  unsigned char* log;
  size_t used, cap;
} oi_mem;
typedef struct oi_table {
  unsigned char* data;
  size_t entry_bytes;
  const unsigned char* init; /* one entry of the @init value; NULL: zeros */
  uint32_t rank;
  uint32_t entry_bits; /* packed entries of a part byte: their bits (stacked at bit offsets);
                          0: entries stack as whole bytes */
  int64_t bound[OI_TAB_RANK]; /* @fixed bound, -1 where the index grows */
  int64_t cap[OI_TAB_RANK];
  int64_t size[OI_TAB_RANK];
  unsigned char* flags; /* per cell: OI_TAB_WRITTEN, OI_TAB_NOTED (in this step's record) */
  uint64_t written;     /* entries written */
  oi_mem* mem;
  int noted; /* sizes and count below are this step's starting ones */
  int64_t u_size[OI_TAB_RANK];
  uint64_t u_written;
} oi_table;
#define OI_TAB_WRITTEN 1u
#define OI_TAB_NOTED 2u
/* An undo record starts with the table's pointer (in an 8-byte slot on every target, so that
 * its size does not depend on the pointers') and the entry's written flag; then its key and,
 * when it was written, its bytes. */
#define OI_UNDO_HEAD 9u

)C";

const char* const kTablesFillC =
    R"C(static OI_HELPER void oi_tab_fill(const oi_table* t, unsigned char* p, size_t entries) {
  if (!t->init) {
    memset(p, 0, entries * t->entry_bytes);
    return;
  }
  for (size_t e = 0; e < entries; ++e) memcpy(p + e * t->entry_bytes, t->init, t->entry_bytes);
}

/* Entries of capacities `cap`; 0 with *ok = 0 when the count or its bytes overflow. */
static OI_HELPER size_t oi_tab_count(const oi_table* t, const int64_t* cap, int* ok) {
  size_t n = 1;
  *ok = 1;
  for (uint32_t k = 0; k < t->rank; ++k) {
    const size_t c = (size_t)cap[k];
    if (c != 0 && n > SIZE_MAX / c) *ok = 0;
    n *= c;
  }
  if (t->entry_bytes != 0 && n > SIZE_MAX / t->entry_bytes) *ok = 0;
  return *ok ? n : 0;
}

)C";

const char* const kTablesAllocC =
    R"C(/* Grows the capacities to hold index need[k] - 1 along every index (geometric growth of the
 * growable ones); the entries and their flags keep their keys. 0, or -1 when the memory cannot
 * be had (the table unchanged). */
static OI_HELPER int oi_tab_reserve(oi_table* t, const int64_t* need) {
  int64_t cap[OI_TAB_RANK];
  int grow = 0;
  for (uint32_t k = 0; k < t->rank; ++k) {
    cap[k] = t->cap[k];
    if (need[k] <= cap[k]) continue;
    grow = 1;
    if (t->bound[k] >= 0) {
      cap[k] = t->bound[k];
    } else {
      int64_t c = cap[k] < 4 ? 4 : cap[k];
      while (c < need[k]) c = c > INT64_MAX / 2 ? need[k] : 2 * c;
      cap[k] = c;
    }
  }
  if (!grow) return 0;
  int ok = 1;
  const size_t count = oi_tab_count(t, cap, &ok);
  if (!ok) return -1;
  unsigned char* data = (unsigned char*)malloc(count * t->entry_bytes + 1u);
  unsigned char* flags = (unsigned char*)calloc(count + 1u, 1u);
  if (!data || !flags) {
    free(data);
    free(flags);
    return -1;
  }
  oi_tab_fill(t, data, count);
  const size_t old = t->data ? oi_tab_count(t, t->cap, &ok) : 0;
  for (size_t n = 0; n < old; ++n) {
    size_t rest = n, to = 0, stride = 1;
    for (uint32_t k = t->rank; k-- > 0;) {
      const size_t key = rest % (size_t)t->cap[k];
      rest /= (size_t)t->cap[k];
      to += key * stride;
      stride *= (size_t)cap[k];
    }
    memcpy(data + to * t->entry_bytes, t->data + n * t->entry_bytes, t->entry_bytes);
    flags[to] = t->flags[n];
  }
  free(t->data);
  free(t->flags);
  t->data = data;
  t->flags = flags;
  for (uint32_t k = 0; k < t->rank; ++k) t->cap[k] = cap[k];
  return 0;
}

/* A table of `rank` indices; fixed ones are allocated up front. 0, or -1 without memory. */
static OI_HELPER int oi_tab_create(oi_table* t, uint32_t rank, const int64_t* bound,
                                   size_t entry_bytes, const unsigned char* init, oi_mem* mem) {
  memset(t, 0, sizeof *t);
  t->rank = rank;
  t->entry_bytes = entry_bytes;
  t->init = init;
  t->mem = mem;
  int64_t need[OI_TAB_RANK];
  int fixed = 1;
  for (uint32_t k = 0; k < rank; ++k) {
    t->bound[k] = bound[k];
    need[k] = bound[k] < 0 ? 0 : bound[k];
    fixed = fixed && bound[k] >= 0;
  }
  return fixed ? oi_tab_reserve(t, need) : 0;
}

)C";

// The freestanding profile (docs/synth.md): every index has a @fixed bound, so a table is one
// array of the state, never grown; the access code checks the bounds before it reaches here.
// Its flags are an array of the state too, and its undo record the arena's region (oi_mem).
const char* const kTablesStaticC =
    R"C(/* A table over `data` (the state's array of bound entries) and `flags` (a byte per entry,
 * zeros): nothing is allocated. */
static OI_HELPER void oi_tab_create(oi_table* t, uint32_t rank, const int64_t* bound,
                                    size_t entry_bytes, const unsigned char* init,
                                    unsigned char* data, unsigned char* flags, oi_mem* mem) {
  memset(t, 0, sizeof *t);
  t->rank = rank;
  t->entry_bytes = entry_bytes;
  t->init = init;
  t->data = data;
  t->flags = flags;
  t->mem = mem;
  size_t count = 1;
  for (uint32_t k = 0; k < rank; ++k) {
    t->bound[k] = bound[k];
    t->cap[k] = bound[k];
    count *= (size_t)bound[k];
  }
  oi_tab_fill(t, data, count);
}

/* Every index is fixed: the capacities are the bounds, checked before every access. */
static OI_HELPER int oi_tab_reserve(oi_table* t, const int64_t* need) {
  for (uint32_t k = 0; k < t->rank; ++k)
    if (need[k] > t->cap[k]) return -1;
  return 0;
}

)C";

const char* const kTablesAccessC =
    R"C(/* The entry at `key`, or NULL where nothing is allocated (it reads as unwritten). */
static OI_HELPER unsigned char* oi_tab_at(const oi_table* t, const int64_t* key) {
  if (!t->data) return NULL;
  size_t at = 0;
  for (uint32_t k = 0; k < t->rank; ++k) {
    if (key[k] >= t->cap[k]) return NULL;
    at = at * (size_t)t->cap[k] + (size_t)key[k];
  }
  return t->data + at * t->entry_bytes;
}

/* Visits the keys st[k] .. st[k] + ln[k] - 1 row-major: calls fn(t, key, n, arg) for the n-th. */
typedef int (*oi_tab_visit_fn)(oi_table* t, const int64_t* key, size_t n, void* arg);
static OI_HELPER int oi_tab_visit(oi_table* t, const int64_t* st, const int64_t* ln,
                                  oi_tab_visit_fn fn, void* arg) {
  size_t total = 1;
  for (uint32_t k = 0; k < t->rank; ++k) total *= (size_t)ln[k];
  int64_t key[OI_TAB_RANK];
  for (size_t n = 0; n < total; ++n) {
    size_t rest = n;
    for (uint32_t k = t->rank; k-- > 0;) {
      key[k] = st[k] + (int64_t)(rest % (size_t)ln[k]);
      rest /= (size_t)ln[k];
    }
    int rc = fn(t, key, n, arg);
    if (rc) return rc;
  }
  return 0;
}

/* Copies `bits` bits from bit `from_at` of `from` (zeros where `from` is NULL) to bit `to_at`
 * of `to`, LSB first (oinf.md's packing); the other bits of `to` are kept. */
static OI_HELPER void oi_bits_copy(unsigned char* to, size_t to_at, const unsigned char* from,
                                   size_t from_at, size_t bits) {
  for (size_t i = 0; i < bits; ++i) {
    const size_t f = from_at + i, d = to_at + i;
    const unsigned b = from ? (from[f >> 3] >> (f & 7u)) & 1u : 0u;
    to[d >> 3] = (unsigned char)((to[d >> 3] & ~(1u << (d & 7u))) | (b << (d & 7u)));
  }
}

static OI_HELPER int oi_tab_read_one(oi_table* t, const int64_t* key, size_t n, void* arg) {
  const unsigned char* from = oi_tab_at(t, key);
  if (t->entry_bits) {
    oi_bits_copy((unsigned char*)arg, n * t->entry_bits, from ? from : t->init, 0, t->entry_bits);
    return 0;
  }
  unsigned char* to = (unsigned char*)arg + n * t->entry_bytes;
  if (from)
    memcpy(to, from, t->entry_bytes);
  else
    oi_tab_fill(t, to, 1);
  return 0;
}
/* The entries of the span stacked into `out` (packed ones of a part byte: the last byte's
 * unused bits zero, as in every packed value). */
static OI_HELPER void oi_tab_read(oi_table* t, const int64_t* st, const int64_t* ln, void* out) {
  oi_tab_visit(t, st, ln, oi_tab_read_one, out);
  if (t->entry_bits) {
    size_t total = t->entry_bits;
    for (uint32_t k = 0; k < t->rank; ++k) total *= (size_t)ln[k];
    if (total % 8u) oi_bits_copy((unsigned char*)out, total, NULL, 0, 8u - total % 8u);
  }
}

)C";

// Room for `need` more bytes of the undo record: grown with realloc (hosted), or within the
// arena's region sized at synthesis for the worst case of a step (freestanding, where -1 would
// mean that sizing is wrong: the step fails with its tables put back).
const char* const kUndoRoomHostedC =
    R"C(#define OI_TAB_BUDGET 1
static OI_HELPER int oi_mem_room(oi_mem* m, size_t need) {
  if (m->used + need <= m->cap) return 0;
  size_t cap = m->cap < 4096 ? 4096 : m->cap;
  while (cap < m->used + need) cap *= 2;
  unsigned char* grown = (unsigned char*)realloc(m->log, cap);
  if (!grown) return -1;
  m->log = grown;
  m->cap = cap;
  return 0;
}

)C";
const char* const kUndoRoomStaticC =
    R"C(#define OI_TAB_BUDGET 0 /* no budget: its check drops out */
static OI_HELPER int oi_mem_room(oi_mem* m, size_t need) {
  return m->used + need <= m->cap ? 0 : -1;
}

)C";

// Writes, in both profiles (docs/synth.md "Table budget and failed steps"): the budget (hosted;
// none freestanding) is checked before the table grows, and every entry a step first
// overwrites or erases goes to the undo record.
const char* const kTablesWriteC =
    R"C(/* The cell number of `key`, or SIZE_MAX past the capacity. */
static OI_HELPER size_t oi_tab_cell(const oi_table* t, const int64_t* key) {
  size_t at = 0;
  for (uint32_t k = 0; k < t->rank; ++k) {
    if (!t->data || key[k] >= t->cap[k]) return SIZE_MAX;
    at = at * (size_t)t->cap[k] + (size_t)key[k];
  }
  return at;
}

/* The step's first change of the table: its sizes and count are kept for a failed step. */
static OI_HELPER void oi_tab_note_sizes(oi_table* t) {
  if (t->noted) return;
  t->noted = 1;
  memcpy(t->u_size, t->size, sizeof t->size);
  t->u_written = t->written;
}

/* Before the step first changes the entry at cell `c` (key `key`): a record of the table, the
 * key, whether it was written and its bytes then. -1 without memory. */
static OI_HELPER int oi_tab_note(oi_table* t, const int64_t* key, size_t c) {
  oi_tab_note_sizes(t);
  if (c == SIZE_MAX || (t->flags[c] & OI_TAB_NOTED)) return 0;
  oi_mem* m = t->mem;
  const int was = (t->flags[c] & OI_TAB_WRITTEN) != 0;
  const size_t need = OI_UNDO_HEAD + t->rank * sizeof(int64_t) + (was ? t->entry_bytes : 0);
  if (oi_mem_room(m, need) != 0) return -1;
  unsigned char* p = m->log + m->used;
  memcpy(p, &t, sizeof t);
  p[OI_UNDO_HEAD - 1u] = (unsigned char)was;
  memcpy(p + OI_UNDO_HEAD, key, t->rank * sizeof(int64_t));
  if (was) memcpy(p + OI_UNDO_HEAD + t->rank * sizeof(int64_t), t->data + c * t->entry_bytes, t->entry_bytes);
  m->used += need;
  t->flags[c] |= OI_TAB_NOTED;
  return 0;
}

/* The entries a span adds to the table (cells never written, past the capacity too). */
static OI_HELPER int oi_tab_fresh_one(oi_table* t, const int64_t* key, size_t n, void* arg) {
  (void)n;
  const size_t c = oi_tab_cell(t, key);
  if (c == SIZE_MAX || !(t->flags[c] & OI_TAB_WRITTEN)) ++*(uint64_t*)arg;
  return 0;
}

static OI_HELPER int oi_tab_write_one(oi_table* t, const int64_t* key, size_t n, void* arg) {
  const size_t c = oi_tab_cell(t, key);
  if (oi_tab_note(t, key, c) != 0) return -1;
  if (!(t->flags[c] & OI_TAB_WRITTEN)) {
    t->flags[c] |= OI_TAB_WRITTEN;
    ++t->written;
    t->mem->total += t->entry_bytes;
  }
  if (t->entry_bits)
    oi_bits_copy(t->data + c * t->entry_bytes, 0, (const unsigned char*)arg, n * t->entry_bits, t->entry_bits);
  else
    memcpy(t->data + c * t->entry_bytes, (const unsigned char*)arg + n * t->entry_bytes, t->entry_bytes);
  for (uint32_t k = 0; k < t->rank; ++k)
    if (key[k] + 1 > t->size[k]) t->size[k] = key[k] + 1;
  return 0;
}
/* Stores the stacked entries of `in` into the span, growing the table: 0; -1 without memory;
 * -2 when the entries it adds would take the tables past the budget (checked before anything
 * is allocated or written; the numbers for the message are in t->mem). */
static OI_HELPER int oi_tab_write(oi_table* t, const int64_t* st, const int64_t* ln, const void* in) {
  int64_t need[OI_TAB_RANK];
  for (uint32_t k = 0; k < t->rank; ++k) {
    if (ln[k] == 0) return 0;
    need[k] = st[k] + ln[k];
  }
  oi_mem* m = t->mem;
  if (OI_TAB_BUDGET && m->limit) {
    uint64_t fresh = 0;
    oi_tab_visit(t, st, ln, oi_tab_fresh_one, &fresh);
    const uint64_t added = fresh * t->entry_bytes;
    if (added && m->total + added > m->limit) {
      m->refused_from = t->written * t->entry_bytes;
      m->refused_to = m->refused_from + added;
      m->refused_total = m->total + added;
      return -2;
    }
  }
  if (oi_tab_reserve(t, need) != 0) return -1;
  return oi_tab_visit(t, st, ln, oi_tab_write_one, (void*)(uintptr_t)in);
}

/* cache.reset: the entries whose first `n` indices are `prefix` read as unwritten again; with
 * n = 0 the whole table is emptied (size 0). -1 when the undo record cannot grow. */
static OI_HELPER int oi_tab_reset(oi_table* t, const int64_t* prefix, uint32_t n) {
  oi_tab_note_sizes(t);
  if (t->data) {
    int ok = 1;
    const size_t count = oi_tab_count(t, t->cap, &ok);
    int64_t key[OI_TAB_RANK];
    for (size_t e = 0; e < count; ++e) {
      size_t rest = e;
      int under = 1;
      for (uint32_t k = t->rank; k-- > 0;) {
        key[k] = (int64_t)(rest % (size_t)t->cap[k]);
        rest /= (size_t)t->cap[k];
        if (k < n && key[k] != prefix[k]) under = 0;
      }
      if (!under || !(t->flags[e] & OI_TAB_WRITTEN)) continue;
      if (oi_tab_note(t, key, e) != 0) return -1;
      t->flags[e] &= (unsigned char)~OI_TAB_WRITTEN;
      --t->written;
      t->mem->total -= t->entry_bytes;
      oi_tab_fill(t, t->data + e * t->entry_bytes, 1);
    }
  }
  if (n == 0)
    for (uint32_t k = 0; k < t->rank; ++k) t->size[k] = 0;
  return 0;
}

/* cache.reset of a window (reset_window.cpp): the entries with st[k] <= key[k] < st[k] + ln[k]
 * read as unwritten again; the sizes stay. -1 when the undo record cannot grow. */
static OI_HELPER int oi_tab_reset_span(oi_table* t, const int64_t* st, const int64_t* ln) {
  if (!t->data) return 0;
  int ok = 1;
  const size_t count = oi_tab_count(t, t->cap, &ok);
  int64_t key[OI_TAB_RANK];
  for (size_t e = 0; e < count; ++e) {
    size_t rest = e;
    int inside = 1;
    for (uint32_t k = t->rank; k-- > 0;) {
      key[k] = (int64_t)(rest % (size_t)t->cap[k]);
      rest /= (size_t)t->cap[k];
      if (key[k] < st[k] || key[k] >= st[k] + ln[k]) inside = 0;
    }
    if (!inside || !(t->flags[e] & OI_TAB_WRITTEN)) continue;
    if (oi_tab_note(t, key, e) != 0) return -1;
    t->flags[e] &= (unsigned char)~OI_TAB_WRITTEN;
    --t->written;
    t->mem->total -= t->entry_bytes;
    oi_tab_fill(t, t->data + e * t->entry_bytes, 1);
  }
  return 0;
}

/* The end of a step: a failed one puts back every entry of the record and the tables' sizes
 * and counts (undo = 1), a completed one drops the record. */
static OI_HELPER void oi_mem_end(oi_mem* m, int undo) {
  for (size_t at = 0; at < m->used;) {
    oi_table* t;
    memcpy(&t, m->log + at, sizeof t);
    const int was = m->log[at + OI_UNDO_HEAD - 1u];
    int64_t key[OI_TAB_RANK];
    memcpy(key, m->log + at + OI_UNDO_HEAD, t->rank * sizeof(int64_t));
    const unsigned char* old = m->log + at + OI_UNDO_HEAD + t->rank * sizeof(int64_t);
    const size_t c = oi_tab_cell(t, key);
    t->flags[c] &= (unsigned char)~OI_TAB_NOTED;
    if (undo && was) {
      memcpy(t->data + c * t->entry_bytes, old, t->entry_bytes);
      t->flags[c] |= OI_TAB_WRITTEN;
    } else if (undo) {
      oi_tab_fill(t, t->data + c * t->entry_bytes, 1);
      t->flags[c] &= (unsigned char)~OI_TAB_WRITTEN;
    }
    at += OI_UNDO_HEAD + t->rank * sizeof(int64_t) + (was ? t->entry_bytes : 0);
  }
  m->used = 0;
  if (undo) m->total = m->before_total;
  m->before_total = m->total;
}
static OI_HELPER void oi_tab_end(oi_table* t, int undo) {
  if (t->noted && undo) {
    memcpy(t->size, t->u_size, sizeof t->size);
    t->written = t->u_written;
  }
  t->noted = 0;
}

)C";

const char* const kTablesDimsC =
    R"C(/* The table fetched whole (dsl.md: its entries stacked as `[]` reads them): the @fixed bound
 * or the size along each index. */
static OI_HELPER void oi_tab_dims(const oi_table* t, int64_t* ln) {
  for (uint32_t k = 0; k < t->rank; ++k) ln[k] = t->bound[k] >= 0 ? t->bound[k] : t->size[k];
}
/* The whole table stacked into `out` (the freestanding fetch of packed entries of a part byte,
 * which the table's cells hold each in whole bytes): `out`. */
static OI_HELPER const unsigned char* oi_tab_stack(oi_table* t, unsigned char* out) {
  int64_t st[OI_TAB_RANK] = {0}, ln[OI_TAB_RANK] = {0};
  oi_tab_dims(t, ln);
  oi_tab_read(t, st, ln, out);
  return out;
}
)C";

}  // namespace

std::string tables_c(bool freestanding) {
  return std::string(kTablesComment) + kTablesFillC +
         (freestanding ? kTablesStaticC : kTablesAllocC) + kTablesAccessC +
         (freestanding ? kUndoRoomStaticC : kUndoRoomHostedC) + kTablesWriteC + kTablesDimsC;
}

// oi_table's arrays hold `rank` indices (the plan's most, at least 8).
std::string tables_hosted_type_c(size_t rank) {
  return "#define OI_TAB_RANK " + std::to_string(rank) + "\n" + kTablesTypeC;
}

uint64_t undo_record_bytes(size_t rank, uint64_t entry_bytes) {
  return 9 + 8 * rank + entry_bytes;  // OI_UNDO_HEAD, the key, the entry's bytes
}

std::string tables_type_c(size_t rank) {
  return std::string("#ifndef OI_TABLE_DEFINED\n#define OI_TABLE_DEFINED\n") +
         tables_hosted_type_c(rank) + "#endif\n";
}

}  // namespace oi::c_emitter
