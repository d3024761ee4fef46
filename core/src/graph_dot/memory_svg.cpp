// plan_memory_svg: the plan's arena as a picture (docs/synth.md "Pictures"). The x axis is the
// trace position of the memory pass (entry's schedule with every loop body and branched-to
// block once per place it is reached), the y axis the arena offset; each arena value is one
// rectangle per live range at its offset. The arena's size and the position where the most
// bytes are held are marked. Written directly as SVG, so no Graphviz is needed.
#include <algorithm>
#include <array>
#include <filesystem>
#include <sstream>

#include "dot_text.hpp"
#include "openinfer/graph_dot.hpp"
#include "openinfer/synth.hpp"

namespace oi {
namespace {

using dot::byte_text;
using dot::html;

constexpr int kLeft = 84, kRight = 24, kTop = 86, kBottom = 60, kPlotHeight = 420;
constexpr double kCharWidth = 6.6;  // DejaVu Sans at 11 px, roughly, to decide what fits

// Light, distinct fills for neighbouring rectangles, cycled in the plan's value order.
constexpr std::array<const char*, 10> kFills = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072",
                                                "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
                                                "#d9d9d9", "#bc80bd"};

std::string num(double v) {
  std::ostringstream s;
  s.precision(1);
  s << std::fixed << v;
  std::string t = s.str();
  if (t.size() > 2 && t.compare(t.size() - 2, 2, ".0") == 0) t.resize(t.size() - 2);
  return t;
}

// 1, 2, 5, 10, 20, 50, ... : the smallest at least `raw`.
int64_t nice_step(double raw) {
  int64_t step = 1;
  while (true) {
    for (int64_t m : {1, 2, 5})
      if (static_cast<double>(step * m) >= raw) return step * m;
    step *= 10;
  }
}

std::string text(double x, double y, const std::string& content, const std::string& attrs = {}) {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\"" + (attrs.empty() ? "" : " " + attrs) +
         ">" + html(content) + "</text>\n";
}

}  // namespace

