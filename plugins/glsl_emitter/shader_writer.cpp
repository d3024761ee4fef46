// GLSL for one kernel. Values get bindings in the order the kernel first touches them; every
// value the kernel computes is a `precise` local (no contraction of a*b+c into an fma, as
// ops.md's bit-exact elementwise rule needs), loaded once and stored once per element.
#include "shader_writer.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "embedded_div_f32.inc"  // kDivF32Glsl: plugins/vulkan/shaders/div_f32.glsl

namespace oi::glsl {

namespace json = boost::json;

std::string glsl_type(const std::string& dtype, const std::string& where) {
  if (dtype == "f32") return "float";
  if (dtype == "i32") return "int";
  if (dtype == "u32") return "uint";
  unsupported(where + ": dtype " + dtype + " is not supported (f32, i32 and u32 are)");
}

namespace {

constexpr uint64_t kMaxGroups = 65535;  // the smallest maxComputeWorkGroupCount Vulkan allows

uint64_t product(const std::vector<uint64_t>& d, size_t from = 0, size_t to = SIZE_MAX) {
  uint64_t p = 1;
  for (size_t i = from; i < std::min(to, d.size()); ++i) p *= d[i];
  return p;
}

std::string u(uint64_t v) {
  return std::to_string(v) + "u";
}

// The flat index into a value of shape `in` for flat index `var` over shape `out`, with numpy
// broadcasting (right-aligned, size-1 dims repeat).
std::string broadcast_index(const std::vector<uint64_t>& in, const std::vector<uint64_t>& out,
                            const std::string& var) {
  if (in == out) return var;
  if (product(in) == 1) return "0u";
  const size_t r = out.size();
  std::vector<uint64_t> padded(r - in.size(), 1);
  padded.insert(padded.end(), in.begin(), in.end());
  std::string expr;
  for (size_t d = 0; d < r; ++d) {
    if (padded[d] == 1) continue;
    const uint64_t ostride = product(out, d + 1), istride = product(padded, d + 1);
    std::string term = "(" + var + (ostride == 1 ? "" : " / " + u(ostride)) + ")";
    if (d > 0) term = "(" + term + " % " + u(out[d]) + ")";
    if (istride != 1) term += " * " + u(istride);
    expr += (expr.empty() ? "" : " + ") + term;
  }
  return expr.empty() ? "0u" : "(" + expr + ")";
}

// A literal of the kernel's type from a setting (number, bool, "inf", "-inf").
std::string literal(const json::value& v, const std::string& type, const std::string& where) {
  double d = 0;
  if (v.is_int64()) {
    d = static_cast<double>(v.as_int64());
  } else if (v.is_uint64()) {
    d = static_cast<double>(v.as_uint64());
  } else if (v.is_double()) {
    d = v.as_double();
  } else if (v.is_bool()) {
    d = v.as_bool() ? 1 : 0;
  } else if (v.is_string() && (v.as_string() == "inf" || v.as_string() == "-inf")) {
    d = v.as_string() == "inf" ? INFINITY : -INFINITY;
  } else {
    unsupported(where + ": value " + json::serialize(v) + " is not a number");
  }
  std::ostringstream s;
  if (type == "float") {
    s << "uintBitsToFloat(0x" << std::hex << std::bit_cast<uint32_t>(static_cast<float>(d)) << "u)";
    return s.str();
  }
  if (d != std::floor(d)) unsupported(where + ": " + json::serialize(v) + " is not an integer");
  if (type == "int") {
    if (v.is_int64() && (v.as_int64() < INT32_MIN || v.as_int64() > INT32_MAX))
      unsupported(where + ": " + json::serialize(v) + " does not fit i32");
    const int64_t i = v.is_int64() ? v.as_int64() : static_cast<int64_t>(d);
    s << "int(0x" << std::hex << static_cast<uint32_t>(i) << "u)";
    return s.str();
  }
  if (d < 0 || d > 4294967295.0)
    unsupported(where + ": " + json::serialize(v) + " does not fit u32");
  return u(static_cast<uint64_t>(d));
}

bool is_infinite_setting(const json::value& v) {
  if (v.is_string()) return v.as_string() == "inf" || v.as_string() == "-inf";
  return v.is_double() && std::isinf(v.as_double());
}

const char* kFloatHelpers =
    R"(// ops.md min/max: a NaN operand gives NaN, -0.0 counts as less than +0.0.
float oi_min(float a, float b) {
  if (isnan(a) || isnan(b)) return a + b;
  if (a != b) return a < b ? a : b;
  return (floatBitsToUint(a) & 0x80000000u) != 0u ? a : b;
}
float oi_max(float a, float b) {
  if (isnan(a) || isnan(b)) return a + b;
  if (a != b) return a > b ? a : b;
  return (floatBitsToUint(a) & 0x80000000u) != 0u ? b : a;
}
float oi_div(float a, float b) { return uintBitsToFloat(div_f32_bits(floatBitsToUint(a), floatBitsToUint(b))); }
)";

bool is_elementwise_op(const std::string& op) {
  static const std::set<std::string> ops = {"add", "sub", "mul",   "div",  "neg", "abs",
                                            "min", "max", "clamp", "relu", "fill"};
  return ops.count(op) > 0;
}

bool is_reduction_op(const std::string& op) {
  return op == "sum_axis" || op == "prod_axis" || op == "mean_axis" || op == "max_axis" ||
         op == "min_axis";
}

const char* kSupported =
    "supported: add, sub, mul, div, neg, abs, min, max, clamp, relu, fill, matmul, sum_axis, "
    "prod_axis, mean_axis, max_axis, min_axis, softmax";

class KernelWriter {
 public:
  KernelWriter(const PlanIn& plan, const DeviceIn& device, const KernelIn& kernel)
      : plan_(plan), device_(device), kernel_(kernel) {
    out_elements_ = product(kernel.shape);
    for (const std::string& r : kernel.reads) bind(r, true, false);
    for (const std::string& w : kernel.writes) bind(w, false, true);
  }

