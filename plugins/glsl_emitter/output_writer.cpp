// The manifest: values with their memory, kernels with bindings and workgroup counts, and the
// blocks as host steps. Barriers come from the kernels' reads and writes: a dispatch waits for
// earlier work only when it reads what that work wrote or writes what it touched (arena values
// count as one resource, since planned offsets are shared).
#include "output_writer.hpp"

#include <algorithm>
#include <set>

#include "embedded_host.inc"  // kHostCpp, kOinfIoHpp: host/glsl_host.cpp, host/oinf_io.hpp
#include "openinfer/plugin_abi.hpp"
#include "plan_input.hpp"
#include "shader_writer.hpp"
#include "vulkan_kernels.hpp"
#include "vulkan_shaders.hpp"

namespace oi::glsl {

namespace json = boost::json;

namespace {

class ManifestWriter {
 public:
  ManifestWriter(const PlanIn& plan, const DeviceIn& device, std::vector<KernelShader>& shaders)
      : plan_(plan), device_(device), shaders_(shaders) {}

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
      invalid("the plan names value '" + name + "' but does not list it");
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
    auto side = [&](const ValueRef& r, const std::string& text, uint64_t& bytes,
                    std::vector<std::string>& terms) -> const ValueIn& {
      auto it = plan_.value_index.find(r.name);
      if (it == plan_.value_index.end())
        invalid(kind + line + ": the plan does not list '" + r.name + "'");
      const ValueIn& v = plan_.values[it->second];
      if (v.storage == "internal") unsupported(kind + line + ": '" + text + "' has no memory");
      if (!v.is_table()) {
        if (!r.index.empty() || r.all)
          unsupported(
              kind + line + " of '" + text +
              "': slices of tensors are not supported (whole values and table entries are)");
        bytes = v.bytes;
        return v;
      }
      terms = r.index;
      if (terms.size() > v.indices.size())
        invalid(kind + line + ": '" + text + "' gives more indices than table '" + v.name +
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
          if (b < a) invalid(kind + line + ": empty window '" + term + "' of '" + text + "'");
          count *= static_cast<uint64_t>(b - a);
        } else {
          known = false;
        }
      }
      bytes = known ? count * v.entry_bytes : 0;
      return v;
    };
    uint64_t fb = 0, tb = 0;
    std::vector<std::string> fterms, tterms;
    const ValueIn& fv = side(f, from, fb, fterms);
    const ValueIn& tv = side(t, to, tb, tterms);
    if (fv.dtype != tv.dtype || (fb && tb && fb != tb))
      unsupported(kind + line + " from '" + from + "' to '" + to +
                  "': only copies of one dtype and size are supported");
    access(out, {from}, {to});
    json::object c{{"op", "copy"}, {"from", f.name}, {"to", t.name}};
    if (fv.is_table()) c["from_entry"] = json::array(fterms.begin(), fterms.end());
    if (tv.is_table()) c["to_entry"] = json::array(tterms.begin(), tterms.end());
    if (!at.empty()) c["at"] = at;
    out.push_back(std::move(c));
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
      if (kind == "kernel")
        for (const std::string& w : plan_.kernels.at(st.at("kernel").to_number<size_t>()).writes)
          out.insert(w);
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
    invalid("the plan has no block '" + block + "'");
  }

  // dsl.md's deterministic result, as the C target: at entry's yield the consumers run one
  // after another in source order, each from a snapshot of the yielded values; a value a
  // consumer writes is set aside and the snapshot put back for the next; the results land
  // after the last.
  void run_consumers(const json::object& s, json::array& out) {
    std::vector<const ValueIn*> names;
    for (const json::value& n : s.at("names").as_array()) {
      const ValueIn& v = plan_.value(std::string(n.as_string()));
      if (v.storage == "internal")
        unsupported("yield of '" + v.name + "': the value has no memory");
      names.push_back(&v);
    }
    for (const ValueIn* v : names) copy(out, v->name, scratch("@snap_", *v));
    std::vector<const ValueIn*> written;
    for (const json::value& t : s.at("tasks").as_array()) {
      const std::string task(t.as_string());
      full_barrier(out);
      out.push_back(json::object{{"op", "branch"}, {"cond", ""}, {"then", task}, {"else", ""}});
      full_barrier(out);
      std::set<std::string> writes;
      block_writes(steps_of(task), writes);
      for (const ValueIn* v : names) {
        if (!writes.count(v->name)) continue;
        if (std::find(written.begin(), written.end(), v) == written.end()) written.push_back(v);
        copy(out, v->name, scratch("@res_", *v));
        copy(out, scratch("@snap_", *v), v->name);
      }
    }
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
      invalid(std::string("a plan step has no string '") + key + "'");
    return std::string(v->as_string());
  }

