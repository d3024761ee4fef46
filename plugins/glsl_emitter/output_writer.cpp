// The manifest: values with their memory, kernels with bindings and workgroup counts, and the
// blocks as host steps. Barriers come from the kernels' reads and writes: a dispatch waits for
// earlier work only when it reads what that work wrote or writes what it touched (arena values
// count as one resource, since planned offsets are shared).
#include "output_writer.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "auto_dim_operands.hpp"
#include "embedded_host.inc"  // kHostCpp, kOinfIoHpp, kShapeRulesHpp, kBroadcastHpp: host/*
#include "shape_limits.hpp"
#include "head_epilogue.hpp"
#include "loop_setting_params.hpp"
#include "loop_settings.hpp"
#include "openinfer/consumer_order.hpp"
#include "openinfer/plugin_abi.hpp"
#include "plan_input.hpp"
#include "reset_window.hpp"
#include "shader_common.hpp"
#include "shader_writer.hpp"
#include "shift_bits_ranges.hpp"
#include "split_fused.hpp"
#include "table_window_inputs.hpp"
#include "vulkan_kernels.hpp"
#include "vulkan_shaders.hpp"
#include "window_outputs.hpp"

namespace oi::glsl {

namespace json = boost::json;

namespace {

// A host step on a value without memory is a plan the planner never produces: a value is
// internal only when every node touching it is in its one fused kernel (build_schedule.cpp's
// finish_kernel), or when no step of entry, its branches or the consumers touches it
// (plan_memory.cpp).
constexpr const char* kNoInternal =
    " (the planner keeps every value a host step touches in memory)";

class ManifestWriter {
 public:
  // `select`: for a kernel written once per value of the loop indices its settings name
  // (loop_settings.hpp), its dispatch's `select` (by, values, kernels).
  // `before`, `after`: per kernel, the copy steps that read its @auto_dim operands
  // (auto_dim_operands.hpp) and that store its window and @auto_dim outputs (window_outputs.hpp).
  // `epilogues`: a matmul or reduction kernel's id (and those of its copies) -> the id of its
  // elementwise epilogue's kernel (head_epilogue.hpp), dispatched right after it.
  ManifestWriter(const PlanIn& plan, const DeviceIn& device, std::vector<KernelShader>& shaders,
                 const std::map<uint32_t, json::object>& select,
                 const std::map<uint32_t, uint32_t>& epilogues,
                 const std::map<uint32_t, std::vector<json::object>>& before,
                 const std::map<uint32_t, std::vector<json::object>>& after,
                 const GrowingMatrices& growing)
      : plan_(plan),
        device_(device),
        shaders_(shaders),
        select_(select),
        epilogues_(epilogues),
        before_(before),
        after_(after),
        growing_(growing) {}

  json::array block(const json::array& steps, bool entry) {
    entry_ = entry;
    reads_.clear();
    writes_.clear();
    json::array out;
    for (const json::value& sv : steps) add_step(sv, out);
    return out;
  }

  // The snapshot and result buffers of yielded values ("@snap_NAME", "@res_NAME").
  const std::vector<json::object>& scratch_values() const { return scratch_; }

 private:
  std::string resource(const std::string& text) {
    if (text.rfind('@', 0) == 0) return text;
    const std::string name = parse_ref(text).name;
    auto it = plan_.value_index.find(name);
    if (it == plan_.value_index.end())
      invalid_plan("the plan names value '" + name + "' but does not list it");
    return plan_.values[it->second].storage == "arena" ? "@arena" : name;
  }

  // A copy between whole values and table entries (cache.read windows: ranges "a..b" of
  // integers), checked to move one dtype and the same number of bytes.
  // A copy between whole values and table entries or slices (dsl.md: `A[]`, `A[a..b]` with an
  // omitted start 0, an omitted or negative end counting from the table's current size, missing
  // trailing indices as whole axes), checked here to move one dtype and, where the slice's
  // length is static, the same number of bytes; the host program checks the others.
  void entry_copy(const std::string& kind, const std::string& line, const std::string& from,
                  const std::string& to, const std::string& at, json::array& out) {
    const ValueRef f = parse_ref(from), t = parse_ref(to);
    auto num = [&](const std::string& x, int64_t& n) {
      if (auto sv = plan_.sizevars.find(x); sv != plan_.sizevars.end()) {
        n = static_cast<int64_t>(sv->second);
        return true;
      }
      if (x.empty() || x.find_first_not_of("0123456789") != std::string::npos) return false;
      n = std::stoll(x);
      return true;
    };
    // The index terms of one side (empty for a whole value) and its bytes (0: known at run time).
    auto side = [&](const ValueRef& r, const std::string& text, uint64_t& bytes, uint64_t& cells,
                    std::vector<std::string>& terms) -> const ValueIn& {
      auto it = plan_.value_index.find(r.name);
      if (it == plan_.value_index.end())
        invalid_plan(kind + line + ": the plan does not list '" + r.name + "'");
      const ValueIn& v = plan_.values[it->second];
      if (v.storage == "internal")
        invalid_plan(kind + line + ": '" + text + "' has no memory" + kNoInternal);
      if (!v.is_table()) {
        if (!r.index.empty() || r.all)
          invalid_plan(kind + line + ": '" + text + "': '" + v.name +
                       "' is not a table and takes no indices");
        bytes = v.bytes;
        cells = v.elements;
        return v;
      }
      terms = r.index;
      if (terms.size() > v.indices.size())
        invalid_plan(kind + line + ": '" + text + "' gives more indices than table '" + v.name +
                     "' has");
      for (size_t i = terms.size(); i < v.indices.size(); ++i)
        terms.push_back(v.bound[i] ? "0.." + std::to_string(v.bound[i]) : "0..");
      uint64_t count = 1;
      bool known = true;
      for (const std::string& term : terms) {
        const size_t dots = term.find("..");
        if (dots == std::string::npos) continue;
        int64_t a = 0, b = 0;
        const std::string start = term.substr(0, dots), end = term.substr(dots + 2);
        if ((start.empty() || num(start, a)) && num(end, b)) {
          if (b < a) invalid_plan(kind + line + ": empty window '" + term + "' of '" + text + "'");
          count *= static_cast<uint64_t>(b - a);
        } else {
          known = false;
        }
      }
      bytes = known ? count * v.entry_bytes : 0;
      cells = known ? count * v.elements : 0;
      return v;
    };
    uint64_t fb = 0, tb = 0, fc = 0, tc = 0;
    std::vector<std::string> fterms, tterms;
    const ValueIn& fv = side(f, from, fb, fc, fterms);
    const ValueIn& tv = side(t, to, tb, tc, tterms);
    // Entries of a packed dtype padded to whole bytes each (`i4[3]`: 12 bits in 2 bytes) and a
    // whole value packing the elements one after another: the host program moves the elements
    // ("repack"), so the counts of elements must agree.
    static const std::map<std::string, uint64_t> kPacked{{"i4", 4}, {"u4", 4}, {"i2", 2},
                                                         {"u2", 2}, {"i1", 1}, {"u1", 1}};
    const ValueIn& entries = fv.is_table() ? fv : tv;
    const auto bits = kPacked.find(entries.dtype);
    const bool repack = fv.is_table() != tv.is_table() && bits != kPacked.end() &&
                        entries.entry_bytes * 8 != entries.elements * bits->second;
    if (fv.dtype != tv.dtype || (repack ? fc && tc && fc != tc : fb && tb && fb != tb))
      invalid_plan(kind + line + " from '" + from + "' to '" + to +
                   "': only copies of one dtype and size are supported");
    access(out, {from}, {to});
    json::object c{{"op", "copy"}, {"from", f.name}, {"to", t.name}};
    if (repack) c["repack"] = true;
    if (fv.is_table()) c["from_entry"] = json::array(fterms.begin(), fterms.end());
    if (tv.is_table()) c["to_entry"] = json::array(tterms.begin(), tterms.end());
    if (!at.empty()) c["at"] = at;
    out.push_back(std::move(c));
  }