  KernelShader write() {
    const OpIn& head = kernel_.ops.front();
    if (head.op == "matmul") return write_matmul();
    if (is_reduction_op(head.op)) return write_reduction();
    if (head.op == "softmax") return write_softmax();
    if (!is_elementwise_op(head.op))
      unsupported(op_where(head) + " cannot be expressed in GLSL yet (" + kSupported + ")");
    return write_elementwise();
  }

 private:
  void bind(const std::string& name, bool read, bool write) {
    const ValueIn& v = plan_.value(name);
    if (v.storage == "internal") return;
    auto it = std::find_if(bindings_.begin(), bindings_.end(),
                           [&](const Binding& b) { return b.value == name; });
    if (it == bindings_.end()) {
      glsl_type(v.dtype, "value '" + name + "'");
      if (device_.max_buffer_range && v.bytes > device_.max_buffer_range)
        unsupported("value '" + name + "' (" + std::to_string(v.bytes) +
                    " bytes) is larger than the device's max_storage_buffer_range_bytes");
      bindings_.push_back({static_cast<uint32_t>(bindings_.size()), name, read, write});
      return;
    }
    it->read = it->read || read;
    it->write = it->write || write;
  }

  std::string buffer(const std::string& name) {
    for (const Binding& b : bindings_)
      if (b.value == name) return "b" + std::to_string(b.binding) + ".d";
    unsupported("value '" + name + "' is read from memory but the plan does not list it in reads");
  }

  std::string type_of(const std::string& name) {
    return glsl_type(plan_.value(name).dtype, "value '" + name + "'");
  }