  void add_step(const json::value& sv, json::array& out) {
    if (!sv.is_object()) invalid("a plan step is not an object");
    const json::object& s = sv.as_object();
    const std::string kind = str(s, "kind");
    const std::string line =
        s.contains("line") ? " (line " + json::serialize(s.at("line")) + ")" : std::string();
    if (kind == "kernel") {
      const json::value* k = s.if_contains("kernel");
      if (!k || !k->is_int64() || k->as_int64() < 0 ||
          static_cast<size_t>(k->as_int64()) >= plan_.kernels.size())
        invalid("a kernel step names no kernel of the plan");
      const KernelIn& kernel = plan_.kernels[static_cast<size_t>(k->as_int64())];
      access(out, kernel.reads, kernel.writes);
      out.push_back(json::object{{"op", "dispatch"}, {"kernel", kernel.id}, {"step", s.at("id")}});
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
      entry_copy(kind, line, str(s, "from"), str(s, "to"), at, out);
    } else if (kind == "cache.increment" || kind == "cache.decrement") {
      // A one-invocation kernel adds the amount on the device (no read back).
      const std::string var = str(s, "var");
      const json::value* amount = s.if_contains("amount");
      if (!amount || !amount->is_int64()) invalid(kind + line + " has no integer amount");
      const int64_t delta = kind == "cache.increment" ? amount->as_int64() : -amount->as_int64();
      const auto id = static_cast<uint32_t>(shaders_.size());
      shaders_.push_back(write_counter_shader(plan_, device_, id, var, delta, kind + line));
      access(out, {var}, {var});
      out.push_back(json::object{{"op", "dispatch"}, {"kernel", id}, {"step", s.at("id")}});
    } else if (kind == "cache.reset") {
      // A whole value, a whole table or one entry: its @init value, else zeros.
      const std::string target = str(s, "target");
      const ValueRef r = parse_ref(target);
      const ValueIn& v = plan_.value(r.name);
      if (v.storage == "internal" || v.storage == "arena")
        unsupported(kind + line + ": '" + target + "' must be a declared variable");
      if (v.is_table() && v.storage == "constant")
        unsupported(kind + line + " of constant table '" + r.name + "'");
      std::vector<std::string> terms = r.index;  // `X[l]`: every entry under l
      if (!terms.empty()) {
        if (!v.is_table() || terms.size() > v.indices.size())
          unsupported(kind + line + " of '" + target + "': not an entry of a table");
        for (const std::string& term : terms)
          if (term.find("..") != std::string::npos)
            unsupported(kind + line + " of '" + target + "': a window");
        for (size_t i = terms.size(); i < v.indices.size(); ++i)
          terms.push_back(v.bound[i] ? "0.." + std::to_string(v.bound[i]) : "0..");
      }
      access(out, {}, {r.name});
      json::object reset{{"op", "reset"}, {"value", r.name}};
      if (!terms.empty()) reset["entry"] = json::array(terms.begin(), terms.end());
      if (const json::value* a = s.if_contains("target_at"); a && a->is_string()) reset["at"] = *a;
      out.push_back(std::move(reset));
    } else if (kind == "yield" && entry_) {
      run_consumers(s, out);
    } else if (kind == "yield" || kind == "await") {
      // a consumer's own await and yield, and entry's await: nothing is left to wait for.
    } else if (kind == "loop") {
      full_barrier(out);
      const json::value* body = s.if_contains("body");
      if (!body || !body->is_array()) invalid("a loop step has no body");
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
          unsupported("branch" + line + ": condition '" + cond + "' has no memory of its own");
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
      unsupported("step '" + kind + "'" + line + " cannot be expressed by the glsl target yet");
    }
  }