  // cache.increment / cache.decrement of an i64 or u64 scalar: one invocation adds the amount
  // to the two 32-bit words with a carry (wrapping, as ops.md's integers do).
  KernelShader wide_counter_shader(const ValueIn& v, uint32_t id, int64_t delta,
                                   const std::string& where) const {
    if (v.elements != 1 || v.storage == "internal" || v.storage == "arena")
      invalid_plan(where + " of '" + v.name + "': a counter is a scalar in memory");
    KernelIn k;
    k.id = id;
    k.kind = "counter";
    k.reads = {v.name};
    k.writes = {v.name};
    ShaderBuilder sb(plan_, device_, k);
    sb.use_raw_bits();
    const auto d = static_cast<uint64_t>(delta);
    const std::string b = sb.buffer(v.name);
    return sb.grid(where, 1,
                   "    const uvec2 w = " + b + "[0];\n    const uint lo = w.x + " +
                       u(d & 0xffffffffu) + ";\n    " + b + "[0] = uvec2(lo, w.y + " + u(d >> 32) +
                       " + (lo < w.x ? 1u : 0u));\n");
  }

  // A table access's index terms (missing trailing ones as whole axes) and, where its windows
  // have static length, its shape: the windows' lengths stacked before the entry's.
  std::optional<std::vector<uint64_t>> table_access(const ValueIn& v, const ValueRef& r,
                                                    std::vector<std::string>& terms) const {
    terms = r.index;
    for (size_t i = terms.size(); i < v.indices.size(); ++i)
      terms.push_back(v.bound[i] ? "0.." + std::to_string(v.bound[i]) : "0..");
    std::vector<uint64_t> shape;
    for (const std::string& term : terms) {
      if (term.find("..") == std::string::npos) continue;
      const std::optional<int64_t> n = window_length(plan_, term);
      if (!n || *n < 0) return std::nullopt;
      shape.push_back(static_cast<uint64_t>(*n));
    }
    shape.insert(shape.end(), v.shape.begin(), v.shape.end());
    return shape;
  }

  // cache.read / cache.write / transfer with an @auto_dim matrix (the host program keeps it): a
  // copy whose matrix side carries its index terms as written ("auto_from"/"auto_to"; empty: the
  // whole matrix), "at" the access's position and "store_at" the other side's. With a whole
  // value on the other side, one copy ("exact" for a transfer out of the matrix: the simulator
  // stores the matrix's shape as it is, never padded); with table entries or another matrix, two
  // through a scratch value of the shape moved (the source's where it is static, else the
  // destination's), or, with table entries where neither side's shape is static, one host copy
  // between the matrix and the entries (the host's entries_and_matrix). False for other copies.
  bool auto_dim_copy(const std::string& kind, const std::string& line, const json::object& s,
                     json::array& out) {
    const ValueRef f = parse_ref(str(s, "from")), t = parse_ref(str(s, "to"));
    auto find = [&](const std::string& name) -> const ValueIn* {
      auto it = plan_.value_index.find(name);
      return it == plan_.value_index.end() ? nullptr : &plan_.values[it->second];
    };
    const ValueIn *fv = find(f.name), *tv = find(t.name);
    if (!fv || !tv || (!fv->is_auto_dim() && !tv->is_auto_dim())) return false;
    for (const ValueIn* v : {fv, tv})
      if (v->storage == "internal")
        invalid_plan(kind + line + ": '" + v->name + "' has no memory" + kNoInternal);
    if (fv->dtype != tv->dtype)
      invalid_plan(kind + line + ": '" + fv->name + "' is " + fv->dtype + ", '" + tv->name + "' " +
                   tv->dtype);
    for (const auto& [v, r] : {std::pair{fv, &f}, std::pair{tv, &t}}) {
      const size_t n = v->auto_table.size() + v->auto_indices.size();
      if (v->is_auto_dim() && !r->index.empty() && r->index.size() != n)
        invalid_plan(kind + line + ": '" + v->name + "' takes " + std::to_string(n) + " indices");
      if (!v->is_auto_dim() && !v->is_table() && (!r->index.empty() || r->all))
        invalid_plan(kind + line + ": '" + v->name + "' is not a table and takes no indices");
    }
    auto position = [&](const char* key) {
      const json::value* a = s.if_contains(key);
      return a && a->is_string() ? std::string(a->as_string()) : std::string();
    };
    const std::string from_at = position("from_at"), to_at = position("to_at");
    auto matrix_step = [&](const ValueRef& m, const std::string& other, bool read) {
      json::object c{
          {"op", "copy"}, {"from", read ? m.name : other}, {"to", read ? other : m.name}};
      c[read ? "auto_from" : "auto_to"] = json::array(m.index.begin(), m.index.end());
      c["at"] = read ? from_at : to_at;
      c["store_at"] = to_at;
      full_barrier(out);  // the host program reads or writes the whole value, then kernels may
      access(out, {other}, {other});
      return c;
    };
    const bool fm = fv->is_auto_dim(), tm = tv->is_auto_dim();
    if (fm && tm && !t.index.empty()) {
      // Matrix to matrix: one host copy, the part read as it is and stored (no shape needed
      // here; into a whole matrix without indices, below, a cache.read pads to its declared
      // shape first, as the simulator does).
      json::object c{{"op", "copy"}, {"from", f.name}, {"to", t.name}};
      c["auto_from"] = json::array(f.index.begin(), f.index.end());
      c["auto_to"] = json::array(t.index.begin(), t.index.end());
      c["at"] = from_at;
      c["store_at"] = to_at;
      full_barrier(out);
      out.push_back(std::move(c));
      return true;
    }
    if (fm != tm && !(fm ? tv : fv)->is_table()) {
      json::object c = matrix_step(fm ? f : t, fm ? t.name : f.name, fm);
      if (fm && kind == "transfer") c["exact"] = true;
      out.push_back(std::move(c));
      return true;
    }
    // Through a scratch value: the source's static shape, else the destination's.
    std::vector<std::string> fterms, tterms;
    std::string why_from, why_to;
    auto shape_of = [&](const ValueIn& v, const ValueRef& r, bool read,
                        std::vector<std::string>& terms, std::string& why) {
      // (a whole matrix that grows has no static shape on either side: a copy into one
      // stores the source's shape, which must be the matrix's current one)
      if (v.is_auto_dim())
        return matrix_access_shape(plan_, v, str(s, read ? "from" : "to"), true, growing_, why);
      std::optional<std::vector<uint64_t>> shape = table_access(v, r, terms);
      if (!shape)
        why = "'" + std::string(str(s, read ? "from" : "to")) +
              "', a window whose length is known only at run time";
      return shape;
    };
    // (cache.read into a whole matrix: the simulator pads the part read to the destination's
    // declared shape, then stores it)
    const bool pad = fm && tm && kind == "cache.read";
    std::optional<std::vector<uint64_t>> shape =
        pad ? std::nullopt : shape_of(*fv, f, true, fterms, why_from);
    if (pad) shape = matrix_access_shape(plan_, *tv, str(s, "to"), false, growing_, why_to);
    if (std::optional<std::vector<uint64_t>> to_shape = shape_of(*tv, t, false, tterms, why_to);
        !shape)
      shape = to_shape;
    if (!shape && fm != tm) {
      // Neither side's shape is static (a window of run-time length, a matrix that grows):
      // one host copy that reads the source in its run-time shape and stores it as cache.write
      // does (the host's entries_and_matrix), no scratch value of a static shape between.
      const ValueRef& m = fm ? f : t;
      const ValueRef& e = fm ? t : f;
      const std::vector<std::string>& terms = fm ? tterms : fterms;
      json::object c = matrix_step(m, e.name, fm);
      c[fm ? "to_entry" : "from_entry"] = json::array(terms.begin(), terms.end());
      c["at"] = from_at;
      out.push_back(std::move(c));
      return true;
    }
    if (!shape)  // a cache.read from a matrix into a whole table of matrices: the validator's
      invalid_plan(kind + line + " from '" + str(s, "from") + "' to '" + str(s, "to") +
                   "': a whole table of @auto_dim matrices as the destination (" + why_from + "; " +
                   why_to + ")");
    ValueIn tmp;
    tmp.name = std::to_string(auto_copies_++);
    tmp.dtype = fv->dtype;
    tmp.shape = *shape;
    for (uint64_t d : tmp.shape) tmp.elements *= d;
    const ValueIn& unit = fm ? *fv : *tv;  // bytes per element from a matrix of the dtype
    tmp.bytes = unit.elements ? (tmp.elements * unit.bytes + unit.elements - 1) / unit.elements : 0;
    const std::string mid = scratch("@ac", tmp);
    if (fm) {
      json::object c = matrix_step(f, mid, true);
      c["exact"] = !pad;
      out.push_back(std::move(c));
    } else {
      access(out, {f.name}, {mid});
      json::object c{{"op", "copy"}, {"from", f.name}, {"to", mid}};
      c["from_entry"] = json::array(fterms.begin(), fterms.end());
      if (!from_at.empty()) c["at"] = from_at;
      out.push_back(std::move(c));
    }
    if (tm) {
      out.push_back(matrix_step(t, mid, false));
    } else {
      access(out, {mid}, {t.name});
      json::object c{{"op", "copy"}, {"from", mid}, {"to", t.name}};
      c["to_entry"] = json::array(tterms.begin(), tterms.end());
      if (!to_at.empty()) c["at"] = to_at;
      out.push_back(std::move(c));
    }
    return true;
  }