  // The local holding `name`'s current element, loading it from memory on first use.
  std::string local(const std::string& name, const std::string& index_var) {
    auto it = locals_.find(name);
    if (it != locals_.end()) return it->second;
    const ValueIn& v = plan_.value(name);
    const std::string loc = "v" + std::to_string(next_local_++);
    const std::string t = type_of(name);
    if (v.storage == "internal")
      unsupported("value '" + name + "' is internal to kernel " + std::to_string(kernel_.id) +
                  " but read before the kernel computes it");
    body_ << "    " << (t == "float" ? "precise " : "") << t << " " << loc << " = " << buffer(name)
          << "[" << broadcast_index(v.shape, kernel_.shape, index_var) << "];  // " << name << "\n";
    locals_[name] = loc;
    return loc;
  }

  std::string assign_local(const std::string& name, const std::string& expr) {
    const std::string t = type_of(name);
    const std::string loc = "v" + std::to_string(next_local_++);
    body_ << "    " << (t == "float" ? "precise " : "") << t << " " << loc << " = " << expr
          << ";  // " << name << "\n";
    locals_[name] = loc;
    return loc;
  }

  void check_settings(const OpIn& op, std::set<std::string> allowed) {
    for (const auto& s : op.settings) {
      if (!allowed.count(std::string(s.key())))
        unsupported(op_where(op) + ": setting '" + std::string(s.key()) +
                    "' is not supported by the glsl emitter");
      if (s.value().is_object())
        unsupported(op_where(op) + ": setting '" + std::string(s.key()) +
                    "' names a variable; only literal settings are supported");
    }
  }

  const json::value* setting(const OpIn& op, const char* name) {
    return op.settings.if_contains(name);
  }

