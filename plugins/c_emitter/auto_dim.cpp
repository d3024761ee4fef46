// @auto_dim matrices in generated C (auto_dim.hpp); the semantics are core/src/exec/memory.cpp's
// (read_auto_dim, write_auto_dim, grow, auto_box), the messages its messages.
#include "auto_dim.hpp"

#include <algorithm>
#include <stdexcept>

#include "c_generator.hpp"

namespace oi::c_emitter {

std::string auto_dim_c(size_t rank) {
  return "#define OI_AD_RANK " + std::to_string(rank) + "\n" +
         R"(/* @auto_dim matrices: the cells in the current shape (base + counts on the auto axes),
 * row-major; growing copies the old cells to the same positions of the new shape. */
typedef struct {
  uint32_t rank, nauto;
  int64_t base[OI_AD_RANK], cnt[OI_AD_RANK];
  size_t esize;
  uint32_t bits; /* a packed dtype: its bits, a cell a byte holding them; 0 otherwise */
  unsigned char* data;
  const unsigned char* init; /* one element, or NULL: zeros */
  /* The table budget and failed steps (docs/synth.md): as in the simulator the matrix holds
   * bytes once an access touched it, until a reset; the step's first change keeps a copy. */
  oi_mem* mem;
  int present, noted, u_present;
  int64_t u_cnt[OI_AD_RANK];
  unsigned char* u_data;
} oi_auto;
static OI_HELPER void oi_ad_dims(const oi_auto* m, const int64_t* cnt, int64_t* d) {
  for (uint32_t k = 0; k < m->rank; ++k) d[k] = m->base[k] + (k < m->nauto ? cnt[k] : 0);
}
static OI_HELPER size_t oi_ad_cells(const oi_auto* m, const int64_t* cnt) {
  int64_t d[OI_AD_RANK];
  size_t n = 1;
  oi_ad_dims(m, cnt, d);
  for (uint32_t k = 0; k < m->rank; ++k) n *= (size_t)d[k];
  return n;
}
static OI_HELPER void oi_ad_fill(const oi_auto* m, unsigned char* p, size_t cells) {
  if (!m->init) {
    memset(p, 0, cells * m->esize);
    return;
  }
  for (size_t i = 0; i < cells; ++i) memcpy(p + i * m->esize, m->init, m->esize);
}
/* Copies the box st/ln of matrix data (shape d) to or from a dense buffer of the box's shape. */
static OI_HELPER void oi_ad_box(uint32_t rank, size_t esize, const int64_t* d, unsigned char* data,
                                const int64_t* st, const int64_t* ln, unsigned char* buf,
                                int write) {
  size_t rows = 1;
  int64_t idx[OI_AD_RANK] = {0};
  for (uint32_t k = 0; k < rank; ++k)
    if (ln[k] <= 0) return;
  for (uint32_t k = 0; k + 1 < rank; ++k) rows *= (size_t)ln[k];
  const size_t run = (size_t)ln[rank - 1] * esize;
  for (size_t r = 0; r < rows; ++r) {
    size_t off = 0;
    for (uint32_t k = 0; k < rank; ++k)
      off = off * (size_t)d[k] + (size_t)(st[k] + (k + 1 < rank ? idx[k] : 0));
    if (write)
      memcpy(data + off * esize, buf + r * run, run);
    else
      memcpy(buf + r * run, data + off * esize, run);
    for (uint32_t k = rank - 1; k-- > 0;) {
      if (++idx[k] < ln[k]) break;
      idx[k] = 0;
    }
  }
}
/* A read into a larger destination (dims dd): the box st/ln lands at its start, zeros around. */
static OI_HELPER void oi_ad_padded(uint32_t rank, size_t esize, const int64_t* d,
                                   const unsigned char* data, const int64_t* st, const int64_t* ln,
                                   const int64_t* dd, unsigned char* dst) {
  size_t rows = 1, cells = 1;
  int64_t idx[OI_AD_RANK] = {0};
  for (uint32_t k = 0; k < rank; ++k) cells *= (size_t)dd[k];
  memset(dst, 0, cells * esize);
  for (uint32_t k = 0; k < rank; ++k)
    if (ln[k] <= 0) return;
  for (uint32_t k = 0; k + 1 < rank; ++k) rows *= (size_t)ln[k];
  const size_t run = (size_t)ln[rank - 1] * esize;
  for (size_t r = 0; r < rows; ++r) {
    size_t from = 0, to = 0;
    for (uint32_t k = 0; k < rank; ++k) {
      const int64_t i = k + 1 < rank ? idx[k] : 0;
      from = from * (size_t)d[k] + (size_t)(st[k] + i);
      to = to * (size_t)dd[k] + (size_t)i;
    }
    memcpy(dst + to * esize, data + from * esize, run);
    for (uint32_t k = rank - 1; k-- > 0;) {
      if (++idx[k] < ln[k]) break;
      idx[k] = 0;
    }
  }
}
static OI_HELPER int oi_ad_create(oi_auto* m) {
  memset(m->cnt, 0, sizeof m->cnt);
  const size_t cells = oi_ad_cells(m, m->cnt);
  m->data = (unsigned char*)malloc(cells * m->esize + 1u);
  if (!m->data) return -1;
  oi_ad_fill(m, m->data, cells);
  return 0;
}
/* The bytes `cells` cells count for (the table budget): packed ones as the simulator packs them. */
static OI_HELPER uint64_t oi_ad_stored(const oi_auto* m, size_t cells) {
  return m->bits ? ((uint64_t)cells * m->bits + 7u) / 8u : (uint64_t)cells * m->esize;
}
static OI_HELPER uint64_t oi_ad_bytes(const oi_auto* m) {
  return m->present ? oi_ad_stored(m, oi_ad_cells(m, m->cnt)) : 0u;
}
/* Packed elements (LSB first, oinf.md) to cells of a byte each, and back. */
static OI_HELPER void oi_ad_unpack(unsigned char* cells, const unsigned char* p, size_t n,
                                   uint32_t bits) {
  const size_t per = 8u / bits;
  for (size_t i = 0; i < n; ++i)
    cells[i] = (unsigned char)((p[i / per] >> ((i % per) * bits)) & ((1u << bits) - 1u));
}
static OI_HELPER void oi_ad_pack(unsigned char* p, const unsigned char* cells, size_t n,
                                 uint32_t bits) {
  const size_t per = 8u / bits;
  memset(p, 0, (n * bits + 7u) / 8u);
  for (size_t i = 0; i < n; ++i)
    p[i / per] |= (unsigned char)((cells[i] & ((1u << bits) - 1u)) << ((i % per) * bits));
}
/* A refused growth of `added` bytes: the numbers of the message. -2. */
static OI_HELPER int oi_ad_refuse(oi_auto* m, uint64_t added) {
  m->mem->refused_from = oi_ad_bytes(m);
  m->mem->refused_to = m->mem->refused_from + added;
  m->mem->refused_total = m->mem->total + added;
  return -2;
}
/* Before the step first changes the matrix: its counts, whether it holds bytes, its cells. */
static OI_HELPER int oi_ad_note(oi_auto* m) {
  if (m->noted) return 0;
  const size_t bytes = oi_ad_cells(m, m->cnt) * m->esize;
  m->u_data = (unsigned char*)malloc(bytes + 1u);
  if (!m->u_data) return -1;
  memcpy(m->u_data, m->data, bytes);
  memcpy(m->u_cnt, m->cnt, sizeof m->cnt);
  m->u_present = m->present;
  m->noted = 1;
  return 0;
}
/* Every access first: an untouched matrix starts to hold its bytes (within the budget); one
 * the access may change is noted. 0, -1 without memory, -2 over the budget. */
static OI_HELPER int oi_ad_touch(oi_auto* m, int changes) {
  if ((changes || !m->present) && oi_ad_note(m) != 0) return -1;
  if (m->present) return 0;
  const uint64_t bytes = oi_ad_stored(m, oi_ad_cells(m, m->cnt));
  if (m->mem->limit && bytes && m->mem->total + bytes > m->mem->limit) return oi_ad_refuse(m, bytes);
  m->present = 1;
  m->mem->total += bytes;
  return 0;
}
/* The end of a step: a failed one (undo) puts the noted matrix back. */
static OI_HELPER void oi_ad_end(oi_auto* m, int undo) {
  if (!m->noted) return;
  if (undo) {
    memcpy(m->cnt, m->u_cnt, sizeof m->cnt);
    free(m->data);
    m->data = m->u_data;
    m->present = m->u_present;
  } else {
    free(m->u_data);
  }
  m->u_data = NULL;
  m->noted = 0;
}
/* cache.reset: counts 0, the cells @init (or zeros), no bytes held. -1 without memory. */
static OI_HELPER int oi_ad_reset(oi_auto* m) {
  if (oi_ad_note(m) != 0) return -1;
  m->mem->total -= oi_ad_bytes(m);
  m->present = 0;
  memset(m->cnt, 0, sizeof m->cnt);
  oi_ad_fill(m, m->data, oi_ad_cells(m, m->cnt));
  return 0;
}
/* Counts at least `want` on each auto axis; -1 when memory runs out, -2 over the budget (the
 * matrix unchanged). */
static OI_HELPER int oi_ad_grow(oi_auto* m, const int64_t* want) {
  int64_t cnt[OI_AD_RANK], od[OI_AD_RANK], nd[OI_AD_RANK], zero[OI_AD_RANK] = {0};
  int changed = 0;
  memcpy(cnt, m->cnt, sizeof cnt);
  for (uint32_t k = 0; k < m->nauto; ++k)
    if (want[k] > cnt[k]) {
      cnt[k] = want[k];
      changed = 1;
    }
  if (!changed) return 0;
  const size_t cells = oi_ad_cells(m, cnt);
  const uint64_t added = oi_ad_stored(m, cells) - oi_ad_stored(m, oi_ad_cells(m, m->cnt));
  if (m->mem->limit && added && m->mem->total + added > m->mem->limit) return oi_ad_refuse(m, added);
  unsigned char* grown = (unsigned char*)malloc(cells * m->esize + 1u);
  if (!grown) return -1;
  oi_ad_fill(m, grown, cells);
  oi_ad_dims(m, m->cnt, od);
  oi_ad_dims(m, cnt, nd);
  oi_ad_box(m->rank, m->esize, nd, grown, zero, od, m->data, 1);
  free(m->data);
  m->data = grown;
  memcpy(m->cnt, cnt, sizeof cnt);
  m->mem->total += added;
  return 0;
}
/* "[a, b]" of n numbers: a shape or a table key, as the simulator writes them. */
static OI_HELPER void oi_ad_text(char* out, size_t size, const int64_t* v, uint32_t n) {
  size_t used = (size_t)snprintf(out, size, "[");
  for (uint32_t k = 0; k < n && used < size; ++k)
    used += (size_t)snprintf(out + used, size - used, "%s%lld", k ? ", " : "", (long long)v[k]);
  if (used < size) snprintf(out + used, size - used, "]");
}
/* A table of matrices with growable @table indices (docs/synth.md): s->a_NAME holds one per
 * key within the capacities cap[k], row-major; the matrices' count. */
static OI_HELPER size_t oi_adt_count(const int64_t* cap, uint32_t nt) {
  size_t n = 1;
  for (uint32_t k = 0; k < nt; ++k) n *= (size_t)cap[k];
  return n;
}
/* Capacities holding key need[k] - 1 on every @table index (the @fixed bound where bound[k] >= 0,
 * else grown geometrically, at least 4): the matrices keep their keys, new ones are copies of
 * `proto` (a created, untouched matrix) with cells of their own. 0, or -1 without memory (the
 * table unchanged). */
static OI_HELPER int oi_adt_reserve(oi_auto** arr, int64_t* cap, const int64_t* bound, uint32_t nt,
                                    const int64_t* need, const oi_auto* proto) {
  int64_t nc[OI_AD_RANK];
  int grow = 0;
  for (uint32_t k = 0; k < nt; ++k) {
    nc[k] = cap[k];
    if (need[k] <= nc[k]) continue;
    grow = 1;
    if (bound[k] >= 0) {
      nc[k] = bound[k];
    } else {
      int64_t c = nc[k] < 4 ? 4 : nc[k];
      while (c < need[k]) c = c > INT64_MAX / 2 ? need[k] : 2 * c;
      nc[k] = c;
    }
  }
  if (!grow) return 0;
  const size_t count = oi_adt_count(nc, nt), old = *arr ? oi_adt_count(cap, nt) : 0;
  oi_auto* a = (oi_auto*)calloc(count + 1u, sizeof *a);
  unsigned char* placed = (unsigned char*)calloc(count + 1u, 1u);
  if (!a || !placed) {
    free(a);
    free(placed);
    return -1;
  }
  for (size_t n = 0; n < old; ++n) {
    size_t rest = n, to = 0, stride = 1;
    for (uint32_t k = nt; k-- > 0;) {
      to += (rest % (size_t)cap[k]) * stride;
      rest /= (size_t)cap[k];
      stride *= (size_t)nc[k];
    }
    a[to] = (*arr)[n];
    placed[to] = 1;
  }
  for (size_t e = 0; e < count; ++e) {
    if (placed[e]) continue;
    a[e] = *proto;
    if (oi_ad_create(&a[e]) == 0) continue;
    for (size_t f = 0; f < e; ++f)
      if (!placed[f]) free(a[f].data);
    free(a);
    free(placed);
    return -1;
  }
  free(placed);
  free(*arr);
  *arr = a;
  for (uint32_t k = 0; k < nt; ++k) cap[k] = nc[k];
  return 0;
}
/* Kernels of run-time shapes (runtime_kernel.cpp): numpy broadcasting of shapes a (ra dims)
 * and b (rb dims) into o, its rank, or -1 where they do not broadcast. */
static OI_HELPER int oi_rt_broadcast(const int64_t* a, uint32_t ra, const int64_t* b, uint32_t rb,
                                     int64_t* o) {
  const uint32_t r = ra > rb ? ra : rb;
  for (uint32_t k = 0; k < r; ++k) {
    const int64_t x = k + ra >= r ? a[k + ra - r] : 1, y = k + rb >= r ? b[k + rb - r] : 1;
    if (x != y && x != 1 && y != 1) return -1;
    o[k] = x == 1 ? y : x;
  }
  return (int)r;
}
/* src (shape sd, rank sr) repeated over dst (shape td, rank tr), which it broadcasts to. */
static OI_HELPER void oi_rt_spread(size_t esize, const unsigned char* src, const int64_t* sd,
                                   uint32_t sr, unsigned char* dst, const int64_t* td,
                                   uint32_t tr) {
  int64_t idx[OI_AD_RANK] = {0};
  size_t st[OI_AD_RANK], n = 1, acc = 1;
  for (uint32_t k = tr; k-- > 0;) {
    const int64_t x = k + sr >= tr ? sd[k + sr - tr] : 1;
    st[k] = x == 1 ? 0 : acc;
    acc *= (size_t)x;
    n *= (size_t)td[k];
  }
  for (size_t i = 0; i < n; ++i) {
    size_t off = 0;
    for (uint32_t k = 0; k < tr; ++k) off += (size_t)idx[k] * st[k];
    memcpy(dst + i * esize, src + off * esize, esize);
    for (uint32_t k = tr; k-- > 0;) {
      if (++idx[k] < td[k]) break;
      idx[k] = 0;
    }
  }
}
/* Key `flat` (row-major) of a table of matrices whose nt indices have bounds b. */
static OI_HELPER void oi_ad_key(int64_t flat, const int64_t* b, uint32_t nt, int64_t* key) {
  for (uint32_t k = nt; k-- > 0;) {
    key[k] = flat % b[k];
    flat /= b[k];
  }
}
)";
}