  const PlanIn& plan_;
  const DeviceIn& device_;
  std::vector<KernelShader>& shaders_;  // the plan's kernels, then those of host steps
  std::set<std::string> reads_, writes_;
  std::vector<json::object> scratch_;
  bool entry_ = false;
};

json::object value_json(const ValueIn& v) {
  json::object o{{"name", v.name}, {"dtype", v.dtype}, {"storage", v.storage}, {"bytes", v.bytes}};
  o["shape"] = json::array(v.shape.begin(), v.shape.end());
  if (!v.link.empty()) o["link"] = v.link;
  if (v.init) o["init"] = *v.init;
  if (v.storage == "arena") {
    o["offset"] = v.offset;
    o["zero_fill"] = v.zero_fill;
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

// The one dispatch point of a plan kernel: the emitter's own writers (fused chains, matmul and
// reductions with their epilogues, single ops), else the Vulkan backend's kernels recorded
// (vulkan_kernels.hpp). OPENINFER_GLSL_OWN_WRITERS_ONLY=1 turns the second off (to count what
// the own writers cover). Where both refuse, the writer's message names the op and the
// backend's reason follows it.
KernelShader write_kernel(const PlanIn& plan, const DeviceIn& device, const KernelIn& kernel) {
  const char* only = std::getenv("OPENINFER_GLSL_OWN_WRITERS_ONLY");
  const bool own_only = only && std::string(only) == "1";
  // A single op (kind `op`: movement, conv and pools, the row ops, attention, gather, ...) runs
  // the backend's shader where it can be recorded: one source of their semantics. The own
  // single-op writers remain for what recording refuses (table entries as operands), and for
  // rms_norm: the backend's rows.comp gives finite values for a row holding a NaN where the CPU
  // backend gives NaN (tests/synth/c/norm.oi), to be fixed there first.
  if (kernel.kind == "op" && kernel.ops.front().op != "rms_norm" && !own_only &&
      have_vulkan_kernels()) {
    try {
      return record_kernel(plan, device, kernel);
    } catch (const abi::StatusError&) {
    }
  }
  try {
    return write_kernel_shader(plan, device, kernel);
  } catch (const abi::StatusError& own) {
    if (own.code() != OI_STATUS_UNIMPLEMENTED || !have_vulkan_kernels() || own_only) throw;
    try {
      return record_kernel(plan, device, kernel);
    } catch (const abi::StatusError& vk) {
      std::string why = vk.what();
      if (why.rfind("glsl emitter: ", 0) == 0) why = why.substr(14);
      throw abi::StatusError(own.code(), std::string(own.what()) + "; through the Vulkan " +
                                             "backend's kernels: " + why);
    }
  }
}

// The manifest entry of a kernel run through the Vulkan backend's shaders; `variants` collects
// the SPIR-V variants the program's CMakeLists.txt compiles.
json::object recorded_kernel_json(size_t id, const std::string& kind, const KernelShader& ks,
                                  std::set<std::string>& variants) {
  json::array dispatches;
  for (const VulkanDispatch& d : ks.dispatches) {
    const ShaderVariant* base = shader_variant(d.variant);
    if (base == nullptr) invalid("the Vulkan backend has no shader variant '" + d.variant + "'");
    json::object jd{{"shader", "shaders/vulkan/" + base->source},
                    {"spirv", "shaders/" + d.variant + ".spv"}};
    variants.insert(d.variant);
    // The backend's choice (device.cpp): "_fc" where the device preserves subnormals and IEEE
    // specials at float_width (and 64 bits with also_f64), else "_ieee" where it preserves the
    // specials; the host program makes it for the device it runs on.
    if (d.float_width) {
      for (const char* suffix : {"_fc", "_ieee"})
        if (shader_variant(d.variant + suffix)) {
          jd[std::string("spirv") + suffix] = "shaders/" + d.variant + suffix + ".spv";
          variants.insert(d.variant + suffix);
        }
      jd["float_width"] = d.float_width;
      jd["also_f64"] = d.also_f64;
    }
    jd["spec"] = json::array(d.spec.begin(), d.spec.end());
    jd["params"] = json::array(d.params.begin(), d.params.end());
    jd["workgroups"] = json::array(d.groups.begin(), d.groups.end());
    json::array bindings{json::object{{"binding", 0}, {"value", "@params"}, {"access", "read"}}};
    for (size_t i = 0; i < d.values.size(); ++i)
      bindings.push_back(json::object{
          {"binding", i + 1}, {"value", d.values[i]}, {"access", "read_write"}, {"whole", true}});
    jd["bindings"] = std::move(bindings);
    dispatches.push_back(std::move(jd));
  }
  json::array checks, copies, zero, tables;
  for (const RopeTable& r : ks.rope_tables)
    tables.push_back(json::object{{"pos", r.pos},
                                  {"wide", r.wide},
                                  {"theta", r.theta},
                                  {"T", r.T},
                                  {"D", r.D},
                                  {"f64", r.f64},
                                  {"table", r.table}});
  for (const IndexCheck& c : ks.checks)
    checks.push_back(json::object{{"value", c.value},
                                  {"count", c.count},
                                  {"wide", c.wide},
                                  {"bound", c.bound},
                                  {"message", c.message}});
  for (const auto& [from, to] : ks.copies)
    copies.push_back(json::object{{"from", from}, {"to", to}});
  for (const ScratchValue& v : ks.scratch) zero.push_back(json::value(v.name));
  return json::object{{"id", id},
                      {"kind", kind},
                      {"workgroups", json::array{1, 1, 1}},
                      {"bindings", json::array{}},
                      {"checks", std::move(checks)},
                      {"rope_tables", std::move(tables)},
                      {"zero", std::move(zero)},
                      {"dispatches", std::move(dispatches)},
                      {"copies", std::move(copies)}};
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
                                     const std::string& name) {
  if (!valid_name(name))
    invalid("--name '" + name +
            "' must be 1-64 characters of [A-Za-z0-9_-] (it names the program)");
  const DeviceIn device = read_device(device_json);
  const PlanIn plan = read_plan(plan_json);
  std::vector<KernelShader> shaders;
  for (const KernelIn& k : plan.kernels) shaders.push_back(write_kernel(plan, device, k));

  // The blocks first: host steps such as cache.increment add kernels of their own.
  ManifestWriter writer(plan, device, shaders);
  json::array blocks, outputs;
  for (const json::value& b : plan.blocks) {
    if (!b.is_object() || !b.as_object().contains("steps") || !b.at("steps").is_array() ||
        !b.at("name").is_string())
      invalid("a plan block has no name or steps");
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
  json::array values, errors;
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
  for (const KernelShader& ks : shaders)
    for (const auto& [code, message] : ks.errors)
      errors.push_back(json::object{{"code", code}, {"kernel", code >> 8}, {"message", message}});
  if (!errors.empty())  // the status buffer the shaders report run-time errors to
    values.push_back(json::object{{"name", kStatusValue},
                                  {"dtype", "u32"},
                                  {"storage", "status"},
                                  {"bytes", 8},
                                  {"shape", json::array{2}}});
  manifest["errors"] = std::move(errors);
  manifest["values"] = std::move(values);
  json::array kernels;
  std::vector<OutputFile> files;
  std::set<std::string> variants;
  for (size_t i = 0; i < shaders.size(); ++i) {
    const KernelShader& ks = shaders[i];
    const std::string kind = i < plan.kernels.size() ? plan.kernels[i].kind : "step";
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
      if (b.value == kStatusValue) continue;
      const std::string& d = plan.value(b.value).dtype;
      storage16 = storage16 || d == "f16" || d == "bf16";
      storage8 = storage8 || d == "bool" || d == "f8";
    }
    kernels.push_back(
        json::object{{"id", i},
                     {"kind", i < plan.kernels.size() ? plan.kernels[i].kind : "step"},
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
  std::set<std::string> sources;
  for (const std::string& v : variants)
    for (auto& [file, text] : shader_sources(shader_variant(v)->source))
      if (sources.insert(file).second) files.push_back({"shaders/vulkan/" + file, text});
  files.push_back({"CMakeLists.txt", cmake_lists(name, shaders.size(), variants)});
  return files;
}

}  // namespace oi::glsl