  std::string scratch(const std::string& prefix, const ValueIn& v) {
    const std::string name = prefix + v.name;
    for (const json::object& o : scratch_)
      if (o.at("name").as_string() == name) return name;
    scratch_.push_back(json::object{{"name", name},
                                    {"dtype", v.dtype},
                                    {"storage", "scratch"},
                                    {"bytes", v.bytes},
                                    {"shape", json::array(v.shape.begin(), v.shape.end())}});
    return name;
  }

  void copy(json::array& out, const std::string& from, const std::string& to) {
    access(out, {from}, {to});
    out.push_back(json::object{{"op", "copy"}, {"from", from}, {"to", to}});
  }

  // The values the steps of a block write (kernels, copies, cache operations; nested too).
  void block_writes(const json::array& steps, std::set<std::string>& out) const {
    for (const json::value& sv : steps) {
      const json::object& st = sv.as_object();
      const std::string kind(st.at("kind").as_string());
      if (kind == "kernel") {
        const size_t id = st.at("kernel").to_number<size_t>();
        for (const std::string& w : plan_.kernels.at(id).writes) out.insert(w);
        if (auto a = after_.find(static_cast<uint32_t>(id)); a != after_.end())
          for (const json::object& c : a->second) out.insert(std::string(c.at("to").as_string()));
      }
      for (const char* key : {"to", "var", "target"})
        if (const json::value* v = st.if_contains(key); v && v->is_string())
          out.insert(parse_ref(std::string(v->as_string())).name);
      if (const json::value* body = st.if_contains("body"); body && body->is_array())
        block_writes(body->as_array(), out);
    }
  }

  const json::array& steps_of(const std::string& block) const {
    for (const json::value& b : plan_.blocks)
      if (b.is_object() && b.at("name") == block.c_str()) return b.at("steps").as_array();
    invalid_plan("the plan has no block '" + block + "'");
  }

  // dsl.md's deterministic result, as the C target: at entry's yield the consumers run one
  // after another, each from a snapshot of the yielded values; a plain value a consumer writes
  // is set aside and the snapshot put back for the next; the results land after the last. A
  // table or an @auto_dim matrix is not copied: its one writer changes it in place and runs
  // after every other consumer that awaits it (openinfer/consumer_order.hpp).
  void run_consumers(const json::object& s, json::array& out) {
    std::vector<const ValueIn*> names;
    std::set<std::string> in_place;
    for (const json::value& n : s.at("names").as_array()) {
      const ValueIn& v = plan_.value(std::string(n.as_string()));
      if (v.storage == "internal")
        invalid_plan("yield of '" + v.name + "': the value has no memory" + kNoInternal);
      if (v.is_table() || v.is_auto_dim())
        in_place.insert(v.name);
      else
        names.push_back(&v);
    }
    std::vector<oi::emit::YieldConsumer> consumers;
    for (const json::value& t : s.at("tasks").as_array()) {
      oi::emit::YieldConsumer c{std::string(t.as_string()), {}, {}};
      const json::array& steps = steps_of(c.name);
      for (const json::value& st : steps)
        if (st.at("kind") == "await")
          for (const json::value& n : st.at("names").as_array())
            c.awaits.insert(std::string(n.as_string()));
      block_writes(steps, c.writes);
      consumers.push_back(std::move(c));
    }
    // A cycle (each awaits a table another writes): those tables copied at the yield for the
    // readers after their writer, swapped in after it and back after the last consumer
    // (the host's "snapshot" steps; docs/synth-glsl.md).
    const oi::emit::ConsumerPlan plan = oi::emit::plan_consumers(consumers, in_place);
    const oi::emit::ConsumerOrder& order = plan.order;
    if (!order.error.empty())
      invalid_plan("the consumers of the yield at line " + json::serialize(s.at("line")) + ": " +
                   order.error + " (validation refuses it)");
    auto snapshot = [&](const std::string& action, const std::string& name) {
      full_barrier(out);
      out.push_back(json::object{{"op", "snapshot"}, {"action", action}, {"value", name}});
      full_barrier(out);
    };
    for (const std::string& t : plan.copied) snapshot("take", t);
    // Only a value some consumer writes needs a snapshot: the others stay as at the yield.
    std::set<std::string> any_writes;
    for (const oi::emit::YieldConsumer& c : consumers)
      any_writes.insert(c.writes.begin(), c.writes.end());
    for (const ValueIn* v : names)
      if (any_writes.count(v->name)) copy(out, v->name, scratch("@snap_", *v));
    std::vector<const ValueIn*> written;
    for (size_t i : order.order) {
      const oi::emit::YieldConsumer& c = consumers[i];
      full_barrier(out);
      out.push_back(json::object{{"op", "branch"}, {"cond", ""}, {"then", c.name}, {"else", ""}});
      full_barrier(out);
      for (const ValueIn* v : names) {
        if (!c.writes.count(v->name)) continue;
        if (std::find(written.begin(), written.end(), v) == written.end()) written.push_back(v);
        copy(out, v->name, scratch("@res_", *v));
        copy(out, scratch("@snap_", *v), v->name);
      }
      for (const std::string& t : plan.copied)
        if (c.writes.count(t)) snapshot("swap", t);  // its readers from here: as yielded
    }
    for (const std::string& t : plan.copied) snapshot("drop", t);  // the writer's result back
    for (const ValueIn* v : written) copy(out, scratch("@res_", *v), v->name);
  }

