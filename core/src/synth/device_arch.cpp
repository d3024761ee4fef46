// DeviceArch: JSON -> validated description, and back. Every error names the key path; keys
// this version does not know become warnings (a newer file still loads).
#include "openinfer/device_arch.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <fstream>
#include <sstream>

#include "../graph/json_pretty.hpp"
#include "openinfer/error.hpp"

namespace oi {

namespace json = boost::json;

namespace {

class SectionReader {
 public:
  SectionReader(const json::object& o, std::string path, const std::string& origin,
                std::vector<std::string>& warnings)
      : o_(o), path_(std::move(path)), origin_(origin), warnings_(warnings) {}

  // Call after reading every known key: the rest become warnings.
  void warn_unknown() {
    for (const auto& kv : o_) {
      const std::string key(kv.key());
      if (std::find(known_.begin(), known_.end(), key) == known_.end())
        warnings_.push_back(origin_ + ": unknown key '" + full(key) + "' (ignored)");
    }
  }

  const json::value* get(const std::string& key, bool required) {
    known_.push_back(key);
    const json::value* v = o_.if_contains(key);
    if (!v && required) fail(key, "is required");
    return v;
  }

  void string(const std::string& key, std::string& out, bool required,
              std::vector<std::string> allowed = {}) {
    const json::value* v = get(key, required);
    if (!v) return;
    if (!v->is_string()) fail(key, "expected a string");
    std::string s(v->as_string());
    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), s) == allowed.end()) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "\"" : ", \"") + a + "\"";
      fail(key, "expected one of " + list + ", got \"" + s + "\"");
    }
    out = std::move(s);
  }

  void boolean(const std::string& key, bool& out, bool required) {
    const json::value* v = get(key, required);
    if (!v) return;
    if (!v->is_bool()) fail(key, "expected true or false");
    out = v->as_bool();
  }

  uint64_t to_uint(const std::string& key, const json::value& v, bool positive) {
    if (v.is_uint64()) {
      if (positive && v.as_uint64() == 0) fail(key, "expected a positive integer, got 0");
      return v.as_uint64();
    }
    if (v.is_int64()) {
      int64_t i = v.as_int64();
      if (i < 0 || (positive && i == 0))
        fail(key, std::string("expected a ") + (positive ? "positive" : "non-negative") +
                      " integer, got " + std::to_string(i));
      return static_cast<uint64_t>(i);
    }
    fail(key, std::string("expected a ") + (positive ? "positive" : "non-negative") + " integer");
  }

  template <class T>
  void uint(const std::string& key, T& out, bool required, bool positive = false,
            uint64_t max = UINT64_MAX) {
    const json::value* v = get(key, required);
    if (!v) return;
    uint64_t u = to_uint(key, *v, positive);
    if (u > max) fail(key, "must be at most " + std::to_string(max));
    out = static_cast<T>(u);
  }

  void uint_array3(const std::string& key, std::array<uint64_t, 3>& out, bool required) {
    const json::value* v = get(key, required);
    if (!v) return;
    const char* what = "expected an array of 3 positive integers";
    if (!v->is_array() || v->as_array().size() != 3) fail(key, what);
    for (size_t i = 0; i < 3; ++i) {
      const json::value& e = v->as_array()[i];
      if (!(e.is_uint64() || e.is_int64()) || (e.is_int64() && e.as_int64() <= 0) ||
          (e.is_uint64() && e.as_uint64() == 0))
        fail(key + "[" + std::to_string(i) + "]", what);
      out[i] = e.is_uint64() ? e.as_uint64() : static_cast<uint64_t>(e.as_int64());
    }
  }

  void strings(const std::string& key, std::vector<std::string>& out, bool required) {
    const json::value* v = get(key, required);
    if (!v) return;
    if (!v->is_array()) fail(key, "expected an array of strings");
    out.clear();
    for (size_t i = 0; i < v->as_array().size(); ++i) {
      const json::value& e = v->as_array()[i];
      if (!e.is_string()) fail(key + "[" + std::to_string(i) + "]", "expected a string");
      out.emplace_back(e.as_string());
    }
  }

  const json::object* object(const std::string& key, bool required) {
    const json::value* v = get(key, required);
    if (!v) return nullptr;
    if (!v->is_object()) fail(key, "expected an object");
    return &v->as_object();
  }

  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    throw input_error("key '" + full(key) + "': " + problem, origin_);
  }

  std::string full(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

 private:
  const json::object& o_;
  std::string path_;
  const std::string& origin_;
  std::vector<std::string>& warnings_;
  std::vector<std::string> known_;
};

