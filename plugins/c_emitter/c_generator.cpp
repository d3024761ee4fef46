// Plan JSON -> C11 source: the state, its create/destroy/insert/fetch/step functions, the
// schedule's steps (loops, branches, consumers, cache operations) and the kernels. The ops
// themselves come from the families of c_ops.hpp (ops_*.cpp); anything else is refused by name.
#include "c_generator.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <boost/system/system_error.hpp>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "auto_dim.hpp"
#include "c_ops.hpp"
#include "constant_setting.hpp"
#include "kernel_library.hpp"
#include "library_calls.hpp"
#include "matmul_simd.hpp"
#include "openinfer/consumer_order.hpp"
#include "openinfer/device_limit.hpp"
#include "reset_window.hpp"
#include "runtime_copy.hpp"
#include "runtime_kernel.hpp"
#include "runtime_shape_rules.hpp"
#include "tables.hpp"
#include "undo_bound.hpp"
#include "yield_snapshot.hpp"

namespace oi::c_emitter {
namespace {

std::string replace_name(std::string text, const std::string& name) {
  const std::string key = "@NAME@";
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at)) {
    text.replace(at, key.size(), name);
    at += name.size();
  }
  return text;
}

using oi::emit::refuse_device_limit;

// The C literal of a value's @init (validated against its dtype: literal() never leaves it to
// the library).
std::string init_literal(const Value& v) {
  try {
    return literal(*v.init, v.dtype, "@init of '" + v.name + "'");
  } catch (const LibraryInstead& e) {
    invalid_plan(std::string(e.what()) + " (an @init the validator would refuse)");
  }
}

class Generator : public KernelEnv {
 public:
  Generator(const std::string& plan_text, std::string name, const WeightLookup* embed,
            const WeightLookup* model, const KernelLibrary* library, std::string library_missing)
      : name_(std::move(name)) {
    embed_ = embed;
    model_ = model;
    library_ = library;
    library_missing_ = std::move(library_missing);
    boost::system::error_code ec;
    // Loops nest up to 64 deep (the parser's limit), each two levels of the plan's JSON, past
    // boost::json's default depth of 32.
    json::parse_options depth;
    depth.max_depth = 4096;
    root_ = json::parse(plan_text, ec, {}, depth);
    if (ec || !root_.is_object()) invalid_plan("the plan is not a JSON object");
    const auto& o = root_.as_object();
    if (!o.contains("format") || o.at("format") != "openinfer-synth-plan" ||
        o.at("version").as_int64() != 1)
      invalid_plan("not an openinfer-synth-plan version 1 document");
    if (o.contains("model") && o.at("model").is_string()) model_origin_ = str(o.at("model"));
    read_profile();
    read_values();
    auto& blocks = root_.at("blocks").as_array();
    find_first_reads(blocks.at(0).at("steps").as_array());
    for (auto& b : blocks) {
      std::vector<std::string> loops;
      resolve_settings(b.at("steps").as_array(), loops);
    }
  }

  std::vector<GeneratedFile> run() {
    const auto& blocks = root_.at("blocks").as_array();
    // Single ops that may fail at run time (gather): the step checks s->failed after them.
    for (const auto& k : root_.at("kernels").as_array())
      if (k.at("kind") == "op" && op_table().fallible.count(str(k.at("ops").at(0).at("op"))))
        fallible_.insert(k.at("id").as_int64());
    // Table accesses check indices and bounds at run time and grow tables: they may fail too.
    for (const Value& v : values_)
      if (v.ptable) fallible_.insert(-1);
    if (!autodims_.empty()) fallible_.insert(-2);  // growth and range checks
    std::ostringstream kernels, block_protos, block_defs, step_body;
    for (const auto& b : blocks) block_roles_[str(b.at("name"))] = str(b.at("role"));
    // Branch targets become functions (a call: execution continues after the branch).
    for (const auto& b : blocks) {
      const std::string name = str(b.at("name")), role = str(b.at("role"));
      if (role == "entry") continue;
      if (role != "branch" && role != "consumer")
        invalid_plan("block '" + name + "' has role '" + role + "'");
      if (role == "consumer") {
        consumer_writes_[name] = block_writes(b.at("steps").as_array());
        for (const auto& st : b.at("steps").as_array())
          if (st.at("kind") == "await")
            for (const auto& n : st.at("names").as_array()) consumer_awaits_[name].insert(str(n));
      }
      block_protos << "static void block_" << name << "(" << name_ << "_state* s);\n";
      std::ostringstream body;
      for (const auto& st : b.at("steps").as_array())
        emit_step(st.as_object(), kernels, body, "  ", false);
      block_defs << "static void block_" << name << "(" << name_ << "_state* s) {\n  (void)s;\n"
                 << body.str() << "}\n\n";
    }
    const auto& steps = blocks.at(0).at("steps").as_array();
    int64_t position = 0;
    for (const auto& st : steps) {
      for (const Value& v : values_)
        if (v.storage == "arena" && v.zero_fill && v.live_first == position)
          step_body << "  memset(s->v_" << v.name << ", 0, " << v.bytes << ");\n";
      if (st.at("kind") == "kernel") entry_kernel_step_[st.at("kernel").as_int64()] = position;
      emit_step(st.as_object(), kernels, step_body, "  ", true);
      ++position;
    }
    std::vector<GeneratedFile> files;
    const std::string code = kernels.str() + block_protos.str() + "\n" + block_defs.str();
    if (freestanding_) {
      files = freestanding_files(code, step_body.str());
    } else {
      // As in the freestanding profile: a step that cannot fail once started copies nothing.
      step_copies_ = step_can_fail(step_body.str());
      if (!step_copies_) undo_vars_.clear();
      files.push_back({name_ + ".h", header()});
      files.push_back({name_ + ".c", source(code, step_body.str())});
      files.push_back({name_ + "_main.c", replace_name(kMainC, name_)});
    }
    // The library's files the kernels call, in OUT/oi_kernels/ (NAME.c includes them).
    if (!library_ops_.empty())
      for (auto& f : library_->files_for(library_ops_)) files.push_back(std::move(f));
    return files;
  }

  EmitProfile profile() const { return {freestanding_, float_math_}; }

 private:
  // Kernel k as a step: its function and call, or (shapes known only at run time) its C in the
  // step's body.
  void emit_kernel(const json::object& k, std::ostringstream& kernels, std::ostringstream& body,
                   const std::string& indent, bool entry) {
    prepare_tabviews(k);
    if (loop_setting_shapes(k)) runtime_kernel_ = runtime_helpers_ = true;
    if (runtime_kernel_ && k.at("ops").as_array().size() > 1) {
      split_kernel(k, kernels, body, indent, entry);
      return;
    }
    if (runtime_kernel_) {  // shapes known only at run time (runtime_kernel.hpp)
      body << runtime_kernel_c(k, indent, entry);
      return;
    }
    kernels << kernel(k);
    // Table entries and slices an op reads are copied out of their tables before the
    // kernel runs; one it writes is stored after it (as the simulator stores an op's result).
    for (const auto& [text, view] : kernel_tabviews_)
      if (view.read && view.matrix)
        body << matrix_view_access(k, text, view.value, false, indent, entry);
      else if (view.read)
        body << table_access(text, view.value.name, false,
                             at_of(k.at("ops").at(0).as_object(), "at"), indent, entry);
    body << indent << "kernel_" << k.at("id").as_int64() << "(s";
    for (const auto& p : kernel_params_) {
      if (computed_.count(p)) {
        body << ", " << computed_entry(p);
        continue;
      }
      if (std::find(loop_stack_.begin(), loop_stack_.end(), p) == loop_stack_.end())
        invalid_plan("table index '" + p + "' of kernel " + std::to_string(k.at("id").as_int64()) +
                     " is not an enclosing loop's index");
      body << ", i_" << p;
    }
    body << ");\n";
    if (fallible_.count(k.at("id").as_int64())) body << indent << stop_if_failed(entry);
    for (auto& [text, view] : kernel_tabviews_) {
      if (!view.write) continue;
      if (view.spread_to.empty()) {
        body << broadcast_into_view(k, view.value, indent);
        continue;
      }
      const std::vector<uint64_t> result = view.value.shape;
      view.value.shape = view.spread_to;  // stored as the access's shape
      tabviews_[view.value.name].shape = view.spread_to;
      body << spread_code(result, view.value, indent);
    }
    for (const auto& [text, view] : kernel_tabviews_)
      if (view.write && view.matrix)
        body << matrix_view_access(k, text, view.value, true, indent, entry);
      else if (view.write && view.run_time)
        body << broadcast_store(text, view.value, at_of(k.at("ops").at(0).as_object(), "output_at"),
                                indent, entry);
      else if (view.write)
        body << table_access(text, view.value.name, true,
                             at_of(k.at("ops").at(0).as_object(), "output_at"), indent, entry);
    kernel_tabviews_.clear();
  }

  // Whether an op of kernel k has a setting naming a loop index where its shape rule reads
  // settings (not "broadcast"): the result's shape may differ from one run to the next
  // (`argmax_axis(x, axis=i)`), so it is checked at run time as the simulator does, and the
  // kernel runs at the shapes it then has (runtime_kernel.hpp).
  static bool loop_setting_shapes(const json::object& k) {
    for (const auto& jop : k.at("ops").as_array()) {
      const json::object& op = jop.as_object();
      const json::value* rule = op.if_contains("shape_rule");
      if (rule && rule->is_string() && rule->as_string() == "broadcast") continue;
      for (const auto& kv : op.at("settings").as_object())
        if (kv.value().is_object() && kv.value().as_object().contains("loop_index")) return true;
    }
    return false;
  }

  // Several ops fused into kernel k around a matrix of run-time shape (the planner gives such
  // an op a kernel of its own; a plan may still fuse them): the ops one after another, each a
  // kernel of its own (ids past the plan's), as the simulator runs them; a value the fused
  // kernel kept internal gets a buffer of its own (storage "split", allocated with the state).
  int64_t split_ids_ = -1;
  void split_kernel(const json::object& k, std::ostringstream& kernels, std::ostringstream& body,
                    const std::string& indent, bool entry) {
    kernel_tabviews_.clear();
    runtime_kernel_ = false;
    if (split_ids_ < 0) split_ids_ = static_cast<int64_t>(root_.at("kernels").as_array().size());
    const auto& ops = k.at("ops").as_array();
    for (size_t i = 0; i < ops.size(); ++i) {
      const json::object& op = ops[i].as_object();
      json::object one = k;
      const int64_t id = split_ids_++;
      one["id"] = id;
      one["ops"] = json::array{op};
      // The planner's class of a kernel of this op alone (build_schedule.cpp classify), and
      // its shape: a plain output's.
      // (the catalog's reductions are the ops of the reduce_axes and argreduce_axis rules)
      bool bcast = false;
      const std::string rule = shape_rule(op, bcast);
      one["kind"] = rule == "matmul"                                    ? "matmul"
                    : rule == "reduce_axes" || rule == "argreduce_axis" ? "reduction"
                    : rule == "broadcast"                               ? "elementwise"
                                                                        : "op";
      json::array reads, writes;
      for (const auto& in : op.at("inputs").as_array())
        reads.push_back(json::string(parse_access(str(in)).name));
      const std::string out = parse_access(str(op.at("output"))).name;
      writes.push_back(json::string(out));
      if (str(op.at("output")) == out && index_.count(out) && !autodims_.count(out)) {
        json::array shape;
        for (uint64_t d : value(out).shape) shape.push_back(d);
        one["shape"] = shape;
      }
      one["reads"] = reads;
      one["writes"] = writes;
      one["internal"] = json::array();
      if (auto it = index_.find(out); it != index_.end() &&
                                      values_[it->second].storage == "internal" &&
                                      !autodims_.count(out)) {
        Value& v = values_[it->second];
        v.storage = "split";
        v.bytes = value_bytes(v.dtype, v.numel());
      }
      if (op_table().fallible.count(str(op.at("op")))) fallible_.insert(id);
      emit_kernel(one, kernels, body, indent, entry);
    }
  }

  // One step of a block, `indent` deep; loops recurse into their bodies.
  void emit_step(const json::object& st, std::ostringstream& kernels, std::ostringstream& body,
                 const std::string& indent, bool entry) {
    const std::string kind = str(st.at("kind"));
    body << note_writes(st, indent);
    if (kind == "kernel") {
      emit_kernel(root_.at("kernels").as_array().at(st.at("kernel").as_int64()).as_object(),
                  kernels, body, indent, entry);
    } else if (kind == "return") {
      if (entry)
        for (const auto& n : st.at("names").as_array())
          outputs_.push_back(str(n));  // an @auto_dim matrix too: fetched at its current shape
    } else if (kind == "branch") {
      const std::string cond = str(st.at("cond"));
      for (const char* key : {"then", "else"})
        if ((key[0] == 't' || !cond.empty()) && block_roles_[str(st.at(key))] != "branch")
          invalid_plan("a branch (line " + json::serialize(st.at("line")) + ") to '" +
                       str(st.at(key)) + "', which is not a branch block of the plan");
      if (cond.empty()) {
        body << indent << "block_" << str(st.at("then")) << "(s);\n";
        if (!fallible_.empty()) body << indent << stop_if_failed(entry);
      } else {
        const Value& c = value(cond);
        if (c.dtype != "bool" || c.numel() != 1)
          invalid_plan("branch condition '" + cond + "' is not a bool scalar");
        body << indent << "if (*(const uint8_t*)s->v_" << cond << ") block_" << str(st.at("then"))
             << "(s);\n"
             << indent << "else block_" << str(st.at("else")) << "(s);\n";
        if (!fallible_.empty()) body << indent << stop_if_failed(entry);
      }
    } else if (kind == "loop") {
      // dsl.md: the bounds are read once when the loop starts; start >= end runs nothing.
      const std::string index = "i_" + str(st.at("index"));
      body << indent << "for (int64_t " << index << " = " << bound(st.at("start"), st) << ", "
           << index << "_end = " << bound(st.at("end"), st) << "; " << index << " < " << index
           << "_end; ++" << index << ") {\n";
      loop_stack_.push_back(str(st.at("index")));
      for (const auto& b : st.at("body").as_array())
        emit_step(b.as_object(), kernels, body, indent + "  ", entry);
      loop_stack_.pop_back();
      body << indent << "}\n";
    } else if ((kind == "transfer" || kind == "cache.read" || kind == "cache.write") &&
               stored_side(str(st.at("from"))) &&
               (stored_side(str(st.at("to"))) ||
                (kind != "cache.read" && is_auto_access(str(st.at("from")))))) {
      body << stored_copy(st, indent, entry);
    } else if (kind == "cache.read" && is_auto_access(str(st.at("from")))) {
      body << auto_access(st, "from", "to", "from_at", false, indent, entry);
    } else if ((kind == "cache.write" || kind == "transfer") && is_auto_access(str(st.at("to"))) &&
               !is_auto_access(str(st.at("from")))) {
      // (the simulator runs a transfer as a cache.write: the source read, the target stored)
      body << auto_access(st, "to", "from", "to_at", true, indent, entry);
    } else if (kind == "cache.reset" && is_auto_access(str(st.at("target")))) {
      body << auto_reset(str(st.at("target")), at_of(st, "at"), indent, entry);
    } else if (kind == "cache.read" && is_table_access(str(st.at("from")))) {
      body << table_access(str(st.at("from")), whole(st, "to").name, false, at_of(st, "from_at"),
                           indent, entry, at_of(st, "to_at"));
    } else if (kind == "cache.write" && is_table_access(str(st.at("to")))) {
      body << table_access(str(st.at("to")), whole(st, "from").name, true, at_of(st, "to_at"),
                           indent, entry);
    } else if (kind == "cache.reset" && is_table_access(str(st.at("target")))) {
      body << table_reset(str(st.at("target")), at_of(st, "at"), indent, entry);
    } else if ((kind == "transfer" || kind == "cache.write") &&
               is_table_access(str(st.at("from"))) && !is_table_access(str(st.at("to")))) {
      // An entry or slice of a persistent table copied into a whole variable: the read of
      // cache.read (the simulator reads the source as an op input, which is the same read).
      body << table_access(str(st.at("from")), whole(st, "to").name, false, at_of(st, "from_at"),
                           indent, entry, at_of(st, "to_at"));
    } else if ((kind == "transfer" || kind == "cache.read") && is_table_access(str(st.at("to"))) &&
               !is_table_access(str(st.at("from")))) {
      // A whole variable copied into a table entry or slice: the store of cache.write.
      body << table_access(str(st.at("to")), whole(st, "from").name, true, at_of(st, "to_at"),
                           indent, entry);
    } else if ((kind == "transfer" || kind == "cache.write") &&
               is_prefix_entry(str(st.at("from"))) &&
               str(st.at("to")).find('[') == std::string::npos) {
      body << prefix_entry_copy(st, indent, entry);
    } else if (kind == "transfer" || kind == "cache.read" || kind == "cache.write") {
      const Value &from = whole(st, "from"), &to = whole(st, "to");
      body << indent << "memcpy(s->v_" << to.name << ", s->v_" << from.name << ", " << to.bytes
           << "u);\n";
    } else if (kind == "cache.increment" || kind == "cache.decrement") {
      const Value& v = value(str(st.at("var")));
      static const std::map<std::string, int> kBits = {
          {"i1", 1},   {"i2", 2},   {"i4", 4},   {"u1", 1},   {"u2", 2},
          {"u4", 4},   {"i8", 8},   {"u8", 8},   {"i16", 16}, {"u16", 16},
          {"i32", 32}, {"u32", 32}, {"i64", 64}, {"u64", 64}, {"bool", 1}};
      const auto bits = kBits.find(v.dtype);
      if (bits == kBits.end() || v.numel() != 1 || v.ptable || v.table)
        invalid_plan(kind + " of " + v.dtype + " '" + v.name +
                     "' (the counters are integer and bool scalars)");
      const std::string sign = kind == "cache.increment" ? " + " : " - ";
      const std::string amount = std::to_string(st.at("amount").to_number<int64_t>()) + "ll";
      if (bits->second >= 8 && v.dtype != "bool") {
        // Integer arithmetic wraps (ops.md): through the unsigned type, never signed overflow.
        const std::string n = std::to_string(bits->second), T = c_type(v.dtype),
                          U = "uint" + n + "_t", p = "*(" + T + "*)s->v_" + v.name;
        body << indent << p << " = (" << T << ")(" << U << ")((" << U << ")" << p << sign << "("
             << U << ")" << amount << ");\n";
      } else {
        // bool and the packed integers: one byte, the value in its low bits, which wrap (the
        // simulator keeps bool's lowest bit); the bits above are left alone.
        const std::string mask = std::to_string((1u << bits->second) - 1u) + "u",
                          p = "*(uint8_t*)s->v_" + v.name;
        body << indent << p << " = (uint8_t)((" << p << " & ~" << mask << ") | ((unsigned)(" << p
             << sign << "(unsigned)" << amount << ") & " << mask << "));\n";
      }
    } else if (kind == "cache.reset") {
      const Value& v = whole(st, "target");
      body << indent << fill_code(v, "s->v_" + v.name) << "\n";
    } else if (kind == "yield" && entry) {
      // dsl.md's deterministic result: the consumers one after another, each from the yielded
      // snapshot. A plain value a consumer writes is kept aside and the snapshot put back for
      // the next consumers; the results land here (entry does not touch the yielded values
      // before its await). A table or an @auto_dim matrix is not copied: its one writer changes
      // it in place and runs after every other consumer that awaits it (consumer_order.hpp).
      std::vector<std::string> names;
      std::set<std::string> in_place;
      for (const auto& n : st.at("names").as_array()) {
        const std::string name = str(n);
        if (value(name).ptable || autodims_.count(name))
          in_place.insert(name);
        else
          names.push_back(name);
      }
      std::vector<oi::emit::YieldConsumer> consumers;
      for (const auto& t : st.at("tasks").as_array()) {
        const std::string task = str(t);
        if (block_roles_[task] != "consumer")
          invalid_plan("a yield's task '" + task + "' is not a consumer block of the plan");
        oi::emit::YieldConsumer c{task, consumer_awaits_[task], {}};
        for (const auto& w : consumer_writes_[task]) c.writes.insert(parse_access(w).name);
        consumers.push_back(std::move(c));
      }
      // A cycle (each awaits a table another writes): those tables copied as yielded for the
      // readers after their writer (yield_snapshot.hpp).
      const oi::emit::ConsumerPlan plan = oi::emit::plan_consumers(consumers, in_place);
      const oi::emit::ConsumerOrder& order = plan.order;
      if (!order.error.empty())
        invalid_plan("the consumers of the yield at line " + json::serialize(st.at("line")) + ": " +
                     order.error + " (validation refuses it)");
      std::vector<YieldCopy> copies;
      for (const auto& n : plan.copied) {
        YieldCopy y{n, YieldCopy::Kind::Table, "", 0};
        if (autodims_.count(n)) {
          const AutoDimDecl& m = autodims_.at(n);
          y.kind = m.growable() ? YieldCopy::Kind::GrowableMatrices : YieldCopy::Kind::Matrices;
          y.count_c = auto_count_c(m, "s");
          y.table_rank = m.table_indices.size();
        } else {
          yield_copied_.insert(n);
        }
        copies.push_back(std::move(y));
      }
      const std::string line = json::serialize(st.at("line"));
      body << indent << "/* yield: consumers run here, from the snapshot */\n";
      for (const auto& n : names) {
        yielded_.insert(n);
        body << indent << "memcpy(s->snap_" << n << ", s->v_" << n << ", " << value(n).bytes
             << "u);\n";
      }
      std::string in = indent;
      if (!copies.empty()) {
        body << indent << "{ /* the tables the readers after their writer see as yielded */\n";
        in = indent + "  ";
        body << take_copies(copies, freestanding_, name_, line, "goto done;", in);
      }
      std::set<std::string> written;
      std::vector<YieldCopy> swapped;
      for (size_t i : order.order) {
        const std::string& task = consumers[i].name;
        body << in << "block_" << task << "(s);\n";
        if (!copies.empty()) {
          body << in << "if (s->failed) {\n";
          for (const YieldCopy& y : swapped) body << swap_copy(y, in + "  ");
          body << drop_copies(copies, freestanding_, in + "  ") << in << "  goto done;\n"
               << in << "}\n";
        } else if (!fallible_.empty()) {
          body << in << stop_if_failed(entry);
        }
        for (const auto& n : names)
          if (consumer_writes_[task].count(n)) {
            written.insert(n);
            body << in << "memcpy(s->res_" << n << ", s->v_" << n << ", " << value(n).bytes
                 << "u);\n"
                 << in << "memcpy(s->v_" << n << ", s->snap_" << n << ", " << value(n).bytes
                 << "u);\n";
          }
        for (const YieldCopy& y : copies)
          if (consumers[i].writes.count(y.name)) {
            body << swap_copy(y, in);  // its readers from here on see it as yielded
            swapped.push_back(y);
          }
      }
      if (!copies.empty()) {
        for (const YieldCopy& y : swapped) body << swap_copy(y, in);  // the writer's result
        body << drop_copies(copies, freestanding_, in) << indent << "}\n";
      }
      for (const auto& n : written)
        body << indent << "memcpy(s->v_" << n << ", s->res_" << n << ", " << value(n).bytes
             << "u);\n";
    } else if (kind == "yield" || kind == "await") {
      // a consumer's own await/yield, and entry's await: nothing left to wait for.
    } else if (kind != "barrier" && kind != "dep") {
      invalid_plan("'" + kind + "' steps (line " + json::serialize(st.at("line")) + ")");
    }
  }

  // ---- failed steps (docs/synth.md "Table budget and failed steps") ----

  // Plain persistent variables (not tables, not @auto_dim matrices): a step's first write to
  // one keeps a copy of its value (s->u_NAME), put back when the step fails.
  bool undoable(const std::string& text) const {
    auto it = index_.find(parse_access(text).name);
    if (it == index_.end()) return false;
    const Value& v = values_[it->second];
    return v.memory == "persistent" && v.storage == "persistent" && !v.ptable && !v.table &&
           !autodims_.count(v.name);
  }
  std::set<std::string> undo_vars_;
  bool step_copies_ = true;  // hosted: OI_NOTE copies (false: no step fails once started)

  // A step that cannot fail once started (its only failure a missing input, checked first)
  // needs no copies of its plain persistent values.
  bool step_can_fail(const std::string& step_body) const {
    return !fallible_.empty() || step_body.find("goto done;") != std::string::npos;
  }

  // The C noting the plain persistent variables step `st` writes, before it runs (a table's
  // entries are noted where they are written).
  std::string note_writes(const json::object& st, const std::string& indent) {
    const std::string kind = str(st.at("kind"));
    std::vector<std::string> written;
    if (kind == "kernel") {
      for (const auto& w :
           root_.at("kernels").as_array().at(st.at("kernel").as_int64()).at("writes").as_array())
        written.push_back(str(w));
    } else if (kind == "transfer" || kind == "cache.read" || kind == "cache.write") {
      written.push_back(str(st.at("to")));
    } else if (kind == "cache.increment" || kind == "cache.decrement") {
      written.push_back(str(st.at("var")));
    } else if (kind == "cache.reset") {
      written.push_back(str(st.at("target")));
    }
    std::string c;
    for (const auto& text : written) {
      if (!undoable(text)) continue;
      const std::string n = parse_access(text).name;
      undo_vars_.insert(n);
      c += indent + "OI_NOTE(" + n + ", " + std::to_string(value(n).bytes) + "u);\n";
    }
    return c;
  }

