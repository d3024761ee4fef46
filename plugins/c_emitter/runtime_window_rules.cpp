// The slice, conv and pool rules at run time (runtime_window_rules.hpp).
#include "runtime_window_rules.hpp"

#include <cstdint>
#include <optional>
#include <sstream>
#include <vector>

#include "openinfer/slice_range.hpp"
#include "tables.hpp"

namespace oi::c_emitter {
namespace {

// An int64_t as C (INT64_MIN has no literal of its own).
std::string i64(int64_t v) {
  return v == INT64_MIN ? "INT64_MIN" : "INT64_C(" + std::to_string(v) + ")";
}

// The C of a failure known now: the step fails with `message` (no format arguments).
std::string static_fail(const ShapeRuleText& t, const std::string& message) {
  return t.indent + "  {\n" + t.fail(t.rule_at + format_text(message), "") + t.indent + "  }\n";
}

// slice (shape_rules.cpp slice_rule): the settings' errors depend only on the input's rank,
// which is static, so they are found now by the SDK's slice_ranges (on dims of that rank);
// each sliced axis's count is oi_slice_axis's at run time.
std::string slice_code(const ShapeRuleText& t) {
  const std::string& I = t.indent;
  const size_t rank = t.inputs.at(0).rank;
  const auto starts = int_list(t.settings, "starts", t.where);
  const auto ends = int_list(t.settings, "ends", t.where);
  const auto axes = int_list(t.settings, "axes", t.where);
  const auto steps = int_list(t.settings, "steps", t.where);
  if (!starts || !ends) return static_fail(t, "slice needs 'starts' and 'ends'");
  geometry::SliceSettings s{*starts, *ends, {}, {}, axes.has_value(), steps.has_value()};
  if (axes) s.axes = *axes;
  if (steps) s.steps = *steps;
  const std::vector<uint64_t> dims(rank, 0);
  const geometry::SliceRanges r = geometry::slice_ranges(dims, s);
  const auto r64 = static_cast<int64_t>(rank);
  switch (r.error) {
    case geometry::SliceError::none:
      break;
    case geometry::SliceError::lengths:
      return static_fail(
          t, "'starts', 'ends', 'axes' and 'steps' must have one entry per sliced axis");
    case geometry::SliceError::too_many:
      return static_fail(t, "'starts' has " + std::to_string(starts->size()) +
                                " entries but the input has rank " + std::to_string(rank));
    case geometry::SliceError::axis_range:
      return static_fail(t, "axis " + std::to_string(r.axis) + " is out of range for rank " +
                                std::to_string(rank));
    case geometry::SliceError::axis_repeated:
      return static_fail(t, "axis " + std::to_string(r.axis < 0 ? r.axis + r64 : r.axis) +
                                " is repeated in 'axes'");
    case geometry::SliceError::zero_step:
      return static_fail(t, "'steps' entry " + std::to_string(r.entry) + " is 0");
  }
  std::ostringstream c;
  c << I << "  rr = r0;\n" << I << "  memcpy(rs, d0, sizeof rs);\n";
  for (size_t i = 0; i < starts->size(); ++i) {
    const int64_t given = axes ? (*axes)[i] : static_cast<int64_t>(i);
    const std::string a = std::to_string(given < 0 ? given + r64 : given);
    c << I << "  rs[" << a << "] = (int64_t)oi_slice_axis(" << i64((*starts)[i]) << ", "
      << i64((*ends)[i]) << ", " << i64(steps ? (*steps)[i] : 1) << ", (uint64_t)d0[" << a
      << "]).count;\n";
  }
  return c.str();
}

// A per-spatial-axis list setting (shape_rules_nn.cpp spatial_list): absent gives `fallback` on
// every axis; a wrong count or an entry below `minimum` sets `error` (when it is still empty).
std::vector<int64_t> spatial_list(const ShapeRuleText& t, const char* name, size_t count,
                                  int64_t fallback, int64_t minimum, std::string& error) {
  const auto v = int_list(t.settings, name, t.where);
  if (!v) return std::vector<int64_t>(count, fallback);
  if (!error.empty()) return *v;
  if (v->size() != count) {
    error = "'" + std::string(name) + "' has " + std::to_string(v->size()) + " entries but needs " +
            std::to_string(count) + " (one per spatial axis)";
    return *v;
  }
  for (int64_t x : *v)
    if (x < minimum && error.empty())
      error = "'" + std::string(name) + "' entry " + std::to_string(x) + " is below " +
              std::to_string(minimum);
  return *v;
}

// The spatial dims of the result (shape_rules_nn.cpp spatial_output): the settings checked now,
// each axis's window by geometry.h at run time. `kernel` holds C expressions (a weight's dims
// or literals).
std::string spatial_code(const ShapeRuleText& t, const std::vector<std::string>& kernel,
                         bool has_dilations) {
  const std::string& I = t.indent;
  const size_t n = kernel.size();
  std::string error;
  const auto strides = spatial_list(t, "strides", n, 1, 1, error);
  const auto dilations =
      has_dilations ? spatial_list(t, "dilations", n, 1, 1, error) : std::vector<int64_t>(n, 1);
  std::vector<int64_t> pads(2 * n, 0);
  if (const auto p = int_list(t.settings, "pads", t.where); p && error.empty()) {
    if (p->size() != 2 * n) {
      error = "'pads' has " + std::to_string(p->size()) + " entries but needs " +
              std::to_string(2 * n) + " ([begin..., end...] per spatial axis)";
    } else {
      pads = *p;
      for (int64_t x : pads)
        if (x < 0 && error.empty())
          error = "'pads' entry " + std::to_string(x) + " is negative (crop with slice)";
    }
  }
  if (!error.empty()) return static_fail(t, error);
  std::ostringstream c;
  for (size_t i = 0; i < n; ++i) {
    const std::string A = std::to_string(2 + i);
    c << I << "  {\n"
      << I << "    const oi_window_axis a = {(uint64_t)d0[" << A << "], (uint64_t)" << kernel[i]
      << ", " << u(static_cast<uint64_t>(strides[i])) << ", "
      << u(static_cast<uint64_t>(dilations[i])) << ", " << u(static_cast<uint64_t>(pads[i])) << ", "
      << u(static_cast<uint64_t>(pads[n + i])) << "};\n"
      << I << "    if (!oi_window_valid(a)) {\n"
      << t.fail(t.rule_at + "spatial axis " + std::to_string(i) +
                    ": the window spans %llu but the padded input has only %llu",
                ", (unsigned long long)oi_window_span(a), (unsigned long long)oi_window_padded(a)")
      << I << "    }\n"
      << I << "    rs[" << A << "] = (int64_t)oi_window_output(a);\n"
      << I << "  }\n";
  }
  return c.str();
}

// need_spatial_rank: x of rank 3 or 4 (static), the error naming x's run-time dims.
std::string spatial_rank_code(const ShapeRuleText& t, const std::string& op) {
  const std::string& I = t.indent;
  return I + "  {\n" + dims_text_code(I, "d0", "r0", "ta") +
         t.fail(
             t.rule_at + format_text(op) + " needs x of rank 3 (N, C, W) or 4 (N, C, H, W), got %s",
             ", ta") +
         I + "  }\n";
}

// conv (shape_rules_nn.cpp conv_rule): x [N, C, spatial...], w [M, C/group, k...], b [M] ->
// [N, M, out...].
std::string conv_code(const ShapeRuleText& t) {
  const std::string& I = t.indent;
  const auto& ins = t.inputs;
  if (ins.size() < 2) invalid_plan(t.where + " has fewer than 2 inputs");
  const size_t rank = ins[0].rank;
  if (rank != 3 && rank != 4) return spatial_rank_code(t, "conv");
  auto text_of = [&](const std::string& d, const std::string& r, const std::string& buf) {
    return dims_text_code(I, d, r, buf);
  };
  std::ostringstream c;
  if (ins[1].rank != rank) {
    c << I << "  {\n"
      << text_of("d1", "r1", "ta")
      << t.fail(t.rule_at + "conv weight %s must have x's rank " + std::to_string(rank) +
                    " ([M, C/group, kernel...])",
                ", ta")
      << I << "  }\n";
    return c.str();
  }
  // `group` may name a loop index: its checks are made at run time.
  c << I << "  const int64_t g_ = " << int_setting_c(t.settings, "group", 1, t.where) << ";\n"
    << I << "  if (g_ < 1) {\n"
    << t.fail(t.rule_at + "'group' must be at least 1, got %lld", ", (long long)g_") << I << "  }\n"
    << I << "  const uint64_t g = (uint64_t)g_;\n"
    << I << "  if ((uint64_t)d0[1] % g != 0u || (uint64_t)d1[0] % g != 0u) {\n"
    << t.fail(t.rule_at +
                  "'group' %lld must divide the input channels %llu and the output channels %llu",
              ", (long long)g_, (unsigned long long)d0[1], (unsigned long long)d1[0]")
    << I << "  }\n"
    << I << "  if ((uint64_t)d1[1] * g != (uint64_t)d0[1]) {\n"
    << text_of("d1", "r1", "ta") << text_of("d0", "r0", "tb")
    << t.fail(t.rule_at +
                  "conv weight %s has %llu input channels per group but x %s with group %lld "
                  "needs %llu",
              ", ta, (unsigned long long)d1[1], tb, (long long)g_, (unsigned long "
              "long)((uint64_t)d0[1] / g)")
    << I << "  }\n";
  if (ins.size() > 2)
    c << I << "  if (!(r2 == 1u && d2[0] == d1[0])) {\n"
      << text_of("d2", "r2", "ta")
      << t.fail(t.rule_at + "conv bias %s must be [%llu], one value per output channel",
                ", ta, (unsigned long long)d1[0]")
      << I << "  }\n";
  std::vector<std::string> kernel;
  for (size_t i = 2; i < rank; ++i) {
    const std::string W = "d1[" + std::to_string(i) + "]";
    c << I << "  if (" << W << " == 0) {\n"
      << text_of("d1", "r1", "ta")
      << t.fail(t.rule_at + "conv weight %s has an empty kernel", ", ta") << I << "  }\n";
    kernel.push_back(W);
  }
  c << I << "  rr = r0;\n"
    << I << "  rs[0] = d0[0];\n"
    << I << "  rs[1] = d1[0];\n"
    << spatial_code(t, kernel, true);
  return c.str();
}

// max_pool, avg_pool (shape_rules_nn.cpp pool_rule): x [N, C, spatial...] -> [N, C, out...];
// only max_pool has `dilations`.
std::string pool_code(const ShapeRuleText& t) {
  const std::string& I = t.indent;
  const size_t rank = t.inputs.at(0).rank;
  if (rank != 3 && rank != 4) return spatial_rank_code(t, t.name);
  std::string error;
  const auto taps = spatial_list(t, "kernel", rank - 2, 1, 1, error);
  if (!error.empty()) return static_fail(t, error);
  std::vector<std::string> kernel;
  for (int64_t k : taps) kernel.push_back(u(static_cast<uint64_t>(k)));
  std::ostringstream c;
  c << I << "  rr = r0;\n"
    << I << "  rs[0] = d0[0];\n"
    << I << "  rs[1] = d0[1];\n"
    << spatial_code(t, kernel, t.name == "max_pool");
  return c.str();
}

}  // namespace

bool is_window_rule(const std::string& rule) {
  return rule == "slice" || rule == "conv" || rule == "pool";
}

std::string window_rule_code(const ShapeRuleText& t, const std::string& rule) {
  if (rule == "slice") return slice_code(t);
  if (rule == "conv") return conv_code(t);
  return pool_code(t);
}

}  // namespace oi::c_emitter
