// Loop-index settings as params words the host program writes (loop_setting_params.hpp).
#include "loop_setting_params.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>

#include "loop_settings.hpp"
#include "openinfer/float_formats.hpp"
#include "vulkan_kernels.hpp"

namespace oi::glsl {

namespace json = boost::json;

namespace {

// The word `kind` of integer v's encodings, the way the backend's kernels take an integer
// setting into a float, double, 32-bit or 64-bit param.
uint32_t encode(const std::string& kind, int64_t v) {
  const auto x = static_cast<double>(v);
  const auto d = std::bit_cast<uint64_t>(x);
  // a narrow float's bits, or the f32 of its value (the integer rounded once to it)
  if (kind == "f16") return oi::f64_to_f16_bits(x);
  if (kind == "bf16") return oi::f64_to_bf16_bits(x);
  if (kind == "f8") return oi::f64_to_f8_bits(x);
  if (kind == "f16_f32")
    return std::bit_cast<uint32_t>(oi::f16_bits_to_f32(oi::f64_to_f16_bits(x)));
  if (kind == "bf16_f32")
    return std::bit_cast<uint32_t>(oi::bf16_bits_to_f32(oi::f64_to_bf16_bits(x)));
  if (kind == "f8_f32") return std::bit_cast<uint32_t>(oi::f8_bits_to_f32(oi::f64_to_f8_bits(x)));
  if (kind == "f32") return std::bit_cast<uint32_t>(static_cast<float>(v));
  if (kind == "i32") return static_cast<uint32_t>(v);
  if (kind == "f64_lo") return static_cast<uint32_t>(d);
  if (kind == "f64_hi") return static_cast<uint32_t>(d >> 32);
  return static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32);  // i64_hi
}

}  // namespace

KernelShader record_runtime_index(const PlanIn& plan, const DeviceIn& device, const KernelIn& k,
                                  const std::vector<std::string>& by, const std::string& why) {
  std::string names;
  for (const std::string& n : by) names += (names.empty() ? "'" : ", '") + n + "'";
  const std::string where =
      "kernel " + std::to_string(k.id) + ": a setting names loop index " + names + ", whose " + why;
  auto gap_for = [&](const std::string& what) {
    glsl_gap("loop-setting-runtime-bounds",
             where + ", and the Vulkan backend's kernel " + what +
                 " (only a setting carried by its params words is set at run time)");
  };
  // A bool setting would take every probe as true (loop_settings.cpp writes a copy for each).
  for (const OpIn& op : k.ops)
    for (const auto& kv : op.settings)
      if (const json::object* o = kv.value().if_object())
        if (const json::value* n = o->if_contains("name");
            n && n->is_string() && bool_setting(std::string(kv.key())) &&
            std::find(by.begin(), by.end(), std::string(n->as_string())) != by.end())
          glsl_gap("loop-setting-runtime-bounds",
                   where + ", and it names bool setting '" + std::string(kv.key()) +
                       "' too, beside a setting of no finite domain a copy per value could cover");
  // Probes with distinct bits in every encoding (a value past 2^21 for the f64 low word); each
  // index in turn takes them while the others keep the first.
  const int64_t probes[] = {3, -5, 123456789};
  const std::vector<int64_t> first(by.size(), probes[0]);
  // A probe value the op refuses (an axis out of range): the setting does more than a word.
  auto record = [&](const std::vector<int64_t>& row) {
    try {
      return record_kernel(plan, device, with_index_values(k, by, row, k.id));
    } catch (const std::exception& e) {
      glsl_gap("loop-setting-runtime-bounds",
               where + ", and the Vulkan backend's kernel cannot be recorded for every value (" +
                   e.what() + ")");
    }
  };
  KernelShader base = record(first);
  static const char* kKinds[] = {"f32",     "i32",  "f64_lo",   "f64_hi", "i64_hi", "f16",
                                 "f16_f32", "bf16", "bf16_f32", "f8",     "f8_f32"};
  for (size_t x = 0; x < by.size(); ++x) {
    std::vector<KernelShader> recorded{base};
    for (size_t r = 1; r < std::size(probes); ++r) {
      std::vector<int64_t> row = first;
      row[x] = probes[r];
      recorded.push_back(record(row));
      const KernelShader& o = recorded.back();
      if (o.dispatches.size() != base.dispatches.size() || o.checks.size() != base.checks.size() ||
          o.rope_tables.size() != base.rope_tables.size() || o.copies != base.copies)
        gap_for("records other work for another value");
      for (size_t d = 0; d < base.dispatches.size(); ++d) {
        const VulkanDispatch &a = base.dispatches[d], &b = o.dispatches[d];
        if (a.variant != b.variant || a.spec != b.spec || a.groups != b.groups ||
            a.values != b.values || a.params.size() != b.params.size() ||
            a.float_width != b.float_width || a.also_f64 != b.also_f64 ||
            a.exact_f32 != b.exact_f32)
          gap_for("runs another shader, specialization or grid for another value");
      }
    }
    bool found = false;
    // rope's theta: the host program computes the cos/sin table from it at each dispatch
    for (size_t t = 0; t < base.rope_tables.size(); ++t) {
      bool varies = false, theta = true;
      for (size_t r = 0; r < recorded.size(); ++r) {
        varies = varies || recorded[r].rope_tables[t].theta != base.rope_tables[t].theta;
        theta = theta && recorded[r].rope_tables[t].theta == static_cast<double>(probes[r]);
      }
      if (!varies) continue;
      if (!theta || !base.rope_tables[t].theta_index.empty())
        gap_for("computes rope's table from the value otherwise");
      base.rope_tables[t].theta_index = by[x];
      found = true;
    }
    for (size_t d = 0; d < base.dispatches.size(); ++d)
      for (size_t w = 0; w < base.dispatches[d].params.size(); ++w) {
        bool varies = false;
        for (const KernelShader& o : recorded)
          varies = varies || o.dispatches[d].params[w] != base.dispatches[d].params[w];
        if (!varies) continue;
        const char* kind = nullptr;
        for (const char* c : kKinds) {
          bool all = true;
          for (size_t r = 0; r < recorded.size() && all; ++r)
            all = recorded[r].dispatches[d].params[w] == encode(c, probes[r]);
          if (all) {
            kind = c;
            break;
          }
        }
        if (!kind) gap_for("takes the value in params word " + std::to_string(w) + " otherwise");
        for (const ParamPatch& q : base.patches)
          if (q.dispatch == d && q.word == w)
            gap_for("takes two indices in params word " + std::to_string(w));
        base.patches.push_back({d, w, by[x], kind});
        found = true;
      }
    if (!found) gap_for("takes '" + by[x] + "' nowhere in its params words");
  }
  // An f64 setting's low word is zero for small integers: patch it whenever the high one is.
  for (size_t i = 0, n = base.patches.size(); i < n; ++i) {
    const ParamPatch p = base.patches[i];
    if (p.kind != "f64_hi" || p.word == 0) continue;
    bool lo = false;
    for (const ParamPatch& q : base.patches)
      lo = lo || (q.dispatch == p.dispatch && q.word + 1 == p.word && q.kind == "f64_lo");
    if (!lo) base.patches.push_back({p.dispatch, p.word - 1, p.index, "f64_lo"});
  }
  return base;
}

}  // namespace oi::glsl