  // OI_NOTE, what note_writes calls: a copy before the step's first write to a plain persistent
  // value; nothing where no step can fail once it has started (freestanding: no copies then).
  static std::string note_macro_c(bool copies) {
    if (!copies) return "#define OI_NOTE(n, bytes) ((void)0) /* no step fails after a write */\n\n";
    return "/* Before a step's first write to plain persistent value n: a copy of it, put back "
           "when the step fails. */\n#define OI_NOTE(n, bytes)                       \\\n"
           "  do {                                          \\\n"
           "    if (!s->u_has_##n) {                        \\\n"
           "      memcpy(s->u_##n, s->v_##n, bytes);        \\\n"
           "      s->u_has_##n = 1;                         \\\n"
           "    }                                           \\\n"
           "  } while (0)\n\n";
  }

  // The end of a step, in both profiles: a failed one puts back what the undo record holds.
  std::string end_step_c(bool tables) const {
    std::ostringstream c;
    c << "static void end_step(" << name_ << "_state* s, int undo) {\n  (void)s;\n  (void)undo;\n";
    if (tables)
      c << "  oi_mem_end(&s->mem, undo);\n";
    else if (!freestanding_)
      c << "  if (undo) s->mem.total = s->mem.before_total;\n  s->mem.before_total = "
           "s->mem.total;\n";
    for (const Value& v : values_)
      if (v.ptable) c << "  oi_tab_end(&s->t_" << v.name << ", undo);\n";
    for (const auto& [mname, m] : autodims_) {
      c << "  for (size_t e = 0; e < " << auto_count_c(m, "s") << "; ++e) oi_ad_end(&s->a_" << mname
        << "[e], undo);\n";
      if (m.growable())
        c << "  if (undo)\n    memcpy(s->as_" << mname << ", s->au_" << mname << ", sizeof s->as_"
          << mname << ");\n  else\n    memcpy(s->au_" << mname << ", s->as_" << mname
          << ", sizeof s->au_" << mname << ");\n";
    }
    for (const auto& n : undo_vars_)
      c << "  if (s->u_has_" << n << " && undo) memcpy(s->v_" << n << ", s->u_" << n << ", "
        << value(n).bytes << "u);\n  s->u_has_" << n << " = 0;\n";
    c << "}\n\n";
    return c.str();
  }

  // ---- dynamic inputs: where a step first reads each (the simulator's message names it) ----

  std::map<std::string, std::string> first_read_;  // dynamic variable -> FILE:LINE:COL
  std::vector<std::string> read_order_;            // the dynamic variables by first read
  std::set<std::string> visited_;                  // blocks find_first_reads has been through

  void note_read(const std::string& name, const std::string& at) {
    auto it = index_.find(name);
    if (it != index_.end() && values_[it->second].storage == "dynamic" &&
        !first_read_.count(name)) {
      first_read_[name] = at;
      read_order_.push_back(name);
    }
  }

  // In schedule order, into loops and the blocks branches and yields run.
  void find_first_reads(const json::array& steps) {
    for (const auto& jst : steps) {
      const auto& st = jst.as_object();
      const std::string kind = str(st.at("kind"));
      if (kind == "kernel") {
        const auto& k = root_.at("kernels").as_array().at(st.at("kernel").as_int64());
        for (const auto& jop : k.at("ops").as_array()) {
          const auto& op = jop.as_object();
          const auto& ins = op.at("inputs").as_array();
          for (size_t i = 0; i < ins.size(); ++i)
            note_read(str(ins[i]),
                      op.contains("inputs_at") ? str(op.at("inputs_at").at(i)) : str(op.at("at")));
        }
      } else if (kind == "transfer" || kind == "cache.write" || kind == "cache.read") {
        note_read(str(st.at("from")), str(st.at(st.contains("from_at") ? "from_at" : "at")));
      } else if (kind == "loop") {
        find_first_reads(st.at("body").as_array());
      } else if (kind == "branch" || kind == "yield") {
        if (kind == "branch" && !str(st.at("cond")).empty())
          note_read(str(st.at("cond")), str(st.at("at")));
        std::vector<std::string> targets;
        if (kind == "yield") {
          for (const auto& t : st.at("tasks").as_array()) targets.push_back(str(t));
        } else {
          targets.push_back(str(st.at("then")));
          if (!str(st.at("cond")).empty()) targets.push_back(str(st.at("else")));
        }
        // each block once (a consumer's own yield names its fellow consumers again)
        for (const auto& t : targets)
          for (const auto& b : root_.at("blocks").as_array())
            if (str(b.at("name")) == t && visited_.insert(t).second)
              find_first_reads(b.at("steps").as_array());
      }
    }
  }

  // ---- settings that name a size variable or a constant scalar (dsl.md) ----

  const WeightLookup* model_ = nullptr;       // the model at synthesis (--model), if any
  std::string model_origin_;                  // its path, as the plan names it
  std::map<std::string, std::string> baked_;  // constant -> the bytes its settings were given

  // Replaces each setting {"name": N} of the kernels' ops by N's value, by dsl.md's precedence:
  // a loop index (its value changes: {"loop_index": N}, which literal() writes as the kernel's
  // parameter i_N, view_params() adds), a declared variable (a constant scalar, whose value is
  // the model's tensor or its @init: create() checks the model it loads holds the same bytes),
  // a size variable.
  void resolve_settings(json::array& steps, std::vector<std::string>& loops) {
    for (auto& jst : steps) {
      auto& st = jst.as_object();
      if (st.at("kind") == "loop") {
        loops.push_back(str(st.at("index")));
        resolve_settings(st.at("body").as_array(), loops);
        loops.pop_back();
        continue;
      }
      if (st.at("kind") != "kernel") continue;
      auto& k = root_.at("kernels").as_array().at(st.at("kernel").as_int64()).as_object();
      for (auto& jop : k.at("ops").as_array())
        for (auto& kv : jop.at("settings").as_object()) {
          if (!kv.value().is_object() || !kv.value().as_object().contains("name")) continue;
          named_settings_.insert(k.at("id").as_int64());
          kv.value() = setting_value(str(kv.value().at("name")), loops, jop.as_object(),
                                     std::string(kv.key()));
        }
    }
  }

  json::value setting_value(const std::string& name, const std::vector<std::string>& loops,
                            const json::object& op, const std::string& key) {
    const std::string where = op_where(op) + ": setting '" + key + "' = " + name;
    if (std::find(loops.begin(), loops.end(), name) != loops.end())
      return json::object{{"loop_index", name}};
    auto it = index_.find(name);
    if (it == index_.end()) {
      const auto& sizes = root_.at("sizevars").as_object();
      if (sizes.contains(name)) return sizes.at(name);
      invalid_plan(where + " names nothing the plan declares");
    }
    const Value& v = values_[it->second];
    if (v.storage != "constant" || v.numel() != 1 || v.table || v.ptable)
      invalid_plan(where + ", which is not a scalar of constant memory");
    std::optional<ModelTensor> t;
    if (model_ && !v.link.empty()) t = (*model_)(v.link);
    std::string bytes;
    if (t && t->bytes.size() == scalar_bytes(v.dtype) && t->dtype == dtype_tag(v.dtype))
      bytes = t->bytes;
    else if (t)
      throw std::runtime_error("'" + v.name + "': model tensor '" + v.link +
                               "' has another dtype or shape");
    std::optional<std::string> init;
    if (bytes.empty() && v.init) init = scalar_init_bytes(*v.init, v.dtype);
    if (bytes.empty() && v.init && !init)
      invalid_plan(where + ": the @init of '" + v.name + "' does not fit " + v.dtype);
    const json::value out = scalar_setting(!bytes.empty() ? bytes
                                           : init         ? *init
                                                  : std::string(scalar_bytes(v.dtype), '\0'),
                                           v.dtype);
    if (!bytes.empty()) baked_[v.name] = bytes;
    return out;
  }

  // ---- persistent tables (tables.hpp) ----

  // A table entry or slice an op of the kernel being written reads or writes, copied through
  // a buffer of its own (s->v_tvID_N) around the kernel call.
  struct TabView {
    Value value;
    bool read = false, write = false;
    bool run_time = false;  // a slice of run-time length: value has the kernel's shape
    std::vector<uint64_t> spread_to =
        {};               // non-empty: value has the kernel's shape, spread to this
    bool matrix = false;  // an @auto_dim matrix (or part) read or stored as cache.read/write
  };
  std::map<std::string, TabView> kernel_tabviews_;  // access text -> its buffer
  std::map<std::string, Value> tabviews_;           // every buffer, by name
  std::vector<std::pair<std::string, uint64_t>> tabview_fields_;

  bool is_table_access(const std::string& text) const {
    const std::string name = parse_access(text).name;
    auto it = index_.find(name);
    return it != index_.end() && values_[it->second].ptable;
  }

  // The source position the plan gives for messages ("gpt.oi:137:3"), else the line.
  // The freestanding profile keeps its messages short (its error buffer is small): the file's
  // name without its folders.
  static std::string at_of(const json::object& o, const char* key) {
    std::string at;
    if (o.contains(key))
      at = str(o.at(key));
    else if (o.contains("at"))
      at = str(o.at("at"));
    else
      return o.contains("line") ? "line " + json::serialize(o.at("line")) : std::string();
    const size_t slash = at.find_last_of('/');
    return emit_profile().freestanding && slash != std::string::npos ? at.substr(slash + 1) : at;
  }

  // C of an index name at the current place: loop index, then integer scalar, then size
  // variable (dsl.md's precedence).
  std::string index_c(const std::string& name) const {
    if (std::find(loop_stack_.begin(), loop_stack_.end(), name) != loop_stack_.end())
      return "(int64_t)i_" + name;
    auto it = index_.find(name);
    if (it != index_.end()) {
      const Value& v = values_[it->second];
      // Any integer scalar (dsl.md; the simulator's scalar_int): a u64 as its two's-complement
      // bits, a packed integer through its getter.
      static const std::set<std::string> kInts = {"i8", "i16", "i32", "i64",
                                                  "u8", "u16", "u32", "u64"};
      if (v.numel() == 1 && !v.ptable && !v.table && kInts.count(v.dtype))
        return "(int64_t)*(const " + std::string(c_type(v.dtype)) + "*)s->v_" + name;
      if (v.numel() == 1 && !v.ptable && !v.table && packed_bits(v.dtype) && v.dtype[0] != 't')
        return "(int64_t)" + load(v.dtype, "(const uint8_t*)s->v_" + name, "0");
      invalid_plan("index '" + name + "' is a " + v.dtype + " value, not an integer scalar");
    }
    const auto& sizes = root_.at("sizevars").as_object();
    if (sizes.contains(name)) return "(int64_t)" + json::serialize(sizes.at(name)) + "ll";
    invalid_plan("index '" + name + "' names nothing the plan declares");
  }

  // The value of an index name known when the code is written (size variables only).
  std::optional<int64_t> constant_index(const std::string& name) const {
    if (std::find(loop_stack_.begin(), loop_stack_.end(), name) != loop_stack_.end() ||
        index_.count(name))
      return std::nullopt;
    const auto& sizes = root_.at("sizevars").as_object();
    if (sizes.contains(name)) return sizes.at(name).to_number<int64_t>();
    return std::nullopt;
  }

  static TableDecl table_decl(const Value& t) { return {t.name, t.indices, t.bounds}; }

  // The @auto_dim matrices some access may grow: one with a scalar auto index other than a
  // literal 0 (slices never grow a matrix), anywhere in the plan.
  std::set<std::string> growing_;
  bool growing_known_ = false;
  void note_growth(const std::string& text) {
    if (!is_auto_access(text) || text.find('[') == std::string::npos) return;
    const AccessText a = parse_access(text);
    const AutoDimDecl& m = autodims_.at(a.name);
    const size_t nt = m.table_indices.size();
    bool scalar = a.slots.size() > nt, zero = true;
    for (size_t j = nt; j < a.slots.size(); ++j) {
      if (a.slots[j].range || !a.slots[j].index)
        scalar = false;
      else if (!a.slots[j].index->literal || a.slots[j].index->value != 0)
        zero = false;
    }
    if (scalar && !zero) growing_.insert(a.name);
  }
  void find_growth(const json::array& steps) {
    for (const auto& jst : steps) {
      const auto& st = jst.as_object();
      for (const char* key : {"from", "to", "target"})
        if (st.contains(key) && st.at(key).is_string()) note_growth(str(st.at(key)));
      if (st.contains("body")) find_growth(st.at("body").as_array());
    }
  }
  const std::set<std::string>& growing() {
    if (!growing_known_) {
      for (const auto& b : root_.at("blocks").as_array()) find_growth(b.at("steps").as_array());
      for (const auto& k : root_.at("kernels").as_array())
        for (const auto& op : k.at("ops").as_array()) {
          for (const auto& in : op.at("inputs").as_array()) note_growth(str(in));
          note_growth(str(op.at("output")));
        }
      growing_known_ = true;
    }
    return growing_;
  }

  // An op's operand that is an @auto_dim matrix (`M`, `M[r, c]`, a part, a table of matrices'
  // matrix `C[k, 0]`): a buffer of the shape it has whenever the op runs, read before the
  // kernel as cache.read reads it and stored after it as cache.write stores it (growth, @init
  // cells, the simulator's checks and messages). That shape is static for a part of static
  // length, a whole matrix the op writes (the kernel's shape; a store of another shape is the
  // store's error) and a whole matrix no access of the plan grows (its declared shape); one an
  // access grows, or a part of run-time length, has its shape only at run time: the kernel is
  // then runtime_kernel's (runtime_kernel_).
  void add_matrix_view(const json::object& k, const std::string& text, bool output) {
    const int64_t id = k.at("id").as_int64();
    auto it = kernel_tabviews_.find(text);
    if (it == kernel_tabviews_.end()) {
      const AccessText a = parse_access(text);
      const AutoDimDecl& m = autodims_.at(a.name);
      const size_t nt = m.table_indices.size();
      if (a.brackets && !a.slots.empty() && a.slots.size() != nt + m.indices.size())
        invalid_plan("'" + text + "' does not give one index per index of '" + a.name + "'");
      for (size_t j = 0; j < nt && j < a.slots.size(); ++j)
        if (a.slots[j].range || !a.slots[j].index)
          runtime_kernel_ = true;  // matrices of a @table stacked: runtime_kernel.hpp
      bool part = false;
      std::vector<uint64_t> shape = m.base;
      for (size_t j = nt; j < a.slots.size(); ++j) {
        const SlotText& sl = a.slots[j];
        if (!sl.range) continue;
        part = true;
        const size_t axis = j - nt;
        std::optional<int64_t> len;
        if (sl.start && sl.end && sl.start->literal && sl.end->literal && sl.end->value >= 0)
          len = std::max<int64_t>(sl.end->value - sl.start->value, 0);
        else if (sl.start && sl.end && !sl.start->literal && !sl.end->literal &&
                 sl.start->name == sl.end->name && sl.end->value >= sl.start->value)
          len = sl.end->value - sl.start->value;
        else if (!sl.start && sl.end && sl.end->literal && sl.end->value >= 0)
          len = sl.end->value;
        if (!len) runtime_kernel_ = true;  // runtime_kernel.hpp
        shape[axis] = static_cast<uint64_t>(len.value_or(0));
      }
      // A part with single indices among its slices keeps those axes with length 1.
      if (part)
        for (size_t j = nt; j < a.slots.size(); ++j)
          if (!a.slots[j].range) shape[j - nt] = 1;
      if (!part && output && str(k.at("kind")) == "elementwise") {
        shape.clear();
        for (const auto& d : k.at("shape").as_array()) shape.push_back(d.to_number<uint64_t>());
      } else if (!part && !output && growing().count(a.name)) {
        runtime_kernel_ = true;  // its shape is known only at run time: runtime_kernel.hpp
      }
      Value v = value(a.name);
      v.ptable = false;
      v.table = false;
      v.indices.clear();
      v.bounds.clear();
      v.init = nullptr;
      v.name = "tv" + std::to_string(id) + "_" + std::to_string(kernel_tabviews_.size());
      v.storage = "tabview";
      v.shape = shape;
      v.bytes = value_bytes(v.dtype, v.numel());
      tabviews_[v.name] = v;
      tabview_fields_.push_back({v.name, v.bytes});
      field_kernel_[v.name] = id;
      it = kernel_tabviews_.emplace(text, TabView{v}).first;
      it->second.matrix = true;
    }
    (output ? it->second.write : it->second.read) = true;
  }

  // Kernel k reads a plain @auto_dim matrix whose shape is known only at run time: its C is
  // runtime_kernel's, in the step's body.
  bool runtime_kernel_ = false;
  // A kernel of run-time shapes without an @auto_dim matrix (a table access of run-time length
  // among its operands): the program needs auto_dim_c's run-time helpers all the same.
  bool runtime_helpers_ = false;
  std::string runtime_kernel_c(const json::object& k, const std::string& indent, bool entry) {
    // A persistent table's access among the operands goes through its buffer of static shape,
    // as for any kernel: the output's read first (the simulator reads the output access before
    // the inputs), then the inputs' (copied out); the output stored after the kernel, which
    // puts the result into the buffer (runtime_kernel.hpp). A slice of run-time length written
    // is not covered yet.
    const json::object& op = k.at("ops").at(0).as_object();
    std::string reads, writes;
    for (auto& [text, view] : kernel_tabviews_) {
      if (view.matrix || !view.write || view.run_time) continue;  // run_time: runtime_slice
      if (!view.spread_to.empty()) {  // the buffer holds the access; the kernel spreads into it
        view.value.shape = view.spread_to;
        tabviews_[view.value.name].shape = view.spread_to;
        view.spread_to.clear();
      }
      reads += table_access(text, view.value.name, false, at_of(op, "output_at"), indent, entry);
      writes += table_access(text, view.value.name, true, at_of(op, "output_at"), indent, entry);
    }
    std::set<std::string> slice_inputs;  // of run-time length: read by the kernel
    for (const auto& [text, view] : kernel_tabviews_)
      if (!view.matrix && view.read && view.run_time)
        slice_inputs.insert(text);
      else if (!view.matrix && view.read && !view.write)
        reads += table_access(text, view.value.name, false, at_of(op, "at"), indent, entry);
    // A prefix table's entry: its number at run time, checked as a kernel's entry is
    // (declare_views), its bytes within the table's.
    const std::string line = json::serialize(op.at("line"));
    auto prefix_entry = [&](const std::string& text,
                            const std::string& var) -> std::optional<PrefixEntryC> {
      if (text.find('[') == std::string::npos || is_table_access(text) || is_auto_access(text))
        return std::nullopt;
      const Value& view = operand(text);
      const Value& table = value(text.substr(0, text.find('[')));
      if (!table.table) return std::nullopt;
      std::string at = computed_.count(view.index) ? computed_entry(view.index)
                       : std::isdigit(static_cast<unsigned char>(view.index[0]))
                           ? view.index + "ll"
                           : index_c(view.index);
      const uint64_t entry_bytes = value_bytes(table.dtype, table.numel());
      return PrefixEntryC{"(int64_t)(" + at + ")",
                          var + " < 0 || " + var + " >= " + std::to_string(table.entries) +
                              " || s->avail_" + table.name + "[" + var + "] != 1",
                          missing_entry_c(k, text, table, var, line),
                          "(unsigned char*)s->v_" + table.name + " + (size_t)" + var + " * " +
                              std::to_string(entry_bytes) + "u"};
    };
    // A table slice of run-time length as the output: its span where the kernel starts, the
    // store where it ends (as table_access writes one).
    auto runtime_slice = [&](const std::string& text, const std::string& in,
                             const std::string& stop) -> std::optional<RuntimeSliceC> {
      auto it = kernel_tabviews_.find(text);
      if (it == kernel_tabviews_.end() || !it->second.run_time || !it->second.write)
        return std::nullopt;
      const AccessText a = parse_access(text);
      const Value& t = value(a.name);
      const std::string at = at_of(op, "output_at");
      RuntimeSliceC r;
      r.span = span_code(
          table_decl(t), a, [&](const std::string& n) { return index_c(n); }, at, name_, stop, in,
          nullptr);
      for (size_t j = 0; j < t.indices.size(); ++j)
        if (j >= a.slots.size() || a.slots[j].range)
          r.dims.push_back("ln[" + std::to_string(j) + "]");
      for (uint64_t d : t.shape) r.dims.push_back(std::to_string(d) + "ll");
      r.store = [this, at, in, name = t.name](const std::string& data, const std::string& stop) {
        const std::string w = format_text(at.empty() ? "" : at + ": ");
        return in + "{\n" + in + "  const int rc = oi_tab_write(&s->t_" + name + ", st, ln, " +
               data + ");\n" + in + "  if (rc == -2) {\n" + in +
               "    s->failed = budget_fail(s, \"" + w + "\", \"" + format_text(name) + "\");\n" +
               in + "    " + stop + "\n" + in + "  }\n" + in + "  if (rc != 0) {\n" + in +
               "    s->failed = fail(s, " + name_ + "_ERR_MEMORY, \"" + w +
               "out of memory growing table '" + name + "'\");\n" + in + "    " + stop + "\n" + in +
               "  }\n" + in + "}\n";
      };
      return r;
    };
    RuntimeKernelEnv e{*this,
                       library_,
                       library_ops_,
                       autodims_,
                       [&](const std::string& n) { return index_c(n); },
                       entry ? "goto done;" : "return;",
                       indent,
                       emit_profile().freestanding,
                       prefix_entry,
                       runtime_slice,
                       slice_inputs};
    std::string c = reads + runtime_kernel(e, k) + writes;
    kernel_tabviews_.clear();
    runtime_kernel_ = false;
    return c;
  }

  // Whether the shape of single-op kernel k (not elementwise) is its op's result by the
  // catalog rule, as the planner gives it for an output with brackets (build_schedule.cpp,
  // table_result_shape): every input a whole value of static shape, every setting a literal,
  // no acc=. Otherwise the plan gives the output entry's shape.
  std::set<int64_t> named_settings_;  // kernels with settings that named a variable
  bool result_shape_planned(const json::object& k) const {
    const auto& ops = k.at("ops").as_array();
    if (ops.size() != 1 || named_settings_.count(k.at("id").as_int64())) return false;
    const auto& op = ops.at(0).as_object();
    for (const auto& kv : op.at("settings").as_object())
      if (kv.key() == "acc" || kv.value().is_object()) return false;
    for (const auto& in : op.at("inputs").as_array()) {
      const std::string text = str(in);
      if (text.find('[') != std::string::npos || autodims_.count(text)) return false;
      const Value& v = value(text);
      if (v.table || v.ptable || v.storage == "runtime") return false;
    }
    return true;
  }

  // The buffers of the table accesses among kernel k's operands, before it is written.
  void prepare_tabviews(const json::object& k) {
    kernel_tabviews_.clear();
    runtime_kernel_ = false;
    const int64_t id = k.at("id").as_int64();
    auto add = [&](const std::string& text, bool output) {
      if (is_auto_access(text)) {
        add_matrix_view(k, text, output);
        return;
      }
      if (!is_table_access(text)) return;
      auto it = kernel_tabviews_.find(text);
      if (it == kernel_tabviews_.end()) {
        const AccessText a = parse_access(text);
        const Value& t = value(a.name);
        auto lead =
            static_lead(table_decl(t), a, [&](const std::string& n) { return constant_index(n); });
        bool run_time = false;
        if (!lead) {
          // The kernel's result has its own shape, broadcast over the slice's entries when
          // stored (broadcast_store): an elementwise kernel's always, another's where the plan
          // gives it (result_shape_planned). Otherwise its shapes are known only at run time:
          // an input of run-time length (`K[l]` of `K(l, t)`, t growable: slice_inputs), an
          // output beside one or beside a matrix an access grows (runtime_kernel_, the inputs
          // coming first), or where the plan does not give the result's shape; the op's rule
          // computes it at run time (runtime_kernel.hpp, the output through runtime_slice).
          const bool unplanned = !output || runtime_kernel_ ||
                                 (str(k.at("kind")) != "elementwise" && !result_shape_planned(k));
          if (unplanned && freestanding_)
            refuse_device_limit("c emitter",
                                "'" + text + "' as an operand of kernel " + std::to_string(id),
                                "the result's shape, known only at run time, needs memory "
                                "allocation at run time (the freestanding profile allocates "
                                "nothing)",
                                device_name_, "cpu.profile freestanding");
          if (unplanned) runtime_kernel_ = runtime_helpers_ = true;
          run_time = true;
          lead.emplace();
        }
        Value v = t;
        v.ptable = false;
        v.indices.clear();
        v.bounds.clear();
        v.name = "tv" + std::to_string(id) + "_" + std::to_string(kernel_tabviews_.size());
        v.storage = "tabview";
        v.shape = *lead;
        v.shape.insert(v.shape.end(), t.shape.begin(), t.shape.end());
        std::vector<uint64_t>
            result;  // the kernel's result shape (the planner's, by the op's rule)
        for (const auto& d : k.at("shape").as_array()) result.push_back(d.to_number<uint64_t>());
        if (run_time) v.shape = result;
        v.bytes = value_bytes(v.dtype, v.numel());
        // An op of another kind than elementwise whose result broadcasts to a larger access
        // (`op softmax(x, axis=0) >> K[0..2]`): it writes its result's shape into the buffer's
        // first elements, spread over the access after it (spread_to).
        std::vector<uint64_t> spread_to;
        if (output && !run_time && str(k.at("kind")) != "elementwise" && result != v.shape &&
            broadcasts(result, v.shape)) {
          spread_to = v.shape;
          v.shape = result;
        }
        tabviews_[v.name] = v;
        tabview_fields_.push_back({v.name, v.bytes});
        field_kernel_[v.name] = id;
        it = kernel_tabviews_.emplace(text, TabView{v}).first;
        it->second.run_time = run_time;
        it->second.spread_to = spread_to;
        if (run_time) {
          // The slice's largest span, where every sliced index has a @fixed bound: the stacked
          // buffer of the store (no allocation); otherwise it is allocated when stored.
          std::vector<uint64_t> most;
          bool bounded = true;
          for (size_t j = 0; j < t.indices.size(); ++j) {
            const bool ranged = j >= a.slots.size() || a.slots[j].range;
            if (!ranged) continue;
            if (t.bounds[j] < 0)
              bounded = false;
            else
              most.push_back(static_cast<uint64_t>(t.bounds[j]));
          }
          if (bounded) {
            uint64_t n = 1;
            for (uint64_t d : most) n *= d;
            const std::string field = v.name + "_span";
            const uint64_t bytes = value_bytes(v.dtype, n * value_numel(t));
            tabview_fields_.push_back({field, bytes});
            field_kernel_[field] = id;
          }
        }
      }
      (output ? it->second.write : it->second.read) = true;
    };
    for (const auto& jop : k.at("ops").as_array()) {
      for (const auto& in : jop.at("inputs").as_array()) add(str(in), false);
      const std::string out = str(jop.at("output"));
      const auto t = index_.find(parse_access(out).name);
      if (t != index_.end() && values_[t->second].table)
        invalid_plan(op_where(jop.as_object()) + " writes '" + out +
                     "', an entry of a prefix table (read-only: the validator refuses it)");
      add(out, true);
    }
  }

