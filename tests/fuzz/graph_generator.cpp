// exec_run_fuzz's graph generator (graph_generator.hpp).
#include "graph_generator.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace oi_fuzz {
namespace {

using oi::DType;

constexpr std::array kDTypes = {DType::f32, DType::f64, DType::f16, DType::bf16,   DType::f8,
                                DType::i8,  DType::i16, DType::i32, DType::i64,    DType::u8,
                                DType::u32, DType::i4,  DType::u4,  DType::boolean};
constexpr std::array<std::string_view, 20> kUnary = {
    "relu",    "abs",  "neg", "exp",  "log",  "sqrt",  "floor", "ceil", "round", "trunc",
    "sigmoid", "tanh", "erf", "silu", "gelu", "rsqrt", "recip", "not",  "sin",   "cos"};
constexpr std::array<std::string_view, 12> kBinary = {
    "add", "sub", "mul", "div", "min", "max", "pow", "rem", "and", "floor_div", "or", "xor"};
constexpr std::array<std::string_view, 6> kCompare = {"eq", "ne", "lt", "le", "gt", "ge"};
constexpr std::array<std::string_view, 5> kReduce = {"sum_axis", "mean_axis", "prod_axis",
                                                     "max_axis", "min_axis"};
constexpr std::array<std::string_view, 9> kFloatLiterals = {"0",   "1",    "-1",   "0.5",  "-0.0",
                                                            "inf", "-inf", "1e30", "65504"};
constexpr std::array<std::string_view, 8> kIntLiterals = {"0",    "1",   "-1", "127",
                                                          "-128", "255", "7",  "2147483647"};
// Slice bounds: both ends, past them, negative, and the extremes of i64.
constexpr std::array<int64_t, 10> kBounds = {0, 1, 2, -1, -2, 3, 5, 100, INT64_MAX, INT64_MIN};

template <class A>
auto choose(ByteReader& in, const A& options) {
  return options[in.pick(options.size())];
}

bool is_float_type(DType t) {
  return t == DType::f32 || t == DType::f64 || t == DType::f16 || t == DType::bf16 ||
         t == DType::f8;
}

// ONNX slice length of an axis of `n` elements (docs/ops-nn.md): negative indices count from
// the end, bounds clamp, negative steps walk backwards.
int64_t slice_length(int64_t n, int64_t start, int64_t end, int64_t step) {
  // Counted from the end; anything before the first element becomes -1 (no overflow at i64 min).
  auto from_end = [n](int64_t v) { return v >= 0 ? v : (v < -n ? -1 : v + n); };
  int64_t s = from_end(start), e = from_end(end);
  if (step > 0) {
    s = std::clamp<int64_t>(s, 0, n);
    e = std::clamp<int64_t>(e, 0, n);
    return e > s ? (e - s - 1) / step + 1 : 0;
  }
  s = std::clamp<int64_t>(s, 0, n - 1);
  e = std::clamp<int64_t>(e, -1, n - 1);
  return s > e ? (s - e - 1) / -step + 1 : 0;
}

struct Writer {
  explicit Writer(ByteReader& r) : in(r) {}
  ByteReader& in;
  std::string literal;  // a value of the element type
  std::string body;
  uint64_t a = 0, b = 0, w = 0;

  std::string operand() { return std::string(choose(in, std::array{"x", "t", "u", "acc"})); }
  // Broadcasts against [A, B]: the same shape, a row [B] or a scalar.
  std::string any_operand() {
    return std::string(choose(in, std::array{"x", "t", "u", "acc", "y", "s", "c"}));
  }
  std::string target() { return std::string(choose(in, std::array{"t", "u", "acc"})); }
  std::string axis() { return std::string(choose(in, std::array{"0", "1", "-1", "-2", "2"})); }
  std::string index() { return std::string(choose(in, std::array{"0", "1", "3", "4", "A"})); }