bool is_power_of_two(uint64_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

}  // namespace

DeviceArch DeviceArch::parse(std::string_view text, std::string_view origin_view) {
  DeviceArch a;
  a.origin = std::string(origin_view);
  boost::system::error_code ec;
  json::value root = json::parse(text, ec);
  if (ec) throw input_error("not valid JSON: " + ec.message(), a.origin);
  if (!root.is_object()) throw input_error("expected a JSON object at the top level", a.origin);

  SectionReader top(root.as_object(), "", a.origin, a.warnings);
  int64_t version = kDeviceArchVersion;
  top.uint("version", version, false, true);
  if (version > kDeviceArchVersion)
    top.fail("version", "unsupported version " + std::to_string(version) + " (this reader knows " +
                            std::to_string(kDeviceArchVersion) + ")");
  a.version = static_cast<int>(version);

  const json::object* device = top.object("device", true);
  SectionReader d(*device, "device", a.origin, a.warnings);
  d.string("type", a.device.type, true, {"gpu", "cpu"});
  d.string("api", a.device.api, false);
  d.string("vendor", a.device.vendor, false);
  d.string("name", a.device.name, true);
  d.string("architecture", a.device.architecture, false);
  d.string("driver", a.device.driver, false);
  d.warn_unknown();
  const bool gpu = a.device.type == "gpu";

  if (const json::object* o = top.object("limits", gpu)) {
    SectionReader r(*o, "limits", a.origin, a.warnings);
    r.uint_array3("max_workgroup_size", a.limits.max_workgroup_size, gpu);
    r.uint("max_workgroup_invocations", a.limits.max_workgroup_invocations, false, true);
    r.uint("max_shared_memory_bytes", a.limits.max_shared_memory_bytes, gpu);
    r.uint("max_push_constants_bytes", a.limits.max_push_constants_bytes, gpu);
    r.uint("max_storage_buffer_range_bytes", a.limits.max_storage_buffer_range_bytes, gpu, true);
    r.uint("subgroup_size", a.limits.subgroup_size, false, true, 1024);
    r.uint("max_rank", a.limits.max_rank, false, true, UINT32_MAX);
    r.uint("max_head_dim", a.limits.max_head_dim, false, true, UINT32_MAX);
    r.uint("max_elements", a.limits.max_elements, false, true);
    r.warn_unknown();
  }
  if (const json::object* o = top.object("features", gpu)) {
    SectionReader r(*o, "features", a.origin, a.warnings);
    r.boolean("fp16", a.features.fp16, gpu);
    r.boolean("int8", a.features.int8, gpu);
    r.boolean("fp64", a.features.fp64, false);
    r.boolean("subgroup_ops", a.features.subgroup_ops, gpu);
    r.boolean("cooperative_matrix", a.features.cooperative_matrix, gpu);
    r.warn_unknown();
  }
  // A freestanding CPU (a microcontroller) may have no caches: its cache sizes are optional.
  bool freestanding = false;
  if (const json::value* c = root.as_object().if_contains("cpu"); c && c->is_object() && !gpu)
    if (const json::value* p = c->as_object().if_contains("profile"))
      freestanding = p->is_string() && p->as_string() == "freestanding";
  {
    const json::object* o = top.object("memory", true);
    SectionReader r(*o, "memory", a.origin, a.warnings);
    const bool caches = !gpu && !freestanding;
    r.uint("global_bytes", a.memory.global_bytes, true, true);
    r.uint("shared_bytes_per_sm", a.memory.shared_bytes_per_sm, gpu);
    r.uint("l1d_bytes", a.memory.l1d_bytes, caches, caches);
    r.uint("l1i_bytes", a.memory.l1i_bytes, false);
    r.uint("l2_bytes", a.memory.l2_bytes, !freestanding);
    r.uint("l3_bytes", a.memory.l3_bytes, false);
    r.uint("bandwidth_bytes_per_s", a.memory.bandwidth_bytes_per_s, false);
    r.uint("flash_bytes", a.memory.flash_bytes, false, true);
    r.uint("ram_bytes", a.memory.ram_bytes, false, true);
    r.warn_unknown();
  }
  if (const json::object* o = top.object("cpu", !gpu)) {
    a.has_cpu = true;
    SectionReader r(*o, "cpu", a.origin, a.warnings);
    r.string("isa", a.cpu.isa, true,
             {"x86-64", "aarch64", "riscv64", "armv6-m", "armv7-m", "armv7e-m", "armv8-m.base",
              "armv8-m.main", "armv8.1-m.main", "generic"});
    r.strings("simd", a.cpu.simd, true);
    r.uint("vector_bits", a.cpu.vector_bits, true, false, 2048);
    if (a.cpu.vector_bits % 8 != 0 ||
        (a.cpu.vector_bits != 0 && !is_power_of_two(a.cpu.vector_bits)))
      r.fail("vector_bits", "expected 0 or a power of two of at least 8");
    r.uint("threads", a.cpu.threads, true, true, 65536);
    r.uint("cache_line_bytes", a.cpu.cache_line_bytes, false, true, 4096);
    if (!is_power_of_two(a.cpu.cache_line_bytes))
      r.fail("cache_line_bytes", "expected a power of two");
    r.string("profile", a.cpu.profile, false, {"hosted", "freestanding"});
    r.string("fpu", a.cpu.fpu, false, {"none", "sp", "dp"});
    r.uint("alignment_bytes", a.cpu.alignment_bytes, false, true, 4096);
    if (!is_power_of_two(a.cpu.alignment_bytes))
      r.fail("alignment_bytes", "expected a power of two");
    r.warn_unknown();
  }
  if (const json::object* o = top.object("preferences", true)) {
    SectionReader r(*o, "preferences", a.origin, a.warnings);
    r.string("default_precision", a.preferences.default_precision, false,
             {"fp32", "fp16", "bf16", "fp64"});
    r.boolean("prefer_fusion", a.preferences.prefer_fusion, true);
    r.boolean("prefer_persistent_kv", a.preferences.prefer_persistent_kv, false);
    r.uint("max_kernel_ops", a.preferences.max_kernel_ops, true, true, 4096);
    r.uint("arena_alignment", a.preferences.arena_alignment, false, true, 4096);
    if (!is_power_of_two(a.preferences.arena_alignment))
      r.fail("arena_alignment", "expected a power of two");
    r.warn_unknown();
  }
  top.warn_unknown();
  return a;
}