  // Reads the access `text` of a table into variable `var` (or stores `var` there), with the
  // simulator's checks; a failure ends the step.
  std::string table_access(const std::string& text, const std::string& var, bool write,
                           const std::string& at, const std::string& indent, bool entry,
                           const std::string& other_at = "") {
    const AccessText a = parse_access(text);
    const Value& t = value(a.name);
    const Value& other = value(var);
    if (other.dtype != t.dtype || other.shape.size() < t.shape.size() ||
        !std::equal(t.shape.rbegin(), t.shape.rend(), other.shape.rbegin()))
      invalid_plan("'" + var + "' (" + other.dtype + ") does not hold entries of table '" + t.name +
                   "' (" + t.dtype + ")");
    LeadCheck lead;
    lead.lead.assign(other.shape.begin(),
                     other.shape.end() - static_cast<std::ptrdiff_t>(t.shape.size()));
    lead.entry = t.shape;
    lead.dtype = t.dtype;
    lead.other = var;
    lead.other_at = other_at.empty() ? "" : other_at + ": ";
    lead.write = write;
    const std::string stop = entry ? "goto done;" : "return;";
    std::ostringstream c;
    c << indent << "{ /* " << (write ? "store into " : "read ") << text << " */\n"
      << span_code(
             table_decl(t), a, [&](const std::string& n) { return index_c(n); }, at, name_, stop,
             indent + "  ", &lead);
    if (write && !freestanding_)
      c << indent << "  const int rc = oi_tab_write(&s->t_" << t.name << ", st, ln, s->v_" << var
        << ");\n"
        << indent << "  if (rc == -2) {\n"
        << indent << "    s->failed = budget_fail(s, \"" << format_text(at.empty() ? "" : at + ": ")
        << "\", \"" << format_text(t.name) << "\");\n"
        << indent << "    " << stop << "\n"
        << indent << "  }\n"
        << indent << "  if (rc != 0) {\n"
        << indent << "    s->failed = fail(s, " << name_ << "_ERR_MEMORY, \""
        << format_text(at.empty() ? "" : at + ": ") << "out of memory growing table '" << t.name
        << "'\");\n"
        << indent << "    " << stop << "\n"
        << indent << "  }\n";
    else if (write)
      c << indent << "  if (oi_tab_write(&s->t_" << t.name << ", st, ln, s->v_" << var
        << ") != 0) {\n"
        << indent << "    s->failed = fail(s, " << name_ << "_ERR_MEMORY, \""
        << format_text(at.empty() ? "" : at + ": ") << "out of memory growing table '" << t.name
        << "'\");\n"
        << indent << "    " << stop << "\n"
        << indent << "  }\n";
    else
      c << indent << "  oi_tab_read(&s->t_" << t.name << ", st, ln, s->v_" << var << ");\n";
    c << indent << "}\n";
    return c.str();
  }

  // A reset's leading single index n into pre[n], a negative one the simulator's error (the
  // table reset and auto_reset_growable).
  std::string reset_lead_index(const IndexText& i, size_t n, const std::string& table,
                               const std::string& index, const std::string& at,
                               const std::string& indent, const std::string& stop) const {
    std::string e = i.literal ? "(int64_t)" + std::to_string(i.value) + "ll" : index_c(i.name);
    if (!i.literal && i.value != 0) e = "(" + e + " + (int64_t)" + std::to_string(i.value) + "ll)";
    std::ostringstream c;
    c << indent << "  pre[" << n << "] = " << e << ";\n"
      << indent << "  if (pre[" << n << "] < 0) {\n"
      << indent << "    s->failed = fail(s, " << name_ << "_ERR_RUN, \""
      << format_text((at.empty() ? "" : at + ": ") + "table '" + table + "': index " + index +
                     " = ")
      << "%lld is negative\", (long long)pre[" << n << "]);\n"
      << indent << "    " << stop << "\n"
      << indent << "  }\n";
    return c.str();
  }

  // cache.reset of a table: whole (`K`), or the entries under leading indices (`K[l]`); as in
  // the simulator, the indices before the first slice choose the entries.
  std::string table_reset(const std::string& text, const std::string& at, const std::string& indent,
                          bool entry) {
    const AccessText a = parse_access(text);
    const Value& t = value(a.name);
    const std::string stop = entry ? "goto done;" : "return;";
    if (resets_a_window(a, t.indices.size()))
      return table_reset_window(table_decl(t), a, reset_context(at, indent, stop));
    std::ostringstream c;
    c << indent << "{ /* cache.reset " << text << " */\n"
      << indent << "  int64_t pre[" << t.indices.size() << "] = {0};\n"
      << indent << "  (void)pre;\n";
    size_t n = 0;
    for (; n < a.slots.size() && !a.slots[n].range; ++n) {
      c << reset_lead_index(*a.slots[n].index, n, t.name, t.indices[n], at, indent, stop);
    }
    c << indent << "  if (oi_tab_reset(&s->t_" << t.name << ", pre, " << n << "u) != 0) {\n"
      << indent << "    s->failed = fail(s, " << name_ << "_ERR_MEMORY, \""
      << format_text(at.empty() ? "" : at + ": ")
      << "out of memory keeping the undo record of table '" << t.name << "'\");\n"
      << indent << "    " << stop << "\n"
      << indent << "  }\n";
    c << indent << "}\n";
    return c.str();
  }

  ResetContext reset_context(const std::string& at, const std::string& indent,
                             const std::string& stop) const {
    return {[this](const std::string& n) { return index_c(n); }, at, name_, stop, indent};
  }

  // auto_reset of a growable table: every matrix within the capacities whose key starts with
  // the leading single indices is reset; without any, the sizes become 0.
  std::string auto_reset_growable(const AutoDimDecl& m, const AccessText& a, const std::string& at,
                                  const std::string& indent, const std::string& stop) const {
    const std::string NT = std::to_string(m.table_indices.size()), A = "s->a_" + m.name;
    std::ostringstream c;
    c << indent << "{ /* cache.reset " << a.name << " */\n"
      << indent << "  int64_t pre[" << NT << "], key[" << NT << "];\n"
      << indent << "  (void)pre;\n";
    size_t n = 0;
    for (;
         n < m.table_indices.size() && n < a.slots.size() && !a.slots[n].range && a.slots[n].index;
         ++n) {
      c << reset_lead_index(*a.slots[n].index, n, a.name, m.table_indices[n], at, indent, stop);
    }
    c << indent << "  for (size_t e = 0; e < " << auto_count_c(m, "s") << "; ++e) {\n"
      << indent << "    int under = 1;\n"
      << indent << "    oi_ad_key((int64_t)e, s->ac_" << m.name << ", " << NT << "u, key);\n"
      << (n ? indent + "    for (uint32_t k = 0; k < " + std::to_string(n) +
                  "u; ++k) under = under && key[k] == pre[k];\n"
            : std::string())
      << indent << "    if (under && oi_ad_reset(&" << A << "[e]) != 0) {\n"
      << indent << "      s->failed = fail(s, " << name_
      << "_ERR_MEMORY, \"out of memory keeping the undo record of auto_dim '" << a.name << "'\");\n"
      << indent << "      " << stop << "\n"
      << indent << "    }\n"
      << indent << "  }\n";
    if (n == 0)
      c << indent << "  memset(s->as_" << m.name << ", 0, sizeof s->as_" << m.name << ");\n";
    c << indent << "}\n";
    return c.str();
  }

  // cache.reset of @auto_dim matrices, as the simulator's reset_table: the leading single
  // @table indices choose the matrices reset (all of them when there are none; none when one
  // is past its bound; a negative one is an error); auto indices and slices choose nothing more.
  std::string auto_reset(const std::string& text, const std::string& at, const std::string& indent,
                         bool entry) {
    const AccessText a = parse_access(text);
    const AutoDimDecl& m = autodims_.at(a.name);
    const std::string stop = entry ? "goto done;" : "return;", A = "s->a_" + a.name;
    std::ostringstream c;
    if (resets_a_window(a, m.table_indices.size()))
      return auto_reset_window(m, a, auto_count_c(m, "s"), reset_context(at, indent, stop));
    if (m.growable()) return auto_reset_growable(m, a, at, indent, stop);
    c << indent << "{ /* cache.reset " << text << " */\n"
      << indent << "  size_t lo = 0, hi = " << m.entries() << "u;\n"
      << indent << "  int none = 0;\n"
      << indent << "  (void)none;\n";
    uint64_t stride = m.entries();
    for (size_t n = 0;
         n < m.table_indices.size() && n < a.slots.size() && !a.slots[n].range && a.slots[n].index;
         ++n) {
      const IndexText& i = *a.slots[n].index;
      std::string e = i.literal ? "(int64_t)" + std::to_string(i.value) + "ll" : index_c(i.name);
      if (!i.literal && i.value != 0)
        e = "(" + e + " + (int64_t)" + std::to_string(i.value) + "ll)";
      stride /= static_cast<uint64_t>(m.table_bounds[n]);
      c << indent << "  {\n"
        << indent << "    const int64_t k = " << e << ";\n"
        << indent << "    if (k < 0) {\n"
        << indent << "      s->failed = fail(s, " << name_ << "_ERR_RUN, \""
        << format_text((at.empty() ? "" : at + ": ") + "table '" + a.name + "': index " +
                       m.table_indices[n] + " = ")
        << "%lld is negative\", (long long)k);\n"
        << indent << "      " << stop << "\n"
        << indent << "    }\n"
        << indent << "    if (k >= " << m.table_bounds[n] << "ll) none = 1;\n"
        << indent << "    else lo += (size_t)k * " << stride << "u;\n"
        << indent << "  }\n"
        << indent << "  hi = lo + " << stride << "u;\n";
    }
    c << indent << "  if (none) hi = lo;\n"
      << indent << "  for (size_t e = lo; e < hi; ++e)\n"
      << indent << "    if (oi_ad_reset(&" << A << "[e]) != 0) {\n"
      << indent << "      s->failed = fail(s, " << name_
      << "_ERR_MEMORY, \"out of memory keeping the undo record of auto_dim '" << a.name << "'\");\n"
      << indent << "      " << stop << "\n"
      << indent << "    }\n"
      << indent << "}\n";
    return c.str();
  }

  bool is_prefix_entry(const std::string& text) const {
    auto it = index_.find(parse_access(text).name);
    return text.find('[') != std::string::npos && it != index_.end() && values_[it->second].table;
  }

  // `transfer W[...] >> v`: an entry of a constant prefix table copied into a whole variable,
  // chosen by the indices at run time (computed_entry); an entry the model lacks stops the step
  // with the simulator's message at the source's position, as an op reading it does.
  std::string prefix_entry_copy(const json::object& st, const std::string& indent, bool entry,
                                const Value* into = nullptr) {
    const std::string text = str(st.at("from"));
    const AccessText a = parse_access(text);
    const Value& table = value(a.name);
    const Value& to = into ? *into : whole(st, "to");
    if (a.slots.size() != std::max<size_t>(table.indices.size(), 1))
      invalid_plan("table entry '" + text + "' does not give one index per table index");
    for (const auto& slot : a.slots)
      if (slot.range || !slot.index) invalid_plan("a slice '" + text + "' in a transfer");
    if (to.dtype != table.dtype || to.numel() != table.numel())
      invalid_plan("transfer of '" + text + "' into '" + to.name + "' of another dtype or size");
    const std::string param = "oi_t" + std::to_string(computed_.size());
    computed_[param] = {table.name, a};
    const std::string line = st.contains("line") ? json::serialize(st.at("line")) : "?";
    // The message helper finds the source's position among "inputs_at", as for an op input.
    json::object op{{"inputs", json::array{json::value(text)}}};
    if (st.contains("from_at")) op["inputs_at"] = json::array{st.at("from_at")};
    const json::object k{{"ops", json::array{op}}};
    fallible_.insert(-3);
    std::ostringstream c;
    c << indent << "{ /* transfer " << text << " >> " << to.name << " */\n"
      << indent << "  const int64_t e = " << computed_entry(param) << ";\n"
      << indent << "  if (e < 0 || e >= " << table.entries << " || s->avail_" << table.name
      << "[e] != 1) {\n"
      << indent << "    {\n"
      << missing_entry_c(k, text, table, "e", line) << indent << "    }\n"
      << indent << "    " << (entry ? "goto done;" : "return;") << "\n"
      << indent << "  }\n"
      << indent << "  memcpy(s->v_" << to.name << ", (const unsigned char*)s->v_" << table.name
      << " + (size_t)e * " << to.bytes << "u, " << to.bytes << "u);\n"
      << indent << "}\n";
    return c.str();
  }

  // Packed entries (LSB first, oinf.md) are stored each in whole bytes (v.bytes); those of a
  // part byte stack at bit offsets (oi_table's entry_bits), the others as bytes: their bits.
  static uint64_t part_byte_bits(const Value& v) {
    const uint64_t bits = v.numel() * packed_bits(v.dtype);
    return bits % 8 ? bits : 0;
  }
  // The freestanding fetch's data of table v: its cells, which are the stacked entries (every
  // index @fixed), unless its entries stack at bit offsets: then stacked into s->m_p_NAME.
  static std::string table_data_c(const Value& v) {
    if (!part_byte_bits(v)) return "s->t_" + v.name + ".data";
    return "oi_tab_stack((oi_table*)&s->t_" + v.name + ", (unsigned char*)s->m_p_" + v.name + ")";
  }
  static std::string entry_bits_c(const Value& v) {
    if (!part_byte_bits(v)) return "";
    return "    s->t_" + v.name + ".entry_bits = " + std::to_string(part_byte_bits(v)) + "u;\n";
  }

  // tinit_NAME: one entry of a persistent table's @init, as the table's bytes (packed
  // integers packed LSB first, oinf.md; one spare element after the others).
  static std::string table_init_c(const Value& v) {
    std::ostringstream c;
    if (const unsigned bits = packed_bits(v.dtype)) {
      (void)init_literal(v);  // refuses an @init the validator would
      const int64_t x = v.init->is_bool() ? (v.init->as_bool() ? 1 : 0) : v.init->as_int64();
      const uint64_t field = static_cast<uint64_t>(x) & ((1u << bits) - 1u);
      std::vector<unsigned> bytes(v.bytes + 1, 0);
      for (uint64_t i = 0; i < v.numel(); ++i)
        bytes[i * bits / 8] |= static_cast<unsigned>(field << (i * bits % 8));
      c << "static const unsigned char tinit_" << v.name << "[" << bytes.size() << "] = {";
      for (size_t i = 0; i < bytes.size(); ++i) c << (i ? ", " : "") << bytes[i] << "u";
      c << "};\n";
      return c.str();
    }
    c << "static const " << c_type(v.dtype) << " tinit_" << v.name << "[" << v.numel() + 1
      << "] = {";
    for (uint64_t i = 0; i < v.numel(); ++i) c << init_literal(v) << ", ";
    c << "0};\n";
    return c.str();
  }

  // dsl.md's start-of-life value: @init, else zeros.
  static std::string fill_code(const Value& v, const std::string& ptr) {
    std::ostringstream f;
    if (v.init && packed_bits(v.dtype))
      f << "memset(" << ptr << ", 0, " << v.bytes << ");\n  for (size_t i = 0; i < " << v.numel()
        << "u; ++i) " << store(v.dtype, "(uint8_t*)" + ptr, "i", init_literal(v));
    else if (v.init)
      f << "for (size_t i = 0; i < " << v.numel() << "u; ++i) ((" << c_type(v.dtype) << "*)" << ptr
        << ")[i] = " << init_literal(v) << ";";
    else
      f << "memset(" << ptr << ", 0, " << v.bytes << ");";
    return f.str();
  }

  // A whole variable named in a copy step: every access with indices (a table's, a matrix's,
  // a prefix table's entry) has its own path in emit_step.
  const Value& whole(const json::object& st, const char* key) const {
    const std::string text = str(st.at(key));
    if (text.find('[') != std::string::npos)
      invalid_plan("'" + text + "' in a " + str(st.at("kind")) + " step (line " +
                   json::serialize(st.at("line")) + "): indices on a variable that is not a table");
    return value(text);
  }

  // A loop bound (dsl.md): an integer literal, else by index precedence an outer loop's index,
  // an integer scalar variable (constant or persistent) or a size variable.
  std::string bound(const json::value& b, const json::object& st) const {
    const std::string text = str(b);
    if (!text.empty() && text.find_first_not_of("-0123456789") == std::string::npos)
      return "(int64_t)" + text + "ll";
    (void)st;
    return index_c(text);
  }

  // The values a block's steps write (loops included).
  std::set<std::string> block_writes(const json::array& steps) const {
    std::set<std::string> out;
    for (const auto& jst : steps) {
      const auto& st = jst.as_object();
      const std::string kind = str(st.at("kind"));
      if (kind == "kernel")
        for (const auto& w :
             root_.at("kernels").as_array().at(st.at("kernel").as_int64()).at("writes").as_array())
          out.insert(str(w));
      if (kind == "transfer" || kind == "cache.read" || kind == "cache.write")
        out.insert(str(st.at("to")));
      if (kind == "cache.increment" || kind == "cache.decrement") out.insert(str(st.at("var")));
      if (kind == "cache.reset") out.insert(str(st.at("target")));
      if (kind == "loop") {
        auto inner = block_writes(st.at("body").as_array());
        out.insert(inner.begin(), inner.end());
      }
    }
    return out;
  }

  // The C kernel library's interface and the SDK's slice and window arithmetic (run-time shape
  // rules, runtime_window_rules.cpp), where kernels call them (after NAME.h), and its ops'
  // files, compiled as part of NAME.c (last, so their own macros stay out of the kernels).
  std::string library_include() const {
    return library_ops_.empty() ? ""
                                : "#include \"oi_kernels/oi_kernels.h\"\n"
                                  "#include \"oi_kernels/openinfer/geometry.h\"\n";
  }
  std::string library_unit() const {
    return library_ops_.empty() ? ""
                                : "\n/* The C kernel library's ops (docs/c-kernels.md): they need "
                                  "C11's ISO mode (-std=c11)\n * or -ffp-contract=off. */\n"
                                  "#include \"oi_kernels/oi_kernels.c\"\n";
  }

  // After a kernel that may fail: the step ends there (its dynamic inputs are used up).
  static std::string stop_if_failed(bool entry) {
    return entry ? "if (s->failed) goto done;\n" : "if (s->failed) return;\n";
  }

  std::set<int64_t> fallible_;              // kernels that may set s->failed
  const KernelLibrary* library_ = nullptr;  // the C kernel library, for what the writers refuse
  std::string library_missing_;             // why there is none
  std::set<std::string> library_ops_;       // the library's ops the kernels call
  std::vector<std::pair<std::string, uint64_t>> scratch_;  // per-kernel accumulators
  std::map<std::string, std::set<std::string>> consumer_writes_;
  std::map<std::string, std::set<std::string>> consumer_awaits_;  // consumer -> awaited values
  std::map<std::string, std::string> block_roles_;                // block name -> role
  std::set<std::string> yielded_;
  std::set<std::string> yield_copied_;  // tables copied at a yield (freestanding: state arrays)
  const WeightLookup* embed_ = nullptr;
  mutable std::set<std::string> embedded_;  // values whose model bytes are arrays of model.c

  // The arrays of --embed-weights, checked against the declarations like the loader does.
  std::string embedded_arrays() const {
    std::ostringstream c;
    for (const Value& v : values_) {
      if (v.storage != "constant" && v.storage != "persistent" && v.storage != "step") continue;
      if (v.ptable) continue;  // starts empty: the model does not fill it
      if (v.table) {
        c << embedded_table(v);
        continue;
      }
      auto t = (*embed_)(v.link);
      if (!t) continue;  // absent, or a declaration without data: @init or zeros
      if (t->dtype != dtype_tag(v.dtype) || t->dims != v.shape || t->bytes.size() != v.bytes)
        throw std::runtime_error("'" + v.name + "': model tensor '" + v.link +
                                 "' has another dtype or shape");
      embedded_.insert(v.name);
      c << "static const unsigned char emb_" << v.name << "[" << v.bytes + 1 << "] = {";
      for (size_t i = 0; i < t->bytes.size(); ++i)
        c << (i % 16 ? " " : "\n  ")
          << static_cast<unsigned>(static_cast<unsigned char>(t->bytes[i])) << ",";
      c << "\n  0};\n";
    }
    return c.str();
  }
  // A constant prefix table's entries read from the model one by one, each checked against the
  // declaration; one missing, or of another dtype or shape, is marked unavailable (avail_W):
  // using it stops the step, as the simulator, which reads entries when used, fails there.
  std::string table_loader(const Value& v) const {
    const std::string& N = name_;
    const uint64_t entry_bytes = value_bytes(v.dtype, v.numel());
    std::ostringstream c;
    for (uint64_t e = 0; e < v.entries; ++e)
      c << "  {\n    const unsigned char* from = NULL;\n    int found = 0;\n    rc = link(s, \""
        << v.name << "\", \"" << entry_name(v, e) << "\", " << dtype_tag(v.dtype) << "u, "
        << v.shape.size() << "u, dims_" << v.name << ", " << entry_bytes
        << "u, &from, &found);\n    if (rc == " << N << "_ERR_MODEL) {\n      rc = " << N
        << "_OK;  /* another dtype or shape: an error only where it is used */\n"
        << "      found = 2;\n    }\n    if (rc != " << N
        << "_OK) {\n      snprintf(err, err_size, \"%s: %s\", model_path, s->error);\n      " << N
        << "_destroy(s);\n      return rc;\n    }\n    s->avail_" << v.name << "[" << e
        << "] = (unsigned char)found;\n    if (from) memcpy((unsigned char*)s->v_" << v.name
        << " + " << e * entry_bytes << "u, from, " << entry_bytes << "u);\n  }\n";
    return c.str();
  }

  // The model entry holding entry e of a constant prefix table (row-major over the extents).
  std::string entry_name(const Value& v, uint64_t e) const {
    if (v.indices.size() <= 1) return v.entry_link(e);
    const auto& ext = extents_.at(v.name);
    std::vector<uint64_t> at(ext.size());
    for (size_t k = ext.size(); k-- > 0;) {
      at[k] = e % ext[k];
      e /= ext[k];
    }
    if (v.pattern.empty()) {
      std::string out = v.link;
      for (uint64_t a : at) out += "." + std::to_string(a);
      return out;
    }
    std::string out = v.pattern;
    for (size_t k = 0; k < at.size(); ++k) {
      const std::string key = "{" + v.indices[k] + "}", n = std::to_string(at[k]);
      for (size_t p = out.find(key); p != std::string::npos; p = out.find(key, p + n.size()))
        out.replace(p, key.size(), n);
    }
    return out;
  }