  // One elementwise op over the locals; returns the expression of its result.
  std::string op_expr(const OpIn& op, const std::string& index_var) {
    const std::string out_t = type_of(op.output);
    const ValueIn& out = plan_.value(op.output);
    if (out.shape != kernel_.shape)
      unsupported(op_where(op) + ": output '" + op.output + "' does not have the kernel's shape");
    std::vector<std::string> a;
    for (const std::string& in : op.inputs) {
      if (type_of(in) != out_t)
        unsupported(op_where(op) + ": mixed dtypes (" + plan_.value(in).dtype + " input, " +
                    out.dtype + " output) are not supported");
      a.push_back(local(in, index_var));
    }
    const bool f = out_t == "float";
    const std::string& o = op.op;
    auto need = [&](size_t n) {
      if (a.size() != n) invalid(op_where(op) + ": expected " + std::to_string(n) + " inputs");
    };
    if (o == "add" || o == "sub" || o == "mul") {
      check_settings(op, {});
      need(2);
      return a[0] + (o == "add" ? " + " : o == "sub" ? " - " : " * ") + a[1];
    }
    if (o == "div") {
      check_settings(op, {"div_by_zero_mask"});
      need(2);
      const json::value* m = setting(op, "div_by_zero_mask");
      if (f) {
        uses_div_ = true;
        const std::string q = "oi_div(" + a[0] + ", " + a[1] + ")";
        if (!m) return q;
        return "((floatBitsToUint(" + a[1] + ") & 0x7fffffffu) == 0u ? " +
               literal(*m, out_t, op_where(op)) + " : " + q + ")";
      }
      const std::string zero = m ? literal(*m, out_t, op_where(op)) : out_t + "(0)";
      if (out_t == "uint")
        return "(" + a[1] + " == 0u ? " + zero + " : " + a[0] + " / " + a[1] + ")";
      return "(" + a[1] + " == 0 ? " + zero + " : ((" + a[0] + " == int(0x80000000u) && " + a[1] +
             " == -1) ? " + a[0] + " : " + a[0] + " / " + a[1] + "))";
    }
    if (o == "neg" || o == "abs") {
      check_settings(op, {});
      need(1);
      if (f)
        return "uintBitsToFloat(floatBitsToUint(" + a[0] + ") " +
               (o == "neg" ? "^ 0x80000000u)" : "& 0x7fffffffu)");
      if (out_t == "uint") return o == "neg" ? "(0u - " + a[0] + ")" : a[0];
      return o == "neg" ? "(-" + a[0] + ")" : "(" + a[0] + " < 0 ? -" + a[0] + " : " + a[0] + ")";
    }
    if (o == "min" || o == "max") {
      check_settings(op, {});
      need(2);
      return (f ? "oi_" : "") + o + "(" + a[0] + ", " + a[1] + ")";
    }
    if (o == "fill") {
      check_settings(op, {"value"});
      const json::value* v = setting(op, "value");
      if (!v) invalid(op_where(op) + ": fill needs 'value'");
      return literal(*v, out_t, op_where(op));
    }
    if (o == "clamp" || o == "relu") {
      const bool relu = o == "relu";
      check_settings(
          op, relu ? std::set<std::string>{"alpha", "negative_slope", "clamp_min", "clamp_max"}
                   : std::set<std::string>{"min", "max"});
      need(1);
      std::string r = a[0];
      if (relu) {
        const json::value* alpha = setting(op, "alpha");
        if (!alpha) alpha = setting(op, "negative_slope");
        if (f) {
          r = "(" + a[0] + " >= 0.0 ? " + a[0] + " : " +
              (alpha ? literal(*alpha, out_t, op_where(op)) : "0.0") + " * " + a[0] + ")";
        } else {
          if (alpha && literal(*alpha, "float", op_where(op)) != "uintBitsToFloat(0x0u)")
            unsupported(op_where(op) + ": a nonzero alpha on integers is not supported");
          r = "max(" + a[0] + ", " + out_t + "(0))";
        }
      }
      const json::value* lo = setting(op, relu ? "clamp_min" : "min");
      const json::value* hi = setting(op, relu ? "clamp_max" : "max");
      if (relu && f) {
        // As the CPU backend: a zero result becomes +0.0 first, then plain comparisons clamp
        // (NaN stays NaN; a bound equal to the value up to its zero sign leaves the value).
        const std::string t = "r" + std::to_string(relu_count_++);
        body_ << "    precise float " << t << " = " << r << ";\n    " << t << " = " << t
              << " == 0.0 ? 0.0 : " << t << ";\n";
        if (lo) {
          const std::string l = literal(*lo, out_t, op_where(op));
          body_ << "    " << t << " = " << t << " < " << l << " ? " << l << " : " << t << ";\n";
        }
        if (hi) {
          const std::string h = literal(*hi, out_t, op_where(op));
          body_ << "    " << t << " = " << t << " > " << h << " ? " << h << " : " << t << ";\n";
        }
        return t;
      }
      if (lo && !(is_infinite_setting(*lo) && !f))
        r = std::string(f ? "oi_max(" : "max(") + r + ", " + literal(*lo, out_t, op_where(op)) +
            ")";
      if (hi && !(is_infinite_setting(*hi) && !f))
        r = std::string(f ? "oi_min(" : "min(") + r + ", " + literal(*hi, out_t, op_where(op)) +
            ")";
      return r;
    }
    unsupported(op_where(op) + " cannot be expressed in GLSL yet (" + kSupported + ")");
  }

  void emit_ops(size_t first, const std::string& index_var) {
    for (size_t i = first; i < kernel_.ops.size(); ++i) {
      const OpIn& op = kernel_.ops[i];
      if (!is_elementwise_op(op.op))
        unsupported(op_where(op) + " cannot be fused as an elementwise epilogue in GLSL");
      const std::string expr = op_expr(op, index_var);
      assign_local(op.output, expr);
    }
  }

  void emit_stores(const std::string& index_var) {
    for (const std::string& w : kernel_.writes) {
      auto it = locals_.find(w);
      if (it == locals_.end())
        invalid("kernel " + std::to_string(kernel_.id) + " lists '" + w +
                "' in writes but no op of it writes it");
      if (plan_.value(w).shape != kernel_.shape)
        unsupported("kernel " + std::to_string(kernel_.id) + " writes '" + w +
                    "' with a shape other than the kernel's");
      body_ << "    " << buffer(w) << "[" << index_var << "] = " << it->second << ";\n";
    }
  }

