// The copies of tables a yield's consumers read as yielded (yield_snapshot.hpp).
#include "yield_snapshot.hpp"

#include <sstream>

namespace oi::c_emitter {

namespace {

std::string matrices_copy_c() {
  return R"(/* Copies of n matrices (their cells and counts; no undo copy: the readers change nothing, and
 * the copy holds no bytes of the table budget, as the simulator's copy); NULL without memory. */
static OI_HELPER oi_auto* oi_ad_clone_n(const oi_auto* from, size_t n) {
  oi_auto* to = (oi_auto*)calloc(n + 1u, sizeof *to);
  if (!to) return NULL;
  for (size_t e = 0; e < n; ++e) {
    const size_t bytes = oi_ad_cells(&from[e], from[e].cnt) * from[e].esize;
    to[e] = from[e];
    to[e].noted = 1; /* nothing to keep for a failed step: the copy is dropped before */
    to[e].u_data = NULL;
    to[e].u_present = -1; /* a copy's mark (oi_ad_drop_n) */
    to[e].present = 1;
    to[e].data = (unsigned char*)malloc(bytes + 1u);
    if (!to[e].data) {
      for (size_t k = 0; k < e; ++k) free(to[k].data);
      free(to);
      return NULL;
    }
    memcpy(to[e].data, from[e].data, bytes);
  }
  return to;
}
static OI_HELPER void oi_ad_drop_n(oi_auto* m, size_t n) {
  if (!m) return;
  for (size_t e = 0; e < n; ++e) {
    /* a matrix a reader first touched in the copy (a key the copy's array grew to) gives back
     * the bytes the touch counted */
    if (m[e].u_present != -1 && m[e].present) m[e].mem->total -= oi_ad_bytes(&m[e]);
    free(m[e].data);
    free(m[e].u_data);
  }
  free(m);
}
)";
}

}  // namespace

std::string yield_copy_c(bool freestanding, bool tables, bool matrices) {
  std::string c =
      R"(/* A yield's consumers that each await a table another writes (docs/synth.md "Consumers of
 * a yield"): a copy of the table as yielded, swapped in for the readers after its writer. */
)";
  if (!tables) return matrices && !freestanding ? c + matrices_copy_c() : "";
  c += R"(static OI_HELPER void oi_tab_swap(oi_table* a, oi_table* b) {
  const oi_table t = *a;
  *a = *b;
  *b = t;
}
)";
  if (freestanding) {
    c += R"(/* The copy into the state's arrays `data` and `flags` (the table's bound entries). */
static OI_HELPER void oi_tab_clone(oi_table* to, const oi_table* from, unsigned char* data,
                                   unsigned char* flags) {
  int ok = 1;
  const size_t count = oi_tab_count(from, from->cap, &ok);
  *to = *from;
  memcpy(data, from->data, count * from->entry_bytes);
  memcpy(flags, from->flags, count);
  to->data = data;
  to->flags = flags;
}
)";
    return c;
  }
  c += R"(/* 0, or -1 without memory (`to` then holds nothing to free). */
static OI_HELPER int oi_tab_clone(oi_table* to, const oi_table* from) {
  int ok = 1;
  *to = *from;
  to->data = NULL;
  to->flags = NULL;
  if (!from->data) return 0;
  const size_t count = oi_tab_count(from, from->cap, &ok);
  unsigned char* data = (unsigned char*)malloc(count * from->entry_bytes + 1u);
  unsigned char* flags = (unsigned char*)malloc(count + 1u);
  if (!data || !flags) {
    free(data);
    free(flags);
    return -1;
  }
  memcpy(data, from->data, count * from->entry_bytes);
  memcpy(flags, from->flags, count);
  to->data = data;
  to->flags = flags;
  return 0;
}
static OI_HELPER void oi_tab_drop(oi_table* t) {
  free(t->data);
  free(t->flags);
  t->data = NULL;
  t->flags = NULL;
}
)";
  return matrices ? c + matrices_copy_c() : c;
}