namespace {

std::string index_c_of(const IndexText& i, const AutoDimContext& ctx) {
  if (i.literal) return "(int64_t)" + std::to_string(i.value) + "ll";
  std::string e = ctx.index_c(i.name);
  if (i.value != 0) e = "(" + e + " + (int64_t)" + std::to_string(i.value) + "ll)";
  return e;
}

std::string shape_text(const std::vector<uint64_t>& s) {
  std::string t = "[";
  for (size_t k = 0; k < s.size(); ++k) t += (k ? ", " : "") + std::to_string(s[k]);
  return t + "]";
}

// The C of the box of one matrix (st/ln from d and the auto slots; every axis whole when the
// auto indices are all scalars or absent), with the simulator's range check.
std::string box_c(const AutoDimDecl& m, const std::vector<SlotText>& slots, bool whole,
                  const AutoDimContext& ctx, const std::string& where,
                  const std::function<std::string(const std::string&, const std::string&)>& fail) {
  const std::string& I = ctx.indent;
  std::string c;
  for (size_t k = 0; k < m.base.size(); ++k) {
    const std::string K = std::to_string(k);
    if (whole || k >= m.indices.size() || slots.empty()) {
      c += I + "    st[" + K + "] = 0;\n" + I + "    ln[" + K + "] = d[" + K + "];\n";
      continue;
    }
    const SlotText& slot = slots[k];
    std::string a = "0", b = "d[" + K + "]";
    if (!slot.range) {
      a = index_c_of(*slot.index, ctx);
      b = a + " + 1";
    } else {
      if (slot.start) a = index_c_of(*slot.start, ctx);
      if (slot.end) b = index_c_of(*slot.end, ctx);
    }
    c += I + "    {\n" + I + "      const int64_t a = " + a + ";\n" + I + "      int64_t b = " + b +
         ";\n";
    if (slot.range && slot.end) c += I + "      if (b < 0) b += d[" + K + "];\n";
    c += I + "      if (a < 0 || b > d[" + K + "] || a > b) {\n" +
         fail("_ERR_RUN", "\"" + where + "auto_dim '" + format_text(m.name) +
                              "': range %lld..%lld of " + format_text(m.indices[k]) +
                              " is outside the current %lld rows/columns\", (long long)a, (long "
                              "long)b, (long long)d[" +
                              K + "]") +
         I + "      }\n" + I + "      st[" + K + "] = a;\n" + I + "      ln[" + K + "] = b - a;\n" +
         I + "    }\n";
  }
  return c;
}

// auto_dim_access for a table of matrices: the keys the @table slots visit (row-major), each
// key's matrix (or its box) stacked along the sliced @table axes, as core/src/exec/memory.cpp's
// read_auto_dim and write_auto_dim; an unwritten matrix a stacked slice visits reads as a fresh
// one without being created.
std::string table_access(const AutoDimDecl& m, const AccessText& access, const std::string& var,
                         const std::vector<uint64_t>& var_shape, bool write,
                         const AutoDimContext& ctx, const AutoDimRead& rd,
                         const AutoDimRuntime* rt) {
  const size_t nt = m.table_indices.size(), nauto = m.indices.size(), rank = m.base.size();
  if (access.brackets && !access.slots.empty() && access.slots.size() != nt + nauto)
    invalid_plan("'" + m.name + "' takes " + std::to_string(nt + nauto) +
                 " indices, the access gives " + std::to_string(access.slots.size()));
  std::vector<SlotText> tslots(nt), aslots;
  for (size_t k = 0; k < nt; ++k) tslots[k].range = true;  // absent: every key
  if (!access.slots.empty()) {
    std::copy(access.slots.begin(), access.slots.begin() + nt, tslots.begin());
    aslots.assign(access.slots.begin() + nt, access.slots.end());
  }
  bool scalar = !aslots.empty(), stacked = false;
  for (const auto& slot : aslots) scalar = scalar && !slot.range;
  std::vector<size_t> lead;  // the sliced @table slots
  for (size_t k = 0; k < nt; ++k)
    if (tslots[k].range) lead.push_back(k), stacked = true;
  const std::string& I = ctx.indent;
  const std::string where = format_text(ctx.at.empty() ? "" : ctx.at + ": ");
  const std::string NT = std::to_string(nt), R = std::to_string(rank), E = std::to_string(m.esize);
  const std::string mname = format_text(m.name);
  // Every failure frees the stacking buffer first.
  auto fail = [&](const std::string& code, const std::string& format_and_args) {
    return I + "    free(stack);\n" + I + "    s->failed = fail(s, " + ctx.prefix + code + ", " +
           format_and_args + ");\n" + I + "    " + ctx.stop + "\n";
  };
  // The budget's message counts the whole table's bytes, as the simulator's (every matrix).
  const std::string count =
      m.growable() ? "(s->a_" + m.name + " ? oi_adt_count(s->ac_" + m.name + ", " + NT + "u) : 0u)"
                   : std::to_string(m.entries()) + "u";
  const std::string whole_table =
      I + "        if (rc == -2) {\n" + I +
      "          const uint64_t add = m->mem->refused_to - m->mem->refused_from;\n" + I +
      "          uint64_t sum = 0;\n" + I + "          for (size_t e = 0; e < " + count +
      "; ++e) sum += oi_ad_bytes(&s->a_" + m.name + "[e]);\n" + I +
      "          m->mem->refused_from = sum;\n" + I +
      "          m->mem->refused_to = sum + add;\n" + I + "        }\n";
  auto growth = [&](const std::string& call, const std::string& memory_message) {
    return I + "    {\n" + I + "      const int rc = " + call + ";\n" + I +
           "      if (rc != 0) {\n" + whole_table + I + "        free(stack);\n" + I +
           "        s->failed = rc == -2 ? budget_fail(s, \"" + where + "\", \"" + mname +
           "\") : fail(s, " + ctx.prefix + "_ERR_MEMORY, \"" + where + memory_message + "\");\n" +
           I + "        " + ctx.stop + "\n" + I + "      }\n" + I + "    }\n";
  };
  std::string c = I + "{ /* " + std::string(write ? "store into " : "read ") + m.name + " */\n";
  // A growable table's row-major keys run over its capacities s->ac_NAME (grown below).
  const std::string TB = m.growable() ? "s->ac_" + m.name : "tb";
  c += I + "  int64_t tst[" + NT + "], tln[" + NT + "], key[" + NT + "], first[" + NT +
       "], tb[] = {";
  for (size_t k = 0; k < nt; ++k) c += (k ? ", " : "") + std::to_string(m.table_bounds[k]) + "ll";
  c += "};\n" + I + "  (void)tb;\n" + I + "  int64_t d[" + R + "], st[" + R + "], ln[" + R +
       "], pd[" + R + "], nkeys = 1;\n" + I + "  size_t part = 0;\n" + I +
       "  unsigned char* stack = NULL;\n" + I + "  char t1[200], t2[200], t3[200];\n" + I +
       "  (void)first;\n" + I + "  (void)pd;\n" + I + "  (void)t1;\n" + I + "  (void)t2;\n" + I +
       "  (void)t3;\n" + I + "  (void)part;\n";
  // The @table slots, with memory.cpp's table_ranges checks.
  for (size_t k = 0; k < nt; ++k) {
    const std::string K = std::to_string(k), idx = format_text(m.table_indices[k]);
    const bool grows = m.table_bounds[k] < 0;  // no @fixed bound: slices end at the size
    const std::string B =
        grows ? "s->as_" + m.name + "[" + K + "]" : std::to_string(m.table_bounds[k]) + "ll";
    const SlotText& slot = tslots[k];
    c += I + "  {\n";
    if (!slot.range) {
      c += I + "    const int64_t a = " + index_c_of(*slot.index, ctx) + ";\n";
      c += I + "    if (a < 0) {\n" +
           fail("_ERR_RUN", "\"" + where + "table '" + mname + "': index " + idx +
                                " = %lld is negative\", (long long)a") +
           I + "    }\n";
      if (!grows)
        c += I + "    if (a >= " + B + ") {\n" +
             fail("_ERR_RUN", "\"" + where + "table '" + mname + "': index " + idx +
                                  " = %lld exceeds its @fixed bound " + idx + "=" + B +
                                  "\", (long long)a") +
             I + "    }\n";
      c += I + "    tst[" + K + "] = a;\n" + I + "    tln[" + K + "] = 1;\n";
    } else {
      c += I + "    const int64_t a = " + (slot.start ? index_c_of(*slot.start, ctx) : "0") +
           ";\n" + I + "    int64_t b = " + (slot.end ? index_c_of(*slot.end, ctx) : B) + ";\n";
      if (slot.end) c += I + "    if (b < 0) b += " + B + ";\n";
      c += I + "    if (a < 0) {\n" +
           fail("_ERR_RUN", "\"" + where + "table '" + mname + "': slice start %lld of index " +
                                idx + " is negative\", (long long)a") +
           I + "    }\n";
      if (!grows)
        c += I + "    if (b > " + B + ") {\n" +
             fail("_ERR_RUN", "\"" + where + "table '" + mname + "': slice end %lld of index " +
                                  idx + " exceeds its @fixed bound " + idx + "=" + B +
                                  "\", (long long)b") +
             I + "    }\n";
      c += I + "    if (b < a) b = a;\n" + I + "    tst[" + K + "] = a;\n" + I + "    tln[" + K +
           "] = b - a;\n";
    }
    c += I + "    nkeys *= tln[" + K + "];\n" + I + "  }\n";
  }
  std::string vs = "[";
  for (size_t k = 0; k < var_shape.size(); ++k)
    vs += (k ? ", " : "") + std::to_string(var_shape[k]);
  vs += "]";
  // A side of run-time shape (AutoDimRuntime): its dims rt->dims, its text tv.
  std::string vs_arg;
  auto var_dim = [&](size_t k) {
    return rt ? rt->dims + "[" + std::to_string(k) + "]" : std::to_string(var_shape[k]) + "ll";
  };
  const std::string var_rank = rt ? rt->rank : std::to_string(var_shape.size()) + "u";
  if (rt && write) {
    vs = "%s";
    vs_arg = ", tv";
    c += I + "  char tv[256];\n" + I + "  oi_ad_text(tv, sizeof tv, " + rt->dims + ", " + rt->rank +
         ");\n";
  }
  if (write) {  // the value's leading axes are the sliced @table slots'
    std::string ok = rt && !lead.empty() ? var_rank + " >= " + std::to_string(lead.size()) + "u"
                     : rt || var_shape.size() >= lead.size() ? "1"
                                                             : "0";
    for (size_t j = 0; j < lead.size() && ok != "0"; ++j)
      ok += " && tln[" + std::to_string(lead[j]) + "] == " + var_dim(j);
    c += I + "  if (!(" + ok + ")) {\n" +
         fail("_ERR_RUN", "\"" + where + "cannot store a value of shape " + vs +
                              " into %lld entries of auto_dim table '" + mname + "'\"" + vs_arg +
                              ", (long long)nkeys") +
         I + "  }\n";
  }
  if (m.growable() && (write || scalar || !stacked)) {
    // The keys visited are created: the capacities grown to hold them, the sizes (the highest
    // key + 1 per index, put back by a failed step) past them.
    std::string bound;
    for (size_t k = 0; k < nt; ++k)
      bound += (k ? ", " : "") + std::to_string(m.table_bounds[k]) + "ll";
    c += I + "  if (nkeys > 0) {\n" + I + "    const int64_t bound[] = {" + bound + "};\n" + I +
         "    int64_t need[" + NT + "];\n" + I + "    for (uint32_t k = 0; k < " + NT +
         "u; ++k) need[k] = tst[k] + tln[k];\n" + I + "    if (oi_adt_reserve(&s->a_" + m.name +
         ", s->ac_" + m.name + ", bound, " + NT + "u, need, &s->ap_" + m.name + ") != 0) {\n" +
         fail("_ERR_MEMORY",
              "\"" + where + "out of memory growing auto_dim table '" + mname + "'\"") +
         I + "    }\n" + I + "    for (uint32_t k = 0; k < " + NT + "u; ++k)\n" + I +
         "      if (need[k] > s->as_" + m.name + "[k]) s->as_" + m.name + "[k] = need[k];\n" + I +
         "  }\n";
  }
  uint64_t inner_cells = 1;
  for (size_t k = write ? lead.size() : var_shape.size(); k < var_shape.size(); ++k)
    inner_cells *= var_shape[k];
  std::string inner = std::to_string(inner_cells * m.esize) + "u";
  if (rt && write) {
    c += I + "  size_t inner = " + std::to_string(m.esize) + "u;\n" + I +
         "  for (uint32_t k = " + std::to_string(lead.size()) + "u; k < " + rt->rank +
         "; ++k) inner *= (size_t)" + rt->dims + "[k];\n";
    inner = "inner";
  }
  c += I + "  for (int64_t n = 0; n < nkeys; ++n) {\n";
  c += I + "    int64_t rest = n, e = 0;\n";
  c += I + "    for (uint32_t k = " + NT + "u; k-- > 0;) {\n" + I +
       "      key[k] = tst[k] + rest % tln[k];\n" + I + "      rest /= tln[k];\n" + I + "    }\n";
  // As memory.cpp's auto_entry_at: a write, a growing or a single-key access creates the
  // matrix (within the budget) and notes it; a stacked slice reads an unwritten one as fresh.
  const bool creates = write || scalar || !stacked;
  if (!m.growable()) {
    c += I + "    for (uint32_t k = 0; k < " + NT + "u; ++k) e = e * tb[k] + key[k];\n";
    c += I + "    oi_auto* m = &s->a_" + m.name + "[e];\n";
  } else {  // a key past the capacities (a read that creates nothing) reads the fresh matrix
    c += I + "    int inside = 1;\n" + I + "    for (uint32_t k = 0; k < " + NT + "u; ++k) {\n" +
         I + "      inside = inside && key[k] < " + TB + "[k];\n" + I + "      e = e * " + TB +
         "[k] + key[k];\n" + I + "    }\n" + I + "    oi_auto* m = inside ? &s->a_" + m.name +
         "[e] : &s->ap_" + m.name + ";\n";
  }
  c += I + "    if (" + std::string(creates ? "1" : "m->present") + ") " + "\n" +
       growth("oi_ad_touch(m, " + std::string(write || scalar ? "1" : "0") + ")",
              "out of memory keeping the undo record of auto_dim '" + mname + "'");
  if (scalar) {
    c += I + "    {\n" + I + "      int64_t want[" + std::to_string(nauto) + "];\n";
    for (size_t k = 0; k < nauto; ++k) {
      const std::string K = std::to_string(k), idx = format_text(m.indices[k]);
      c += I + "      want[" + K + "] = " + index_c_of(*aslots[k].index, ctx) + ";\n";
      c += I + "      if (want[" + K + "] < 0) {\n" +
           fail("_ERR_RUN", "\"" + where + "auto_dim '" + mname + "': index " + idx +
                                " = %lld is negative\", (long long)want[" + K + "]") +
           I + "      }\n";
      if (m.bounds[k] >= 0)
        c += I + "      if (want[" + K + "] > " + std::to_string(m.bounds[k]) + "ll) {\n" +
             fail("_ERR_RUN", "\"" + where + "auto_dim '" + mname + "': count " + idx +
                                  " = %lld exceeds its @fixed bound " + idx + "=" +
                                  std::to_string(m.bounds[k]) + "\", (long long)want[" + K + "]") +
             I + "      }\n";
    }
    c += growth("oi_ad_grow(m, want)", "out of memory growing auto_dim '" + mname + "'");
    c += I + "    }\n";
  }
  c += I + "    oi_ad_dims(m, m->cnt, d);\n";
  c += box_c(m, aslots, scalar, ctx, where, fail);
  const std::string entry = stacked ? " entry %s" : "";
  if (write) {
    std::string same = rt ? var_rank + " == " + std::to_string(lead.size() + rank) + "u"
                       : var_shape.size() == lead.size() + rank ? "1"
                                                                : "0";
    for (size_t k = 0; k < rank && same != "0"; ++k)
      same += " && ln[" + std::to_string(k) + "] == " + var_dim(lead.size() + k);
    c += I + "    if (!(" + same + ")) {\n" + I + "      oi_ad_text(t1, sizeof t1, ln, " + R +
         "u);\n" + I + "      oi_ad_text(t2, sizeof t2, key, " + NT + "u);\n" +
         fail("_ERR_RUN",
              "\"" + where + "cannot store a value of shape " + vs +
                  (scalar ? " as auto_dim '" + mname + "'" + entry + " of current shape %s\""
                          : " into a part of '" + mname + "'" + entry + " of shape %s\"") +
                  vs_arg + (stacked ? ", t2" : "") + ", t1") +
         I + "    }\n";
    c += I + "    oi_ad_box(" + R + "u, " + E + "u, d, m->data, st, ln, (unsigned char*)" +
         (rt ? rt->data : "s->v_" + var) + " + (size_t)n * " + inner + ", 1);\n";
  } else {
    c += I + "    if (n == 0) {\n" + I + "      part = 1;\n" + I +
         "      for (uint32_t k = 0; k < " + R + "u; ++k) {\n" + I + "        pd[k] = ln[k];\n" +
         I + "        part *= (size_t)ln[k];\n" + I + "      }\n" + I +
         "      memcpy(first, key, sizeof first);\n" + I +
         "      stack = (unsigned char*)malloc((size_t)nkeys * part * " + E + "u + 1u);\n" + I +
         "      if (!stack) {\n" +
         fail("_ERR_MEMORY",
              "\"" + where + "out of memory reading auto_dim table '" + mname + "'\"") +
         I + "      }\n" + I + "    } else if (memcmp(pd, ln, sizeof pd) != 0) {\n" + I +
         "      oi_ad_text(t1, sizeof t1, key, " + NT + "u);\n" + I +
         "      oi_ad_text(t2, sizeof t2, ln, " + R + "u);\n" + I +
         "      oi_ad_text(t3, sizeof t3, first, " + NT + "u);\n" + I + "      char t4[200];\n" +
         I + "      oi_ad_text(t4, sizeof t4, pd, " + R + "u);\n" +
         fail("_ERR_RUN", "\"" + where + "auto_dim table '" + mname +
                              "': entry %s gives shape %s but entry %s gives %s, so they cannot "
                              "be stacked (slice the matrices to equal parts)\", t1, t2, t3, t4") +
         I + "    }\n";
    c += I + "    oi_ad_box(" + R + "u, " + E +
         "u, d, m->data, st, ln, stack + (size_t)n * part * " + E + "u, 0);\n";
  }
  c += I + "  }\n";
  if (!write && rt) {
    // The stacked value to the side of run-time shape: the buffer and its dims.
    const size_t srank = lead.size() + rank;
    for (size_t j = 0; j < lead.size(); ++j)
      c += I + "  " + rt->dims + "[" + std::to_string(j) + "] = tln[" + std::to_string(lead[j]) +
           "];\n";
    for (size_t k = 0; k < rank; ++k)
      c += I + "  " + rt->dims + "[" + std::to_string(lead.size() + k) + "] = nkeys ? pd[" +
           std::to_string(k) + "] : " + std::to_string(m.base[k]) + "ll;\n";
    c += I + "  " + rt->rank + " = " + std::to_string(srank) + "u;\n" + I + "  if (!stack) {\n" +
         I + "    stack = (unsigned char*)malloc(1u);\n" + I + "    if (!stack) {\n" +
         fail("_ERR_MEMORY",
              "\"" + where + "out of memory reading auto_dim table '" + mname + "'\"") +
         I + "    }\n" + I + "  }\n" + I + "  " + rt->data + " = stack;\n";
  } else if (!write) {
    // The stacked value: the sliced @table lengths, then a part's shape (the declared one when
    // no key was visited); into the destination as it is, or zero padded where it fits.
    const size_t srank = lead.size() + rank;
    const std::string SR = std::to_string(srank);
    c += I + "  {\n" + I + "    int64_t sd[" + SR + "], zero[" + SR + "] = {0};\n";
    for (size_t j = 0; j < lead.size(); ++j)
      c += I + "    sd[" + std::to_string(j) + "] = tln[" + std::to_string(lead[j]) + "];\n";
    for (size_t k = 0; k < rank; ++k)
      c += I + "    sd[" + std::to_string(lead.size() + k) + "] = nkeys ? pd[" + std::to_string(k) +
           "] : " + std::to_string(m.base[k]) + "ll;\n";
    std::string same = var_shape.size() == srank ? "1" : "0", fits = same;
    for (size_t k = 0; k < srank && same != "0"; ++k) {
      same += " && sd[" + std::to_string(k) + "] == " + std::to_string(var_shape[k]) + "ll";
      fits += " && sd[" + std::to_string(k) + "] <= " + std::to_string(var_shape[k]) + "ll";
    }
    std::string vd;
    for (uint64_t x : var_shape) vd += (vd.empty() ? "" : ", ") + std::to_string(x) + "ll";
    if (!rd.pad) fits = "0";
    const std::string store_where = rd.store_at.empty() ? where : format_text(rd.store_at + ": ");
    const std::string mismatch_pre = rd.mismatch_pre.empty() ? "cannot store " + m.dtype
                                                             : format_text(rd.mismatch_pre),
                      mismatch_post = rd.mismatch_pre.empty()
                                          ? " into '" + format_text(var) + "' of " + m.dtype + vs
                                          : format_text(rd.mismatch_post);
    c += I + "    if (" + same + ") {\n" + I + "      if (nkeys) memcpy(s->v_" + var +
         ", stack, (size_t)nkeys * part * " + E + "u);\n" + I + "    } else if (" + fits + ") {\n" +
         I + "      const int64_t vd[] = {" + (vd.empty() ? "0" : vd) + "};\n" + I +
         "      oi_ad_padded(" + SR + "u, " + E +
         "u, sd, stack, zero, sd, vd, (unsigned char*)s->v_" + var + ");\n" + I + "    } else {\n" +
         I + "      oi_ad_text(t1, sizeof t1, sd, " + SR + "u);\n" +
         fail("_ERR_RUN", "\"" + store_where + mismatch_pre + "%s" + mismatch_post + "\", t1") + I +
         "    }\n" + I + "    free(stack);\n" + I + "  }\n";
  }
  c += I + "}\n";
  return c;
}

// The end of auto_dim_access with a side of run-time shape (AutoDimRuntime): the box st/ln of
// dims d read into a fresh buffer, or the side's bytes stored into it where the shapes agree
// (else the simulator's message, naming both shapes).
std::string runtime_side(const AutoDimDecl& m, const AutoDimRuntime& rt, bool write,
                         const AutoDimContext& ctx, const std::string& where, bool scalar) {
  const std::string& I = ctx.indent;
  const std::string R = std::to_string(m.base.size()), E = std::to_string(m.esize),
                    A = "s->a_" + m.name + "[0]";
  std::string c;
  if (!write) {
    c += I + "  {\n" + I + "    size_t cells = 1;\n" + I + "    for (uint32_t k = 0; k < " + R +
         "u; ++k) {\n" + I + "      " + rt.dims + "[k] = ln[k];\n" + I +
         "      cells *= (size_t)ln[k];\n" + I + "    }\n" + I + "    " + rt.rank + " = " + R +
         "u;\n" + I + "    " + rt.data + " = (unsigned char*)malloc(cells * " + E + "u + 1u);\n" +
         I + "    if (!" + rt.data + ") {\n" + I + "      s->failed = fail(s, " + ctx.prefix +
         "_ERR_MEMORY, \"" + where + "out of memory reading auto_dim '" + format_text(m.name) +
         "'\");\n" + I + "      " + ctx.stop + "\n" + I + "    }\n" + I + "    oi_ad_box(" + R +
         "u, " + E + "u, d, " + A + ".data, st, ln, " + rt.data + ", 0);\n" + I + "  }\n";
    return c;
  }
  std::string same = rt.rank + " == " + R + "u";
  for (size_t k = 0; k < m.base.size(); ++k)
    same += " && ln[" + std::to_string(k) + "] == " + rt.dims + "[" + std::to_string(k) + "]";
  c += I + "  if (!(" + same + ")) {\n" + I + "    char tv[256], ta[256];\n" + I +
       "    oi_ad_text(tv, sizeof tv, " + rt.dims + ", " + rt.rank + ");\n" + I +
       "    oi_ad_text(ta, sizeof ta, ln, " + R + "u);\n" + I + "    s->failed = fail(s, " +
       ctx.prefix + "_ERR_RUN, \"" + where + "cannot store a value of shape %s " +
       (scalar ? "as auto_dim '" + format_text(m.name) + "' of current shape"
               : "into a part of '" + format_text(m.name) + "' of shape") +
       " %s\", tv, ta);\n" + I + "    " + ctx.stop + "\n" + I + "  }\n";
  c += I + "  oi_ad_box(" + R + "u, " + E + "u, d, " + A + ".data, st, ln, " + rt.data + ", 1);\n";
  return c;
}

}  // namespace