  std::string header(const std::string& kind) {
    std::ostringstream h;
    h << "#version 450\n// Generated by the OpenInfer glsl emitter: kernel " << kernel_.id << " ("
      << kind << ") of " << (plan_.graph.empty() ? "the graph" : plan_.graph) << "\n// ops:";
    for (const OpIn& op : kernel_.ops) h << " " << op.op << "@" << op.line;
    // Built a second time with -DOI_IEEE_SPECIALS (kernel_K_ieee.spv) for devices that offer
    // shaderSignedZeroInfNanPreserveFloat32: without the mode, drivers may assume no inf/NaN.
    h << "\n#ifdef OI_IEEE_SPECIALS\n#extension GL_EXT_spirv_intrinsics : require\n"
         "spirv_execution_mode(extensions = [\"SPV_KHR_float_controls\"], capabilities = [4466], "
         "4461, 32);\n#endif\n";
    return h.str();
  }

  std::string declarations() {
    std::ostringstream d;
    for (const Binding& b : bindings_) {
      const std::string qual = b.read && !b.write ? "readonly " : (!b.read ? "writeonly " : "");
      d << "layout(std430, set = 0, binding = " << b.binding << ") " << qual << "buffer B"
        << b.binding << " { " << type_of(b.value) << " d[]; } b" << b.binding << ";  // " << b.value
        << "\n";
    }
    bool any_float = false;
    for (const Binding& b : bindings_) any_float = any_float || type_of(b.value) == "float";
    for (const OpIn& op : kernel_.ops) any_float = any_float || type_of(op.output) == "float";
    if (any_float) d << kDivF32Glsl << kFloatHelpers;
    return d.str();
  }

  uint32_t elementwise_local_size() const {
    uint64_t ls = std::min<uint64_t>({256, device_.wg_size[0], device_.wg_invocations});
    return static_cast<uint32_t>(std::max<uint64_t>(ls, 1));
  }

  void check_count(uint64_t n, const char* what) {
    if (n >= (uint64_t{1} << 31))
      unsupported("kernel " + std::to_string(kernel_.id) + ": " + what + " " + std::to_string(n) +
                  " is 2^31 or more (32-bit indices)");
  }

  // A grid-stride loop over the output elements: `body_` runs per element `i`.
  KernelShader finish_grid(const std::string& kind, const std::string& prelude = "") {
    KernelShader ks;
    const uint32_t ls = elementwise_local_size();
    check_count(out_elements_ + ls * kMaxGroups, "element count");
    std::ostringstream g;
    g << header(kind) << "layout(local_size_x = " << ls << ") in;\n"
      << declarations() << prelude << "void main() {\n  const uint n = " << u(out_elements_)
      << ";\n  const uint stride = gl_NumWorkGroups.x * " << u(ls)
      << ";\n  for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {\n"
      << body_.str() << "  }\n}\n";
    ks.glsl = g.str();
    ks.local_size = {ls, 1, 1};
    ks.workgroups = {std::min<uint64_t>((out_elements_ + ls - 1) / ls, kMaxGroups), 1, 1};
    ks.bindings = bindings_;
    return ks;
  }

  KernelShader write_elementwise() {
    emit_ops(0, "i");
    emit_stores("i");
    return finish_grid("elementwise");
  }