DeviceArch DeviceArch::load(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error("cannot open device description", path.string());
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw input_error("cannot read device description", path.string());
  return parse(text.str(), path.string());
}

DeviceArch DeviceArch::for_target(std::string_view target) {
  DeviceArch a;
  a.origin = "<target " + std::string(target) + ">";
  if (target == "c") {
    a.device = {"cpu", "c", "generic", "generic x86-64 AVX2", "x86-64-v3", ""};
    a.memory.global_bytes = 16ull << 30;
    a.memory.l1d_bytes = 32 << 10;
    a.memory.l2_bytes = 1 << 20;
    a.memory.l3_bytes = 32ull << 20;
    a.has_cpu = true;
    a.cpu.isa = "x86-64";
    a.cpu.simd = {"sse2", "avx", "avx2", "fma"};
    a.cpu.vector_bits = 256;
    a.cpu.threads = 1;
    a.cpu.cache_line_bytes = 64;
    a.preferences.max_kernel_ops = 16;
    return a;
  }
  if (target == "glsl") {
    a.device = {"gpu", "vulkan", "generic", "generic Vulkan 1.2 GPU", "", ""};
    a.limits.max_workgroup_size = {1024, 1024, 64};
    a.limits.max_shared_memory_bytes = 32768;
    a.limits.max_push_constants_bytes = 128;
    a.limits.max_storage_buffer_range_bytes = 134217728;
    a.memory.global_bytes = 4ull << 30;
    a.memory.shared_bytes_per_sm = 32768;
    a.memory.l2_bytes = 1 << 20;
    a.preferences.max_kernel_ops = 12;
    return a;
  }
  throw Error(ErrorKind::Usage,
              "unknown target '" + std::string(target) + "' (built-in targets: c, glsl)");
}

