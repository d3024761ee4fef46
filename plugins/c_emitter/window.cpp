// The window geometry of conv and the pools (window.hpp).
#include "window.hpp"

#include "openinfer/window.hpp"

namespace oi::c_emitter {

Window window_geometry(const Value& x, const Value& y, const std::vector<uint64_t>& kernel,
                       const json::object& settings, bool has_dilations, const std::string& where) {
  if ((x.shape.size() != 3 && x.shape.size() != 4) || y.shape.size() != x.shape.size())
    throw LibraryInstead("c emitter: " + where +
                         " of rank other than 3 or 4: left to the C kernel library");
  const size_t n = x.shape.size() - 2;
  auto list = [&](const char* key, size_t count, int64_t fallback, int64_t minimum) {
    std::vector<int64_t> v = int_list_setting(settings, key, where);
    if (!settings.contains(key)) v.assign(count, fallback);
    if (v.size() != count)
      invalid_plan(where + ": '" + key + "' needs " + std::to_string(count) + " entries");
    for (int64_t e : v)
      if (e < minimum) invalid_plan(where + ": '" + key + "' has " + std::to_string(e));
    return v;
  };
  const auto strides = list("strides", n, 1, 1), pads = list("pads", 2 * n, 0, 0);
  const auto dil = has_dilations ? list("dilations", n, 1, 1) : std::vector<int64_t>(n, 1);
  if (kernel.size() != n) invalid_plan(where + ": the kernel needs x's spatial rank");
  for (uint64_t k : kernel)
    if (k == 0) invalid_plan(where + ": the kernel has an axis of no taps");
  geometry::Window2d w;  // the SDK's window arithmetic (openinfer/window.hpp)
  const geometry::WindowMismatch m =
      geometry::window_2d(x.shape, y.shape, kernel, strides, dil, pads, w);
  if (!m.ok)
    invalid_plan(where + ": spatial axis " + std::to_string(m.axis) + " of the output has " +
                 std::to_string(y.shape[2 + m.axis]) + " cells, the window gives " +
                 std::to_string(m.want));
  Window g;
  g.batch = w.batch;
  g.channels = w.channels;
  g.in_h = w.in_h;
  g.in_w = w.in_w;
  g.out_h = w.out_h;
  g.out_w = w.out_w;
  g.k_h = w.k_h;
  g.k_w = w.k_w;
  g.stride_h = w.stride_h;
  g.stride_w = w.stride_w;
  g.dil_h = w.dil_h;
  g.dil_w = w.dil_w;
  g.pad_top = static_cast<int64_t>(w.pad_top);
  g.pad_left = static_cast<int64_t>(w.pad_left);
  if (y.shape[0] != g.batch) invalid_plan(where + ": the output's batch differs");
  return g;
}

void window_columns(std::ostringstream& c, const Window& g, const std::string& indent) {
  const int64_t sw = static_cast<int64_t>(g.stride_w);
  c << indent << "const ptrdiff_t dx = (ptrdiff_t)(kw * " << u(g.dil_w) << ") - " << g.pad_left
    << ";\n"
    << indent << "const size_t lo = dx >= 0 ? 0u : (size_t)((-dx + " << sw - 1 << ") / " << sw
    << ");\n"
    << indent << "const ptrdiff_t last = " << static_cast<int64_t>(g.in_w) - 1 << " - dx;\n"
    << indent << "size_t hi = last < 0 ? 0u : (size_t)(last / " << sw << ") + 1u;\n"
    << indent << "if (hi > " << u(g.out_w) << ") hi = " << u(g.out_w) << ";\n";
}

}  // namespace oi::c_emitter