  KernelShader write_matmul() {
    const OpIn& mm = kernel_.ops.front();
    check_settings(mm, {});
    if (mm.inputs.size() != 2) invalid(op_where(mm) + ": matmul takes two inputs");
    const ValueIn& a = plan_.value(mm.inputs[0]);
    const ValueIn& b = plan_.value(mm.inputs[1]);
    const ValueIn& c = plan_.value(mm.output);
    const std::string t = type_of(mm.output);
    if (type_of(a.name) != t || type_of(b.name) != t)
      unsupported(op_where(mm) + ": mixed dtypes are not supported");
    if (a.shape.size() < 2 || b.shape.size() < 2 || c.shape.size() < 2 || c.shape != kernel_.shape)
      invalid(op_where(mm) + ": matmul operands must have rank 2 or more");
    const uint64_t M = a.shape[a.shape.size() - 2], K = a.shape.back(), N = b.shape.back();
    if (b.shape[b.shape.size() - 2] != K || c.shape[c.shape.size() - 2] != M || c.shape.back() != N)
      invalid(op_where(mm) + ": matmul shapes do not agree");
    const std::vector<uint64_t> cb(c.shape.begin(), c.shape.end() - 2);
    const std::vector<uint64_t> ab(a.shape.begin(), a.shape.end() - 2);
    const std::vector<uint64_t> bb(b.shape.begin(), b.shape.end() - 2);
    const uint64_t batches = product(cb);
    check_count(std::max({product(a.shape), product(b.shape), product(c.shape)}), "element count");
    // The tile edge: the largest of 16, 8, 4, 2, 1 whose TS x TS workgroup and two TS x TS
    // tiles fit the device's limits.
    uint32_t ts = 16;
    while (ts > 1 && (ts * ts > device_.wg_invocations || ts > device_.wg_size[0] ||
                      ts > device_.wg_size[1] || 2ull * ts * ts * 4 > device_.shared_bytes))
      ts /= 2;
    if (2ull * ts * ts * 4 > device_.shared_bytes)
      unsupported(op_where(mm) + ": the device has no shared memory for matmul tiles");
    const uint64_t gx = (N + ts - 1) / ts, gy = (M + ts - 1) / ts;
    if (gx > kMaxGroups || gy > kMaxGroups || batches > kMaxGroups)
      unsupported(op_where(mm) + ": more than 65535 workgroups along one axis");
    const std::string A = buffer(a.name), B = buffer(b.name);
    std::ostringstream pre;
    pre << "shared " << t << " tile_a[" << ts << "][" << ts << "];\nshared " << t << " tile_b["
        << ts << "][" << ts << "];\n";
    std::ostringstream m;
    m << "void main() {\n  const uint TS = " << u(ts) << ", M = " << u(M) << ", N = " << u(N)
      << ", K = " << u(K) << ";\n"
      << "  const uint lx = gl_LocalInvocationID.x, ly = gl_LocalInvocationID.y;\n"
      << "  const uint col = gl_WorkGroupID.x * TS + lx, row = gl_WorkGroupID.y * TS + ly;\n"
      << "  const uint batch = gl_WorkGroupID.z;\n"
      << "  const uint a_off = " << broadcast_index(ab, cb, "batch") << " * (M * K);\n"
      << "  const uint b_off = " << broadcast_index(bb, cb, "batch") << " * (K * N);\n"
      << "  " << t << " acc = " << t << "(0);\n"
      << "  for (uint k0 = 0u; k0 < K; k0 += TS) {\n"
      << "    tile_a[ly][lx] = (row < M && k0 + lx < K) ? " << A
      << "[a_off + row * K + k0 + lx] : " << t << "(0);\n"
      << "    tile_b[ly][lx] = (k0 + ly < K && col < N) ? " << B
      << "[b_off + (k0 + ly) * N + col] : " << t << "(0);\n"
      << "    barrier();\n"
      << "    const uint kn = min(TS, K - k0);  // never into the padding\n"
      << "    for (uint k = 0u; k < kn; ++k) acc += tile_a[ly][k] * tile_b[k][lx];\n"
      << "    barrier();\n  }\n"
      << "  if (row >= M || col >= N) return;\n"
      << "  const uint i = batch * (M * N) + row * N + col;\n";
    locals_[mm.output] = "acc";
    emit_ops(1, "i");
    emit_stores("i");
    KernelShader ks;
    ks.glsl = header("matmul") + "layout(local_size_x = " + std::to_string(ts) +
              ", local_size_y = " + std::to_string(ts) + ") in;\n" + declarations() + pre.str() +
              m.str() + body_.str() + "}\n";
    ks.local_size = {ts, ts, 1};
    ks.workgroups = {gx, gy, batches};
    ks.bindings = bindings_;
    return ks;
  }