  // --embed-weights: a table's entries one after another (zeros for an entry the model lacks
  // or holds with another dtype or shape), and `emb_avail_NAME` written to `c`: 1 per usable
  // entry.
  std::string embedded_entries(const Value& v, std::ostringstream& c) const {
    std::string bytes, avail;
    const uint64_t entry_bytes = value_bytes(v.dtype, v.numel());
    for (uint64_t e = 0; e < v.entries; ++e) {
      auto t = (*embed_)(entry_name(v, e));
      const bool usable = t && t->dtype == dtype_tag(v.dtype) && t->dims == v.shape &&
                          t->bytes.size() == entry_bytes;
      bytes += usable ? t->bytes : std::string(entry_bytes, '\0');
      // 1 usable, 0 absent, 2 held with another dtype or shape (as the loader marks them)
      avail += std::string(avail.empty() ? "" : ", ") + (usable ? "1" : t ? "2" : "0");
    }
    if (bytes.size() != v.bytes)
      invalid_plan("'" + v.name + "': the entries do not fill the table");
    embedded_.insert(v.name);
    c << "static const unsigned char emb_avail_" << v.name << "[" << v.entries + 1 << "] = {"
      << avail << (avail.empty() ? "0" : ", 0") << "};\n";
    return bytes;
  }

  // --embed-weights: a table's entries one after another in one array.
  std::string embedded_table(const Value& v) const {
    std::ostringstream c;
    const std::string bytes = embedded_entries(v, c);
    c << "static const unsigned char emb_" << v.name << "[" << v.bytes + 1 << "] = {";
    for (size_t i = 0; i < bytes.size(); ++i)
      c << (i % 16 ? " " : "\n  ") << static_cast<unsigned>(static_cast<unsigned char>(bytes[i]))
        << ",";
    c << "\n  0};\n";
    return c.str();
  }

  json::value root_;
  std::string name_;
  std::vector<Value> values_;
  std::map<std::string, size_t> index_;
  std::vector<std::string> outputs_;
  uint64_t arena_bytes_ = 0;

  void read_values() {
    for (const auto& jv : root_.at("values").as_array()) {
      const auto& o = jv.as_object();
      Value v;
      v.name = str(o.at("name"));
      v.memory = str(o.at("memory"));
      v.storage = str(o.at("storage"));
      v.dtype = str(o.at("dtype"));
      for (const auto& d : o.at("shape").as_array()) v.shape.push_back(d.to_number<uint64_t>());
      v.bytes = o.at("bytes").to_number<uint64_t>();
      // @auto_dim matrices (auto_dim.hpp), persistent tables (tables.hpp), and constant and
      // volatile prefix tables; the validator allows no other table.
      if (o.contains("auto_dim") && !o.at("auto_dim").as_array().empty()) {
        read_auto_dim(o, v);
      } else if (o.contains("indices") && v.memory == "persistent") {
        v.ptable = true;
        for (const auto& i : o.at("indices").as_array()) v.indices.push_back(str(i));
        for (const auto& b : o.at("bound").as_array())
          v.bounds.push_back(b.is_null() ? -1 : b.to_number<int64_t>());
        if (v.bounds.size() != v.indices.size())
          invalid_plan("table '" + v.name + "': " + std::to_string(v.bounds.size()) +
                       " bounds for " + std::to_string(v.indices.size()) + " indices");
        for (size_t k = 0; freestanding_ && k < v.bounds.size(); ++k)
          if (v.bounds[k] < 0)
            refuse_device_limit(
                "c emitter",
                "table '" + v.name + "' grows along index '" + v.indices[k] + "' (no @fixed bound)",
                "growth needs memory allocation at run time (the freestanding "
                "profile allocates nothing, so every index of a table needs "
                "@fixed)",
                device_name_, "cpu.profile freestanding");
        v.bytes = value_bytes(v.dtype, v.numel());
      } else if (o.contains("indices") && (v.storage == "constant" || v.storage == "step") &&
                 o.at("entries").is_number()) {
        // A volatile prefix table that no op writes holds the model's entries at every step:
        // as a constant one (an op writing an entry is refused, prepare_tabviews).
        v.storage = "constant";
        v.table = true;
        for (const auto& i : o.at("indices").as_array()) v.indices.push_back(str(i));
        v.index = v.indices.at(0);
        v.entries = o.at("entries").to_number<uint64_t>();
        if (o.contains("pattern")) v.pattern = str(o.at("pattern"));
        // Several indices: a dense array over the extents (entries the model lacks are
        // unavailable, as in the simulator, which fails where one is used).
        if (v.indices.size() > 1) {
          std::vector<uint64_t> ext;
          if (o.contains("extents"))
            for (const auto& e : o.at("extents").as_array()) ext.push_back(e.to_number<uint64_t>());
          if (ext.size() != v.indices.size())
            invalid_plan("prefix table '" + v.name + "' has no extents in the plan");
          v.entries = 1;
          for (uint64_t e : ext) v.entries *= e;
          v.bytes = v.entries * value_bytes(v.dtype, v.numel());
          extents_[v.name] = ext;
        }
      } else if (o.contains("indices") || v.storage == "runtime") {
        // The validator allows tables only as prefix tables (constant or volatile memory, the
        // model's entries), persistent tables and @auto_dim matrices: all handled above.
        invalid_plan("table '" + v.name + "' (" + v.memory + ", " + v.storage +
                     "): a table is a constant or volatile prefix table, a persistent table or "
                     "an @auto_dim matrix");
      }
      if (v.storage != "internal" && !c_type(v.dtype))
        invalid_plan("'" + v.name + "' has dtype " + v.dtype + ", which is not a catalog dtype");
      if (o.contains("link")) v.link = str(o.at("link"));
      if (o.contains("init")) v.init = &o.at("init");
      if (v.storage == "arena") {
        v.offset = o.at("offset").to_number<uint64_t>();
        v.live_first = o.at("live").as_array().at(0).to_number<int64_t>();
        v.live_last = o.at("live").as_array().at(1).to_number<int64_t>();
        v.zero_fill = o.at("zero_fill").as_bool();
      }
      index_[v.name] = values_.size();
      values_.push_back(std::move(v));
    }
    arena_bytes_ = root_.at("memory").at("arena_bytes").to_number<uint64_t>();
  }

  // ---- @auto_dim matrices (auto_dim.hpp): s->a_NAME; the value itself stays "internal" ----
  std::map<std::string, AutoDimDecl> autodims_;

  void read_auto_dim(const json::object& o, Value& v) {
    AutoDimDecl m;
    m.name = v.name;
    m.dtype = v.dtype;
    for (const auto& i : o.at("auto_dim").as_array()) m.indices.push_back(str(i));
    std::vector<std::string> indices;
    for (const auto& i : o.at("indices").as_array()) indices.push_back(str(i));
    // @table indices come first (dsl.md): a table of matrices, one per key of their bounds.
    const size_t nt = indices.size() - std::min(indices.size(), m.indices.size());
    if (!std::equal(m.indices.begin(), m.indices.end(), indices.begin() + nt))
      invalid_plan("@auto_dim table '" + v.name + "': its auto indices are not the last ones");
    const auto& bound = o.at("bound").as_array();
    for (size_t k = 0; k < indices.size(); ++k) {
      const int64_t b = bound.at(k).is_null() ? -1 : bound.at(k).to_number<int64_t>();
      if (k >= nt) {
        m.bounds.push_back(b);
        continue;
      }
      if (b == 0) invalid_plan("@auto_dim table '" + v.name + "': a @fixed bound of 0");
      m.table_indices.push_back(indices[k]);
      m.table_bounds.push_back(b);
    }
    if (freestanding_)
      refuse_device_limit("c emitter", "@auto_dim matrix '" + v.name + "'",
                          "growth needs memory allocation at run time (the freestanding profile "
                          "allocates nothing)",
                          device_name_, "cpu.profile freestanding");
    if (v.shape.size() < m.indices.size())
      invalid_plan("@auto_dim matrix '" + v.name + "' of rank " + std::to_string(v.shape.size()) +
                   " has " + std::to_string(m.indices.size()) + " auto indices");
    if (!c_type(v.dtype))
      invalid_plan("@auto_dim matrix '" + v.name + "' of " + v.dtype + ", not a value dtype");
    m.base = v.shape;
    // A packed dtype: a cell a byte, holding the element's bits (packed when read into a value,
    // fetched, and counted by the budget as packed).
    m.bits = packed_bits(v.dtype);
    m.esize = m.bits ? 1 : dtype_size(v.dtype);
    v.storage = "internal";  // reached only through the cache operations below
    autodims_[v.name] = m;
  }

  // C of the count of matrices s->a_NAME holds (`st`: the state's name).
  static std::string auto_count_c(const AutoDimDecl& m, const std::string& st) {
    if (!m.growable()) return std::to_string(m.entries()) + "u";
    return "(" + st + "->a_" + m.name + " ? oi_adt_count(" + st + "->ac_" + m.name + ", " +
           std::to_string(m.table_indices.size()) + "u) : 0u)";
  }

  static uint64_t value_numel(const Value& t) {
    uint64_t n = 1;
    for (uint64_t d : t.shape) n *= d;
    return n;
  }

  // The store of an elementwise kernel's result `var` (its own shape) into the table slice
  // `text` of run-time length: as the simulator's kernel writes the slice, the result is
  // broadcast over the slice's shape (the stacked lengths, then an entry's dims); a result that
  // does not broadcast to it is the simulator's store error. The stacked value goes through
  // s->v_VAR_span (every sliced index @fixed: its largest span) or an allocated buffer.
  std::string broadcast_store(const std::string& text, const Value& var, const std::string& at,
                              const std::string& indent, bool entry) {
    const AccessText a = parse_access(text);
    const Value& t = value(a.name);
    const std::string stop = entry ? "goto done;" : "return;";
    const std::string where = format_text(at.empty() ? "" : at + ": ");
    std::vector<std::string> dims;  // the slice's shape, as C
    std::string shown, args;
    for (size_t j = 0; j < t.indices.size(); ++j)
      if (j >= a.slots.size() || a.slots[j].range) {
        dims.push_back("(size_t)ln[" + std::to_string(j) + "]");
        shown += std::string(shown.empty() ? "" : ", ") + "%lld";
        args += ", (long long)ln[" + std::to_string(j) + "]";
      }
    for (uint64_t d : t.shape) {
      dims.push_back(std::to_string(d) + "u");
      shown += (shown.empty() ? "" : ", ") + std::to_string(d);
    }
    const std::vector<uint64_t>& from = var.shape;
    std::string ok = from.size() <= dims.size() ? "1" : "0";
    for (size_t q = 0; q < from.size() && ok != "0"; ++q)
      if (from[from.size() - 1 - q] != 1)
        ok += " && " + dims[dims.size() - 1 - q] +
              " == " + std::to_string(from[from.size() - 1 - q]) + "u";
    std::string from_text;
    for (uint64_t d : from) from_text += (from_text.empty() ? "" : ", ") + std::to_string(d);
    const bool bounded = std::any_of(tabview_fields_.begin(), tabview_fields_.end(),
                                     [&](const auto& f) { return f.first == var.name + "_span"; });
    const std::string I = indent + "  ", T = c_type(var.dtype);
    std::ostringstream c;
    c << indent << "{ /* store into " << text << ", broadcast over its entries */\n"
      << span_code(
             table_decl(t), a, [&](const std::string& n) { return index_c(n); }, at, name_, stop, I,
             nullptr);
    c << I << "size_t total = 1;\n";
    for (const auto& d : dims) c << I << "total *= " << d << ";\n";
    c << I << "if (!(" << ok << ")) {\n"
      << I << "  s->failed = fail(s, " << name_ << "_ERR_RUN, \"" << where
      << "cannot store a value of shape [" << from_text << "] into '" << format_text(t.name)
      << "' where the access has shape [" << shown << "]\"" << args << ");\n"
      << I << "  " << stop << "\n"
      << I << "}\n";
    if (bounded) {
      c << I << T << "* span = (" << T << "*)s->v_" << var.name << "_span;\n";
    } else {
      c << I << T << "* span = (" << T << "*)malloc(" << value_bytes(var.dtype, 1)
        << "u * total + 1u);\n"
        << I << "if (!span) {\n"
        << I << "  s->failed = fail(s, " << name_ << "_ERR_MEMORY, \"" << where
        << "out of memory growing table '" << format_text(t.name) << "'\");\n"
        << I << "  " << stop << "\n"
        << I << "}\n";
    }
    const std::string p = "((" + std::string(T) + "*)s->v_" + var.name + ")";
    if (packed_bits(var.dtype))
      c << I << "memset(span, 0, (total * " << packed_bits(var.dtype) << "u + 7u) / 8u);\n";
    c << I << "for (size_t i = 0; i < total; ++i) {\n"
      << I << "  size_t rest = i, j = 0, stride = 1;\n"
      << I << "  (void)stride;\n";
    for (size_t q = 0; q < from.size(); ++q) {
      const std::string& d = dims[dims.size() - 1 - q];
      const uint64_t f = from[from.size() - 1 - q];
      if (f != 1) c << I << "  j += rest % " << d << " * stride;\n";
      c << I << "  rest /= " << d << ";\n" << I << "  stride *= " << f << "u;\n";
    }
    c << I << "  " << store(var.dtype, "span", "i", load(var.dtype, p, "j")) << "\n" << I << "}\n";
    c << I << "const int rc = oi_tab_write(&s->t_" << t.name << ", st, ln, span);\n"
      << (bounded ? "" : I + "free(span);\n");
    if (!freestanding_)
      c << I << "if (rc == -2) {\n"
        << I << "  s->failed = budget_fail(s, \"" << where << "\", \"" << format_text(t.name)
        << "\");\n"
        << I << "  " << stop << "\n"
        << I << "}\n";
    c << I << "if (rc != 0) {\n"
      << I << "  s->failed = fail(s, " << name_ << "_ERR_MEMORY, \"" << where
      << "out of memory growing table '" << format_text(t.name) << "'\");\n"
      << I << "  " << stop << "\n"
      << I << "}\n";
    c << indent << "}\n";
    return c.str();
  }

  // An elementwise kernel writing a table slice of more entries than its own shape (`op add(x,
  // x) >> K[0..2]` of K(t): f32[4]): its result, in the buffer's first elements, is broadcast
  // over the slice's shape as the simulator's kernel broadcasts its inputs to the output's
  // shape; from the last element down, so each reads an element not yet overwritten.
  std::string broadcast_into_view(const json::object& k, const Value& view,
                                  const std::string& indent) const {
    if (str(k.at("kind")) != "elementwise") return "";
    std::vector<uint64_t> from;
    for (const auto& d : k.at("shape").as_array()) from.push_back(d.to_number<uint64_t>());
    return spread_code(from, view, indent);
  }

  // Whether shape `from` broadcasts to `to` (numpy rules, `to` unchanged).
  static bool broadcasts(const std::vector<uint64_t>& from, const std::vector<uint64_t>& to) {
    bool fits = from.size() <= to.size();
    for (size_t a = 0; fits && a < from.size(); ++a) {
      const uint64_t f = from[from.size() - 1 - a], t = to[to.size() - 1 - a];
      fits = f == t || f == 1;
    }
    return fits;
  }

  // A result of shape `from` in the first elements of buffer `view` spread over the view's
  // shape; from the last element down, so each reads an element not yet overwritten.
  std::string spread_code(const std::vector<uint64_t>& from, const Value& view,
                          const std::string& indent) const {
    const std::vector<uint64_t>& to = view.shape;
    if (from == to) return "";
    uint64_t n_from = 1;
    for (uint64_t d : from) n_from *= d;
    if (!broadcasts(from, to) || n_from == view.numel())
      return "";  // (the same elements in another shape)
    // The element of `from` that element i of `to` reads: right-aligned, 0 on axes of size 1.
    std::ostringstream src;
    src << "0u";
    uint64_t to_stride = 1, from_stride = 1;
    for (size_t a = 0; a < from.size(); ++a) {
      const uint64_t f = from[from.size() - 1 - a], t = to[to.size() - 1 - a];
      if (f != 1) src << " + (i / " << to_stride << "u % " << t << "u) * " << from_stride << "u";
      to_stride *= t;
      from_stride *= f;
    }
    const std::string p = "((" + std::string(c_type(view.dtype)) + "*)s->v_" + view.name + ")";
    std::ostringstream c;
    c << indent << "for (size_t i = " << view.numel() << "u; i-- > 0;) { /* broadcast into "
      << view.name << " */\n"
      << indent << "  const size_t j = " << src.str() << ";\n"
      << indent << "  " << store(view.dtype, p, "i", load(view.dtype, p, "j")) << "\n"
      << indent << "}\n";
    return c.str();
  }

  bool is_auto_access(const std::string& text) const {
    return autodims_.count(parse_access(text).name) > 0;
  }

  // The read (before kernel k) or the store (after it) of an @auto_dim operand `text` through
  // its buffer `view`, as cache.read and cache.write run them; the position is the op's operand
  // (its input's, else its output's).
  std::string matrix_view_access(const json::object& k, const std::string& text, const Value& view,
                                 bool write, const std::string& indent, bool entry) {
    std::string at;
    for (const auto& jop : k.at("ops").as_array()) {
      const auto& op = jop.as_object();
      if (write && str(op.at("output")) == text) at = at_of(op, "output_at");
      if (!write && at.empty()) {
        const auto& ins = op.at("inputs").as_array();
        for (size_t i = 0; i < ins.size(); ++i)
          if (str(ins[i]) == text) {
            at = op.contains("inputs_at") && i < op.at("inputs_at").as_array().size()
                     ? str(op.at("inputs_at").as_array()[i])
                     : at_of(op, "at");
            break;
          }
      }
    }
    if (emit_profile().freestanding && at.find_last_of('/') != std::string::npos)
      at = at.substr(at.find_last_of('/') + 1);
    AutoDimContext ctx{[&](const std::string& n) { return index_c(n); }, name_, at,
                       entry ? "goto done;" : "return;", indent};
    AutoDimRead rd;
    rd.pad = false;
    return packed_access(autodims_.at(parse_access(text).name), parse_access(text), view, write,
                         ctx, rd);
  }

  // auto_dim_access of `var`; a matrix of a packed dtype holds a byte a cell, so `var` (packed)
  // goes through a buffer of a byte an element (s->v_pkN), unpacked before a write and packed
  // after a read; a read's mismatch still names `var`.
  std::string packed_access(const AutoDimDecl& m, const AccessText& a, const Value& var, bool write,
                            const AutoDimContext& ctx, AutoDimRead rd) {
    if (!m.bits) return auto_dim_access(m, a, var.name, var.shape, write, ctx, rd);
    const std::string buf = "pk" + std::to_string(copy_buffers_);
    tabview_fields_.push_back({buf, std::max<uint64_t>(var.numel(), 1)});
    field_kernel_[buf] = -1000 - copy_buffers_++;
    Value b = var;
    b.name = buf;
    b.storage = "tabview";
    tabviews_[buf] = b;
    if (!write && rd.mismatch_pre.empty()) {
      std::string dims;
      for (uint64_t d : var.shape) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
      rd.mismatch_pre = "cannot store " + m.dtype;
      rd.mismatch_post = " into '" + var.name + "' of " + m.dtype + "[" + dims + "]";
    }
    const std::string n = std::to_string(var.numel()) + "u", B = std::to_string(m.bits) + "u";
    std::ostringstream c;
    c << ctx.indent << "{ /* " << var.name << " as a byte an element */\n";
    AutoDimContext inner = ctx;
    inner.indent = ctx.indent + "  ";
    if (write)
      c << inner.indent << "oi_ad_unpack((unsigned char*)s->v_" << buf
        << ", (const unsigned char*)s->v_" << var.name << ", " << n << ", " << B << ");\n";
    c << auto_dim_access(m, a, buf, var.shape, write, inner, rd);
    if (!write)
      c << inner.indent << "oi_ad_pack((unsigned char*)s->v_" << var.name
        << ", (const unsigned char*)s->v_" << buf << ", " << n << ", " << B << ");\n";
    c << ctx.indent << "}\n";
    return c.str();
  }

  // A side of a copy that is stored in a table: a persistent table's entries or slice, an
  // @auto_dim matrix (or its part) or a constant prefix table's entry.
  bool stored_side(const std::string& text) const {
    return is_auto_access(text) || is_table_access(text) || is_prefix_entry(text);
  }

  // The static shape of a persistent table's access (its stacked lead, then the entry's dims),
  // of a prefix table's entry; nullopt for an @auto_dim matrix or a slice of run-time length.
  std::optional<std::vector<uint64_t>> static_access_shape(const std::string& text) const {
    if (is_auto_access(text)) return std::nullopt;
    const AccessText a = parse_access(text);
    const Value& t = value(a.name);
    if (!t.ptable) return t.shape;  // a prefix table's entry
    auto lead =
        static_lead(table_decl(t), a, [&](const std::string& n) { return constant_index(n); });
    if (!lead) return std::nullopt;
    lead->insert(lead->end(), t.shape.begin(), t.shape.end());
    return lead;
  }

  // A copy step whose source is stored in a table or matrix and whose destination is too, or
  // a transfer (or cache.write) out of an @auto_dim matrix into a whole variable. As the
  // simulator runs it: the source read (its checks at the source's position), then stored (the
  // destination's checks at its position). Between two stored sides the value passes through
  // a buffer of the shape of one side whose shape is known before run time.
  std::string stored_copy(const json::object& st, const std::string& indent, bool entry) {
    const std::string from = str(st.at("from")), to = str(st.at("to"));
    const std::string kind = str(st.at("kind"));
    const std::string from_at = at_of(st, "from_at"), to_at = at_of(st, "to_at");
    const std::string stop = entry ? "goto done;" : "return;";
    if (!stored_side(to)) {  // an @auto_dim matrix into a whole variable: no zero padding
      const Value& var = whole(st, "to");
      AutoDimContext ctx{[&](const std::string& n) { return index_c(n); }, name_, from_at, stop,
                         indent};
      AutoDimRead rd;
      rd.pad = false;
      rd.store_at = to_at;
      return packed_access(autodims_.at(parse_access(from).name), parse_access(from), var, false,
                           ctx, rd);
    }
    if (is_prefix_entry(to))
      invalid_plan("a " + kind + " (line " + json::serialize(st.at("line")) + ") into '" + to +
                   "', an entry of a prefix table (read-only: the validator refuses it)");
    auto shape = static_access_shape(from);
    const bool from_known = shape.has_value();
    if (!shape) shape = static_access_shape(to);
    if (!shape || (!from_known && !is_auto_access(from)) ||
        (is_auto_access(from) && is_auto_access(to)))
      return runtime_copy_c(st, indent, entry);  // neither shape known before run time
    const Value& t = value(parse_access(from).name);
    Value buf = t;
    buf.ptable = false;
    buf.table = false;
    buf.indices.clear();
    buf.bounds.clear();
    buf.name = "cp" + std::to_string(copy_buffers_);
    buf.storage = "tabview";
    buf.shape = *shape;
    buf.bytes = value_bytes(buf.dtype, buf.numel());
    tabviews_[buf.name] = buf;
    tabview_fields_.push_back({buf.name, buf.bytes});
    field_kernel_[buf.name] = -1000 - copy_buffers_++;  // a region of its own kind: no kernel's
    std::ostringstream c;
    c << indent << "{ /* " << kind << " " << from << " >> " << to << " */\n";
    const std::string in = indent + "  ";
    if (is_prefix_entry(from)) {
      c << prefix_entry_copy(st, in, entry, &tabviews_.at(buf.name));
    } else if (is_table_access(from)) {
      c << table_access(from, buf.name, false, from_at, in, entry, to_at);
    } else {
      // Read whole into a buffer of the destination's shape: a shape that differs is the
      // simulator's store error at the destination.
      AutoDimContext ctx{[&](const std::string& n) { return index_c(n); }, name_, from_at, stop,
                         in};
      AutoDimRead rd;
      rd.pad = false;
      rd.store_at = to_at;
      if (is_table_access(to)) {
        rd.mismatch_pre = "cannot store a value of shape ";
        std::string dims;
        for (uint64_t d : buf.shape) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
        rd.mismatch_post =
            " into '" + parse_access(to).name + "' where the access has shape [" + dims + "]";
      } else {
        invalid_plan("a " + kind + " (line " + json::serialize(st.at("line")) + ") from '" + from +
                     "' into '" + to + "' reached the copy of a static shape");
      }
      c << packed_access(autodims_.at(parse_access(from).name), parse_access(from),
                         tabviews_.at(buf.name), false, ctx, rd);
    }
    if (is_table_access(to)) {
      c << table_access(to, buf.name, true, to_at, in, entry);
    } else {
      AutoDimContext ctx{[&](const std::string& n) { return index_c(n); }, name_, to_at, stop, in};
      c << packed_access(autodims_.at(parse_access(to).name), parse_access(to),
                         tabviews_.at(buf.name), true, ctx, AutoDimRead());
    }
    c << indent << "}\n";
    return c.str();
  }
  int64_t copy_buffers_ = 0;

  // runtime_copy.hpp: a copy neither of whose sides has a shape known before run time.
  std::string runtime_copy_c(const json::object& st, const std::string& indent, bool entry) {
    RuntimeCopyEnv e{*this,
                     autodims_,
                     [&](const std::string& n) { return index_c(n); },
                     entry ? "goto done;" : "return;",
                     indent,
                     freestanding_,
                     [&](uint64_t bytes) {
                       const std::string buf = "cp" + std::to_string(copy_buffers_);
                       tabview_fields_.push_back({buf, std::max<uint64_t>(bytes, 1)});
                       field_kernel_[buf] = -1000 - copy_buffers_++;
                       return "s->v_" + buf;
                     }};
    return runtime_copy(e, st);
  }