  void access(json::array& out, const std::vector<std::string>& reads,
              const std::vector<std::string>& writes) {
    bool conflict = false;
    for (const std::string& r : reads) conflict = conflict || writes_.count(resource(r));
    for (const std::string& w : writes)
      conflict = conflict || writes_.count(resource(w)) || reads_.count(resource(w));
    if (conflict) full_barrier(out);
    for (const std::string& r : reads) reads_.insert(resource(r));
    for (const std::string& w : writes) writes_.insert(resource(w));
  }

  void full_barrier(json::array& out) {
    out.push_back(json::object{{"op", "barrier"}});
    reads_.clear();
    writes_.clear();
  }

  static std::string str(const json::object& o, const char* key) {
    const json::value* v = o.if_contains(key);
    if (v == nullptr || !v->is_string())
      invalid_plan(std::string("a plan step has no string '") + key + "'");
    return std::string(v->as_string());
  }

  void add_step(const json::value& sv, json::array& out) {
    if (!sv.is_object()) invalid_plan("a plan step is not an object");
    const json::object& s = sv.as_object();
    const std::string kind = str(s, "kind");
    const std::string line =
        s.contains("line") ? " (line " + json::serialize(s.at("line")) + ")" : std::string();
    if (kind == "kernel") {
      const json::value* k = s.if_contains("kernel");
      if (!k || !k->is_int64() || k->as_int64() < 0 ||
          static_cast<size_t>(k->as_int64()) >= plan_.kernels.size())
        invalid_plan("a kernel step names no kernel of the plan");
      const KernelIn& kernel = plan_.kernels[static_cast<size_t>(k->as_int64())];
      if (auto b = before_.find(kernel.id); b != before_.end())
        for (const json::object& c : b->second) {
          full_barrier(out);  // the host program reads the matrix and uploads the operand
          access(out, {}, {std::string(c.at("to").as_string())});
          out.push_back(c);
        }
      access(out, kernel.reads, kernel.writes);
      json::object d{{"op", "dispatch"}, {"kernel", kernel.id}, {"step", s.at("id")}};
      auto sel = select_.find(kernel.id);
      if (sel != select_.end()) d["select"] = sel->second;
      if (json::array r = shift_bits_ranges(plan_, kernel); !r.empty()) d["ranges"] = std::move(r);
      out.push_back(std::move(d));
      if (auto e = epilogues_.find(kernel.id); e != epilogues_.end()) {
        full_barrier(out);  // the epilogue reads the head's result
        access(out, kernel.reads, kernel.writes);
        json::object de{{"op", "dispatch"}, {"kernel", e->second}, {"step", s.at("id")}};
        if (sel != select_.end()) {  // every copy has one (write_output)
          json::object es = sel->second;
          json::array ids;
          for (const json::value& id : sel->second.at("kernels").as_array())
            ids.push_back(epilogues_.at(static_cast<uint32_t>(id.to_number<uint64_t>())));
          es["kernels"] = std::move(ids);
          de["select"] = std::move(es);
        }
        out.push_back(std::move(de));
      }
      if (auto a = after_.find(kernel.id); a != after_.end())
        for (const json::object& c : a->second) {
          if (c.contains("auto_to")) full_barrier(out);  // the host program downloads it
          access(out, {std::string(c.at("from").as_string())},
                 {std::string(c.at("to").as_string())});
          out.push_back(c);
        }
    } else if (kind == "barrier") {
      full_barrier(out);
    } else if (kind == "dep") {
      // Steps run in plan order with barriers between dependent work: the constraint holds.
    } else if (kind == "return") {
      out.push_back(json::object{{"op", "return"}});
    } else if (kind == "transfer" || kind == "cache.read" || kind == "cache.write") {
      // The table access's own position where the plan gives it (the simulator's messages).
      std::string at;
      for (const char* key : {"to_at", "from_at", "at"})
        if (const json::value* a = s.if_contains(key); a && a->is_string() && at.empty())
          at = std::string(a->as_string());
      if (auto_dim_copy(kind, line, s, out)) return;
      entry_copy(kind, line, str(s, "from"), str(s, "to"), at, out);
    } else if (kind == "cache.increment" || kind == "cache.decrement") {
      // A one-invocation kernel adds the amount on the device (no read back).
      const std::string var = str(s, "var");
      const json::value* amount = s.if_contains("amount");
      if (!amount || !amount->is_int64()) invalid_plan(kind + line + " has no integer amount");
      const int64_t delta = kind == "cache.increment" ? amount->as_int64() : -amount->as_int64();
      const auto id = static_cast<uint32_t>(shaders_.size());
      const ValueIn& v = plan_.value(var);
      if (v.dtype != "i32" && v.dtype != "u32" && v.dtype != "i64" && v.dtype != "u64") {
        // 8- and 16-bit and packed integers: the host program adds it, wrapping at the width
        if (v.elements != 1 || v.storage == "internal" || v.storage == "arena" || v.is_table())
          invalid_plan(kind + line + " of '" + var + "': a counter is an integer scalar in memory");
        access(out, {var}, {var});
        out.push_back(json::object{{"op", "counter"}, {"value", v.name}, {"delta", delta}});
        return;
      }
      shaders_.push_back((v.dtype == "i64" || v.dtype == "u64")
                             ? wide_counter_shader(v, id, delta, kind + line)
                             : write_counter_shader(plan_, device_, id, var, delta, kind + line));
      access(out, {var}, {var});
      out.push_back(json::object{{"op", "dispatch"}, {"kernel", id}, {"step", s.at("id")}});
    } else if (kind == "cache.reset") {
      // A whole value, a whole table or one entry: its @init value, else zeros.
      const std::string target = str(s, "target");
      const ValueRef r = parse_ref(target);
      const ValueIn& v = plan_.value(r.name);
      if (v.storage == "internal" || v.storage == "arena")
        invalid_plan(kind + line + ": '" + target +
                     "' is no persistent variable (the validator refuses a reset of anything "
                     "else)");
      // The simulator's reset_table: the leading single indices (before the first slice)
      // choose what is reset; a negative one is an error, the rest choose nothing more.
      auto leading = [&](size_t most) {
        size_t n = 0;
        while (n < r.index.size() && n < most && r.index[n].find("..") == std::string::npos) ++n;
        return json::array(r.index.begin(), r.index.begin() + static_cast<std::ptrdiff_t>(n));
      };
      // The validator refuses a reset of constant or volatile memory (check_nodes.cpp: "needs
      // a persistent variable"): a constant or volatile prefix table here is a broken plan.
      if (v.is_table() && v.storage == "constant")
        invalid_plan(kind + line + " of '" + target + "': '" + r.name +
                     "' is a constant table, which cache.reset never changes (the validator " +
                     "refuses it)");
      if (v.is_auto_dim() && !r.index.empty()) {
        // `C[l]` of a table of matrices: the matrices under those @table indices back to fresh
        // (counts 0, cells @init), as the simulator; its auto indices name the matrix itself. A
        // slice ends the indices that choose (`C[0..2]`: every matrix, the table's sizes 0).
        if (r.index.size() > v.auto_table.size() + v.auto_indices.size())
          invalid_plan(kind + line + ": '" + target + "' gives more indices than '" + r.name +
                       "' has");
        json::array prefix = leading(v.auto_table.size());
        full_barrier(out);
        access(out, {}, {r.name});
        json::object reset{{"op", "reset"}, {"value", r.name}};
        if (resets_a_window(r.index, v.auto_table.size())) {
          // a window of @table keys (dsl.md): the matrices the same access reads
          json::array keys;
          for (size_t i = 0; i < v.auto_table.size(); ++i)
            keys.push_back(json::value(i < r.index.size() ? r.index[i] : ".."));
          reset["auto_window"] = std::move(keys);
        } else if (!prefix.empty()) {
          reset["auto_entry"] = std::move(prefix);
        }
        if (const json::value* a = s.if_contains("at"); a && a->is_string())
          reset["at"] = *a;  // the statement's position, as the simulator's message gives it
        out.push_back(std::move(reset));
        return;
      }
      std::vector<std::string> terms = r.index;  // `X[l]`: every entry under l
      bool window = false;
      if (!terms.empty()) {
        if (!v.is_table() || terms.size() > v.indices.size())
          invalid_plan(kind + line + " of '" + target + "': not an entry of a table");
        // A window (dsl.md) empties exactly the entries the same access reads, checked as a
        // read is (the host's reset_window); leading single indices choose every entry under
        // them, as before.
        window = resets_a_window(terms, v.indices.size());
        for (size_t i = terms.size(); i < v.indices.size(); ++i)
          terms.push_back(v.bound[i] ? "0.." + std::to_string(v.bound[i]) : "0..");
      }
      access(out, {}, {r.name});
      json::object reset{{"op", "reset"}, {"value", r.name}};
      if (!terms.empty()) reset["entry"] = json::array(terms.begin(), terms.end());
      if (window) reset["window"] = true;
      // the statement's position, as the simulator's message gives it
      if (const json::value* a = s.if_contains("at"); a && a->is_string()) reset["at"] = *a;
      out.push_back(std::move(reset));
    } else if (kind == "yield" && entry_) {
      run_consumers(s, out);
    } else if (kind == "yield" || kind == "await") {
      // a consumer's own await and yield, and entry's await: nothing is left to wait for.
    } else if (kind == "loop") {
      full_barrier(out);
      const json::value* body = s.if_contains("body");
      if (!body || !body->is_array()) invalid_plan("a loop step has no body");
      json::object loop{{"op", "loop"},
                        {"index", str(s, "index")},
                        {"start", str(s, "start")},
                        {"end", str(s, "end")}};
      json::array inner = block(body->as_array(), entry_);
      loop["body"] = std::move(inner);
      out.push_back(std::move(loop));
      reads_.clear();
      writes_.clear();
    } else if (kind == "branch") {
      const std::string cond = str(s, "cond");
      if (!cond.empty()) {
        const ValueIn& c = plan_.value(cond);
        if (c.storage == "internal" || c.is_table())
          invalid_plan("branch" + line + ": condition '" + cond + "' has no memory of its own" +
                       kNoInternal);
      }
      full_barrier(out);
      out.push_back(
          json::object{{"op", "branch"},
                       {"cond", cond},
                       {"then", str(s, "then")},
                       {"else", s.contains("else") && s.at("else").is_string() ? str(s, "else")
                                                                               : std::string()}});
      reads_.clear();
      writes_.clear();
    } else {
      invalid_plan("step '" + kind + "'" + line + " cannot be expressed by the glsl target yet");
    }
  }