  KernelShader write_reduction() {
    const OpIn& op = kernel_.ops.front();
    check_settings(op, {"axes", "keepdims"});
    if (op.inputs.size() != 1) invalid(op_where(op) + ": a reduction takes one input");
    const ValueIn& in = plan_.value(op.inputs[0]);
    const std::string t = type_of(op.output);
    if (type_of(in.name) != t) unsupported(op_where(op) + ": mixed dtypes are not supported");
    const size_t rank = in.shape.size();
    std::vector<bool> reduced(rank, false);
    if (const json::value* axes = setting(op, "axes")) {
      if (!axes->is_array()) invalid(op_where(op) + ": axes must be a list of integers");
      for (const json::value& ax : axes->as_array()) {
        if (!ax.is_int64()) invalid(op_where(op) + ": axes must be a list of integers");
        int64_t x = ax.as_int64();
        if (x < 0) x += static_cast<int64_t>(rank);
        if (x < 0 || x >= static_cast<int64_t>(rank)) invalid(op_where(op) + ": axis out of range");
        reduced[static_cast<size_t>(x)] = true;
      }
    } else {
      reduced.assign(rank, true);
    }
    std::vector<uint64_t> kept_size, kept_stride, red_size, red_stride;
    for (size_t d = 0; d < rank; ++d) {
      (reduced[d] ? red_size : kept_size).push_back(in.shape[d]);
      (reduced[d] ? red_stride : kept_stride).push_back(product(in.shape, d + 1));
    }
    const uint64_t R = product(red_size);
    check_count(product(in.shape), "element count");
    auto decompose = [](const std::vector<uint64_t>& size, const std::vector<uint64_t>& stride,
                        const std::string& var) {
      std::string e;
      for (size_t j = 0; j < size.size(); ++j) {
        if (size[j] == 1) continue;
        const uint64_t inner = [&] {
          uint64_t p = 1;
          for (size_t q = j + 1; q < size.size(); ++q) p *= size[q];
          return p;
        }();
        e += (e.empty() ? "" : " + ") + std::string("((") + var + " / " + u(inner) + ") % " +
             u(size[j]) + ") * " + u(stride[j]);
      }
      return e.empty() ? std::string("0u") : e;
    };
    const std::string& o = op.op;
    const bool f = t == "float";
    if ((o == "max_axis" || o == "min_axis") && R == 0)
      invalid(op_where(op) + ": max/min over an empty axis");
    const std::string X = buffer(in.name);
    body_ << "    const uint base = " << decompose(kept_size, kept_stride, "i") << ";\n";
    const std::string elem = X + "[base + " + decompose(red_size, red_stride, "r") + "]";
    std::string init = o == "prod_axis" ? t + "(1)" : t + "(0)";
    uint64_t first = 0;
    if (o == "max_axis" || o == "min_axis") {
      body_ << "    " << t << " acc;\n    { const uint r = 0u; acc = " << elem << "; }\n";
      first = 1;
    } else {
      body_ << "    " << t << " acc = " << init << ";\n";
    }
    std::string combine;
    if (o == "sum_axis" || o == "mean_axis") combine = "acc + x";
    if (o == "prod_axis") combine = "acc * x";
    if (o == "max_axis") combine = f ? "oi_max(acc, x)" : "max(acc, x)";
    if (o == "min_axis") combine = f ? "oi_min(acc, x)" : "min(acc, x)";
    body_ << "    for (uint r = " << u(first) << "; r < " << u(R) << "; ++r) { " << t
          << " x = " << elem << "; acc = " << combine << "; }\n";
    if (o == "mean_axis") {
      if (R == 0)
        body_ << "    acc = " << (f ? "uintBitsToFloat(0x7fc00000u)" : t + "(0)") << ";\n";
      else if (f)
        body_ << "    acc = acc / float(" << u(R) << ");\n";
      else
        body_ << "    acc = acc / " << t << "(" << R << ");\n";
    }
    locals_[op.output] = "acc";
    if (plan_.value(op.output).shape != kernel_.shape)
      invalid(op_where(op) + ": the reduction's output does not have the kernel's shape");
    emit_ops(1, "i");
    emit_stores("i");
    return finish_grid("reduction");
  }