std::string take_copies(const std::vector<YieldCopy>& copies, bool freestanding,
                        const std::string& prefix, const std::string& line, const std::string& stop,
                        const std::string& indent) {
  std::ostringstream c;
  c << indent << "int ys_ok = 1;\n";
  for (const YieldCopy& y : copies) {
    const std::string& n = y.name;
    switch (y.kind) {
      case YieldCopy::Kind::Table:
        c << indent << "oi_table ys_" << n << ";\n";
        if (freestanding)
          c << indent << "oi_tab_clone(&ys_" << n << ", &s->t_" << n << ", (unsigned char*)s->ys_d_"
            << n << ", s->ys_f_" << n << ");\n";
        else
          c << indent << "ys_ok = oi_tab_clone(&ys_" << n << ", &s->t_" << n
            << ") == 0 && ys_ok;\n";
        break;
      case YieldCopy::Kind::Matrices:
        c << indent << "const size_t ys_n_" << n << " = " << y.count_c << ";\n"
          << indent << "oi_auto* ys_" << n << " = oi_ad_clone_n(s->a_" << n << ", ys_n_" << n
          << ");\n"
          << indent << "ys_ok = ys_" << n << " != NULL && ys_ok;\n";
        break;
      case YieldCopy::Kind::GrowableMatrices:
        c << indent << "const size_t ys_n_" << n << " = " << y.count_c << ";\n"
          << indent << "oi_auto* ys_" << n << " = s->a_" << n << " ? oi_ad_clone_n(s->a_" << n
          << ", ys_n_" << n << ") : NULL;\n"
          << indent << "ys_ok = (ys_" << n << " != NULL || !s->a_" << n << ") && ys_ok;\n"
          << indent << "int64_t ys_ac_" << n << "[" << y.table_rank << "], ys_as_" << n << "["
          << y.table_rank << "];\n"
          << indent << "memcpy(ys_ac_" << n << ", s->ac_" << n << ", sizeof ys_ac_" << n << ");\n"
          << indent << "memcpy(ys_as_" << n << ", s->as_" << n << ", sizeof ys_as_" << n << ");\n";
        break;
    }
  }
  c << indent << "if (!ys_ok) {\n"
    << drop_copies(copies, freestanding, indent + "  ") << indent << "  s->failed = fail(s, "
    << prefix << "_ERR_MEMORY, \"out of memory copying the tables of the yield at line " << line
    << " for its consumers\");\n"
    << indent << "  " << stop << "\n"
    << indent << "}\n";
  return c.str();
}

std::string swap_copy(const YieldCopy& y, const std::string& indent) {
  const std::string& n = y.name;
  switch (y.kind) {
    case YieldCopy::Kind::Table:
      return indent + "oi_tab_swap(&s->t_" + n + ", &ys_" + n + ");\n";
    case YieldCopy::Kind::Matrices:
      return indent + "for (size_t e = 0; e < ys_n_" + n + "; ++e) {\n" + indent +
             "  const oi_auto t = s->a_" + n + "[e];\n" + indent + "  s->a_" + n + "[e] = ys_" + n +
             "[e];\n" + indent + "  ys_" + n + "[e] = t;\n" + indent + "}\n";
    case YieldCopy::Kind::GrowableMatrices:
      return indent + "{\n" + indent + "  oi_auto* const t = s->a_" + n + ";\n" + indent +
             "  int64_t k[" + std::to_string(y.table_rank) + "];\n" + indent + "  s->a_" + n +
             " = ys_" + n + ";\n" + indent + "  ys_" + n + " = t;\n" + indent +
             "  memcpy(k, s->ac_" + n + ", sizeof k);\n" + indent + "  memcpy(s->ac_" + n +
             ", ys_ac_" + n + ", sizeof k);\n" + indent + "  memcpy(ys_ac_" + n +
             ", k, sizeof k);\n" + indent + "  memcpy(k, s->as_" + n + ", sizeof k);\n" + indent +
             "  memcpy(s->as_" + n + ", ys_as_" + n + ", sizeof k);\n" + indent +
             "  memcpy(ys_as_" + n + ", k, sizeof k);\n" + indent + "}\n";
  }
  return "";
}

std::string drop_copies(const std::vector<YieldCopy>& copies, bool freestanding,
                        const std::string& indent) {
  if (freestanding) return "";
  std::string c;
  for (const YieldCopy& y : copies) {
    if (y.kind == YieldCopy::Kind::Table)
      c += indent + "oi_tab_drop(&ys_" + y.name + ");\n";
    else if (y.kind == YieldCopy::Kind::Matrices)
      c += indent + "oi_ad_drop_n(ys_" + y.name + ", ys_n_" + y.name + ");\n";
    else  // as many as its capacities hold now: a reader may have grown the copy's array
      c += indent + "oi_ad_drop_n(ys_" + y.name + ", ys_" + y.name + " ? oi_adt_count(ys_ac_" +
           y.name + ", " + std::to_string(y.table_rank) + "u) : 0u);\n";
  }
  return c;
}

}  // namespace oi::c_emitter