bool DeviceArch::has_simd(std::string_view feature) const {
  return std::find(cpu.simd.begin(), cpu.simd.end(), feature) != cpu.simd.end();
}

std::string DeviceArch::to_json() const {
  json::object root;
  root["version"] = version;
  json::object d;
  d["type"] = device.type;
  d["api"] = device.api;
  d["vendor"] = device.vendor;
  d["name"] = device.name;
  d["architecture"] = device.architecture;
  d["driver"] = device.driver;
  root["device"] = std::move(d);
  if (!is_cpu() || limits.max_workgroup_size[0] != 0) {
    json::object l;
    l["max_workgroup_size"] =
        json::array(limits.max_workgroup_size.begin(), limits.max_workgroup_size.end());
    if (limits.max_workgroup_invocations)
      l["max_workgroup_invocations"] = limits.max_workgroup_invocations;
    l["max_shared_memory_bytes"] = limits.max_shared_memory_bytes;
    l["max_push_constants_bytes"] = limits.max_push_constants_bytes;
    // Required and positive for a GPU; 0 on a CPU means not given, which must not print as
    // a 0 that parse() refuses.
    if (limits.max_storage_buffer_range_bytes)
      l["max_storage_buffer_range_bytes"] = limits.max_storage_buffer_range_bytes;
    if (limits.subgroup_size) l["subgroup_size"] = limits.subgroup_size;
    if (limits.max_rank) l["max_rank"] = limits.max_rank;
    if (limits.max_head_dim) l["max_head_dim"] = limits.max_head_dim;
    if (limits.max_elements) l["max_elements"] = limits.max_elements;
    root["limits"] = std::move(l);
    json::object f;
    f["fp16"] = features.fp16;
    f["int8"] = features.int8;
    f["fp64"] = features.fp64;
    f["subgroup_ops"] = features.subgroup_ops;
    f["cooperative_matrix"] = features.cooperative_matrix;
    root["features"] = std::move(f);
  }
  json::object m;
  m["global_bytes"] = memory.global_bytes;
  if (!is_cpu()) m["shared_bytes_per_sm"] = memory.shared_bytes_per_sm;
  const bool freestanding = is_freestanding();
  if (is_cpu() && (!freestanding || memory.l1d_bytes)) m["l1d_bytes"] = memory.l1d_bytes;
  if (memory.l1i_bytes) m["l1i_bytes"] = memory.l1i_bytes;
  if (!freestanding || memory.l2_bytes) m["l2_bytes"] = memory.l2_bytes;
  if (memory.l3_bytes) m["l3_bytes"] = memory.l3_bytes;
  if (memory.bandwidth_bytes_per_s) m["bandwidth_bytes_per_s"] = memory.bandwidth_bytes_per_s;
  if (memory.flash_bytes) m["flash_bytes"] = memory.flash_bytes;
  if (memory.ram_bytes) m["ram_bytes"] = memory.ram_bytes;
  root["memory"] = std::move(m);
  if (has_cpu) {
    json::object c;
    c["isa"] = cpu.isa;
    c["simd"] = json::array(cpu.simd.begin(), cpu.simd.end());
    c["vector_bits"] = cpu.vector_bits;
    c["threads"] = cpu.threads;
    c["cache_line_bytes"] = cpu.cache_line_bytes;
    c["profile"] = cpu.profile;
    if (!cpu.fpu.empty()) c["fpu"] = cpu.fpu;
    c["alignment_bytes"] = cpu.alignment_bytes;
    root["cpu"] = std::move(c);
  }
  json::object p;
  p["default_precision"] = preferences.default_precision;
  p["prefer_fusion"] = preferences.prefer_fusion;
  p["prefer_persistent_kv"] = preferences.prefer_persistent_kv;
  p["max_kernel_ops"] = preferences.max_kernel_ops;
  p["arena_alignment"] = preferences.arena_alignment;
  root["preferences"] = std::move(p);
  std::string out;
  detail::append_pretty_json(out, root);
  out += '\n';
  return out;
}

}  // namespace oi