  std::string auto_access(const json::object& st, const char* access_key, const char* var_key,
                          const char* at_key, bool write, const std::string& indent, bool entry) {
    const AccessText a = parse_access(str(st.at(access_key)));
    const Value& var = whole(st, var_key);
    AutoDimContext ctx{[&](const std::string& n) { return index_c(n); }, name_, at_of(st, at_key),
                       entry ? "goto done;" : "return;", indent};
    AutoDimRead rd;  // a read's shape that does not fit is the store's error, at the destination
    if (!write) rd.store_at = at_of(st, "to_at");
    return packed_access(autodims_.at(a.name), a, var, write, ctx, rd);
  }

  mutable std::map<std::string, Value> views_;  // "W[b]" -> its entry as a value
  // computed entries: parameter -> (table, access)
  mutable std::map<std::string, std::pair<std::string, AccessText>> computed_;
  std::map<std::string, std::vector<uint64_t>> extents_;  // multi-index prefix tables
  std::vector<std::string> kernel_views_;                 // the views of the kernel being written
  std::vector<std::string> kernel_params_;                // its loop-index parameters
  std::vector<std::string> loop_stack_;                   // the enclosing loops' indices
  int64_t kernel_id_ = 0;
  int scratch_count_ = 0;           // scratch buffers of the kernel being written
  std::vector<std::string> flags_;  // int fields of the state, 0 after create

  int64_t kernel_id() const override { return kernel_id_; }
  const std::string& prefix() const override { return name_; }
  const json::object* device() const override {
    const json::value* d = root_.as_object().if_contains("device");
    return d && d->is_object() ? &d->as_object() : nullptr;
  }

  std::string scratch(uint64_t bytes) override {
    const int n = scratch_count_++;
    const std::string field =
        "kacc_" + std::to_string(kernel_id_) + (n ? "_" + std::to_string(n) : std::string());
    scratch_.push_back({field, bytes});
    field_kernel_[field] = kernel_id_;
    return field;
  }

  // Functions the kernel being written asked for, written before it.
  std::string functions_;
  void function(const std::string& text) override { functions_ += text; }

  std::string state_flag() override {
    const std::string field =
        "flag_" + std::to_string(kernel_id_) + "_" + std::to_string(flags_.size());
    flags_.push_back(field);
    return field;
  }

 public:
  const Value& operand(const std::string& text) const override {
    if (is_auto_access(text)) {
      auto view = kernel_tabviews_.find(text);
      if (view == kernel_tabviews_.end())
        invalid_plan("'" + text + "' is not an operand of the kernel being written");
      return view->second.value;
    }
    if (is_table_access(text)) {
      auto view = kernel_tabviews_.find(text);
      if (view == kernel_tabviews_.end())
        invalid_plan("'" + text + "' is not an operand of the kernel being written");
      return view->second.value;
    }
    const size_t open = text.find('[');
    if (open == std::string::npos) {
      const Value& v = value(text);
      if (v.table) invalid_plan("prefix table '" + text + "' used whole (it needs its indices)");
      return v;
    }
    auto it = views_.find(text);
    if (it != views_.end()) return it->second;
    const std::string name = text.substr(0, open);
    std::string idx = text.substr(open + 1, text.rfind(']') - open - 1);
    idx.erase(0, idx.find_first_not_of(' '));
    idx.erase(idx.find_last_not_of(' ') + 1);
    const Value& table = value(name);
    const bool literal = !idx.empty() && idx.find_first_not_of("0123456789") == std::string::npos;
    const bool ident = !idx.empty() && !std::isdigit(static_cast<unsigned char>(idx[0])) &&
                       idx.find_first_not_of(
                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                           "0123456789_") == std::string::npos;
    if (!table.table) invalid_plan("'" + text + "' indexes '" + name + "', which is not a table");
    if ((!literal && !ident) || table.indices.size() > 1 ||
        (ident && std::find(loop_stack_.begin(), loop_stack_.end(), idx) == loop_stack_.end()))
      return computed_view(text, table);
    if (literal && std::stoull(idx) >= table.entries)
      invalid_plan("'" + text + "': index " + idx + " is outside the " +
                   std::to_string(table.entries) + " entries of '" + name + "'");
    Value view = table;
    view.table = false;
    view.name = name + "__" + idx;
    view.index = idx;
    view.bytes = value_bytes(table.dtype, table.numel());
    // A literal entry is as constant as the table; one chosen by a loop index changes.
    view.storage = literal ? "constant" : "entry";
    return views_.emplace(text, std::move(view)).first->second;
  }

  // An entry chosen by other indices ("W[n]", "W[l+1]", "Q[a, b]"): the kernel takes its flat
  // entry number as a parameter (i_oi_eN, -1 when an index is outside its extent), which the
  // caller computes from the indices (index_c: loop indices, integer scalars, size variables).
  const Value& computed_view(const std::string& text, const Value& table) const {
    const AccessText a = parse_access(text);
    const size_t n = std::max<size_t>(table.indices.size(), 1);
    if (a.slots.size() != n)
      invalid_plan("table entry '" + text + "' does not give one index per table index");
    for (const auto& slot : a.slots)
      if (slot.range || !slot.index)
        invalid_plan("a slice of constant table '" + text +
                     "' as an op input (slices are only in cache accesses and op outputs)");
    const std::string param = "oi_e" + std::to_string(computed_.size());
    computed_[param] = {table.name, a};
    Value view = table;
    view.table = false;
    view.name = table.name + "__" + param;
    view.index = param;
    view.bytes = value_bytes(table.dtype, table.numel());
    view.storage = "entry";
    return views_.emplace(text, std::move(view)).first->second;
  }

  // The C of a computed entry's flat number at the call site.
  std::string computed_entry(const std::string& param) const {
    const auto& [name, a] = computed_.at(param);
    const Value& t = value(name);
    std::vector<uint64_t> ext =
        t.indices.size() > 1 ? extents_.at(name) : std::vector<uint64_t>{t.entries};
    std::vector<std::string> c;
    for (const auto& slot : a.slots) {
      const IndexText& i = *slot.index;
      std::string e = i.literal ? "(int64_t)" + std::to_string(i.value) + "ll" : index_c(i.name);
      if (!i.literal && i.value != 0)
        e = "(" + e + " + (int64_t)" + std::to_string(i.value) + "ll)";
      c.push_back(e);
    }
    if (c.size() == 1) return c[0];  // the kernel checks it against the entries
    std::string ok, flat;
    for (size_t k = 0; k < c.size(); ++k) {
      ok += std::string(k ? " && " : "") + c[k] + " >= 0 && " + c[k] + " < " +
            std::to_string(ext[k]) + "ll";
      flat = k ? "(" + flat + ") * " + std::to_string(ext[k]) + "ll + " + c[k] : c[k];
    }
    return "((" + ok + ") ? " + flat + " : (int64_t)-1)";
  }

  const Value& value(const std::string& name) const override {
    auto it = index_.find(name);
    if (it != index_.end()) return values_[it->second];
    auto view = tabviews_.find(name);
    if (view != tabviews_.end()) return view->second;
    auto access = kernel_tabviews_.find(name);
    if (access != kernel_tabviews_.end()) return access->second.value;
    for (const auto& [text, entry] : views_)
      if (entry.name == name) return entry;
    invalid_plan("the plan names an unknown value '" + name + "'");
  }

 private:
  // Declares p_NAME for every value a kernel touches; `restrict` only when no two distinct
  // pointers share arena bytes.
  void declare_pointers(const json::object& k, std::ostringstream& c, std::set<std::string>& reads,
                        std::set<std::string>& writes) const {
    // A persistent table or an @auto_dim matrix is reached through the buffers of its accessed
    // entries or parts (tabviews).
    for (const auto& r : k.at("reads").as_array())
      if (!value(str(r)).ptable && !autodims_.count(str(r))) reads.insert(str(r));
    for (const auto& w : k.at("writes").as_array())
      if (!value(str(w)).ptable && !autodims_.count(str(w))) writes.insert(str(w));
    for (const auto& [text, view] : kernel_tabviews_) {
      if (view.read) reads.insert(view.value.name);
      if (view.write) writes.insert(view.value.name);
    }
    std::set<std::string> all = reads;
    all.insert(writes.begin(), writes.end());
    bool alias = false;
    for (const auto& a : all)
      for (const auto& b : all)
        if (a < b && overlap(value(a), value(b))) alias = true;
    const std::string restrict_kw = alias ? "" : " restrict";
    for (const auto& name : all) {
      const Value& v = value(name);
      const bool w = writes.count(name) > 0;
      c << "  " << (w ? "" : "const ") << c_type(v.dtype) << "*" << restrict_kw << " p_" << name
        << " = (" << (w ? "" : "const ") << c_type(v.dtype) << "*)s->v_" << name << ";\n  (void)p_"
        << name << ";\n";
    }
  }

  // The table entries a kernel's ops read ("W[b]", "W[0]"), each a view p_W__b declared by
  // declare_views; returns the kernel's extra parameters (the loop indices they name).
  std::string view_params(const json::object& k) {
    kernel_views_.clear();
    kernel_params_.clear();
    for (const auto& jop : k.at("ops").as_array())
      for (const auto& in : jop.at("inputs").as_array()) {
        const std::string text = str(in);
        if (text.find('[') == std::string::npos || is_table_access(text) || is_auto_access(text))
          continue;
        const Value& view = operand(text);
        if (std::find(kernel_views_.begin(), kernel_views_.end(), text) == kernel_views_.end())
          kernel_views_.push_back(text);
        const std::string idx = view.index;
        if (!idx.empty() && !std::isdigit(static_cast<unsigned char>(idx[0])) &&
            std::find(kernel_params_.begin(), kernel_params_.end(), idx) == kernel_params_.end())
          kernel_params_.push_back(idx);
      }
    for (const auto& jop : k.at("ops").as_array())  // settings naming a loop index
      for (const auto& kv : jop.at("settings").as_object())
        if (const auto* o = kv.value().if_object(); o && o->contains("loop_index")) {
          const std::string idx = str(o->at("loop_index"));
          if (std::find(kernel_params_.begin(), kernel_params_.end(), idx) == kernel_params_.end())
            kernel_params_.push_back(idx);
        }
    std::string out;
    for (const auto& p : kernel_params_) out += ", int64_t i_" + p;
    return out;
  }

  // The simulator's message (core/src/exec/memory.cpp) for entry `at` of prefix table `table`
  // that is negative or that the model lacks, at the op input's position; one the model holds
  // with another dtype or shape (avail 2) keeps a message of our own.
  std::string missing_entry_c(const json::object& k, const std::string& text, const Value& table,
                              const std::string& at, const std::string& line) const {
    std::string where;
    for (const auto& op : k.at("ops").as_array()) {
      const auto& ins = op.at("inputs").as_array();
      for (size_t i = 0; i < ins.size(); ++i)
        if (str(ins[i]) == text && op.as_object().contains("inputs_at"))
          where = str(op.at("inputs_at").at(i));
    }
    const size_t slash = where.find_last_of('/');
    if (emit_profile().freestanding && slash != std::string::npos) where = where.substr(slash + 1);
    if (!where.empty()) where += ": ";
    std::string generic =
        "    s->failed = fail(s, " + name_ + "_ERR_RUN, \"'" + text + "' (line " + line +
        "): entry %lld of '" + table.name + "' is not among its " + std::to_string(table.entries) +
        " entries of the declared dtype and shape in the model\", (long long)" + at + ");\n";
    if (table.indices.size() != 1) return generic;
    // The tensor name: the pattern (or NAME.{i}) with %lld for the index.
    std::string tensor =
        table.pattern.empty() ? table.link + ".{" + table.indices[0] + "}" : table.pattern;
    std::string pattern, piece;  // format text: the pieces escaped, %lld where the index goes
    size_t uses = 0;
    const std::string key = "{" + table.indices[0] + "}";
    for (size_t p = 0; p < tensor.size(); ++p) {
      if (tensor.compare(p, key.size(), key) == 0) {
        pattern += format_text(piece) + "%lld";
        piece.clear();
        ++uses;
        p += key.size() - 1;
      } else {
        piece += tensor[p];
      }
    }
    pattern += format_text(piece);
    std::string args;
    for (size_t u = 0; u < uses; ++u) args += ", (long long)" + at;
    // The freestanding state keeps no path: the weights are those of the plan's model.
    const std::string origin = emit_profile().freestanding
                                   ? "\"" + format_text(model_origin_) + "\""
                                   : std::string("s->origin");
    const std::string w = format_text(where);
    return "    if (" + at + " < 0)\n      s->failed = fail(s, " + name_ + "_ERR_RUN, \"" + w +
           "prefix table '" + table.name + "': index " + table.indices[0] +
           " = %lld is negative\", (long long)" + at + ");\n    else if (" + at +
           " >= " + std::to_string(table.entries) + " || s->avail_" + table.name + "[" + at +
           "] == 0)\n      s->failed = fail(s, " + name_ + "_ERR_RUN, \"" + w +
           "prefix table entry " + table.name + "[%lld] is model tensor '" + pattern +
           "', which model '%s' lacks\", (long long)" + at + args + ", " + origin +
           ");\n    else\n  " + generic;
  }

  // p_W__b = entry b of table W; an index out of the table's entries stops the step.
  void declare_views(const json::object& k, std::ostringstream& c) {
    const std::string line = json::serialize(k.at("ops").at(0).at("line"));
    for (const auto& text : kernel_views_) {
      const Value& view = operand(text);
      const Value& table = value(text.substr(0, text.find('[')));
      const std::string T = c_type(view.dtype);
      const bool literal = std::isdigit(static_cast<unsigned char>(view.index[0]));
      const std::string at = literal ? "(int64_t)" + view.index : "i_" + view.index;
      // An entry the model lacks (or holds with another dtype or shape) fails when used, as in
      // the simulator, which reads entries on use.
      fallible_.insert(kernel_id_);
      c << "  if (" << at << " < 0 || " << at << " >= " << table.entries << " || s->avail_"
        << table.name << "[" << at << "] != 1) {\n"
        << missing_entry_c(k, text, table, at, line) << "    return;\n  }\n";
      c << "  const " << T << "* restrict p_" << view.name << " = p_" << table.name << " + (size_t)"
        << (literal ? view.index + "u" : "i_" + view.index)
        << " * "
        // packed entries: their whole bytes (an entry of a part byte is padded in the model too)
        << (packed_bits(table.dtype) ? value_bytes(table.dtype, table.numel()) : table.numel())
        << "u;\n  (void)p_" << view.name << ";\n";
    }
  }

  static bool overlap(const Value& a, const Value& b) {
    return a.storage == "arena" && b.storage == "arena" && a.offset < b.offset + b.bytes &&
           b.offset < a.offset + a.bytes;
  }

  // A kernel by the emitter's own writers; where one refuses an op, a dtype or a mode
  // (LibraryInstead), the kernel's ops become calls into the C kernel library instead.
  std::string kernel(const json::object& k) {
    kernel_id_ = k.at("id").as_int64();
    const size_t scratch_mark = scratch_.size(), flags_mark = flags_.size();
    const bool was_fallible = fallible_.count(kernel_id_) != 0;
    try {
      return native_kernel(k);
    } catch (const LibraryInstead& refused) {
      // Forget what the refused attempt asked for.
      for (size_t i = scratch_mark; i < scratch_.size(); ++i)
        field_kernel_.erase(scratch_[i].first);
      scratch_.resize(scratch_mark);
      flags_.resize(flags_mark);
      if (!was_fallible) fallible_.erase(kernel_id_);
      return library_kernel(k, refused.what());
    }
  }

  // A kernel whose ops run as calls into the C kernel library (library_calls.hpp); any call
  // may fail, which stops the step.
  std::string library_kernel(const json::object& k, const std::string& refused) {
    if (!library_)
      c_gap("library-missing", refused + " (and the C kernel library, the fallback, is missing: " +
                                   library_missing_ + ")");
    scratch_count_ = 0;
    functions_.clear();
    std::set<std::string> reads, writes;
    std::ostringstream c;
    c << "/* kernel " << kernel_id_ << ": " << k.at("ops").as_array().size()
      << " op(s) through the C kernel library */\nstatic void kernel_" << kernel_id_ << "(" << name_
      << "_state* s" << view_params(k) << ") {\n";
    declare_pointers(k, c, reads, writes);
    declare_views(k, c);
    write_library_calls(*this, k, *library_, library_ops_, c);
    fallible_.insert(kernel_id_);
    c << "}\n\n";
    return functions_ + c.str();
  }

  std::string native_kernel(const json::object& k) {
    scratch_count_ = 0;
    functions_.clear();
    const std::string kind = str(k.at("kind"));
    if (kind == "op") return single_op_kernel(k);
    if (kind != "elementwise" && kind != "matmul" && kind != "reduction")
      throw LibraryInstead("c emitter: " + kind + " kernel (op '" +
                           str(k.at("ops").as_array().at(0).at("op")) +
                           "'): left to the C kernel library");
    std::vector<uint64_t> shape;
    for (const auto& d : k.at("shape").as_array()) shape.push_back(d.to_number<uint64_t>());
    uint64_t n = 1;
    for (uint64_t d : shape) n *= d;
    if (n == 0)  // nothing to loop over: the library's calls take empty tensors
      throw LibraryInstead("c emitter: kernel " + std::to_string(kernel_id_) +
                           " over no elements: left to the C kernel library");
    std::set<std::string> reads, writes;
    std::ostringstream c;
    c << "/* kernel " << kernel_id_ << ": " << k.at("ops").as_array().size() << " fused ops over "
      << n << " elements */\nOI_KERNEL static void kernel_" << kernel_id_ << "(" << name_
      << "_state* s" << view_params(k) << ") {\n";
    declare_pointers(k, c, reads, writes);
    declare_views(k, c);
    // One-element inputs the kernel does not write are read once, before the loop (a load
    // inside it keeps GCC -O2 from vectorizing).
    std::map<std::string, std::string> local;  // value -> the local holding element i
    for (const auto& name : reads) {
      const Value& v = value(name);
      if (v.numel() == 1 && n > 1 && !writes.count(name) && !v.table) {
        c << "  const " << value_type(v.dtype) << " s_" << name << " = "
          << load(v.dtype, "p_" + name, "0") << ";\n  (void)s_" << name << ";\n";
        local[name] = "s_" + name;
      }
    }
    std::string head_out;
    std::string head_value;
    if (kind != "elementwise") {
      const auto& head = k.at("ops").as_array().at(0).as_object();
      const std::string op = str(head.at("op"));
      auto it = op_table().heads.find(op);
      if (it == op_table().heads.end())
        throw LibraryInstead("c emitter: " + op + " (line " + json::serialize(head.at("line")) +
                             "): left to the C kernel library");
      // The head sees table entries ("wq[l]", "K[l, t]") under the names of their views
      // ("wq__l", "tv3_0"), whose pointers this kernel declares, as whole values.
      json::object head_kernel = k;
      auto& head_op = head_kernel.at("ops").as_array().at(0).as_object();
      for (auto& in : head_op.at("inputs").as_array())
        if (str(in).find('[') != std::string::npos || is_table_access(str(in)) ||
            is_auto_access(str(in)))
          in = operand(str(in)).name;
      if (is_table_access(str(head_op.at("output"))) || is_auto_access(str(head_op.at("output"))))
        head_op["output"] = operand(str(head_op.at("output"))).name;
      head_out = it->second(*this, head_kernel, c, head_value);
    }
    c << "  for (size_t i = 0; i < " << n << "u; ++i) {\n";
    int t = 0;
    for (const auto& jop : k.at("ops").as_array()) {
      const auto& op = jop.as_object();
      if (!head_out.empty() && &jop == &k.at("ops").as_array().front()) {
        // The head's result for element i is the accumulator; the rest is its epilogue.
        const std::string tmp = "t" + std::to_string(t++);
        c << "    const " << c_type(value(head_out).dtype) << " " << tmp << " = " << head_value
          << ";\n";
        local[head_out] = tmp;
        if (writes.count(head_out)) c << "    p_" << head_out << "[i] = " << tmp << ";\n";
        continue;
      }
      const std::string op_name = str(op.at("op"));
      const Value& vo = operand(str(op.at("output")));
      const std::string out = vo.name;
      std::vector<std::string> args;
      for (const auto& in : op.at("inputs").as_array()) {
        const std::string name = str(in);
        const Value& vi = operand(name);
        if (vi.dtype != vo.dtype && op_name != "cast" && !op_table().mixed_dtypes.count(op_name))
          throw LibraryInstead("c emitter: op '" + op_name + "' mixes " + vi.dtype + " and " +
                               vo.dtype + ": left to the C kernel library");
        args.push_back(local.count(name)
                           ? local[name]
                           : load(vi.dtype, "p_" + vi.name, index_expr(vi.shape, shape)));
      }
      const std::string from = operand(str(op.at("inputs").as_array().at(0))).dtype;
      const std::string where = op_where(op);
      auto it = op_table().elementwise.find(op_name);
      if (it == op_table().elementwise.end())
        throw LibraryInstead("c emitter: " + where + " on " + vo.dtype +
                             ": left to the C kernel library");
      const std::string tmp = "t" + std::to_string(t++);
      c << "    const " << value_type(vo.dtype) << " " << tmp << " = "
        << it->second({op_name, vo.dtype, from, args, op.at("settings").as_object(), where})
        << ";\n";
      local[out] = tmp;
      if (writes.count(out)) c << "    " << store(vo.dtype, "p_" + out, "i", tmp) << "\n";
    }
    c << "  }\n";
    // Packed outputs: the last byte's unused bits are zero (oinf.md), whatever the arena held.
    for (const auto& w : writes) {
      const Value& v = value(w);
      const unsigned bits = packed_bits(v.dtype);
      if (bits && v.numel() % (8 / bits))
        c << "  p_" << w << "[" << v.numel() / (8 / bits) << "] &= (uint8_t)"
          << ((1u << (v.numel() % (8 / bits) * bits)) - 1u) << "u;\n";
    }
    c << "}\n\n";
    return functions_ + c.str();
  }

  // A kernel of kind `op`: one op that is neither elementwise nor a head (movement, conv,
  // pools, norms), written whole by its family. Its result goes to `o`: the output itself, or
  // a scratch buffer copied back when the output shares bytes with an input.
  std::string single_op_kernel(const json::object& k) {
    const auto& op = k.at("ops").as_array().at(0).as_object();
    const std::string op_name = str(op.at("op"));
    auto it = op_table().ops.find(op_name);
    if (it == op_table().ops.end())
      throw LibraryInstead("c emitter: " + op_where(op) + ": left to the C kernel library");
    const Value& out = whole_operand(*this, op.at("output"), op);
    for (const auto& in : op.at("inputs").as_array())  // empty operands: the library's calls
      if (operand(str(in)).numel() == 0)
        throw LibraryInstead("c emitter: " + op_where(op) +
                             " on an empty tensor: left to the C kernel library");
    if (!c_type(out.dtype) || out.dtype == "bool" ||
        (packed_bits(out.dtype) && op_name != "reshape"))
      throw LibraryInstead("c emitter: " + op_where(op) + " on " + out.dtype +
                           ": left to the C kernel library");
    std::set<std::string> reads, writes;
    std::ostringstream c, body;
    c << "/* kernel " << kernel_id_ << ": " << op_name << " (line "
      << json::serialize(op.at("line")) << ") */\nOI_KERNEL static void kernel_" << kernel_id_
      << "(" << name_ << "_state* s" << view_params(k) << ") {\n";
    declare_pointers(k, c, reads, writes);
    declare_views(k, c);
    bool alias = false;
    for (const auto& r : reads) alias = alias || r == out.name || overlap(value(r), out);
    const std::string T = c_type(out.dtype);
    if (alias)
      c << "  " << T << "* const o = (" << T << "*)s->" << scratch(out.bytes) << ";\n";
    else
      c << "  " << T << "* const o = p_" << out.name << ";\n";
    c << "  (void)o;\n";  // unused where the output is empty
    it->second(*this, op, body);
    c << "  {\n" << body.str() << "  }\n";
    if (alias) c << "  memcpy(p_" << out.name << ", o, " << out.bytes << "u);\n";
    c << "}\n\n";
    return functions_ + c.str();
  }

  std::string header() const {
    std::ostringstream h;
    h << "/* Generated by OpenInfer's C emitter from " << str(root_.at("graph"))
      << ". C11, libc and libm only. */\n#ifndef " << name_ << "_H\n#define " << name_
      << "_H\n\n#include <stddef.h>\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" "
         "{\n#endif\n"
      << "/* The most dims a variable, a file's tensor or a fetched table has (at least 8). */\n"
      << "#define " << name_ << "_MAX_RANK " << max_rank() << "u\n"
      << replace_name(kRuntimeH, name_) << "\n#ifdef __cplusplus\n}\n#endif\n#endif\n";
    return h.str();
  }

  // The most dims of a declared value as fetched or inserted (a persistent table: its indices,
  // then an entry's; a table of matrices likewise), at least 8.
  size_t max_rank() const {
    size_t r = 8;
    for (const Value& v : values_)
      r = std::max(r, v.shape.size() + (v.ptable ? v.indices.size() : 0));
    for (const auto& [mname, m] : autodims_)
      r = std::max(r, m.base.size() + m.table_indices.size());
    return r;
  }
  // The most dims of an @auto_dim matrix (oi_auto's arrays), at least 8.
  size_t max_auto_rank() const {
    size_t r = 8;
    for (const auto& [mname, m] : autodims_)
      r = std::max(r, m.base.size() + m.table_indices.size());       // stacked too
    for (const Value& v : values_) r = std::max(r, v.shape.size());  // runtime_kernel.cpp
    for (const Value& v : values_)  // a table access of run-time length (runtime_kernel.cpp)
      if (v.ptable) r = std::max(r, v.indices.size() + v.shape.size());
    return r;
  }
  // The most indices of a persistent table (oi_table's arrays), at least 8.
  size_t max_table_rank() const {
    size_t r = 8;
    for (const Value& v : values_)
      if (v.ptable) r = std::max(r, v.indices.size());
    return r;
  }

