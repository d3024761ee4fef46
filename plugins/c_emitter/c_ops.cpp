// The op table: every family registers its generators once. Heads (matmul, reductions) on
// f16, bf16 and f8 run their f32 form over widened copies of their inputs (below).
#include "c_ops.hpp"

#include <map>

namespace oi::c_emitter {
namespace {

bool narrow_float(const std::string& d) {
  return d == "f16" || d == "bf16" || d == "f8";
}

// The kernel as an f32 head sees it: each narrow input `x` as an f32 value `x__wide` (an exact
// copy in scratch, pointer p_x__wide), a narrow output as an f32 one of the same name.
class WideEnv : public KernelEnv {
 public:
  explicit WideEnv(KernelEnv& env) : env_(env) {}
  const Value& value(const std::string& name) const override {
    auto it = wide_.find(name);
    return it != wide_.end() ? it->second : env_.value(name);
  }
  const Value& operand(const std::string& text) const override {
    auto it = wide_.find(text);
    return it != wide_.end() ? it->second : env_.operand(text);
  }
  std::string scratch(uint64_t bytes) override { return env_.scratch(bytes); }
  std::string state_flag() override { return env_.state_flag(); }
  int64_t kernel_id() const override { return env_.kernel_id(); }
  const std::string& prefix() const override { return env_.prefix(); }
  const json::object* device() const override { return env_.device(); }
  void function(const std::string& text) override { env_.function(text); }
  bool widened(const std::string& name) const { return wide_.count(name) != 0; }
  void widen(const std::string& name, const std::string& as) {
    Value v = env_.value(name);
    v.name = as;
    v.dtype = "f32";
    v.bytes = v.numel() * 4;
    wide_[as] = v;
  }

 private:
  KernelEnv& env_;
  std::map<std::string, Value> wide_;
};

std::map<std::string, HeadFn>& f32_heads() {
  static std::map<std::string, HeadFn> heads;
  return heads;
}

// ops.md: f8/bf16/f16 inputs are widened exactly to f32, the head accumulates in f32 (matmul's
// dot products, sums in row-major order, max/min and the arg-reductions' comparisons), and each
// output element is rounded once to the output's dtype, as the CPU backend does.
std::string narrow_head(KernelEnv& env, const json::object& k, std::ostringstream& c,
                        std::string& value) {
  const auto& head = k.at("ops").as_array().at(0).as_object();
  const std::string op = str(head.at("op"));
  const HeadFn f32 = f32_heads().at(op);
  const auto& ins = head.at("inputs").as_array();
  // An empty operand (a sum over a zero-length axis): the C kernel library's kernel.
  for (const auto& in : ins)
    if (env.value(str(in)).numel() == 0)
      throw LibraryInstead("c emitter: " + op_where(head) +
                           " on an empty tensor: left to the C kernel library");
  const std::string in_dtype = env.value(str(ins.at(0))).dtype;
  if (!narrow_float(in_dtype)) return f32(env, k, c, value);
  WideEnv wide(env);
  json::object wk = k;
  auto& wop = wk.at("ops").as_array().at(0).as_object();
  auto& wins = wop.at("inputs").as_array();
  for (auto& in : wins) {
    const std::string name = str(in);
    const Value& v = env.value(name);
    if (v.dtype != in_dtype)  // mixed operands: the f32 head refuses them by name
      return f32(env, k, c, value);
    const std::string as = name + "__wide";
    if (wide.widened(as)) {
      in = as;  // the same operand twice (x * x): one copy
      continue;
    }
    wide.widen(name, as);
    const std::string field = env.scratch(v.numel() * 4 + 8);
    c << "  float* restrict p_" << as << " = (float*)s->" << field << ";\n"
      << "  for (size_t i = 0; i < " << u(v.numel()) << "; ++i) p_" << as << "[i] = oi_" << v.dtype
      << "_to_f32(p_" << name << "[i]);\n";
    in = as;
  }
  const std::string out = str(head.at("output"));
  const std::string out_dtype = env.value(out).dtype;
  if (narrow_float(out_dtype)) wide.widen(out, out);
  f32(wide, wk, c, value);
  if (narrow_float(out_dtype)) value = "oi_f32_to_" + out_dtype + "(" + value + ")";
  return out;
}

// Wraps every registered head whose f32 form serves its narrow dtypes too.
void register_narrow_heads(OpTable& t) {
  for (const char* op :
       {"matmul", "sum_axis", "mean_axis", "max_axis", "min_axis", "argmax_axis", "argmin_axis"}) {
    auto it = t.heads.find(op);
    if (it == t.heads.end()) continue;
    f32_heads()[op] = it->second;
    it->second = narrow_head;
  }
}

}  // namespace

const OpTable& op_table() {
  static const OpTable table = [] {
    OpTable t;
    register_arith_ops(t);
    register_matmul_ops(t);
    register_reduce_ops(t);
    register_math_ops(t);
    register_movement_ops(t);
    register_conv_ops(t);
    register_pool_ops(t);
    register_norm_ops(t);
    register_compare_ops(t);
    register_attention_ops(t);
    register_narrow_heads(t);
    return t;
  }();
  return table;
}

}  // namespace oi::c_emitter
