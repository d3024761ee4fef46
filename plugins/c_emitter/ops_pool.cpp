// max_pool and avg_pool in generated C (ops-nn.md): 1-D and 2-D windows with `kernel`,
// `strides`, `pads`, `dilations` (max only) and `count_include_pad` (avg only). Each output
// cell visits the taps of its window that fall inside the input in row-major order, as the CPU
// backend does: padded cells never win a max (a NaN wins, -0.0 below +0.0; a window of padding
// only gives -inf, or INT32_MIN for i32) and count in a mean only with count_include_pad=true.
#include "c_ops.hpp"
#include "window.hpp"

namespace oi::c_emitter {
namespace {

void pool(KernelEnv& env, const json::object& op, std::ostringstream& c) {
  const std::string where = op_where(op), name = str(op.at("op"));
  const bool is_max = name == "max_pool";
  const auto& settings = op.at("settings").as_object();
  if (is_max)
    check_settings(settings, {"kernel", "strides", "pads", "dilations"}, where);
  else
    check_settings(settings, {"kernel", "strides", "pads", "count_include_pad"}, where);
  const Value& x = whole_operand(env, op.at("inputs").as_array().at(0), op);
  const Value& y = env.value(str(op.at("output")));
  const bool flt = y.dtype == "f32" || y.dtype == "f64";
  if (x.dtype != y.dtype || (!flt && (!is_max || y.dtype != "i32")))
    throw CUnsupported("c emitter: " + where + " on " + x.dtype + " is not supported yet");
  if (!settings.contains("kernel")) throw std::runtime_error(where + ": 'kernel' is required");
  std::vector<uint64_t> kernel;
  for (int64_t k : int_list_setting(settings, "kernel", where)) {
    if (k < 1) throw std::runtime_error(where + ": a kernel size below 1");
    kernel.push_back(static_cast<uint64_t>(k));
  }
  const Window g = window_geometry(x, y, kernel, settings, is_max, where);
  if (y.shape[1] != g.channels) throw std::runtime_error(where + ": y must be [N, C, ...]");
  const bool include_pad = settings.contains("count_include_pad") &&
                           settings.at("count_include_pad").is_bool() &&
                           settings.at("count_include_pad").as_bool();
  if (y.numel() == 0) return;
  const std::string T = c_type(y.dtype), sfx = y.dtype == "f32" ? "f" : "d";
  const uint64_t iplane = g.in_h * g.in_w, oplane = g.out_h * g.out_w;
  c << "    for (size_t pl = 0; pl < " << u(g.batch * g.channels) << "; ++pl) {\n"
    << "      const " << T << "* xp = p_" << x.name << " + pl * " << u(iplane) << ";\n"
    << "      " << T << "* yp = o + pl * " << u(oplane) << ";\n"
    << "      for (size_t oh = 0; oh < " << u(g.out_h) << "; ++oh)\n"
    << "        for (size_t ow = 0; ow < " << u(g.out_w) << "; ++ow) {\n";
  if (is_max)
    c << "          " << T << " m = " << (flt ? "-(" + T + ")INFINITY" : "INT32_MIN") << ";\n";
  else
    c << "          " << T << " sum = 0;\n          size_t count = 0;\n";
  c << "          for (size_t kh = 0; kh < " << u(g.k_h) << "; ++kh) {\n"
    << "            const ptrdiff_t ih = (ptrdiff_t)(oh * " << u(g.stride_h) << " + kh * "
    << u(g.dil_h) << ") - " << g.pad_top << ";\n"
    << "            if (ih < 0 || ih >= " << g.in_h << ") continue;\n"
    << "            for (size_t kw = 0; kw < " << u(g.k_w) << "; ++kw) {\n"
    << "              const ptrdiff_t iw = (ptrdiff_t)(ow * " << u(g.stride_w) << " + kw * "
    << u(g.dil_w) << ") - " << g.pad_left << ";\n"
    << "              if (iw < 0 || iw >= " << g.in_w << ") continue;\n"
    << "              const " << T << " v = xp[(size_t)ih * " << u(g.in_w) << " + (size_t)iw];\n";
  if (is_max)
    c << "              m = " << (flt ? "oi_max_" + sfx + "(m, v)" : "v > m ? v : m") << ";\n";
  else
    c << "              sum += v;\n              ++count;\n";
  c << "            }\n          }\n";
  if (is_max)
    c << "          yp[oh * " << u(g.out_w) << " + ow] = m;\n";
  else if (include_pad)
    c << "          (void)count;\n          yp[oh * " << u(g.out_w) << " + ow] = sum / (" << T
      << ")" << g.k_h * g.k_w << ";\n";
  else
    c << "          yp[oh * " << u(g.out_w) << " + ow] = sum / (" << T << ")count;\n";
  c << "        }\n    }\n";
}

}  // namespace

void register_pool_ops(OpTable& t) {
  t.ops["max_pool"] = pool;
  t.ops["avg_pool"] = pool;
}

}  // namespace oi::c_emitter