  void statement(int depth) {
    switch (in.pick(15)) {
      case 0:
        body += "op " + std::string(choose(in, kUnary)) + "(" + operand() + ") >> " + target();
        break;
      case 1:
        body += "op " + std::string(choose(in, kBinary)) + "(" + operand() + ", " + any_operand() +
                ") >> " + target();
        break;
      case 2:
        body += "op " + std::string(choose(in, kCompare)) + "(" + operand() + ", " + any_operand() +
                ") >> bt;\n  op filter(bt, " + operand() + ", " + any_operand() + ") >> " +
                target();
        break;
      case 3: {
        const bool rows = in.pick(2) == 0;
        body += "op " + std::string(choose(in, kReduce)) + "(" + operand() + ", axes=[" +
                (rows ? "1" : choose(in, std::array{"0", "-2"})) + "], keepdims=false) >> " +
                (rows ? "r" : "c");
        break;
      }
      case 4:
        body +=
            std::string("op ") + (in.pick(2) ? "argmax_axis" : "argmin_axis") + "(" + operand() +
            ", axis=1, keepdims=false, select_first=" + (in.pick(2) ? "true" : "false") + ") >> ia";
        break;
      case 5:
        body += std::string("op ") + (in.pick(2) ? "softmax" : "log_softmax") + "(" + operand() +
                ", axis=" + axis() + ") >> " + target();
        break;
      case 6:
        body += "op transpose(" + operand() + ", perm=[1, 0]) >> tt;\n  op matmul(" + operand() +
                ", tt) >> m";
        break;
      case 7:
        body += "op concat(" + operand() + ", " + operand() +
                ", axis=" + choose(in, std::array{"1", "-1"}) + ") >> wide";
        break;
      case 8: {
        const int64_t start = choose(in, kBounds), end = choose(in, kBounds);
        const int64_t step = choose(in, std::array<int64_t, 5>{1, 2, -1, -3, 1});
        w = static_cast<uint64_t>(
            std::max<int64_t>(slice_length(static_cast<int64_t>(b), start, end, step), 0));
        body += "op slice(" + operand() + ", starts=[" + std::to_string(start) + "], ends=[" +
                std::to_string(end) + "], axes=[1], steps=[" + std::to_string(step) + "]) >> sl";
        break;
      }
      case 9:  // table entries: written, read, reset, read whole; indices at and past the bound
        switch (in.pick(4)) {
          case 0:
            body += "op relu(" + std::string(choose(in, std::array{"y", "c"})) + ") >> K[" +
                    index() + "]";
            break;
          case 1:
            body += "cache.write c >> K[" + index() + "]";
            break;
          case 2:
            body += "cache.reset K[" + index() + "]";
            break;
          default:
            body += "cache.read K[" + index() + "] >> c;\n  cache.read K[..] >> st";
            break;
        }
        break;
      case 10:
        if (depth > 0) return;
        body += "loop l (i in 0.." + std::string(choose(in, std::array{"A", "B", "3"})) +
                ") {\n  cache.read K[i] >> c;\n  ";
        statement(depth + 1);
        body += "  op add(c, y) >> K[i];\n  }\n";
        return;
      case 11:
        body += in.pick(2) ? "op fill(" + target() + ", value=" + literal + ") >> " + target()
                           : "op iota(" + target() + ", axis=" + axis() + ") >> " + target();
        break;
      case 12:
        body += std::string("op ") + (in.pick(2) ? "layer_norm" : "rms_norm") + "(" + operand() +
                ", y, axis=" + axis() + ", epsilon=1e-5) >> " + target();
        break;
      case 13:
        body +=
            "op clamp(" + operand() + ", min=" + literal + ", max=" + literal + ") >> " + target();
        break;
      default:
        body += std::string(
            choose(in, std::array{"cache.increment n", "cache.decrement 2 n", "cache.reset n"}));
        break;
    }
    body += ";\n  ";
  }
};

}  // namespace

oi::Tensor tensor_from_bytes(DType dtype, const oi::Shape& shape, ByteReader& in) {
  oi::Tensor t(dtype, shape);
  const uint64_t bits = oi::dtype_info(dtype).bits;
  for (uint64_t i = 0; i < t.numel(); ++i) {
    uint64_t raw = 0;
    for (uint64_t k = 0; k < (bits + 7) / 8; ++k) raw |= uint64_t{in.byte()} << (8 * k);
    if (bits < 64) raw &= (uint64_t{1} << bits) - 1;
    if (dtype == DType::boolean) raw &= 1;
    t.set_raw(i, raw);
  }
  return t;
}

GeneratedCase generate_case(ByteReader& in) {
  const DType dtype = choose(in, kDTypes);
  const std::string T(oi::dtype_name(dtype));
  Writer gen(in);
  gen.a = in.pick(4);
  gen.b = in.pick(5);
  gen.literal =
      std::string(is_float_type(dtype) ? choose(in, kFloatLiterals) : choose(in, kIntLiterals));
  if (dtype == DType::boolean) gen.literal = in.pick(2) ? "true" : "false";
  const size_t statements = 1 + in.pick(6);
  for (size_t i = 0; i < statements; ++i) gen.statement(0);

  GeneratedCase c;
  // Every value a statement may name, declared whether used or not.
  std::string graph = "dynamic { x: " + T + "[A, B]; }\n";
  graph += "volatile {\n  y: " + T + "[B];\n  s: " + T + " @init(" + gen.literal + ");\n}\n";
  graph += "persistent {\n  K(i): " + T + "[B] @table @fixed(i=4);\n  acc: " + T +
           "[A, B];\n  n: i32 @init(0);\n}\nblock entry {\n";
  for (const char* temp :
       {"t: T[A, B]", "u: T[A, B]", "r: T[A]", "c: T[B]", "tt: T[B, A]", "m: T[A, A]",
        "bt: bool[A, B]", "wide: T[A, 2*B]", "st: T[4, B]", "sl: T[A, W]", "ia: i64[A]"}) {
    std::string decl(temp);
    const size_t at = decl.find(": T[");
    if (at != std::string::npos) decl.replace(at + 2, 1, T);
    graph += "  assign " + decl + ";\n";
  }
  c.graph = graph + "  " + gen.body + "return " + (in.pick(2) ? "t, acc" : "c") + ";\n}\n";
  c.model.add_sizevar("A", gen.a);
  c.model.add_sizevar("B", gen.b);
  c.model.add_sizevar("W", gen.w);
  c.model.add_tensor("y", tensor_from_bytes(dtype, {gen.b}, in));
  const size_t steps = 1 + in.pick(3);
  for (size_t i = 0; i < steps; ++i) c.xs.push_back(tensor_from_bytes(dtype, {gen.a, gen.b}, in));
  return c;
}

}  // namespace oi_fuzz