  // softmax over `axis` (ops-nn.md: max-subtracted): one invocation per row, three passes
  // (max, sum of exponentials, normalized outputs). GLSL's exp and division are not correctly
  // rounded; ops-nn.md's softmax tolerance (1e-5, 1e-4) covers them.
  KernelShader write_softmax() {
    const OpIn& op = kernel_.ops.front();
    check_settings(op, {"axis"});
    if (kernel_.ops.size() != 1) unsupported(op_where(op) + ": softmax with an epilogue");
    if (op.inputs.size() != 1) invalid(op_where(op) + ": softmax takes one input");
    const ValueIn& in = plan_.value(op.inputs[0]);
    const ValueIn& out = plan_.value(op.output);
    if (type_of(in.name) != "float" || type_of(out.name) != "float")
      unsupported(op_where(op) + ": softmax supports f32 only");
    if (in.shape != out.shape || in.shape.empty())
      invalid(op_where(op) +
              ": softmax needs an input of rank 1 or more and an output of its shape");
    int64_t axis = -1;
    if (const json::value* a = setting(op, "axis")) {
      if (!a->is_int64()) invalid(op_where(op) + ": axis must be an integer");
      axis = a->as_int64();
    }
    const int64_t rank = static_cast<int64_t>(in.shape.size());
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) invalid(op_where(op) + ": axis out of range");
    const uint64_t L = in.shape[static_cast<size_t>(axis)];
    const uint64_t inner = product(in.shape, static_cast<size_t>(axis) + 1);
    check_count(product(in.shape), "element count");
    const std::string X = buffer(in.name), Y = buffer(out.name);
    out_elements_ = product(in.shape) / std::max<uint64_t>(L, 1);  // rows
    body_ << "    const uint base = (i / " << u(inner) << ") * " << u(L * inner) << " + i % "
          << u(inner) << ";\n"
          << "    float m = uintBitsToFloat(0xff800000u);\n"
          << "    for (uint k = 0u; k < " << u(L) << "; ++k) m = oi_max(m, " << X << "[base + k * "
          << u(inner) << "]);\n"
          << "    float s = 0.0;\n"
          << "    for (uint k = 0u; k < " << u(L) << "; ++k) s += exp(" << X << "[base + k * "
          << u(inner) << "] - m);\n"
          << "    for (uint k = 0u; k < " << u(L) << "; ++k) " << Y << "[base + k * " << u(inner)
          << "] = exp(" << X << "[base + k * " << u(inner) << "] - m) / s;\n";
    return finish_grid("softmax");
  }

  const PlanIn& plan_;
  const DeviceIn& device_;
  const KernelIn& kernel_;
  uint64_t out_elements_ = 0;
  std::vector<Binding> bindings_;
  std::map<std::string, std::string> locals_;
  std::ostringstream body_;
  bool uses_div_ = false;
  int relu_count_ = 0;
  int next_local_ = 0;
};

}  // namespace

KernelShader write_kernel_shader(const PlanIn& plan, const DeviceIn& device,
                                 const KernelIn& kernel) {
  return KernelWriter(plan, device, kernel).write();
}

}  // namespace oi::glsl
