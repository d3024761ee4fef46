// The window geometry of conv and the pools (window.hpp).
#include "window.hpp"

namespace oi::c_emitter {

Window window_geometry(const Value& x, const Value& y, const std::vector<uint64_t>& kernel,
                       const json::object& settings, bool has_dilations, const std::string& where) {
  if ((x.shape.size() != 3 && x.shape.size() != 4) || y.shape.size() != x.shape.size())
    throw CUnsupported("c emitter: " + where + " of rank other than 3 or 4 is not supported");
  const size_t n = x.shape.size() - 2;
  auto list = [&](const char* key, size_t count, int64_t fallback, int64_t minimum) {
    std::vector<int64_t> v = int_list_setting(settings, key, where);
    if (!settings.contains(key)) v.assign(count, fallback);
    if (v.size() != count)
      throw std::runtime_error(where + ": '" + key + "' needs " + std::to_string(count) +
                               " entries");
    for (int64_t e : v)
      if (e < minimum) throw std::runtime_error(where + ": '" + key + "' has " + std::to_string(e));
    return v;
  };
  const auto strides = list("strides", n, 1, 1), pads = list("pads", 2 * n, 0, 0);
  const auto dil = has_dilations ? list("dilations", n, 1, 1) : std::vector<int64_t>(n, 1);
  if (kernel.size() != n) throw std::runtime_error(where + ": the kernel needs x's spatial rank");
  Window g;
  g.batch = x.shape[0];
  g.channels = x.shape[1];
  for (size_t i = 0; i < n; ++i) {
    const bool is_w = i == n - 1;
    const uint64_t in = x.shape[2 + i], out = y.shape[2 + i], k = kernel[i];
    const auto s = static_cast<uint64_t>(strides[i]), d = static_cast<uint64_t>(dil[i]);
    const auto pb = static_cast<uint64_t>(pads[i]), pe = static_cast<uint64_t>(pads[n + i]);
    const uint64_t padded = in + pb + pe, span = d * (k - 1) + 1;
    const uint64_t want = padded < span ? 0 : (padded - span) / s + 1;
    if ((padded < span && in != 0) || out != want || k == 0)
      throw std::runtime_error(where + ": spatial axis " + std::to_string(i) +
                               " of the output has " + std::to_string(out) +
                               " cells, the window gives " + std::to_string(want));
    (is_w ? g.in_w : g.in_h) = in;
    (is_w ? g.out_w : g.out_h) = out;
    (is_w ? g.k_w : g.k_h) = k;
    (is_w ? g.stride_w : g.stride_h) = s;
    (is_w ? g.dil_w : g.dil_h) = d;
    (is_w ? g.pad_left : g.pad_top) = static_cast<int64_t>(pb);
  }
  if (y.shape[0] != g.batch) throw std::runtime_error(where + ": the output's batch differs");
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