std::string auto_dim_fetch_stacked(const AutoDimDecl& m, const std::string& prefix) {
  if (m.growable()) {
    const std::string A = "w->a_" + m.name, R = std::to_string(m.base.size()),
                      NT = std::to_string(m.table_indices.size()), F = "w->af_" + m.name;
    auto at = [&](const std::string& e) { return "&" + A + "[" + e + "]"; };
    return "    int64_t d0[" + R + "], d[" + R + "], key[" + NT + "], k0[" + NT + "] = {0}, sz[" +
           NT + "];\n    char t1[200], t2[200], t3[200], t4[200];\n    size_t nk = 1, one;\n" +
           "    memcpy(sz, w->as_" + m.name + ", sizeof sz);\n    for (uint32_t k = 0; k < " + NT +
           "u; ++k) nk *= (size_t)sz[k];\n    const oi_auto* m0 = nk ? " + at("0") + " : &w->ap_" +
           m.name + ";\n    oi_ad_dims(m0, m0->cnt, d0);\n" +
           "    one = oi_ad_cells(m0, m0->cnt) * m0->esize;\n    free(" + F + ");\n    " + F +
           " = (unsigned char*)malloc(nk * one + 1u);\n    if (!" + F + ") return fail(w, " +
           prefix + "_ERR_MEMORY, \"out of memory fetching '" + format_text(m.name) +
           "'\");\n    for (size_t n = 0; n < nk; ++n) {\n      size_t e = 0;\n" +
           "      oi_ad_key((int64_t)n, sz, " + NT + "u, key);\n      for (uint32_t k = 0; k < " +
           NT + "u; ++k) e = e * (size_t)w->ac_" + m.name +
           "[k] + (size_t)key[k];\n      const oi_auto* m = " + at("e") +
           ";\n      oi_ad_dims(m, m->cnt, d);\n      if (memcmp(d, d0, sizeof d) != 0) {\n" +
           "        oi_ad_text(t1, sizeof t1, key, " + NT +
           "u);\n        oi_ad_text(t2, sizeof t2, d, " + R +
           "u);\n        oi_ad_text(t3, sizeof t3, k0, " + NT +
           "u);\n        oi_ad_text(t4, sizeof t4, d0, " + R + "u);\n        return fail(w, " +
           prefix + "_ERR_RUN, \"auto_dim table '" + format_text(m.name) +
           "': entry %s gives shape %s but entry %s gives %s, so they cannot be stacked (slice the "
           "matrices to equal parts)\", t1, t2, t3, t4);\n      }\n      memcpy(" +
           F + " + n * one, m->data, one);\n    }\n    *data = " + F +
           ";\n    *bytes = nk * one;\n";
  }
  const std::string A = "w->a_" + m.name, E = std::to_string(m.entries()),
                    R = std::to_string(m.base.size()), NT = std::to_string(m.table_indices.size());
  std::string tb;
  for (int64_t b : m.table_bounds) tb += (tb.empty() ? "" : ", ") + std::to_string(b) + "ll";
  return "    int64_t d0[" + R + "], d[" + R + "], tb[] = {" + tb + "}, key[" + NT + "], k0[" + NT +
         "] = {0};\n    char t1[200], t2[200], t3[200], t4[200];\n    oi_ad_dims(&" + A + "[0], " +
         A + "[0].cnt, d0);\n    for (int64_t e = 1; e < " + E + "; ++e) {\n      oi_ad_dims(&" +
         A + "[e], " + A + "[e].cnt, d);\n      if (memcmp(d, d0, sizeof d) != 0) {\n" +
         "        oi_ad_key(e, tb, " + NT + "u, key);\n        oi_ad_text(t1, sizeof t1, key, " +
         NT + "u);\n        oi_ad_text(t2, sizeof t2, d, " + R +
         "u);\n        oi_ad_text(t3, sizeof t3, k0, " + NT +
         "u);\n        oi_ad_text(t4, sizeof t4, d0, " + R + "u);\n        return fail(w, " +
         prefix + "_ERR_RUN, \"auto_dim table '" + format_text(m.name) +
         "': entry %s gives shape %s but entry %s gives %s, so they cannot be stacked (slice the "
         "matrices to equal parts)\", t1, t2, t3, t4);\n      }\n    }\n    const size_t one = "
         "oi_ad_cells(&" +
         A + "[0], " + A + "[0].cnt) * " + A + "[0].esize;\n    free(w->af_" + m.name +
         ");\n    w->af_" + m.name + " = (unsigned char*)malloc(" + E +
         "u * one + 1u);\n    if (!w->af_" + m.name + ") return fail(w, " + prefix +
         "_ERR_MEMORY, \"out of memory fetching '" + format_text(m.name) +
         "'\");\n    for (int64_t e = 0; e < " + E + "; ++e) memcpy(w->af_" + m.name +
         " + (size_t)e * one, " + A + "[e].data, one);\n    *data = w->af_" + m.name +
         ";\n    *bytes = " + E + "u * one;\n";
}