std::string plan_memory_svg(const Plan& plan) {
  std::vector<const PlanValue*> arena;
  int64_t positions = 0;
  for (const PlanValue& v : plan.values)
    if (v.storage == Storage::Arena) {
      arena.push_back(&v);
      for (const auto& r : v.live_ranges) positions = std::max(positions, r.second + 1);
    }
  // The bytes held at each position, and the first position holding the most.
  std::vector<uint64_t> held(static_cast<size_t>(positions), 0);
  for (const PlanValue* v : arena)
    for (const auto& r : v->live_ranges)
      for (int64_t p = r.first; p <= r.second; ++p) held[static_cast<size_t>(p)] += v->bytes;
  const auto most = std::max_element(held.begin(), held.end());
  const int64_t peak_pos = most == held.end() ? -1 : most - held.begin();

  const MemoryPlan& m = plan.memory;
  const int plot_width = static_cast<int>(std::clamp<int64_t>(positions * 8, 720, 1100));
  const int width = kLeft + plot_width + kRight;
  const int height = kTop + (arena.empty() ? 0 : kPlotHeight + kBottom);
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << " " << height
    << "\" font-family=\"DejaVu Sans, sans-serif\" font-size=\"11\">\n"
    << "<rect width=\"" << width << "\" height=\"" << height << "\" fill=\"#ffffff\"/>\n";
  const std::string name =
      plan.graph ? std::filesystem::path(plan.graph->origin).filename().string() : "?";
  o << text(kLeft, 22, "Memory plan of " + name + " for " + plan.device.device.name,
            "font-size=\"14\" font-weight=\"bold\"");
  o << text(kLeft, 42,
            "peak " + byte_text(m.peak_bytes) + " = arena " + byte_text(m.arena_bytes) +
                " + dynamic " + byte_text(m.dynamic_bytes) + " + constant " +
                byte_text(m.constant_bytes) + " + persistent " + byte_text(m.persistent_bytes) +
                " + volatile " + byte_text(m.step_bytes) + " (unplanned " +
                byte_text(m.unplanned_bytes) + ")");
  if (arena.empty()) {
    o << text(kLeft, 62,
              "no arena: every temporary is internal to a fused kernel or never touched");
    o << "</svg>\n";
    return o.str();
  }
  o << text(kLeft, 60,
            "arena " + byte_text(m.arena_bytes) + " for " + byte_text(m.temporary_bytes) +
                " of temporaries; most held at once: " + byte_text(*most) + " at position " +
                std::to_string(peak_pos) + " (red)");

  const double sx = static_cast<double>(plot_width) / static_cast<double>(positions);
  const double top = kTop, bottom = kTop + kPlotHeight;
  const uint64_t extent = std::max<uint64_t>(m.arena_bytes, 1);
  const double sy = kPlotHeight / static_cast<double>(extent);
  o << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << plot_width << "\" height=\""
    << kPlotHeight << "\" fill=\"#fafafa\" stroke=\"#999999\"/>\n";

  // Offset ticks at quarters of the arena, position ticks at a round step.
  for (int q = 0; q <= 4; ++q) {
    const double y = bottom - kPlotHeight * q / 4.0;
    o << "<line x1=\"" << kLeft - 4 << "\" y1=\"" << num(y) << "\" x2=\"" << kLeft + plot_width
      << "\" y2=\"" << num(y) << "\" stroke=\"#e0e0e0\"/>\n";
    o << text(kLeft - 6, y + 4, byte_text(m.arena_bytes * static_cast<uint64_t>(q) / 4),
              "text-anchor=\"end\"");
  }
  const int64_t step = nice_step(static_cast<double>(positions) / 12.0);
  for (int64_t p = 0; p < positions; p += step) {
    const double x = kLeft + (static_cast<double>(p) + 0.5) * sx;
    o << "<line x1=\"" << num(x) << "\" y1=\"" << num(bottom) << "\" x2=\"" << num(x) << "\" y2=\""
      << num(bottom + 4) << "\" stroke=\"#555555\"/>\n";
    o << text(x, bottom + 16, std::to_string(p), "text-anchor=\"middle\"");
  }
  o << text(kLeft + plot_width / 2.0, bottom + 36,
            "trace position (entry's schedule; loop bodies and called blocks once per place "
            "reached)",
            "text-anchor=\"middle\"");
  o << text(
      16, top + kPlotHeight / 2.0, "arena offset",
      "text-anchor=\"middle\" transform=\"rotate(-90 16 " + num(top + kPlotHeight / 2.0) + ")\"");

  // One rectangle per value and live range; its name where it fits.
  for (size_t i = 0; i < arena.size(); ++i) {
    const PlanValue& v = *arena[i];
    const double y = bottom - static_cast<double>(v.offset + v.bytes) * sy;
    const double h = std::max(1.0, static_cast<double>(v.bytes) * sy);
    for (const auto& r : v.live_ranges) {
      const double x = kLeft + static_cast<double>(r.first) * sx;
      const double w = static_cast<double>(r.second - r.first + 1) * sx;
      o << "<rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(w)
        << "\" height=\"" << num(h) << "\" fill=\"" << kFills[i % kFills.size()]
        << "\" stroke=\"#ffffff\" stroke-width=\"0.8\"><title>"
        << html(v.name + ": " + std::string(dtype_name(v.dtype)) + format_dims(v.shape) + ", " +
                byte_text(v.bytes) + " at offset " + std::to_string(v.offset) + ", positions " +
                std::to_string(r.first) + ".." + std::to_string(r.second) +
                (v.shares ? ", in place of " + *v.shares : ""))
        << "</title></rect>\n";
      if (w >= static_cast<double>(v.name.size()) * kCharWidth + 4 && h >= 13)
        o << text(x + w / 2, y + h / 2 + 4, v.name, "text-anchor=\"middle\"");
    }
  }

  // The arena's size and the position holding the most bytes.
  const double peak_x = kLeft + static_cast<double>(peak_pos) * sx;
  o << "<rect x=\"" << num(peak_x) << "\" y=\"" << num(top) << "\" width=\"" << num(sx)
    << "\" height=\"" << kPlotHeight
    << "\" fill=\"none\" stroke=\"#cb181d\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>\n";
  const double arena_y = bottom - static_cast<double>(m.arena_bytes) * sy;
  o << "<line x1=\"" << kLeft << "\" y1=\"" << num(arena_y) << "\" x2=\"" << kLeft + plot_width
    << "\" y2=\"" << num(arena_y)
    << "\" stroke=\"#cb181d\" stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>\n";
  o << text(kLeft + plot_width - 4, arena_y - 4, "arena " + byte_text(m.arena_bytes),
            "text-anchor=\"end\" fill=\"#cb181d\"");
  o << "</svg>\n";
  return o.str();
}

}  // namespace oi