  std::string source(const std::string& kernels, const std::string& step_body) const {
    const std::string& N = name_;
    std::ostringstream c;
    c << "/* Generated by OpenInfer's C emitter from " << str(root_.at("graph"))
      << ". C11, libc and libm only. */\n#include <math.h>\n#include <stdarg.h>\n#include "
         "<stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n#include \""
      << N << ".h\"\n"
      << library_include() << replace_name(kRuntimeC, N) << "\n"
      << "/* GCC's -O2 cost model (very-cheap) leaves these loops scalar; ask for the dynamic\n"
         " * one on the kernels alone. Clang vectorizes them at -O2 as they are. */\n"
         "#if defined(__GNUC__) && !defined(__clang__)\n"
         "#define OI_KERNEL __attribute__((optimize(\"tree-vectorize\", "
         "\"vect-cost-model=dynamic\")))\n"
         "#else\n#define OI_KERNEL\n#endif\n"
         "/* Support functions a plan may leave unused (Clang warns about those of a macro). */\n"
         "#if defined(__GNUC__)\n#define OI_HELPER __attribute__((unused))\n#else\n"
         "#define OI_HELPER\n#endif\n\n";
    c << note_macro_c(step_copies_);
    for (const char* h : op_table().helpers) c << h;
    // The SIMD matmul's support code holds only the micro-kernels the plan's device allows.
    c << matmul_simd_helpers_c(matmul_device(device()));
    const bool tables =
        std::any_of(values_.begin(), values_.end(), [](const Value& v) { return v.ptable; });
    c << tables_hosted_type_c(max_table_rank());  // the state's oi_mem, with or without tables
    if (tables) c << tables_c(false);
    if (!autodims_.empty() || runtime_helpers_) c << auto_dim_c(max_auto_rank());
    c << yield_copy_c(false, tables, !autodims_.empty());
    // Variables: dims and the table fetch and insert use.
    std::vector<const Value*> declared;
    // Returned temporaries too: the return is their last use, so their arena bytes hold the
    // result until the next step; and kept ones (synth --fetchable: step memory).
    for (const Value& v : values_)
      if ((v.memory != "temporary" || v.storage == "step" ||
           std::find(outputs_.begin(), outputs_.end(), v.name) != outputs_.end()) &&
          !autodims_.count(v.name))
        declared.push_back(&v);
    for (const Value* v : declared) {
      if (v->table && embed_) continue;  // embedded tables are checked when generated
      // A persistent table fetched whole: its indices (the bound, 0 where it grows: the
      // current sizes come from NAME_fetch_dims), then an entry's dims.
      if (v->ptable) {
        c << "static const uint64_t dims_" << v->name << "[] = {";
        for (size_t i = 0; i < v->bounds.size(); ++i)
          c << (i ? ", " : "") << (v->bounds[i] < 0 ? 0 : v->bounds[i]) << "u";
        for (uint64_t d : v->shape) c << ", " << d << "u";
        c << "};\n";
        if (v->init) c << table_init_c(*v);
        continue;
      }
      c << "static const uint64_t dims_" << v->name << "[] = {";
      for (size_t i = 0; i < v->shape.size(); ++i) c << (i ? ", " : "") << v->shape[i] << "u";
      c << (v->shape.empty() ? "0" : "") << "};\n";
    }
    // Tables: one entry's dims (the loader checks each entry); not fetchable whole.
    declared.erase(
        std::remove_if(declared.begin(), declared.end(), [](const Value* v) { return v->table; }),
        declared.end());
    // @auto_dim matrices are fetched as they are now: their declared dims, grown by the counts.
    // A table of matrices: its @fixed bounds first (fetched stacked).
    for (const auto& [mname, m] : autodims_) {
      const Value& v = value(mname);
      c << "static const uint64_t dims_" << mname << "[] = {";
      for (size_t i = 0; i < m.table_bounds.size(); ++i)
        c << std::max<int64_t>(m.table_bounds[i], 0) << "u, ";  // 0: grows (NAME_fetch_dims)
      for (size_t i = 0; i < v.shape.size(); ++i) c << (i ? ", " : "") << v.shape[i] << "u";
      c << (v.shape.empty() ? "0" : "") << "};\n";
    }
    c << "static const " << N << "_var_info vars[] = {\n";
    for (const auto& [mname, m] : autodims_) {
      const Value& v = value(mname);
      c << "  {\"" << mname << "\", " << dtype_tag(v.dtype) << "u, "
        << v.shape.size() + m.table_bounds.size() << "u, dims_" << mname << ", "
        << (m.growable() ? 0 : v.bytes * m.entries()) << "u},\n";
    }
    for (const Value* v : declared) {
      if (v->ptable) {
        uint64_t entries = 1;
        for (int64_t b : v->bounds) entries *= b < 0 ? 0 : static_cast<uint64_t>(b);
        c << "  {\"" << v->name << "\", " << dtype_tag(v->dtype) << "u, "
          << v->shape.size() + v->bounds.size() << "u, dims_" << v->name << ", "
          << value_bytes(v->dtype, entries * v->numel()) << "u},\n";
        continue;
      }
      c << "  {\"" << v->name << "\", " << dtype_tag(v->dtype) << "u, " << v->shape.size()
        << "u, dims_" << v->name << ", " << v->bytes << "u},\n";
    }
    c << "  {NULL, 0u, 0u, NULL, 0u}};\n";
    c << "static const char* const outputs[] = {";
    for (const auto& o : outputs_) c << "\"" << o << "\", ";
    c << "NULL};\n\n";
    c << "struct " << N << "_state {\n  " << N
      << "_oinf model;\n  char origin[256]; /* the model's path, as messages name it */\n"
      << "  unsigned char* arena;\n  char error[512];\n  int failed;\n"
      << "  oi_mem mem; /* the table budget and the step's undo record */\n";
    for (const auto& n : undo_vars_) c << "  void* u_" << n << ";\n  int u_has_" << n << ";\n";
    for (const auto& [field, bytes] : tabview_fields_) c << "  void* v_" << field << ";\n";
    for (const auto& [mname, m] : autodims_) {
      if (m.growable())
        c << "  oi_auto* a_" << mname << ";\n  oi_auto ap_" << mname << ";\n  int64_t ac_" << mname
          << "[" << m.table_indices.size() << "], as_" << mname << "[" << m.table_indices.size()
          << "], au_" << mname << "[" << m.table_indices.size() << "];\n";
      else
        c << "  oi_auto a_" << mname << "[" << m.entries() << "];\n";
      c << "  unsigned char* af_" << mname << ";\n";
      if (m.bits) c << "  unsigned char* af_" << mname << "_packed;\n";
    }
    for (const Value& v : values_) {
      if (v.storage == "internal") continue;
      if (v.ptable) {
        // the table, and the buffer a whole-table fetch packs its entries into
        c << "  oi_table t_" << v.name << ";\n  void* f_" << v.name << ";\n  size_t f_" << v.name
          << "_bytes;\n";
        continue;
      }
      c << "  void* v_" << v.name << ";\n";
      if (v.storage == "step") c << "  const unsigned char* from_" << v.name << ";\n";
      if (v.storage == "dynamic") c << "  int have_" << v.name << ";\n";
      if (yielded_.count(v.name))
        c << "  void* snap_" << v.name << ";\n  void* res_" << v.name << ";\n";
    }
    for (const auto& sc : scratch_) c << "  void* " << sc.first << ";\n";
    for (const auto& f : flags_) c << "  int " << f << ";\n";
    for (const Value& v : values_)
      if (v.table) c << "  unsigned char avail_" << v.name << "[" << v.entries + 1 << "];\n";
    c << "};\n\n";
    c << "static inline int fail(" << N
      << "_state* s, int code, const char* fmt, ...) {\n"
         "  va_list args;\n  va_start(args, fmt);\n  vsnprintf(s->error, sizeof s->error, fmt, "
         "args);\n"
         "  va_end(args);\n  return code;\n}\n\n";
    // Model entries: checked against the declaration; NULL source = zeros (no data).
    c << "static inline OI_HELPER int link(" << N
      << "_state* s, const char* name, const char* entry, uint32_t dtype,\n"
         "                uint32_t rank, const uint64_t* dims, size_t bytes, const unsigned char** "
         "from,\n"
         "                int* found) {\n"
         "  uint32_t t = 0, r = 0;\n  uint64_t d["
      << N
      << "_MAX_RANK], nbytes = 0;\n  const unsigned char* data = "
         "NULL;\n"
         "  int rc = "
      << N
      << "_oinf_tensor(&s->model, entry, &t, &r, d, &data, &nbytes, s->error, sizeof s->error);\n"
         "  if (rc < 0) return "
      << N << "_ERR_FORMAT;\n  *found = rc;\n  *from = NULL;\n  if (rc == 0) return " << N
      << "_OK;\n"
         "  int same = t == dtype && r == rank;\n"
         "  for (uint32_t k = 0; same && k < rank; ++k) same = d[k] == dims[k];\n"
         "  if (!same || (data && nbytes != bytes))\n"
         "    return fail(s, "
      << N
      << "_ERR_MODEL, \"'%s': model tensor '%s' has another dtype or shape\", name, entry);\n"
         "  *from = data;\n  return "
      << N << "_OK;\n}\n\n";
    // Fill from @init.
    auto fill = [&](const Value& v, const std::string& ptr) { return fill_code(v, ptr); };
    if (embed_) c << embedded_arrays() << "\n";
    c << "int " << N << "_needs_model(void) { return " << (embed_ ? 0 : 1) << "; }\n\n";
    c << "int " << N << "_create(const char* model_path, " << N
      << "_state** out, char* err, size_t err_size) {\n"
         "  *out = NULL;\n  const uint16_t one = 1;\n  unsigned char first;\n  memcpy(&first, "
         "&one, 1);\n"
         "  if (first != 1) {\n    snprintf(err, err_size, \"big-endian hosts are not "
         "supported\");\n    return "
      << N << "_ERR_IO;\n  }\n  " << N << "_state* s = (" << N << "_state*)calloc(1, sizeof *s);\n"
      << "  if (!s) {\n    snprintf(err, err_size, \"out of memory\");\n    return " << N
      << "_ERR_MEMORY;\n  }\n"
      << "  snprintf(s->origin, sizeof s->origin, \"%s\", "
      << (embed_ ? "\"" + format_text(model_origin_) + "\"" : std::string("model_path")) << ");\n"
      << (embed_ ? "  int rc = " + N + "_OK;\n  (void)rc;\n  (void)model_path;\n"
                 : "  int rc = " + N + "_oinf_read(model_path, &s->model, err, err_size);\n" +
                       "  if (rc != " + N + "_OK) {\n    free(s);\n    return rc;\n  }\n")
      << "  s->arena = (unsigned char*)malloc(" << arena_bytes_
      << "u + 1u);\n  int ok = s->arena != NULL;\n";
    for (const auto& [field, bytes] : tabview_fields_)
      c << "  s->v_" << field << " = malloc(" << bytes << "u + 1u);\n  ok = ok && s->v_" << field
        << ";\n";
    for (const auto& n : undo_vars_)
      c << "  s->u_" << n << " = malloc(" << value(n).bytes << "u + 1u);\n  ok = ok && s->u_" << n
        << ";\n";
    for (const auto& [mname, m] : autodims_)
      for (uint64_t e = 0; e < (m.growable() ? 1 : m.entries()); ++e) {
        const Value& v = value(mname);
        // a growable table: the fresh matrix its matrices are created from (oi_adt_reserve)
        const std::string a =
            m.growable() ? "s->ap_" + mname : "s->a_" + mname + "[" + std::to_string(e) + "]";
        c << "  " << a << ".rank = " << m.base.size() << "u;\n  " << a
          << ".nauto = " << m.indices.size() << "u;\n  " << a << ".esize = " << m.esize << "u;\n  "
          << a << ".bits = " << m.bits << "u;\n";
        for (size_t k = 0; k < m.base.size(); ++k)
          c << "  " << a << ".base[" << k << "] = " << m.base[k] << "ll;\n";
        if (v.init && m.bits)  // the element's bits
          c << "  {\n    static const unsigned char init_one = (unsigned char)((uint32_t)"
            << init_literal(v) << " & " << ((1u << m.bits) - 1u) << "u);\n    " << a
            << ".init = &init_one;\n  }\n";
        else if (v.init)
          c << "  {\n    static const " << c_type(v.dtype) << " init_one = " << init_literal(v)
            << ";\n    " << a << ".init = (const unsigned char*)&init_one;\n  }\n";
        c << "  " << a << ".mem = &s->mem;\n  ok = ok && oi_ad_create(&" << a << ") == 0;\n";
      }
    for (const Value& v : values_) {
      if (v.storage == "internal") continue;
      if (v.ptable) {
        c << "  {\n    const int64_t bound[] = {";
        for (size_t i = 0; i < v.bounds.size(); ++i) c << (i ? ", " : "") << v.bounds[i] << "ll";
        c << "};\n    ok = ok && oi_tab_create(&s->t_" << v.name << ", " << v.bounds.size()
          << "u, bound, " << v.bytes << "u, "
          << (v.init ? "(const unsigned char*)tinit_" + v.name : std::string("NULL"))
          << ", &s->mem) == 0;\n"
          << entry_bits_c(v) << "  }\n";
        continue;
      }
      if (v.storage == "arena")
        c << "  s->v_" << v.name << " = s->arena + " << v.offset << "u;\n";
      else
        c << "  s->v_" << v.name << " = calloc(1, " << v.bytes << "u + 1u);\n  ok = ok && s->v_"
          << v.name << ";\n";
    }
    for (const auto& [field, bytes] : scratch_)
      c << "  s->" << field << " = malloc(" << bytes << "u + 1u);\n  ok = ok && s->" << field
        << ";\n";
    for (const auto& y : yielded_)
      c << "  s->snap_" << y << " = malloc(" << value(y).bytes << "u + 1u);\n  s->res_" << y
        << " = malloc(" << value(y).bytes << "u + 1u);\n  ok = ok && s->snap_" << y << " && s->res_"
        << y << ";\n";
    c << "  if (!ok) {\n    " << N
      << "_destroy(s);\n    snprintf(err, err_size, \"out of memory\");\n    return " << N
      << "_ERR_MEMORY;\n  }\n";
    for (const Value& v : values_) {
      if (v.storage != "constant" && v.storage != "persistent" && v.storage != "step") continue;
      if (v.ptable) continue;  // starts empty (dsl.md); the model does not fill it
      if (v.table) {
        c << (embed_ ? "  memcpy(s->v_" + v.name + ", emb_" + v.name + ", " +
                           std::to_string(v.bytes) + "u);\n  memcpy(s->avail_" + v.name +
                           ", emb_avail_" + v.name + ", " + std::to_string(v.entries) + "u);\n"
                     : table_loader(v));
        continue;
      }
      if (embed_ || v.link.empty()) {
        // --embed-weights: the model's bytes are arrays of this file; nothing is read. A kept
        // temporary (synth --fetchable) links nothing: zeros.
        const bool has = embedded_.count(v.name) > 0;
        c << "  {\n    const unsigned char* from = " << (has ? "emb_" + v.name : "NULL")
          << ";\n    int found = " << (has ? 1 : 0) << ";\n";
      } else
        c << "  {\n    const unsigned char* from = NULL;\n    int found = 0;\n    rc = link(s, \""
          << v.name << "\", \"" << v.link << "\", " << dtype_tag(v.dtype) << "u, " << v.shape.size()
          << "u, dims_" << v.name << ", " << v.bytes << "u, &from, &found);\n"
          << "    if (rc != " << N
          << "_OK) {\n      snprintf(err, err_size, \"%s: %s\", model_path, s->error);\n      " << N
          << "_destroy(s);\n      return rc;\n    }\n";
      if (embed_) c << "    (void)found;\n";
      if (v.storage == "step") {
        // A model declaration without data starts from @init, like an absent entry.
        c << "    s->from_" << v.name << " = found ? from : NULL;\n";
      } else {
        c << "    if (found && from) memcpy(s->v_" << v.name << ", from, " << v.bytes << "u);\n"
          << "    else { " << fill(v, "s->v_" + v.name) << " }\n";
      }
      c << "  }\n";
    }
    // Settings were given the model's constants at synthesis: another model must agree.
    for (const auto& [cname, bytes] : baked_) {
      c << "  {\n    static const unsigned char baked[" << bytes.size() << "] = {";
      for (size_t i = 0; i < bytes.size(); ++i)
        c << (i ? ", " : "") << static_cast<unsigned>(static_cast<unsigned char>(bytes[i]));
      c << "};\n    if (memcmp(s->v_" << cname << ", baked, " << bytes.size()
        << "u) != 0) {\n      snprintf(err, err_size, \"%s: constant '" << cname
        << "' differs from the model this program was synthesized with (a setting uses it)\", "
           "model_path);\n      "
        << N << "_destroy(s);\n      return " << N << "_ERR_MODEL;\n    }\n  }\n";
    }
    c << "  *out = s;\n  return " << N << "_OK;\n}\n\n";
    c << "void " << N << "_destroy(" << N << "_state* s) {\n  if (!s) return;\n";
    for (const Value& v : values_) {
      if (v.ptable)
        c << "  free(s->t_" << v.name << ".data);\n  free(s->t_" << v.name
          << ".flags);\n  free(s->f_" << v.name << ");\n";
      else if (v.storage != "internal" && v.storage != "arena")
        c << "  free(s->v_" << v.name << ");\n";
    }
    for (const auto& [field, bytes] : tabview_fields_) c << "  free(s->v_" << field << ");\n";
    for (const auto& [mname, m] : autodims_) {
      c << "  for (size_t e = 0; e < " << auto_count_c(m, "s") << "; ++e) {\n    free(s->a_"
        << mname << "[e].data);\n    free(s->a_" << mname << "[e].u_data);\n  }\n  free(s->af_"
        << mname << ");\n";
      if (m.bits) c << "  free(s->af_" << mname << "_packed);\n";
      if (m.growable()) c << "  free(s->a_" << mname << ");\n  free(s->ap_" << mname << ".data);\n";
    }
    for (const auto& n : undo_vars_) c << "  free(s->u_" << n << ");\n";
    c << "  free(s->mem.log);\n";
    for (const auto& sc : scratch_) c << "  free(s->" << sc.first << ");\n";
    for (const auto& y : yielded_)
      c << "  free(s->snap_" << y << ");\n  free(s->res_" << y << ");\n";
    c << "  free(s->arena);\n  " << N << "_oinf_free(&s->model);\n  free(s);\n}\n\n";
    c << "const " << N << "_var_info* " << N
      << "_var(const char* name) {\n"
         "  for (const "
      << N
      << "_var_info* v = vars; v->name; ++v)\n    if (strcmp(v->name, name) == 0) return v;\n"
         "  return NULL;\n}\n\n";
    c << "const char* const* " << N << "_outputs(size_t* count) {\n  *count = " << outputs_.size()
      << "u;\n  return outputs;\n}\n\n";
    c << "const char* " << N << "_error(const " << N << "_state* s) { return s->error; }\n\n";
    c << "void " << N << "_set_max_table_bytes(" << N
      << "_state* s, uint64_t bytes) { s->mem.limit = bytes; }\n\n";
    c << "uint64_t " << N << "_table_bytes(const " << N
      << "_state* s) { return s->mem.total; }\n\n";
    // The simulator's message (core/src/exec/memory_undo.cpp), word for word.
    c << "static OI_HELPER int budget_fail(" << N
      << "_state* s, const char* where, const char* table) {\n"
         "  return fail(s, "
      << N
      << "_ERR_BUDGET,\n"
         "              \"%stable '%s' cannot grow from %llu to %llu bytes: the tables would "
         "hold %llu \"\n"
         "              \"bytes, over the limit of %llu bytes (max_table_bytes)\",\n"
         "              where, table, (unsigned long long)s->mem.refused_from,\n"
         "              (unsigned long long)s->mem.refused_to, (unsigned long "
         "long)s->mem.refused_total,\n"
         "              (unsigned long long)s->mem.limit);\n}\n\n";
    c << end_step_c(tables);
    c << "int " << N << "_insert(" << N
      << "_state* s, const char* name, const void* data, size_t bytes) {\n"
         "  (void)data;\n  (void)bytes;\n";
    for (const Value& v : values_)
      if (v.storage == "dynamic")
        c << "  if (strcmp(name, \"" << v.name << "\") == 0) {\n    if (bytes != " << v.bytes
          << "u) return fail(s, " << N << "_ERR_INPUT, \"insert '%s': %zu bytes, expected "
          << v.bytes << "\", name, bytes);\n    memcpy(s->v_" << v.name
          << ", data, bytes);\n    s->have_" << v.name << " = 1;\n    return " << N
          << "_OK;\n  }\n";
    c << "  return fail(s, " << N
      << "_ERR_NAME, \"insert '%s': no dynamic variable of that name\", name);\n}\n\n";
    c << "int " << N << "_fetch(const " << N
      << "_state* s, const char* name, const void** data, size_t* bytes) {\n";
    for (const Value* v : declared) {
      if (v->ptable) {
        // Every entry, stacked as `[]` reads them, packed into the fetch buffer.
        const std::string t = "w->t_" + v->name, f = "w->f_" + v->name;
        c << "  if (strcmp(name, \"" << v->name << "\") == 0) {\n    " << N << "_state* w = (" << N
          << "_state*)s;\n    int64_t st[" << v->bounds.size() << "] = {0}, ln[" << v->bounds.size()
          << "] = {0};\n    oi_tab_dims(&" << t
          << ", ln);\n    size_t n = " << (part_byte_bits(*v) ? part_byte_bits(*v) : v->bytes)
          << "u;\n    for (uint32_t k = 0; k < " << v->bounds.size()
          << "u; ++k) n *= (size_t)ln[k];\n"
          << (part_byte_bits(*v) ? "    n = (n + 7u) / 8u; /* bits to bytes */\n" : "")
          << "    if (n + 1u > " << f << "_bytes) {\n      void* grown = realloc(" << f
          << ", n + 1u);\n      if (!grown)\n"
          << "        return fail(w, " << N
          << "_ERR_MEMORY, \"fetch '%s': out of memory\", name);\n"
          << "      " << f << " = grown;\n      " << f
          << "_bytes = n + 1u;\n    }\n    oi_tab_read(&" << t << ", st, ln, " << f
          << ");\n    *data = " << f << ";\n    *bytes = n;\n    return " << N << "_OK;\n  }\n";
        continue;
      }
      c << "  if (strcmp(name, \"" << v->name << "\") == 0) {\n    *data = s->v_" << v->name
        << ";\n    *bytes = " << v->bytes << "u;\n    return " << N << "_OK;\n  }\n";
    }
    for (const auto& [mname, m] : autodims_) {
      c << "  if (strcmp(name, \"" << mname << "\") == 0) {\n";
      if (!m.table_indices.empty())  // a table of matrices: stacked, as `cache.read C` gives
        c << "    " << N << "_state* w = (" << N << "_state*)s;\n" << auto_dim_fetch_stacked(m, N);
      else
        c << "    *data = s->a_" << mname << "[0].data;\n    *bytes = oi_ad_cells(&s->a_" << mname
          << "[0], s->a_" << mname << "[0].cnt) * s->a_" << mname << "[0].esize;\n";
      if (m.bits) {  // the cells packed, into a buffer of the state
        const std::string F = "((" + N + "_state*)s)->af_" + mname + "_packed";
        c << "    {\n      const size_t n = (size_t)*bytes;\n      unsigned char* p = "
             "(unsigned char*)malloc((n * "
          << m.bits << "u + 7u) / 8u + 1u);\n      if (!p) return fail((" << N << "_state*)s, " << N
          << "_ERR_MEMORY, \"out of memory fetching '" << mname
          << "'\");\n      oi_ad_pack(p, (const unsigned char*)*data, n, " << m.bits
          << "u);\n      free(" << F << ");\n      " << F
          << " = p;\n      *data = p;\n      *bytes = (n * " << m.bits << "u + 7u) / 8u;\n    }\n";
      }
      c << "    return " << N << "_OK;\n  }\n";
    }
    c << "  snprintf(((" << N
      << "_state*)s)->error, sizeof s->error, \"fetch '%s': no declared variable of that name\", "
         "name);\n"
         "  return "
      << N << "_ERR_NAME;\n}\n\n";
    // The shape of what fetch gives: declared, except a growable table's current sizes.
    c << "int " << N << "_fetch_dims(const " << N
      << "_state* s, const char* name, uint32_t* rank, uint64_t dims[" << N
      << "_MAX_RANK]) {\n"
         "  const "
      << N << "_var_info* v = " << N << "_var(name);\n  if (!v || v->rank > " << N
      << "_MAX_RANK) return fail((" << N << "_state*)s, " << N
      << "_ERR_NAME, \"fetch '%s': no declared variable of that name\", name);\n"
         "  *rank = v->rank;\n  for (uint32_t k = 0; k < v->rank; ++k) dims[k] = v->dims[k];\n";
    for (const Value* v : declared)
      if (v->ptable)
        c << "  if (strcmp(name, \"" << v->name << "\") == 0) {\n    int64_t ln["
          << v->bounds.size() << "] = {0};\n    oi_tab_dims(&s->t_" << v->name
          << ", ln);\n    for (uint32_t k = 0; k < " << v->bounds.size()
          << "u; ++k) dims[k] = (uint64_t)ln[k];\n  }\n";
    for (const auto& [mname, m] : autodims_) {
      // a table of matrices: its bounds, then the matrices' (equal) shape
      const size_t nt = m.table_indices.size();
      if (m.growable()) {  // the sizes; the matrices' shape from key 0, else the fresh one's
        c << "  if (strcmp(name, \"" << mname
          << "\") == 0) {\n    int64_t d[OI_AD_RANK];\n    size_t nk = 1;\n";
        for (size_t k = 0; k < nt; ++k)
          c << "    dims[" << k << "] = (uint64_t)s->as_" << mname << "[" << k
            << "];\n    nk *= (size_t)s->as_" << mname << "[" << k << "];\n";
        c << "    const oi_auto* m0 = nk ? &s->a_" << mname << "[0] : &s->ap_" << mname
          << ";\n    oi_ad_dims(m0, m0->cnt, d);\n";
      } else {
        c << "  if (strcmp(name, \"" << mname
          << "\") == 0) {\n    int64_t d[OI_AD_RANK];\n    oi_ad_dims(&s->a_" << mname
          << "[0], s->a_" << mname << "[0].cnt, d);\n";
        for (size_t k = 0; k < nt; ++k)
          c << "    dims[" << k << "] = " << m.table_bounds[k] << "u;\n";
      }
      c << "    for (uint32_t k = " << nt << "u; k < v->rank; ++k) "
        << "dims[k] = (uint64_t)d[k - " << nt << "u];\n  }\n";
    }
    c << "  return " << N << "_OK;\n}\n\n";
    c << kernels;
    c << "int " << N << "_step(" << N << "_state* s) {\n";
    // An input the step reads must have been inserted: the simulator's message, at its first
    // read (checked up front, so a read only some steps reach is required every step).
    for (const std::string& v : read_order_)
      c << "  if (!s->have_" << v << ") return fail(s, " << N << "_ERR_INPUT, \""
        << format_text(first_read_.at(v) + ": dynamic variable '" + v +
                       "' was not inserted for this step (insert it before every step)")
        << "\");\n";
    for (const Value& v : values_)
      if (v.storage == "step")
        c << "  if (s->from_" << v.name << ") memcpy(s->v_" << v.name << ", s->from_" << v.name
          << ", " << v.bytes << "u);\n  else { " << fill(v, "s->v_" + v.name) << " }\n";
    c << "  s->failed = " << N << "_OK;\n" << step_body;
    if (step_body.find("goto done;") != std::string::npos) c << "done:\n";
    for (const Value& v : values_)
      if (v.storage == "dynamic") c << "  s->have_" << v.name << " = 0;\n";
    // A failed step leaves persistent memory as it was before it (runtime.md "Failed steps").
    c << "  end_step(s, s->failed != " << N << "_OK);\n";
    c << "  return s->failed;\n}\n";
    c << library_unit();
    return c.str();
  }