std::string auto_dim_access(const AutoDimDecl& m, const AccessText& access, const std::string& var,
                            const std::vector<uint64_t>& var_shape, bool write,
                            const AutoDimContext& ctx, const AutoDimRead& rd,
                            const AutoDimRuntime* rt) {
  if (!m.table_indices.empty()) return table_access(m, access, var, var_shape, write, ctx, rd, rt);
  const size_t rank = m.base.size(), nauto = m.indices.size();
  if (access.brackets && access.slots.size() != nauto && !access.slots.empty())
    invalid_plan("'" + m.name + "' takes " + std::to_string(nauto) + " indices, the access gives " +
                 std::to_string(access.slots.size()));
  // Scalar indices on every auto axis: grow, then the whole matrix; else a box, never growing.
  bool scalar = access.brackets && !access.slots.empty();
  for (const auto& slot : access.slots) scalar = scalar && !slot.range;
  const std::string& I = ctx.indent;
  const std::string where = format_text(ctx.at.empty() ? "" : ctx.at + ": ");
  const std::string R = std::to_string(rank), A = "s->a_" + m.name + "[0]";
  auto fail = [&](const std::string& code, const std::string& message, const std::string& args) {
    return I + "    s->failed = fail(s, " + ctx.prefix + code + ", \"" + where + message + "\"" +
           args + ");\n" + I + "    " + ctx.stop + "\n";
  };
  // -1: out of memory, -2: over the table budget (the message from budget_fail).
  auto failed_growth = [&](const std::string& call, const std::string& memory_message) {
    return I + "  {\n" + I + "    const int rc = " + call + ";\n" + I + "    if (rc == -2) {\n" +
           I + "      s->failed = budget_fail(s, \"" + where + "\", \"" + format_text(m.name) +
           "\");\n" + I + "      " + ctx.stop + "\n" + I + "    }\n" + I + "    if (rc != 0) {\n" +
           fail("_ERR_MEMORY", memory_message, "") + I + "    }\n" + I + "  }\n";
  };
  std::string c = I + "{ /* " + std::string(write ? "store into " : "read ") + m.name + " */\n";
  c += I + "  int64_t d[" + R + "], st[" + R + "], ln[" + R + "];\n";
  // As the simulator: the matrix exists (holding bytes) from its first access; an access that
  // may change it is noted for a failed step first.
  c += failed_growth(
      "oi_ad_touch(&" + A + ", " + (write || scalar ? "1" : "0") + ")",
      "out of memory keeping the undo record of auto_dim '" + format_text(m.name) + "'");
  if (scalar) {
    c += I + "  int64_t want[" + std::to_string(nauto) + "];\n";
    for (size_t k = 0; k < nauto; ++k) {
      const std::string K = std::to_string(k), idx = format_text(m.indices[k]);
      c += I + "  want[" + K + "] = " + index_c_of(*access.slots[k].index, ctx) + ";\n";
      c += I + "  if (want[" + K + "] < 0) {\n" +
           fail("_ERR_RUN",
                "auto_dim '" + format_text(m.name) + "': index " + idx + " = %lld is negative",
                ", (long long)want[" + K + "]") +
           I + "  }\n";
      if (m.bounds[k] >= 0)
        c += I + "  if (want[" + K + "] > " + std::to_string(m.bounds[k]) + "ll) {\n" +
             fail("_ERR_RUN",
                  "auto_dim '" + format_text(m.name) + "': count " + idx +
                      " = %lld exceeds its @fixed bound " + idx + "=" + std::to_string(m.bounds[k]),
                  ", (long long)want[" + K + "]") +
             I + "  }\n";
    }
    c += failed_growth("oi_ad_grow(&" + A + ", want)",
                       "out of memory growing auto_dim '" + format_text(m.name) + "'");
  }
  c += I + "  oi_ad_dims(&" + A + ", " + A + ".cnt, d);\n";
  for (size_t k = 0; k < rank; ++k) {
    const std::string K = std::to_string(k);
    if (scalar || k >= nauto || access.slots.empty()) {
      c += I + "  st[" + K + "] = 0;\n" + I + "  ln[" + K + "] = d[" + K + "];\n";
      continue;
    }
    const SlotText& slot = access.slots[k];
    std::string a = "0", b = "d[" + K + "]";
    if (!slot.range) {
      a = index_c_of(*slot.index, ctx);
      b = a + " + 1";
    } else {
      if (slot.start) a = index_c_of(*slot.start, ctx);
      if (slot.end) b = index_c_of(*slot.end, ctx);
    }
    c +=
        I + "  {\n" + I + "    const int64_t a = " + a + ";\n" + I + "    int64_t b = " + b + ";\n";
    if (slot.range && slot.end) c += I + "    if (b < 0) b += d[" + K + "];\n";
    c += I + "    if (a < 0 || b > d[" + K + "] || a > b) {\n" + I + "      s->failed = fail(s, " +
         ctx.prefix + "_ERR_RUN, \"" + where + "auto_dim '" + format_text(m.name) +
         "': range %lld..%lld of " + format_text(m.indices[k]) +
         " is outside the current %lld rows/columns\", (long long)a, (long long)b, (long "
         "long)d[" +
         K + "]);\n" + I + "      " + ctx.stop + "\n" + I + "    }\n" + I + "    st[" + K +
         "] = a;\n" + I + "    ln[" + K + "] = b - a;\n" + I + "  }\n";
  }
  if (rt) return c + runtime_side(m, *rt, write, ctx, where, scalar) + I + "}\n";
  // The other side has the shape read or written.
  std::string same = "1";
  if (var_shape.size() != rank) same = "0";
  for (size_t k = 0; k < rank && same != "0"; ++k)
    same += " && ln[" + std::to_string(k) + "] == " + std::to_string(var_shape[k]) + "ll";
  std::string dims_fmt, dims_args;
  for (size_t k = 0; k < rank; ++k) {
    dims_fmt += (k ? ", " : "") + std::string("%lld");
    dims_args += ", (long long)ln[" + std::to_string(k) + "]";
  }
  const std::string message =
      write ? "cannot store a value of shape " + shape_text(var_shape) +
                  (scalar ? " as auto_dim '" + format_text(m.name) + "' of current shape ["
                          : " into a part of '" + format_text(m.name) + "' of shape [") +
                  dims_fmt + "]"
      : rd.mismatch_pre.empty()
          ? "cannot store " + m.dtype + "[" + dims_fmt + "] into '" + format_text(var) + "' of " +
                m.dtype + shape_text(var_shape)
          : format_text(rd.mismatch_pre) + "[" + dims_fmt + "]" + format_text(rd.mismatch_post);
  // As the simulator: a read that fits inside its destination lands there zero padded (a
  // @fixed matrix read into the bound's shape).
  std::string fits = var_shape.size() == rank && !write && rd.pad ? "1" : "0";
  for (size_t k = 0; k < rank && fits != "0"; ++k)
    fits += " && ln[" + std::to_string(k) + "] <= " + std::to_string(var_shape[k]) + "ll";
  // A read's mismatch is the destination's store failing (the simulator's store_at).
  const std::string mismatch_where =
      write || rd.store_at.empty() ? where : format_text(rd.store_at + ": ");
  const std::string mismatch = I + "    s->failed = fail(s, " + ctx.prefix + "_ERR_RUN, \"" +
                               mismatch_where + message + "\"" + dims_args + ");\n" + I + "    " +
                               ctx.stop + "\n";
  c += I + "  if (!(" + same + ")) {\n";
  if (fits != "0") {
    std::string vd;
    for (uint64_t x : var_shape) vd += (vd.empty() ? "" : ", ") + std::to_string(x) + "ll";
    c += I + "    if (" + fits + ") {\n" + I + "      const int64_t vd[] = {" + vd + "};\n" + I +
         "      oi_ad_padded(" + R + "u, " + std::to_string(m.esize) + "u, d, " + A +
         ".data, st, ln, vd, (unsigned char*)s->v_" + var + ");\n" + I + "    } else {\n" +
         mismatch + I + "    }\n";
  } else {
    c += mismatch;
  }
  c += I + "  } else {\n";
  c += I + "    oi_ad_box(" + R + "u, " + std::to_string(m.esize) + "u, d, " + A +
       ".data, st, ln, (unsigned char*)s->v_" + var + ", " + (write ? "1" : "0") + ");\n";
  c += I + "  }\n";
  c += I + "}\n";
  return c;
}

}  // namespace oi::c_emitter