  const PlanIn& plan_;
  const DeviceIn& device_;
  std::vector<KernelShader>& shaders_;  // the plan's kernels, then those of host steps
  const std::map<uint32_t, json::object>& select_;
  const std::map<uint32_t, uint32_t>& epilogues_;
  const std::map<uint32_t, std::vector<json::object>>& before_;
  const std::map<uint32_t, std::vector<json::object>>& after_;
  const GrowingMatrices& growing_;  // the @auto_dim matrices some access grows
  std::set<std::string> reads_, writes_;
  std::vector<json::object> scratch_;
  uint32_t auto_copies_ = 0;  // the scratch values of copies between a matrix and entries
  bool entry_ = false;
};

json::object value_json(const ValueIn& v) {
  json::object o{{"name", v.name}, {"dtype", v.dtype}, {"storage", v.storage}, {"bytes", v.bytes}};
  o["shape"] = json::array(v.shape.begin(), v.shape.end());
  if (!v.link.empty()) o["link"] = v.link;
  if (v.init) o["init"] = *v.init;
  if (v.runtime_axis != -1) o["runtime_axis"] = v.runtime_axis;  // shape: the capacity
  if (v.storage == "arena") {
    o["offset"] = v.offset;
    o["zero_fill"] = v.zero_fill;
  }
  if (v.is_auto_dim()) {
    o["auto_dim"] = json::array(v.auto_indices.begin(), v.auto_indices.end());
    o["auto_bound"] = json::array(v.auto_bound.begin(), v.auto_bound.end());
    o["auto_table"] = json::array(v.auto_table.begin(), v.auto_table.end());
    o["auto_table_bound"] = json::array(v.auto_table_bound.begin(), v.auto_table_bound.end());
  }
  if (v.is_table()) {
    o["indices"] = json::array(v.indices.begin(), v.indices.end());
    json::array bound;
    for (uint64_t b : v.bound) bound.push_back(b ? json::value(b) : json::value(nullptr));
    o["bound"] = std::move(bound);
    o["entry_bytes"] = v.entry_bytes;
    if (!v.pattern.empty()) o["pattern"] = v.pattern;
  }
  return o;
}

// The one dispatch point of a plan kernel: the emitter's own writers (fused elementwise chains),
// else the Vulkan backend's kernels recorded (vulkan_kernels.hpp), which alone run single ops
// (movement, conv and pools, the row ops, attention, gather, arg reductions, ...) and the heads
// of matmul and reduction kernels (head_epilogue.hpp: their elementwise epilogue an own chain of
// its own): one source of their semantics.
// OPENINFER_GLSL_OWN_WRITERS_ONLY=1 turns the second off (to count what the own writers cover).
// Where both refuse, the writer's message names the op and the backend's reason follows it.
KernelShader write_kernel(const PlanIn& plan, const DeviceIn& device, const KernelIn& kernel) {
  const char* only = std::getenv("OPENINFER_GLSL_OWN_WRITERS_ONLY");
  const bool own_only = only && std::string(only) == "1";
  if (kernel.kind == "op" && !own_only) return record_kernel(plan, device, kernel);
  if (split_head(kernel) && !own_only) return write_head_kernel(plan, device, kernel);
  std::string declined;
  try {
    return write_kernel_shader(plan, device, kernel);
  } catch (const abi::StatusError& own) {
    if (own.code() != OI_STATUS_UNIMPLEMENTED || own_only) throw;
    declined = own.what();
    if (declined.rfind("glsl emitter: ", 0) == 0) declined = declined.substr(14);
  }
  try {
    return record_kernel(plan, device, kernel);
  } catch (const abi::StatusError&) {
    rethrow_with_context(declined + "; through the Vulkan backend's kernels");
  }
}

// The manifest entry of a kernel run through the Vulkan backend's shaders; `variants` collects
// the SPIR-V variants the program's CMakeLists.txt compiles.
json::object recorded_kernel_json(size_t id, const std::string& kind, const KernelShader& ks,
                                  std::set<std::string>& variants) {
  json::array dispatches;
  for (const VulkanDispatch& d : ks.dispatches) {
    const ShaderVariant* base = shader_variant(d.variant);
    if (base == nullptr)
      invalid_plan("the Vulkan backend has no shader variant '" + d.variant + "'");
    json::object jd{{"shader", "shaders/vulkan/" + base->source},
                    {"spirv", "shaders/" + d.variant + ".spv"}};
    variants.insert(d.variant);
    // The backend's choice (device.cpp): "_fc" where the device preserves subnormals and IEEE
    // specials at float_width (and 64 bits with also_f64), else "_ieee" where it preserves the
    // specials; "_exact"/"_ieee_exact" (exact_f32.glsl) instead of either where the device
    // flushes f32 subnormals and the kernel has them; the host program makes it for the device
    // it runs on.
    if (d.float_width) {
      for (const char* suffix : {"_fc", "_ieee", "_exact", "_ieee_exact"})
        if (shader_variant(d.variant + suffix)) {
          jd[std::string("spirv") + suffix] = "shaders/" + d.variant + suffix + ".spv";
          variants.insert(d.variant + suffix);
        }
      jd["float_width"] = d.float_width;
      jd["also_f64"] = d.also_f64;
      if (d.exact_f32) jd["exact_f32"] = static_cast<unsigned>(d.exact_f32);
    }
    jd["spec"] = json::array(d.spec.begin(), d.spec.end());
    jd["params"] = json::array(d.params.begin(), d.params.end());
    jd["workgroups"] = json::array(d.groups.begin(), d.groups.end());
    json::array bindings{json::object{{"binding", 0}, {"value", "@params"}, {"access", "read"}}};
    for (size_t i = 0; i < d.values.size(); ++i) {
      auto e = ks.entries.find(d.values[i]);
      if (e == ks.entries.end()) {
        bindings.push_back(json::object{
            {"binding", i + 1}, {"value", d.values[i]}, {"access", "read_write"}, {"whole", true}});
        continue;
      }
      const Binding& b = e->second;  // bound at the entry's offset at each dispatch
      json::object jb{{"binding", i + 1},
                      {"value", b.value},
                      {"access", b.write ? "read_write" : "read"},
                      {"entry", json::array(b.entry.begin(), b.entry.end())}};
      if (!b.at.empty()) jb["at"] = b.at;
      bindings.push_back(std::move(jb));
    }
    jd["bindings"] = std::move(bindings);
    dispatches.push_back(std::move(jd));
  }
  json::array checks, copies, zero, tables;
  for (const RopeTable& r : ks.rope_tables) {
    tables.push_back(json::object{{"pos", r.pos},
                                  {"wide", r.wide},
                                  {"theta", r.theta},
                                  {"T", r.T},
                                  {"D", r.D},
                                  {"f64", r.f64},
                                  {"table", r.table}});
    if (!r.theta_index.empty()) tables.back().as_object()["theta_index"] = r.theta_index;
    for (const auto& [key, form] : {std::pair{"T_length", &r.T_length}, {"D_length", &r.D_length}})
      if (*form)
        tables.back().as_object()[key] =
            json::object{{"a", (**form)[0]}, {"b", (**form)[1]}, {"c", (**form)[2]}};
  }
  for (const IndexCheck& c : ks.checks)
    checks.push_back(json::object{{"value", c.value},
                                  {"count", c.count},
                                  {"wide", c.wide},
                                  {"bound", c.bound},
                                  {"message", c.message}});
  for (const auto& [from, to] : ks.copies)
    copies.push_back(json::object{{"from", from}, {"to", to}});
  for (const ScratchValue& v : ks.scratch) zero.push_back(json::value(v.name));
  json::object out{{"id", id},
                   {"kind", kind},
                   {"workgroups", json::array{1, 1, 1}},
                   {"bindings", json::array{}},
                   {"checks", std::move(checks)},
                   {"rope_tables", std::move(tables)},
                   {"zero", std::move(zero)},
                   {"dispatches", std::move(dispatches)},
                   {"copies", std::move(copies)}};
  json::array patches;
  for (const ParamPatch& p : ks.patches)
    patches.push_back(json::object{
        {"dispatch", p.dispatch}, {"word", p.word}, {"index", p.index}, {"kind", p.kind}});
  if (!patches.empty()) out["patches"] = std::move(patches);
  if (ks.length) {  // a kernel of run-time length (runtime_length.hpp)
    const RuntimeLengthKernel& l = *ks.length;
    json::array segments, forms, shapes;
    for (const LengthSegment& g : l.segments)
      segments.push_back(
          json::object{{"from", g.from}, {"to", g.to}, {"first", g.first}, {"count", g.count}});
    for (const LengthForm& f : l.forms) {
      forms.push_back(json::object{
          {"dispatch", f.dispatch}, {"slot", f.slot}, {"a", f.a}, {"b", f.b}, {"c", f.c}});
      if (!f.values.empty()) {
        forms.back().as_object()["values"] = json::array(f.values.begin(), f.values.end());
        forms.back().as_object()["from"] = f.from;
      }
    }
    for (const LengthShape& f : l.shapes) {
      shapes.push_back(json::object{{"value", f.value},
                                    {"axis", f.axis},
                                    {"a", f.a},
                                    {"b", f.b},
                                    {"c", f.c},
                                    {"from", f.from},
                                    {"to", f.to}});
      if (!f.values.empty())
        shapes.back().as_object()["values"] = json::array(f.values.begin(), f.values.end());
    }
    out["length"] = json::object{{"value", l.value},     {"axis", l.axis},     {"lo", l.lo},
                                 {"hi", l.hi},           {"matrix", l.matrix}, {"at", l.at},
                                 {"segments", segments}, {"forms", forms},     {"shapes", shapes}};
    if (!l.access.empty()) out["length"].as_object()["access"] = l.access;
    if (!l.errors.empty()) out["length"].as_object()["errors"] = l.errors;
    if (!l.same_length.empty()) out["length"].as_object()["same_length"] = l.same_length;
  }
  return out;
}

bool valid_name(const std::string& n) {
  if (n.empty() || n.size() > 64) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  return true;
}

// The Vulkan backend's shader variants the kernels use, compiled as the backend compiles them.
std::string cmake_vulkan_variants(const std::set<std::string>& variants) {
  if (variants.empty()) return "";
  std::string s =
      "# The Vulkan backend's shaders (plugins/vulkan/shaders), one SPIR-V module per variant.\n"
      "set(vk_src ${CMAKE_CURRENT_SOURCE_DIR}/shaders/vulkan)\n"
      "file(GLOB vk_includes ${vk_src}/*.glsl)\n";
  for (const std::string& v : variants) {
    const ShaderVariant* sv = shader_variant(v);
    s += "add_custom_command(OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/shaders/" + v +
         ".spv COMMAND ${CMAKE_COMMAND} -E\n  make_directory ${CMAKE_CURRENT_BINARY_DIR}/shaders\n"
         "  COMMAND ${GLSLC} --target-env=vulkan1.1 -O " +
         sv->defines + " ${vk_src}/" + sv->source + " -o ${CMAKE_CURRENT_BINARY_DIR}/shaders/" + v +
         ".spv\n  DEPENDS ${vk_src}/" + sv->source +
         " ${vk_includes} VERBATIM)\n"
         "list(APPEND spirv ${CMAKE_CURRENT_BINARY_DIR}/shaders/" +
         v + ".spv)\n";
  }
  return s;
}

std::string cmake_lists(const std::string& name, size_t kernels,
                        const std::set<std::string>& variants) {
  std::string s =
      "# Generated by the OpenInfer glsl emitter: compiles the shaders with glslc and builds the\n"
      "# host program that runs manifest.json (Vulkan-Hpp, header-only Boost.JSON).\n"
      "cmake_minimum_required(VERSION 3.20)\nproject(" +
      name +
      "_glsl CXX)\n"
      "set(CMAKE_CXX_STANDARD 20)\nset(CMAKE_CXX_STANDARD_REQUIRED ON)\n"
      "find_package(Vulkan REQUIRED)\nfind_package(Boost 1.75 REQUIRED)\n"
      "find_program(GLSLC glslc REQUIRED)\nset(spirv \"\")\n"
      "foreach(k RANGE 0 " +
      std::to_string(kernels) +
      ")\n"
      "  set(src ${CMAKE_CURRENT_SOURCE_DIR}/shaders/kernel_${k}.comp)\n"
      "  if(NOT EXISTS ${src})\n    continue()\n  endif()\n"
      "  set(out ${CMAKE_CURRENT_BINARY_DIR}/shaders/kernel_${k})\n"
      "  add_custom_command(OUTPUT ${out}.spv ${out}_ieee.spv COMMAND ${CMAKE_COMMAND} -E\n"
      "    make_directory ${CMAKE_CURRENT_BINARY_DIR}/shaders\n"
      "    COMMAND ${GLSLC} --target-env=vulkan1.1 -O ${src} -o ${out}.spv\n"
      "    COMMAND ${GLSLC} --target-env=vulkan1.1 -O -DOI_IEEE_SPECIALS ${src} -o "
      "${out}_ieee.spv\n"
      "    DEPENDS ${src} VERBATIM)\n  list(APPEND spirv ${out}.spv "
      "${out}_ieee.spv)\nendforeach()\n" +
      cmake_vulkan_variants(variants) +
      "configure_file(manifest.json ${CMAKE_CURRENT_BINARY_DIR}/manifest.json COPYONLY)\n"
      "add_custom_target(" +
      name +
      "_shaders ALL DEPENDS ${spirv})\n"
      "add_executable(" +
      name +
      " host/glsl_host.cpp)\n"
      "target_include_directories(" +
      name +
      " PRIVATE host)\n"
      "target_link_libraries(" +
      name +
      " PRIVATE Vulkan::Headers ${CMAKE_DL_LIBS})\n"
      "target_include_directories(" +
      name +
      " SYSTEM PRIVATE ${Boost_INCLUDE_DIRS})\n"
      "add_dependencies(" +
      name + " " + name + "_shaders)\n";
  return s;
}

}  // namespace

std::vector<OutputFile> write_output(const std::string& plan_json, const std::string& device_json,
                                     const std::string& name, const ModelScalar& model,
                                     const std::vector<ModelTensor>* embed) {
  if (!valid_name(name))
    invalid_plan("--name '" + name +
                 "' must be 1-64 characters of [A-Za-z0-9_-] (it names the program)");
  const DeviceIn device = read_device(device_json);
  PlanIn plan = read_plan(plan_json);
  resolve_settings(plan, model);
  split_fused_kernels(plan);  // a plan fused by hand around an operand of run-time shape
  const GrowingMatrices growing = growing_matrices(plan);  // before the operands are rewritten
  give_heads_memory(plan);  // a matmul or reduction head's result, read by its epilogue
  // table windows read by ops first: a kernel of run-time length they make has its output
  // routed with the matrices'
  OperandCopies windows;
  route_table_window_inputs(plan, windows);
  OperandCopies copies = route_auto_dim_operands(plan, growing, std::move(windows));
  for (auto& [id, list] : route_window_outputs(plan))
    copies.after[id].insert(copies.after[id].end(), list.begin(), list.end());
  for (const KernelIn& k : plan.kernels) check_shape_limits(plan, device, k);
  std::map<uint32_t, IndexedKernel> indexed = indexed_kernels(plan);
  for (KernelIn& k : plan.kernels)  // settings of a finite domain: a copy per value
    if (auto ix = indexed.find(k.id); ix != indexed.end() && !ix->second.runtime.empty())
      finite_classes(plan, k, ix->second);
  // Copy `row` of an indexed kernel: written as a literal setting's, or where indices are left
  // to params words, recorded through the Vulkan backend's kernels with them patched.
  // A kernel of run-time length (runtime_length.hpp) recorded at every length; its scratch
  // values allocated for the longest (of every copy, where a setting names a loop index).
  auto runtime_shader = [&](const KernelIn& k, const RuntimeOperand& ro) {
    std::vector<std::pair<std::string, std::vector<uint64_t>>> capacity;
    KernelShader ks = record_runtime_length(plan, device, k, ro, capacity);
    for (const auto& [name, shape] : capacity) {
      ValueIn& v = plan.values.at(plan.value_index.at(name));
      std::vector<uint64_t> most = shape;
      if (v.runtime_axis == -2 && v.shape.size() == shape.size())  // a result, from copy 0 on
        for (size_t a = 0; a < most.size(); ++a) most[a] = std::max(most[a], v.shape[a]);
      v.shape = most;
      v.elements = 1;
      for (uint64_t d : most) v.elements *= d;
      v.bytes = dtype_bytes(v.dtype, v.elements);
    }
    return ks;
  };
  auto indexed_shader = [&](const KernelIn& k, const IndexedKernel& ik, size_t row, uint32_t id) {
    // no value fits (an axis or group): the host program stops every step at its error, so
    // the kernel is never dispatched
    if (ik.values.empty()) {
      KernelShader never;
      never.recorded = true;
      return never;
    }
    std::vector<std::string> left;
    const KernelIn copy = indexed_copy(k, ik, row, id, left);
    if (auto rt = copies.runtime.find(k.id); rt != copies.runtime.end()) {
      if (!left.empty())
        glsl_gap("auto-dim-operand", "kernel " + std::to_string(k.id) +
                                         ": an operand of run-time length and a setting naming "
                                         "a loop index whose values are known only at run time");
      return runtime_shader(copy, rt->second);
    }
    return left.empty() ? write_kernel(plan, device, copy)
                        : record_runtime_index(plan, device, copy, left, ik.why);
  };
  std::vector<KernelShader> shaders;
  for (const KernelIn& k : plan.kernels) {
    if (auto rt = copies.runtime.find(k.id); rt != copies.runtime.end()) {
      auto ix = indexed.find(k.id);
      if (ix != indexed.end() && !ix->second.runtime.empty())
        glsl_gap("auto-dim-operand", "kernel " + std::to_string(k.id) +
                                         ": an operand of run-time length and a setting naming "
                                         "a loop index whose values are known only at run time");
      shaders.push_back(ix == indexed.end() ? runtime_shader(k, rt->second)
                                            : indexed_shader(k, ix->second, 0, k.id));
      continue;
    }
    auto ix = indexed.find(k.id);
    if (ix != indexed.end() && !ix->second.runtime.empty()) {
      shaders.push_back(record_runtime_index(plan, device, k, ix->second.by, ix->second.runtime));
      continue;
    }
    shaders.push_back(ix == indexed.end() ? write_kernel(plan, device, k)
                                          : indexed_shader(k, ix->second, 0, k.id));
  }
  // The other copies of kernels whose settings name a loop index, after the plan's kernels.
  std::vector<std::string> kinds;
  for (const KernelIn& k : plan.kernels) kinds.push_back(k.kind);
  std::map<uint32_t, json::object> select;
  for (const auto& [id, ik] : indexed) {
    if (!ik.runtime.empty()) continue;  // one kernel, its params words set at run time
    json::array values, ids{id};
    for (size_t r = 0; r < ik.values.size(); ++r) {
      values.push_back(json::array(ik.values[r].begin(), ik.values[r].end()));
      if (r == 0) continue;
      const auto copy_id = static_cast<uint32_t>(shaders.size());
      shaders.push_back(indexed_shader(plan.kernels[id], ik, r, copy_id));
      kinds.push_back(plan.kernels[id].kind);
      ids.push_back(copy_id);
    }
    select[id] = json::object{{"by", json::array(ik.by.begin(), ik.by.end())},
                              {"values", std::move(values)},
                              {"kernels", std::move(ids)}};
    if (!ik.classes.empty()) select[id]["map"] = ik.classes;
  }

  // The epilogues of matmul and reduction kernels: kernels of their own after those, each
  // dispatched right after its head. Copies of one kernel (loop settings) all have one or
  // none: a copy without one makes them all recorded op by op.
  for (auto& [id, sel] : select) {
    const json::array& ids = sel.at("kernels").as_array();
    const size_t with =
        static_cast<size_t>(std::count_if(ids.begin(), ids.end(), [&](const auto& k) {
          return !shaders[k.template to_number<size_t>()].epilogue.empty();
        }));
    if (with == 0 || with == ids.size()) continue;
    const IndexedKernel& ik = indexed.at(id);
    for (size_t r = 0; r < ids.size(); ++r) {
      std::vector<std::string> left;
      const KernelIn copy = indexed_copy(plan.kernels[id], ik, r,
                                         static_cast<uint32_t>(ids[r].to_number<uint64_t>()), left);
      if (left.empty()) shaders[ids[r].to_number<size_t>()] = record_kernel(plan, device, copy);
    }
  }
  std::map<uint32_t, uint32_t> epilogues;
  for (size_t i = 0, n = shaders.size(); i < n; ++i) {
    if (shaders[i].epilogue.empty()) continue;
    KernelShader e = std::move(shaders[i].epilogue.front());
    shaders[i].epilogue.clear();
    epilogues[static_cast<uint32_t>(i)] = static_cast<uint32_t>(shaders.size());
    shaders.push_back(std::move(e));
    kinds.push_back("elementwise");
  }

  // The blocks first: host steps such as cache.increment add kernels of their own.
  ManifestWriter writer(plan, device, shaders, select, epilogues, copies.before, copies.after,
                        growing);
  json::array blocks, outputs;
  for (const json::value& b : plan.blocks) {
    if (!b.is_object() || !b.as_object().contains("steps") || !b.at("steps").is_array() ||
        !b.at("name").is_string())
      invalid_plan("a plan block has no name or steps");
    const std::string block_name(b.at("name").as_string());
    json::array steps = writer.block(b.at("steps").as_array(), block_name == "entry");
    blocks.push_back(json::object{{"name", block_name}, {"steps", std::move(steps)}});
    if (block_name == "entry")
      for (const json::value& s : b.at("steps").as_array())
        if (s.at("kind") == "return" && s.as_object().contains("names"))
          for (const json::value& n : s.at("names").as_array()) outputs.push_back(n);
  }

  json::object manifest;
  manifest["format"] = "openinfer-glsl-manifest";
  manifest["version"] = 1;
  manifest["name"] = name;
  manifest["graph"] = plan.graph;
  manifest["device"] = device.name;
  manifest["arena_bytes"] = plan.arena_bytes;
  // Constants whose model values settings were given: the host checks its model holds them.
  json::array baked;
  for (const BakedConstant& b : plan.baked) {
    json::array bytes;
    for (char c : b.bytes) bytes.push_back(static_cast<unsigned char>(c));
    baked.push_back(json::object{{"value", b.value}, {"link", b.link}, {"bytes", bytes}});
  }
  if (!baked.empty()) manifest["baked"] = std::move(baked);
  json::array values;
  for (const ValueIn& v : plan.values)
    if (v.storage != "internal") values.push_back(value_json(v));
  for (const json::object& v : writer.scratch_values()) values.push_back(v);
  for (const KernelShader& ks : shaders)
    for (const ScratchValue& v : ks.scratch)
      values.push_back(json::object{{"name", v.name},
                                    {"dtype", "u8"},
                                    {"storage", "scratch"},
                                    {"bytes", v.bytes},
                                    {"shape", json::array{v.bytes}}});
  manifest["values"] = std::move(values);
  json::array kernels;
  std::vector<OutputFile> files;
  std::set<std::string> variants;
  for (size_t i = 0; i < shaders.size(); ++i) {
    const KernelShader& ks = shaders[i];
    const std::string kind = i < kinds.size() ? kinds[i] : "step";
    if (ks.recorded) {
      kernels.push_back(recorded_kernel_json(i, kind, ks, variants));
      continue;
    }
    const std::string base = "shaders/kernel_" + std::to_string(i);
    json::array bindings;
    bool storage16 = false, storage8 = false;
    for (const Binding& b : ks.bindings) {
      json::object jb{{"binding", b.binding},
                      {"value", b.value},
                      {"access", b.read && b.write ? "read_write"
                                 : b.read          ? "read"
                                                   : "write"}};
      if (!b.entry.empty()) jb["entry"] = json::array(b.entry.begin(), b.entry.end());
      if (!b.at.empty()) jb["at"] = b.at;
      bindings.push_back(std::move(jb));
      const std::string& d = plan.value(b.value).dtype;
      storage16 = storage16 || d == "f16" || d == "bf16";
      storage8 = storage8 || d == "bool" || d == "f8";
    }
    kernels.push_back(
        json::object{{"id", i},
                     {"kind", kind},
                     {"shader", base + ".comp"},
                     {"spirv", base + ".spv"},
                     {"spirv_ieee", base + "_ieee.spv"},
                     {"local_size", json::array(ks.local_size.begin(), ks.local_size.end())},
                     {"workgroups", json::array(ks.workgroups.begin(), ks.workgroups.end())},
                     {"float64", ks.float64},
                     {"storage16", storage16},
                     {"storage8", storage8},
                     {"bindings", std::move(bindings)}});
    files.push_back({base + ".comp", ks.glsl});
  }
  manifest["kernels"] = std::move(kernels);
  manifest["blocks"] = std::move(blocks);
  manifest["outputs"] = std::move(outputs);
  files.push_back({"manifest.json", json::serialize(manifest) + "\n"});
  files.push_back({"host/glsl_host.cpp", kHostCpp});
  files.push_back({"host/oinf_io.hpp", kOinfIoHpp});
  files.push_back({"host/shape_rules.hpp", kShapeRulesHpp});
  files.push_back({"host/openinfer/broadcast.hpp", kBroadcastHpp});
  std::set<std::string> sources;
  for (const std::string& v : variants)
    for (auto& [file, text] : shader_sources(shader_variant(v)->source))
      if (sources.insert(file).second) files.push_back({"shaders/vulkan/" + file, text});
  std::string cmake = cmake_lists(name, shaders.size(), variants);
  if (embed) {
    files.push_back({"host/weights.cpp", embedded_weights_source(plan, *embed)});
    cmake += "target_sources(" + name + " PRIVATE host/weights.cpp)\ntarget_compile_definitions(" +
             name + " PRIVATE OPENINFER_GLSL_EMBEDDED_WEIGHTS)\n";
  }
  files.push_back({"CMakeLists.txt", cmake});
  return files;
}

}  // namespace oi::glsl