  // ---- the freestanding profile (docs/synth.md "The freestanding profile") ----
  // Chosen by the plan's device (`cpu.profile` "freestanding"): NAME.h and NAME.c only, no
  // allocation, no stdio, no files, no exit. Working memory is one arena (the memory plan's,
  // then the kernels' scratch, shared by all kernels since each is done with it on return),
  // everything kept between steps is one struct the caller allocates, weights are const arrays.

  bool freestanding_ = false;
  bool float_math_ = false;
  uint64_t ptr_bytes_ = 8;  // the target's pointers: 4 on the M profile's 32-bit cores
  uint64_t align_ = 16;     // cpu.alignment_bytes
  uint64_t flash_budget_ = 0, ram_budget_ = 0;
  std::string device_name_ = "the device", device_origin_;
  std::map<std::string, int64_t> field_kernel_;   // scratch or tabview field -> its kernel
  std::map<int64_t, int64_t> entry_kernel_step_;  // kernels that are steps of entry: the step

  void read_profile() {
    const auto* d = root_.as_object().if_contains("device");
    if (!d || !d->is_object()) return;
    const auto& dev = d->as_object();
    freestanding_ = dev.contains("profile") && dev.at("profile") == "freestanding";
    if (dev.contains("name")) device_name_ = str(dev.at("name"));
    if (dev.contains("origin")) device_origin_ = str(dev.at("origin"));
    if (const auto* m = dev.if_contains("memory"); m && m->is_object()) {
      if (const auto* f = m->as_object().if_contains("flash_bytes"))
        flash_budget_ = f->to_number<uint64_t>();
      if (const auto* r = m->as_object().if_contains("ram_bytes"))
        ram_budget_ = r->to_number<uint64_t>();
    }
    if (const auto* c = dev.if_contains("cpu"); c && c->is_object()) {
      const auto& cpu = c->as_object();
      if (cpu.contains("isa") && str(cpu.at("isa")).rfind("armv", 0) == 0) ptr_bytes_ = 4;
      const std::string fpu = cpu.contains("fpu") ? str(cpu.at("fpu")) : "";
      float_math_ = freestanding_ && (fpu == "sp" || fpu == "none");
      if (cpu.contains("alignment_bytes"))
        align_ = std::max<uint64_t>(cpu.at("alignment_bytes").to_number<uint64_t>(), 1);
    }
  }

  static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

  // One member of the state struct, with its size and alignment on the target (ILP32 on the
  // M profile), so the report gives sizeof(state) without a compiler.
  struct Member {
    std::string decl;
    uint64_t size, align;
    bool io = false;  // a dynamic input's buffer (reported as I/O)
  };
  static uint64_t type_align(const std::string& ctype, uint64_t ptr) {
    if (ctype == "double" || ctype == "int64_t" || ctype == "uint64_t") return 8;
    if (ctype == "float" || ctype == "int32_t" || ctype == "uint32_t" || ctype == "int") return 4;
    if (ctype == "int16_t" || ctype == "uint16_t") return 2;
    if (ctype == "ptr") return ptr;
    return 1;
  }

  // What the scratch of each kernel becomes: an offset into the arena past the plan's values
  // (every kernel starts at the same offset), or, for a kernel that keeps work between calls
  // (a state flag: packed weights), an array of the state.
  struct ScratchLayout {
    std::map<std::string, uint64_t> offset;      // field -> offset from the arena's start
    std::map<std::string, uint64_t> persistent;  // field -> bytes (state arrays)
    uint64_t plan = 0, region = 0, total = 0, align = 8;
    uint64_t undo = 0;  // the undo record's region, past the scratch (freestanding)
  };
  ScratchLayout scratch_layout() const {
    ScratchLayout l;
    l.align =
        std::max<uint64_t>({align_, 8, root_.at("memory").at("alignment").to_number<uint64_t>()});
    l.plan = align_up(arena_bytes_, l.align);
    std::set<int64_t> keeps;  // kernels with state flags
    for (const auto& f : flags_) keeps.insert(std::stoll(f.substr(5, f.find('_', 5) - 5)));
    // Each kernel's fields one after another: their offsets from the block's start.
    std::map<int64_t, std::vector<std::pair<std::string, uint64_t>>> fields;
    std::map<int64_t, uint64_t> need;
    auto add = [&](const std::string& field, uint64_t bytes) {
      const int64_t k = field_kernel_.at(field);
      const uint64_t at = align_up(need[k], l.align);
      fields[k].push_back({field, at});
      need[k] = at + std::max<uint64_t>(bytes, 1);
    };
    for (const auto& [field, bytes] : tabview_fields_) add(field, bytes);
    for (const auto& [field, bytes] : scratch_) {
      if (keeps.count(field_kernel_.at(field)))
        l.persistent[field] = bytes;
      else
        add(field, bytes);
    }
    for (const auto& [k, list] : fields) {
      // A kernel that is a step of entry takes bytes of the plan's arena that no value holds at
      // that step (the plan's `live` steps), when such a gap is large enough; other kernels
      // (in loops, branches, consumers), and those without a gap, take the region past it.
      uint64_t base = l.plan;
      if (auto step = entry_kernel_step_.find(k); step != entry_kernel_step_.end()) {
        std::vector<std::pair<uint64_t, uint64_t>> held;
        for (const Value& v : values_)
          if (v.storage == "arena" && v.live_first <= step->second && step->second <= v.live_last)
            held.push_back({v.offset, v.offset + v.bytes});
        std::sort(held.begin(), held.end());
        uint64_t at = 0;
        for (const auto& [lo, hi] : held) {
          if (at + need[k] <= lo) break;
          at = std::max(at, align_up(hi, l.align));
        }
        if (at + need[k] <= arena_bytes_) base = at;
      }
      for (const auto& [field, off] : list) l.offset[field] = base + off;
      if (base == l.plan) l.region = std::max(l.region, align_up(need[k], l.align));
    }
    l.total = l.plan + l.region;
    return l;
  }

  // A C literal of element i of `bytes` (the model's bytes of `dtype`), exactly.
  static std::string element_literal(const std::string& dtype, const std::string& bytes, size_t i) {
    const char* p = bytes.data();
    char buf[64];
    if (dtype == "f32") {
      float f;
      std::memcpy(&f, p + 4 * i, 4);
      if (std::isnan(f)) return std::signbit(f) ? "-NAN" : "NAN";
      if (std::isinf(f)) return f < 0 ? "-INFINITY" : "INFINITY";
      if (f == 0) return std::signbit(f) ? "-0.0f" : "0.0f";
      std::snprintf(buf, sizeof buf, "%af", static_cast<double>(f));
      return buf;
    }
    if (dtype == "f64") {
      double f;
      std::memcpy(&f, p + 8 * i, 8);
      if (std::isnan(f)) return std::signbit(f) ? "-(double)NAN" : "(double)NAN";
      if (std::isinf(f)) return f < 0 ? "-(double)INFINITY" : "(double)INFINITY";
      if (f == 0) return std::signbit(f) ? "-0.0" : "0.0";
      std::snprintf(buf, sizeof buf, "%a", f);
      return buf;
    }
    auto le = [&](size_t size) {
      uint64_t v = 0;
      for (size_t b = 0; b < size; ++b)
        v |= static_cast<uint64_t>(static_cast<unsigned char>(p[size * i + b])) << (8 * b);
      return v;
    };
    if (dtype == "i64") {
      const auto v = static_cast<int64_t>(le(8));
      if (v == INT64_MIN) return "(-9223372036854775807LL - 1)";
      return std::to_string(v) + "LL";
    }
    if (dtype == "u64") return std::to_string(le(8)) + "ULL";
    if (dtype == "i32") {
      const auto v = static_cast<int32_t>(static_cast<uint32_t>(le(4)));
      if (v == INT32_MIN) return "(-2147483647 - 1)";
      return std::to_string(v);
    }
    if (dtype == "u32") return std::to_string(le(4)) + "u";
    if (dtype == "i16") return std::to_string(static_cast<int16_t>(le(2)));
    if (dtype == "i8") return std::to_string(static_cast<int8_t>(le(1)));
    const uint64_t size = dtype_size(dtype);
    if (size == 2 && !packed_bits(dtype)) return std::to_string(le(2));  // u16, f16, bf16 bits
    return std::to_string(static_cast<unsigned char>(p[i]));  // u8, bool, f8, packed bytes
  }

  // `static const T name[n] = {...};` of the model's bytes, in the dtype they are stored in.
  std::string typed_array(const std::string& name, const std::string& dtype,
                          const std::string& bytes) const {
    const bool packed = packed_bits(dtype) != 0;
    const uint64_t size = packed ? 1 : dtype_size(dtype);
    const size_t n = bytes.size() / size;
    std::ostringstream c;
    c << "static const " << (packed ? "uint8_t" : c_type(dtype)) << " " << name << "["
      << std::max<size_t>(n, 1) << "] OI_CONST_ALIGN = {";
    for (size_t i = 0; i < n; ++i)
      c << (i % 8 ? " " : "\n  ") << element_literal(dtype, bytes, i) << ",";
    if (n == 0) c << "0";
    c << "\n};\n";
    return c.str();
  }

  // --embed-weights in the freestanding profile: the model's tensors as const arrays of their
  // dtype (in flash), checked against the declarations as the loader checks them. Returns the
  // C and adds the arrays' bytes to `bytes`.
  std::string embedded_typed(uint64_t& bytes) const {
    std::ostringstream c;
    for (const Value& v : values_) {
      if (v.storage != "constant" && v.storage != "persistent" && v.storage != "step") continue;
      if (v.ptable) continue;
      if (v.table) {
        const std::string all = embedded_entries(v, c);
        c << typed_array("emb_" + v.name, v.dtype, all);
        bytes += all.size() + v.entries + 1;
        continue;
      }
      auto t = (*embed_)(v.link);
      if (!t) continue;
      if (t->dtype != dtype_tag(v.dtype) || t->dims != v.shape || t->bytes.size() != v.bytes)
        throw std::runtime_error("'" + v.name + "': model tensor '" + v.link +
                                 "' has another dtype or shape");
      embedded_.insert(v.name);
      c << typed_array("emb_" + v.name, v.dtype, t->bytes);
      bytes += t->bytes.size();
    }
    return c.str();
  }

  // The values the caller sees by name: declared ones, returned temporaries and kept ones.
  std::vector<const Value*> declared_values() const {
    std::vector<const Value*> declared;
    for (const Value& v : values_)
      if (!v.table && (v.memory != "temporary" || v.storage == "step" ||
                       std::find(outputs_.begin(), outputs_.end(), v.name) != outputs_.end()))
        declared.push_back(&v);
    return declared;
  }

  static uint64_t elements(const Value& v) {
    uint64_t n = v.numel();
    if (v.ptable)
      for (int64_t b : v.bounds) n *= static_cast<uint64_t>(b);
    return n;
  }

  // The freestanding undo record (docs/synth.md "The freestanding profile"): a region of the
  // arena past the scratch, sized for the worst case of a step: a copy of each plain persistent
  // variable some step writes, then the table record, where each entry of a table is noted at
  // most once a step (its cell's flag): the entries a step can change (undo_bound.hpp), at
  // most every entry of the table whatever the loops.
  std::map<std::string, uint64_t> table_changes() const {
    ChangeSizes sizes;
    sizes.table = [&](const std::string& text) -> std::optional<std::string> {
      if (!is_table_access(text)) return std::nullopt;
      return parse_access(text).name;
    };
    sizes.written = [&](const std::string& text, const std::string* from) -> uint64_t {
      const AccessText a = parse_access(text);
      const Value& t = value(a.name);
      // (a source stored in a table or matrix: the entries the destination's access covers)
      if (from && !stored_side(*from))
        return value(*from).numel() / std::max<uint64_t>(t.numel(), 1);
      auto lead =
          static_lead(table_decl(t), a, [&](const std::string& n) { return constant_index(n); });
      if (!lead) return kManyChanges;
      uint64_t n = 1;
      for (uint64_t d : *lead) n = d && n > kManyChanges / d ? kManyChanges : n * d;
      return n;
    };
    sizes.erased = [&](const std::string& text) {
      // The indices before the first slice choose the entries (table_reset).
      const AccessText a = parse_access(text);
      const Value& t = value(a.name);
      size_t k = 0;
      while (k < a.slots.size() && !a.slots[k].range) ++k;
      uint64_t n = 1;
      for (; k < t.bounds.size(); ++k) n *= static_cast<uint64_t>(t.bounds[k]);
      return n;
    };
    sizes.bound = [&](const std::string& b) -> std::optional<int64_t> {
      if (!b.empty() && b.find_first_not_of("-0123456789") == std::string::npos)
        return std::stoll(b);
      return constant_index(b);
    };
    return step_changes(root_, sizes);
  }

  struct UndoLayout {
    std::map<std::string, uint64_t> copy_at;  // variable -> offset of its copy in the arena
    uint64_t log_at = 0, log_bytes = 0;
  };
  UndoLayout undo_layout(ScratchLayout& layout) const {
    UndoLayout u;
    uint64_t at = layout.total;
    for (const auto& n : undo_vars_) {
      u.copy_at[n] = at;
      at = align_up(at + value(n).bytes, 8);
    }
    u.log_at = at;
    const auto most = table_changes();
    for (const Value& t : values_) {
      if (!t.ptable) continue;
      // A table the walk did not find written is bounded by its entries all the same.
      const uint64_t cells = elements(t) / std::max<uint64_t>(t.numel(), 1);
      const auto count = most.find(t.name);
      u.log_bytes += std::min(count == most.end() ? cells : count->second, cells) *
                     undo_record_bytes(t.bounds.size(), t.bytes);
    }
    layout.undo = align_up(at + u.log_bytes, layout.align) - layout.total;
    layout.total += layout.undo;
    return u;
  }

  // The bytes of a C struct of these (size, alignment) members on the target.
  static uint64_t struct_bytes(const std::vector<std::pair<uint64_t, uint64_t>>& members) {
    uint64_t size = 0, align = 1;
    for (const auto& [bytes, a] : members) {
      size = align_up(size, a) + bytes;
      align = std::max(align, a);
    }
    return align_up(size, align);
  }

  // The C the freestanding profile needs around the kernels: the state's members, init, the
  // typed and by-name insert and fetch, step, the error strings; plus the budget report.
  std::vector<GeneratedFile> freestanding_files(const std::string& kernels,
                                                const std::string& step_body) {
    const std::string& N = name_;
    const bool can_fail = step_can_fail(step_body);
    if (!can_fail) undo_vars_.clear();
    ScratchLayout layout = scratch_layout();
    const UndoLayout undo = undo_layout(layout);
    const bool tables =
        std::any_of(values_.begin(), values_.end(), [](const Value& v) { return v.ptable; });
    bool models_data = false;
    for (const Value& v : values_)
      if ((v.storage == "constant" || v.storage == "persistent" || v.storage == "step") &&
          !v.ptable && (!v.link.empty() || v.table))
        models_data = true;
    if (models_data && !embed_)
      refuse_device_limit("c emitter", "the model's weights",
                          "reading them from a file at run time (the freestanding profile reads "
                          "no files: synthesize with --embed-weights, the weights become const "
                          "arrays in flash)",
                          device_name_, "cpu.profile freestanding");
    const bool messages = kernels.find("fail(s,") != std::string::npos ||
                          step_body.find("fail(s,") != std::string::npos;

    // ---- the state ----
    std::vector<Member> small, arrays;
    const uint64_t P = ptr_bytes_;
    small.push_back({"unsigned char* arena;", P, P});
    small.push_back({"int failed;", 4, 4});
    if (messages) small.push_back({"char error[128];", 128, 1});
    auto storage = [&](const std::string& field, const Value& v, uint64_t n, bool io) {
      const std::string T = c_type(v.dtype);
      const uint64_t count = std::max<uint64_t>(packed_bits(v.dtype) ? v.bytes : n, 1);
      const uint64_t esize = packed_bits(v.dtype) ? 1 : dtype_size(v.dtype);
      arrays.push_back({T + " " + field + "[" + std::to_string(count) + "];", count * esize,
                        type_align(T, P), io});
    };
    // oi_mem and oi_table (tables.cpp) member by member, as the target lays them out: the
    // budget's six uint64_t, log, used, cap; data, entry_bytes, init, rank, entry_bits, bound, cap,
    // size, flags, written, mem, noted, u_size, u_written.
    if (tables)
      small.push_back({"oi_mem mem;", struct_bytes({{48, 8}, {P, P}, {P, P}, {P, P}}), 8});
    const uint64_t table_bytes = struct_bytes({{P, P},
                                               {P, P},
                                               {P, P},
                                               {4, 4},
                                               {4, 4},
                                               {3 * 64, 8},
                                               {P, P},
                                               {8, 8},
                                               {P, P},
                                               {4, 4},
                                               {64, 8},
                                               {8, 8}});
    for (const auto& n : undo_vars_) {
      small.push_back({"void* u_" + n + ";", P, P});
      small.push_back({"int u_has_" + n + ";", 4, 4});
    }
    for (const Value& v : values_) {
      if (v.storage == "internal") continue;
      if (v.ptable) {
        small.push_back({"oi_table t_" + v.name + ";", table_bytes, 8});
        const uint64_t cells = elements(v) / std::max<uint64_t>(v.numel(), 1);
        if (packed_bits(v.dtype))  // bytes of whole entries (read_values)
          arrays.push_back({"uint8_t m_t_" + v.name + "[" + std::to_string(cells * v.bytes) + "];",
                            cells * v.bytes, 1});
        else
          storage("m_t_" + v.name, v, elements(v), false);
        arrays.push_back(
            {"unsigned char m_f_" + v.name + "[" + std::to_string(cells) + "];", cells, 1});
        if (part_byte_bits(v)) {  // fetch stacks its entries at bit offsets here
          const uint64_t n = value_bytes(v.dtype, elements(v));
          arrays.push_back({"unsigned char m_p_" + v.name + "[" + std::to_string(n) + "];", n, 1});
        }
        continue;
      }
      small.push_back({"void* v_" + v.name + ";", P, P});
      if (v.storage == "step") small.push_back({"const void* from_" + v.name + ";", P, P});
      if (v.storage == "dynamic") small.push_back({"int have_" + v.name + ";", 4, 4});
      if (v.table) small.push_back({"const unsigned char* avail_" + v.name + ";", P, P});
      if (v.storage == "persistent" || v.storage == "step" || v.storage == "dynamic")
        storage("m_" + v.name, v, v.numel(), v.storage == "dynamic");
      if (v.storage == "constant" && !embedded_.count(v.name) && packed_bits(v.dtype))
        storage("m_" + v.name, v, v.numel(), false);  // a packed @init constant: filled by init
      if (yielded_.count(v.name)) {
        small.push_back({"void* snap_" + v.name + ";", P, P});
        small.push_back({"void* res_" + v.name + ";", P, P});
        storage("m_snap_" + v.name, v, v.numel(), false);
        storage("m_res_" + v.name, v, v.numel(), false);
      }
    }
    for (const auto& n : yield_copied_) {  // a copy at a yield (yield_snapshot.hpp)
      const Value& v = value(n);
      const uint64_t cells = elements(v) / std::max<uint64_t>(v.numel(), 1);
      const uint64_t words = (cells * v.bytes + 7) / 8;
      arrays.push_back({"double ys_d_" + n + "[" + std::to_string(words) + "];", words * 8, 8});
      arrays.push_back({"unsigned char ys_f_" + n + "[" + std::to_string(cells) + "];", cells, 1});
    }
    for (const auto& [field, bytes] : tabview_fields_)
      small.push_back({"void* v_" + field + ";", P, P});
    for (const auto& [field, bytes] : scratch_) {
      small.push_back({"void* " + field + ";", P, P});
      if (layout.persistent.count(field))
        arrays.push_back({"double m_" + field + "[" + std::to_string(bytes / 8 + 1) + "];",
                          (bytes / 8 + 1) * 8, 8});
    }
    for (const auto& f : flags_) small.push_back({"int " + f + ";", 4, 4});
    uint64_t state_bytes = 0, io_bytes = 0, state_align = 1;
    std::ostringstream members;
    for (const auto* list : {&small, &arrays})
      for (const Member& m : *list) {
        state_bytes = align_up(state_bytes, m.align) + m.size;
        state_align = std::max(state_align, m.align);
        if (m.io) io_bytes += m.size;
        members << "  " << m.decl << "\n";
      }
    state_bytes = align_up(state_bytes, state_align);

    // ---- constants: embedded weights, @init and zero constants (flash) ----
    uint64_t weight_bytes = 0;
    std::ostringstream consts;
    if (embed_) consts << embedded_typed(weight_bytes);
    for (const Value& v : values_) {
      if (v.storage != "constant" || v.table || embedded_.count(v.name) || packed_bits(v.dtype))
        continue;
      consts << "static const " << c_type(v.dtype) << " cinit_" << v.name << "["
             << std::max<uint64_t>(v.numel(), 1) << "] OI_CONST_ALIGN = {";
      if (!v.init) {
        consts << "0";
      } else {
        for (uint64_t i = 0; i < v.numel(); ++i) consts << (i ? ", " : "") << init_literal(v);
      }
      consts << "};\n";
      weight_bytes += v.bytes;
    }
    std::vector<const Value*> declared = declared_values();
    for (const Value* v : declared) {
      if (v->ptable) {
        consts << "static const uint64_t dims_" << v->name << "[] = {";
        for (size_t i = 0; i < v->bounds.size(); ++i)
          consts << (i ? ", " : "") << v->bounds[i] << "u";
        for (uint64_t d : v->shape) consts << ", " << d << "u";
        consts << "};\n";
        if (v->init) consts << table_init_c(*v);
        continue;
      }
      consts << "static const uint64_t dims_" << v->name << "[] = {";
      for (size_t i = 0; i < v->shape.size(); ++i) consts << (i ? ", " : "") << v->shape[i] << "u";
      consts << (v->shape.empty() ? "0" : "") << "};\n";
    }
    consts << "static const " << N << "_var_info vars[] = {\n";
    for (const Value* v : declared)
      consts << "  {\"" << v->name << "\", " << dtype_tag(v->dtype) << "u, "
             << v->shape.size() + v->bounds.size() << "u, dims_" << v->name << ", "
             << (v->ptable ? value_bytes(v->dtype, elements(*v)) : v->bytes) << "u, "
             << (v->storage == "dynamic" ? 1 : 0) << "},\n";
    consts << "  {NULL, 0u, 0u, NULL, 0u, 0}};\n";
    consts << "static const char* const outputs[] = {";
    for (const auto& o : outputs_) consts << "\"" << o << "\", ";
    consts << "NULL};\n\n";

    // ---- the header ----
    std::ostringstream h;
    h << "/* Generated by OpenInfer's C emitter from " << str(root_.at("graph"))
      << ": the freestanding profile for " << device_name_
      << "\n * (docs/synth.md). No allocation, no stdio, no files, no exit: call " << N
      << "_init once with an arena, then per step\n * " << N << "_insert_* every input, " << N
      << "_step and " << N << "_fetch_*. */\n#ifndef " << N << "_H\n#define " << N
      << "_H\n\n#include <stddef.h>\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" "
         "{\n#endif\n\n"
      << "enum {\n  " << N << "_OK = 0,\n  " << N
      << "_ERR_NAME = 4,   /* no variable of that name */\n  " << N
      << "_ERR_INPUT = 5,  /* an input missing, of the wrong size, or a NULL argument */\n  " << N
      << "_ERR_MEMORY = 6, /* a table access past its storage, or the undo record full (never:\n"
         "                    * the bounds are checked, the record sized at synthesis) */\n  "
      << N << "_ERR_RUN = 7,    /* an op failed during a step (an index out of range) */\n  " << N
      << "_ERR_ARENA = 8   /* init without an arena, or one not aligned to " << N
      << "_ARENA_ALIGN */\n};\n\n"
      << "/* The working memory of a step: the memory plan's arena (" << layout.plan
      << " B), the kernels' scratch\n * (" << layout.region
      << " B) and the undo record of the step's persistent writes (" << layout.undo
      << " B). */\n#define " << N << "_ARENA_BYTES " << layout.total << "u\n#define " << N
      << "_ARENA_ALIGN " << layout.align << "u\n\n";
    if (tables) h << tables_type_c(max_table_rank()) << "\n";
    h << "/* Everything kept between steps: persistent values, inputs, tables. Allocate it where "
         "you\n * like (static storage is usual; "
      << state_bytes << " B on this target); its members are private. */\ntypedef struct " << N
      << "_state {\n"
      << members.str() << "} " << N << "_state;\n\n"
      << "/* Sets up `s` (every persistent value at its start) over `arena`: " << N
      << "_ARENA_BYTES bytes aligned to\n * " << N << "_ARENA_ALIGN, or NULL for " << N
      << ".c's static arena (left out when " << N << "_NO_STATIC_ARENA is defined). */\nint " << N
      << "_init(" << N << "_state* s, void* arena);\n/* One step; every input must have been "
      << "inserted since the previous one. */\nint " << N << "_step(" << N << "_state* s);\n";
    for (const Value* v : declared) {
      const std::string T = c_type(v->dtype);
      std::string shape;
      for (size_t i = 0; i < v->bounds.size(); ++i)
        shape += (shape.empty() ? "" : ", ") + std::to_string(v->bounds[i]);
      for (uint64_t d : v->shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
      const std::string what = v->dtype + "[" + shape + "]: " + std::to_string(elements(*v)) +
                               " element" + (elements(*v) == 1 ? "" : "s");
      if (v->storage == "dynamic")
        h << "/* Copies input '" << v->name << "' (" << what << ") for the next step. */\nint " << N
          << "_insert_" << v->name << "(" << N << "_state* s, const " << T
          << "* data, size_t count);\n";
      if (v->storage == "constant") continue;  // weights: by name only (NAME_fetch)
      h << "/* '" << v->name << "' (" << what
        << ") as it is now: valid until the next step. */\nint " << N << "_fetch_" << v->name
        << "(const " << N << "_state* s, const " << T << "** data, size_t* count);\n";
    }
    h << "/* The message of an error code, and of the last error of `s`. */\nconst char* " << N
      << "_strerror(int code);\nconst char* " << N << "_error(const " << N << "_state* s);\n\n"
      << "/* By name, for generic drivers: a declared variable (dtype is its OINF tag, input 1 "
         "for\n * the dynamic inputs), insert and fetch of `bytes` bytes, and the names entry's "
         "`return` lists. */\ntypedef struct "
      << N
      << "_var_info {\n  const char* name;\n  uint32_t dtype;\n  uint32_t rank;\n  const "
         "uint64_t* dims;\n  size_t bytes;\n  int input;\n} "
      << N << "_var_info;\nconst " << N << "_var_info* " << N << "_var(const char* name);\nint "
      << N << "_insert(" << N << "_state* s, const char* name, const void* data, size_t bytes);\n"
      << "int " << N << "_fetch(const " << N
      << "_state* s, const char* name, const void** data, size_t* bytes);\nconst char* const* " << N
      << "_outputs(size_t* count);\n\n#ifdef __cplusplus\n}\n#endif\n#endif\n";

    // ---- the source ----
    std::ostringstream c;
    c << "/* Generated by OpenInfer's C emitter from " << str(root_.at("graph"))
      << ": the freestanding profile for " << device_name_
      << " (docs/synth.md).\n * No allocation, no stdio, no files, no exit; libm and memcpy/memset "
         "only. */\n#include <math.h>\n"
      << (messages ? "#include <stdarg.h>\n" : "") << "#include <string.h>\n\n#include \"" << N
      << ".h\"\n"
      << library_include() << "\n"
      << "/* GCC's -O2 cost model (very-cheap) leaves these loops scalar; ask for the dynamic\n"
         " * one on the kernels alone. */\n"
         "#if defined(__GNUC__) && !defined(__clang__)\n"
         "#define OI_KERNEL __attribute__((optimize(\"tree-vectorize\", "
         "\"vect-cost-model=dynamic\")))\n"
         "#else\n#define OI_KERNEL\n#endif\n"
         "#if defined(__GNUC__)\n#define OI_HELPER __attribute__((unused))\n#define OI_CONST_ALIGN "
         "__attribute__((aligned("
      << align_
      << ")))\n#else\n#define OI_HELPER\n#define OI_CONST_ALIGN\n#endif\n"
         "/* The register-blocked kernels' multiply-add: fused where the FPU fuses (VFMA). */\n"
         "#if defined(__FP_FAST_FMAF)\n#define OI_FMAF(a, b, c) fmaf(a, b, c)\n#else\n"
         "#define OI_FMAF(a, b, c) ((a) * (b) + (c))\n#endif\n"
         "#if defined(__FP_FAST_FMA)\n#define OI_FMA(a, b, c) fma(a, b, c)\n#else\n"
         "#define OI_FMA(a, b, c) ((a) * (b) + (c))\n#endif\n\n";
    c << note_macro_c(can_fail);
    for (const char* hp : op_table().helpers) c << hp;
    if (tables) c << tables_c(true) << yield_copy_c(true, true, false);
    c << "#ifndef " << N << "_NO_STATIC_ARENA\nstatic _Alignas(" << layout.align
      << ") unsigned char arena_storage[" << std::max<uint64_t>(layout.total, 1)
      << "u];\n#endif\n\n";
    if (messages)
      c << R"C(/* printf's %s, %d, %lld, %zu and %% (what the run-time messages use) into out. */
static OI_HELPER void oi_vformat(char* out, size_t size, const char* fmt, va_list args) {
  size_t n = 0;
  for (const char* p = fmt; *p; ++p) {
    unsigned long long u = 0;
    int neg = 0;
    if (*p != '%' || p[1] == '%') {
      if (n + 1 < size) out[n++] = *p;
      if (*p == '%') ++p;
      continue;
    }
    ++p;
    if (*p == 's') {
      for (const char* q = va_arg(args, const char*); *q; ++q)
        if (n + 1 < size) out[n++] = *q;
      continue;
    } else if (p[0] == 'l' && p[1] == 'l' && p[2] == 'd') {
      const long long v = va_arg(args, long long);
      neg = v < 0;
      u = neg ? 0ull - (unsigned long long)v : (unsigned long long)v;
      p += 2;
    } else if (p[0] == 'z' && p[1] == 'u') {
      u = va_arg(args, size_t);
      ++p;
    } else if (*p == 'd') {
      const int v = va_arg(args, int);
      neg = v < 0;
      u = neg ? 0ull - (unsigned long long)(long long)v : (unsigned long long)v;
    } else {
      break;
    }
    char digits[24];
    int k = 0;
    do {
      digits[k++] = (char)('0' + (int)(u % 10u));
      u /= 10u;
    } while (u);
    if (neg && n + 1 < size) out[n++] = '-';
    while (k)
      if (n + 1 < size) out[n++] = digits[--k];
      else --k;
  }
  out[n] = '\0';
}

)C"
        << "static inline OI_HELPER int fail(" << N
        << "_state* s, int code, const char* fmt, ...) {\n  va_list args;\n  va_start(args, fmt);\n"
           "  oi_vformat(s->error, sizeof s->error, fmt, args);\n  va_end(args);\n  return "
           "code;\n}\n\n";
    c << consts.str();
    c << "const char* " << N << "_strerror(int code) {\n  switch (code) {\n    case " << N
      << "_OK: return \"ok\";\n    case " << N
      << "_ERR_NAME: return \"no variable of that name\";\n"
      << "    case " << N
      << "_ERR_INPUT: return \"an input is missing, of the wrong size, or NULL\";\n    case " << N
      << "_ERR_MEMORY: return \"a table access past its storage, or the undo record full\";\n"
      << "    case " << N << "_ERR_RUN: return \"an op failed during the step\";\n    case " << N
      << "_ERR_ARENA: return \"no arena, or an arena not aligned to " << N
      << "_ARENA_ALIGN\";\n    default: return \"unknown error code\";\n  }\n}\n\n";
    c << "const char* " << N << "_error(const " << N << "_state* s) {\n  "
      << (messages ? "return s->failed && s->error[0] ? s->error : " + N + "_strerror(s->failed);"
                   : "return " + N + "_strerror(s->failed);")
      << "\n}\n\n";
    // init
    c << "int " << N << "_init(" << N << "_state* s, void* arena) {\n  if (!s) return " << N
      << "_ERR_INPUT;\n  memset(s, 0, sizeof *s);\n#ifndef " << N
      << "_NO_STATIC_ARENA\n  if (!arena) arena = arena_storage;\n#endif\n  if (!arena || "
         "(uintptr_t)arena % "
      << N << "_ARENA_ALIGN != 0u) return s->failed = " << N
      << "_ERR_ARENA;\n  s->arena = (unsigned char*)arena;\n";
    for (const Value& v : values_) {
      if (v.storage == "internal") continue;
      if (v.ptable) {
        c << "  {\n    static const int64_t bound[] = {";
        for (size_t i = 0; i < v.bounds.size(); ++i) c << (i ? ", " : "") << v.bounds[i] << "ll";
        c << "};\n    oi_tab_create(&s->t_" << v.name << ", " << v.bounds.size() << "u, bound, "
          << v.bytes << "u, "
          << (v.init ? "(const unsigned char*)tinit_" + v.name : std::string("NULL"))
          << ", (unsigned char*)s->m_t_" << v.name << ", s->m_f_" << v.name << ", &s->mem);\n"
          << entry_bits_c(v) << "  }\n";
        continue;
      }
      if (v.storage == "arena") {
        c << "  s->v_" << v.name << " = s->arena + " << v.offset << "u;\n";
      } else if (v.storage == "constant") {
        if (v.table)
          c << "  s->v_" << v.name << " = (void*)emb_" << v.name << ";\n  s->avail_" << v.name
            << " = emb_avail_" << v.name << ";\n";
        else if (embedded_.count(v.name))
          c << "  s->v_" << v.name << " = (void*)emb_" << v.name << ";\n";
        else if (packed_bits(v.dtype))
          c << "  s->v_" << v.name << " = s->m_" << v.name << ";\n  { "
            << fill_code(v, "s->v_" + v.name) << " }\n";
        else
          c << "  s->v_" << v.name << " = (void*)cinit_" << v.name << ";\n";
      } else {
        c << "  s->v_" << v.name << " = s->m_" << v.name << ";\n";
        if (v.storage == "persistent") {
          if (embedded_.count(v.name))
            c << "  memcpy(s->v_" << v.name << ", emb_" << v.name << ", " << v.bytes << "u);\n";
          else if (v.init)
            c << "  { " << fill_code(v, "s->v_" + v.name) << " }\n";
        }
        if (v.storage == "step" && embedded_.count(v.name))
          c << "  s->from_" << v.name << " = emb_" << v.name << ";\n";
      }
      if (yielded_.count(v.name))
        c << "  s->snap_" << v.name << " = s->m_snap_" << v.name << ";\n  s->res_" << v.name
          << " = s->m_res_" << v.name << ";\n";
    }
    for (const auto& [field, bytes] : tabview_fields_)
      c << "  s->v_" << field << " = s->arena + " << layout.offset.at(field) << "u;\n";
    for (const auto& [n, at] : undo.copy_at)
      c << "  s->u_" << n << " = s->arena + " << at << "u;\n";
    if (tables)
      c << "  s->mem.log = s->arena + " << undo.log_at << "u;\n  s->mem.cap = " << undo.log_bytes
        << "u;\n";
    for (const auto& [field, bytes] : scratch_) {
      if (layout.persistent.count(field))
        c << "  s->" << field << " = s->m_" << field << ";\n";
      else
        c << "  s->" << field << " = s->arena + " << layout.offset.at(field) << "u;\n";
    }
    c << "  return " << N << "_OK;\n}\n\n";
    // typed and by-name insert and fetch
    for (const Value* v : declared) {
      const std::string T = c_type(v->dtype);
      const uint64_t n = elements(*v);
      if (v->storage == "dynamic")
        c << "int " << N << "_insert_" << v->name << "(" << N << "_state* s, const " << T
          << "* data, size_t count) {\n  if (!s || !data || count != " << n << "u) return " << N
          << "_ERR_INPUT;\n  memcpy(s->v_" << v->name << ", data, " << v->bytes << "u);\n  s->have_"
          << v->name << " = 1;\n  return " << N << "_OK;\n}\n\n";
      if (v->storage == "constant") continue;
      c << "int " << N << "_fetch_" << v->name << "(const " << N << "_state* s, const " << T
        << "** data, size_t* count) {\n  if (!s || !data || !count) return " << N
        << "_ERR_INPUT;\n  *data = (const " << T << "*)"
        << (v->ptable ? table_data_c(*v) : "s->v_" + v->name) << ";\n  *count = " << n
        << "u;\n  return " << N << "_OK;\n}\n\n";
    }
    c << "const " << N << "_var_info* " << N << "_var(const char* name) {\n  for (const " << N
      << "_var_info* v = vars; v->name; ++v)\n    if (strcmp(v->name, name) == 0) return v;\n"
         "  return NULL;\n}\n\n";
    c << "const char* const* " << N << "_outputs(size_t* count) {\n  *count = " << outputs_.size()
      << "u;\n  return outputs;\n}\n\n";
    c << "int " << N << "_insert(" << N
      << "_state* s, const char* name, const void* data, size_t bytes) {\n"
         "  const "
      << N << "_var_info* v = " << N << "_var(name);\n  (void)s;\n  (void)data;\n"
      << "  if (!v || !v->input) return " << N << "_ERR_NAME;\n  if (bytes != v->bytes) return "
      << N << "_ERR_INPUT;\n";
    for (const Value* v : declared)
      if (v->storage == "dynamic")
        c << "  if (strcmp(name, \"" << v->name << "\") == 0)\n    return " << N << "_insert_"
          << v->name << "(s, (const " << c_type(v->dtype) << "*)data, " << elements(*v) << "u);\n";
    c << "  return " << N << "_ERR_NAME;\n}\n\n";
    c << "int " << N << "_fetch(const " << N
      << "_state* s, const char* name, const void** data, size_t* bytes) {\n"
         "  const "
      << N << "_var_info* v = " << N << "_var(name);\n  if (!v || !s || !data || !bytes) return "
      << N << "_ERR_NAME;\n  *bytes = v->bytes;\n";
    for (const Value* v : declared)
      c << "  if (strcmp(name, \"" << v->name
        << "\") == 0) {\n    *data = " << (v->ptable ? table_data_c(*v) : "s->v_" + v->name)
        << ";\n    return " << N << "_OK;\n  }\n";
    c << "  return " << N << "_ERR_NAME;\n}\n\n";
    c << end_step_c(tables);
    c << kernels;
    c << "int " << N << "_step(" << N << "_state* s) {\n  if (!s || !s->arena) return " << N
      << "_ERR_ARENA;\n";
    // A missing input: the hosted message where the program has messages (none is stale then).
    for (const Value& v : values_) {
      if (v.storage != "dynamic") continue;
      c << "  if (!s->have_" << v.name << ") return s->failed = ";
      if (messages && first_read_.count(v.name)) {
        const std::string& at = first_read_.at(v.name);
        c << "fail(s, " << N << "_ERR_INPUT, \""
          << format_text(at.substr(at.find_last_of('/') + 1) + ": dynamic variable '" + v.name +
                         "' was not inserted for this step (insert it before every step)")
          << "\");\n";
      } else {
        c << N << "_ERR_INPUT;\n";
      }
    }
    for (const Value& v : values_)
      if (v.storage == "step")
        c << "  if (s->from_" << v.name << ") memcpy(s->v_" << v.name << ", s->from_" << v.name
          << ", " << v.bytes << "u);\n  else { " << fill_code(v, "s->v_" + v.name) << " }\n";
    c << "  s->failed = " << N << "_OK;\n" << step_body;
    if (step_body.find("goto done;") != std::string::npos) c << "done:\n";
    for (const Value& v : values_)
      if (v.storage == "dynamic") c << "  s->have_" << v.name << " = 0;\n";
    // A failed step leaves persistent memory and tables as they were before it.
    c << "  end_step(s, s->failed != " << N << "_OK);\n  return s->failed;\n}\n";
    c << library_unit();

    const std::string source = c.str();
    const std::string report =
        budget_report(source, code_estimate(kernels + step_body, tables, messages), weight_bytes,
                      layout, state_bytes, io_bytes);
    return {{N + ".h", h.str()}, {N + ".c", source}, {N + ".report.txt", report}};
  }

  // Flash, RAM and stack of the freestanding program (the model's part: no driver), and the
  // device's budgets: over one, synthesis stops with the numbers.
  std::string budget_report(const std::string& source, uint64_t code, uint64_t weight_bytes,
                            const ScratchLayout& layout, uint64_t state_bytes,
                            uint64_t io_bytes) const {
    const uint64_t stack = stack_estimate(source);
    const uint64_t flash = weight_bytes + code;
    const uint64_t ram = layout.total + state_bytes + stack;
    auto pct = [](uint64_t v, uint64_t of) {
      char b[32];
      std::snprintf(b, sizeof b, "%.1f%%",
                    100.0 * static_cast<double>(v) / static_cast<double>(of));
      return std::string(b);
    };
    std::ostringstream r;
    r << name_ << ": the freestanding C for " << device_name_
      << (device_origin_.empty() ? "" : " (" + device_origin_ + ")") << "\n"
      << "  flash  " << flash << " B";
    if (flash_budget_) r << " of " << flash_budget_ << " B (" << pct(flash, flash_budget_) << ")";
    r << ": weights and constants " << weight_bytes << " B, code about " << code
      << " B (the model's functions and the libm functions they call)\n"
      << "  RAM    " << ram << " B";
    if (ram_budget_) r << " of " << ram_budget_ << " B (" << pct(ram, ram_budget_) << ")";
    r << ": arena " << layout.total << " B (memory plan " << layout.plan << " B, kernel scratch "
      << layout.region << " B, undo record " << layout.undo << " B), state "
      << state_bytes - io_bytes << " B, I/O buffers " << io_bytes << " B, stack about " << stack
      << " B\n";
    if (flash_budget_ && flash > flash_budget_)
      refuse_device_limit("c emitter", "'" + name_ + "' (the freestanding C)",
                          std::to_string(flash) + " B of flash (weights and constants " +
                              std::to_string(weight_bytes) + " B, code about " +
                              std::to_string(code) + " B)",
                          device_name_, "memory.flash_bytes " + std::to_string(flash_budget_));
    if (ram_budget_ && ram > ram_budget_)
      refuse_device_limit("c emitter", "'" + name_ + "' (the freestanding C)",
                          std::to_string(ram) + " B of RAM (arena " + std::to_string(layout.total) +
                              " B, state " + std::to_string(state_bytes - io_bytes) +
                              " B, I/O buffers " + std::to_string(io_bytes) + " B, stack about " +
                              std::to_string(stack) + " B)",
                          device_name_, "memory.ram_bytes " + std::to_string(ram_budget_));
    return r.str();
  }

  // Code bytes, estimated from the generated C (Thumb-2 at -O2): about 6.5 bytes per statement
  // of the kernels and the steps, their messages, the per-variable functions and tables, the
  // table and message support, and the libm functions called. Against arm-none-eabi-size on
  // the VAD, the tiny ResNet and the tiny GPT (tests/mcu) it lands within 25% of the code, so
  // within 2% of the flash these models need.
  uint64_t code_estimate(const std::string& code, bool tables, bool messages) const {
    uint64_t statements = 0, strings = 0;
    bool in_string = false;
    for (size_t i = 0; i < code.size(); ++i) {
      const char ch = code[i];
      if (in_string) {
        if (ch == '\\')
          ++i;
        else if (ch == '"')
          in_string = false;
        ++strings;
      } else if (ch == '"') {
        in_string = true;
      } else if (ch == ';') {
        ++statements;
      }
    }
    uint64_t bytes = 400 + statements * 13 / 2 + strings + 64 * declared_values().size() +
                     (tables ? 1800 : 0) + (messages ? 600 : 0);
    for (const auto& [fn, size] : std::vector<std::pair<const char*, uint64_t>>{{"expf(", 500},
                                                                                {"tanhf(", 800},
                                                                                {"erfcf(", 1500},
                                                                                {"logf(", 500},
                                                                                {"sinf(", 1500},
                                                                                {"cosf(", 1500},
                                                                                {"powf(", 1500},
                                                                                {"exp(", 1200},
                                                                                {"tanh(", 1500},
                                                                                {"erfc(", 2500},
                                                                                {"erf(", 2500},
                                                                                {"log(", 1000},
                                                                                {"sin(", 2000},
                                                                                {"cos(", 2000},
                                                                                {"pow(", 3000},
                                                                                {"sqrt(", 100},
                                                                                {"memcpy(", 150},
                                                                                {"memset(", 100}})
      if (code.find(fn) != std::string::npos) bytes += size;
    // The C kernel library's entry points the kernels call (their op files' other dtypes are
    // dropped by --gc-sections): about 2 KiB each, and libm for its math.
    std::set<std::string> entry_points;
    for (size_t at = code.find("if (oik_"); at != std::string::npos;
         at = code.find("if (oik_", at + 1))
      entry_points.insert(code.substr(at + 4, code.find('(', at + 4) - at - 4));
    bytes += 2048 * entry_points.size() + (entry_points.empty() ? 0 : 3000);
    return bytes;
  }

  // The deepest stack of a step: the step's frame, the blocks it calls, a kernel's frame and
  // what a kernel calls (libm, memcpy); generous by design (the tests' painted-stack check must
  // stay below it).
  static uint64_t stack_estimate(const std::string& source) {
    uint64_t blocks = 0;
    for (size_t at = source.find("static void block_"); at != std::string::npos;
         at = source.find("static void block_", at + 1))
      ++blocks;
    const bool libm = source.find("exp") != std::string::npos ||
                      source.find("tanh") != std::string::npos ||
                      source.find("erf") != std::string::npos;
    // A call into the C kernel library: its message buffer and its kernels' frames (the
    // deepest, attention's and matmul's, under 2 KiB at -O2).
    const bool library = source.find("oi_kernels/oi_kernels.c") != std::string::npos;
    return 128 + 64 * std::min<uint64_t>(blocks, 8) + 320 + (libm ? 256 : 64) +
           (library ? 2560 : 0);
  }
};

}  // namespace

std::vector<GeneratedFile> generate_c(const std::string& plan_json, const std::string& name,
                                      const WeightLookup* embed, const WeightLookup* model,
                                      const KernelLibrary* library,
                                      const std::string& library_missing) {
  // A key the plan lacks or holds with another type (boost::json's at() and as_*(), a
  // container's at()) is a plan the planner never writes: the one invalid_plan error.
  try {
    Generator generator(plan_json, name, embed, model, library, library_missing);
    ProfileScope scope(generator.profile());
    return generator.run();
  } catch (const boost::system::system_error& e) {
    invalid_plan(std::string("a key is missing or holds another type (") + e.what() + ")");
  } catch (const std::out_of_range& e) {
    invalid_plan(std::string("a key or an index is missing (") + e.what() + ")");
  } catch (const std::invalid_argument& e) {
    invalid_plan(std::string("a value holds another type (") + e.what() + ")");
  }
}

}  // namespace oi::c_emitter
