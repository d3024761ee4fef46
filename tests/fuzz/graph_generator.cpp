// exec_run_fuzz's graph generator (graph_generator.hpp).
#include "graph_generator.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

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

// Where a statement goes: its loop indices, and what the place forbids (a scope holds no
// branch or yield; blocks other than entry hold no yield).
struct Place {
  std::vector<std::string> loops;  // visible loop indices, innermost last
  bool in_scope = false;
  bool in_entry = true;
};

// A literal of the element type: a float's extremes and specials, an integer in its range
// (the narrow integer types' @init must fit), true or false.
std::string literal_of(DType dtype, ByteReader& in) {
  if (dtype == DType::boolean) return in.pick(2) ? "true" : "false";
  if (is_float_type(dtype)) return std::string(choose(in, kFloatLiterals));
  const std::string_view name = oi::dtype_name(dtype);
  const uint32_t bits = oi::dtype_bits(dtype);
  const bool is_signed = name.front() == 'i';
  // The literals are at most 32-bit, so 64-bit types need no exact range.
  const uint32_t width = std::min<uint32_t>(bits, 48);
  const int64_t lo = is_signed ? -(int64_t{1} << (width - 1)) : 0;
  const int64_t hi = is_signed ? (int64_t{1} << (width - 1)) - 1 : (int64_t{1} << width) - 1;
  std::vector<std::string_view> fits;
  for (std::string_view v : kIntLiterals) {
    const int64_t value = std::stoll(std::string(v));
    if (value >= lo && value <= hi) fits.push_back(v);
  }
  return std::string(fits[in.pick(fits.size())]);
}

struct Writer {
  explicit Writer(ByteReader& r) : in(r) {}
  ByteReader& in;
  std::string literal;  // a value of the element type
  std::string body;
  uint64_t a = 0, b = 0, w = 0;
  int loops = 0;          // loop nodes written (names l0, l1, ...)
  int scopes = 0;         // scope nodes written
  bool branches = false;  // blocks yes and no are reached
  bool side = false;      // block side is reached
  bool yielded = false;   // the consumers c1 and c2 are reached

  std::string operand() { return std::string(choose(in, std::array{"x", "t", "u", "acc"})); }
  // Broadcasts against [A, B]: the same shape, a row [B] or a scalar.
  std::string any_operand() {
    return std::string(choose(in, std::array{"x", "t", "u", "acc", "y", "s", "c"}));
  }
  std::string target() { return std::string(choose(in, std::array{"t", "u", "acc"})); }
  std::string axis() { return std::string(choose(in, std::array{"0", "1", "-1", "-2", "2"})); }
  // A table index: literals at and past K's bound of 4, a size variable, the counter n (which
  // may be negative) plus or minus a little, and the visible loop indices.
  std::string index(const Place& at) {
    std::vector<std::string> options = {"0", "1", "3", "4", "A", "n", "n-1", "n+2"};
    for (const std::string& l : at.loops) {
      options.push_back(l);
      options.push_back(l + "+1");
    }
    return options[in.pick(options.size())];
  }
  // A prefix-table index: validation checks literal indices against the model, so only the
  // counter and loop indices reach the entries p.2 (wrong shape) and p.3 (missing) at run time.
  std::string prefix_index(const Place& at) {
    std::vector<std::string> options = {"0", "1", "n", "n+1"};
    for (const std::string& l : at.loops) options.push_back(l);
    return options[in.pick(options.size())];
  }
  // A loop bound: literals, size variables (0 when A or B is), the counter and the constant.
  std::string bound() {
    return std::string(choose(in, std::array{"A", "B", "3", "0", "n", "lim"}));
  }

  // Slices of K(i) @fixed(i=4) with the temporary of their shape: whole, both ends, empty, and
  // past the bound (a run-time error).
  std::string fixed_slice() {
    static constexpr std::array<std::array<const char*, 2>, 11> kSlices = {{{"K[..]", "st"},
                                                                            {"K[]", "st"},
                                                                            {"K[1..3]", "s2"},
                                                                            {"K[2..]", "s2"},
                                                                            {"K[0..-2]", "s2"},
                                                                            {"K[..2]", "s2"},
                                                                            {"K[2..2]", "s0"},
                                                                            {"K[4..]", "s0"},
                                                                            {"K[3..4]", "s1"},
                                                                            {"K[3..5]", "s2"},
                                                                            {"K[..-3]", "s1"}}};
    const auto& [slice, temp] = kSlices[in.pick(kSlices.size())];
    if (in.pick(3) == 0) return "cache.write " + std::string(temp) + " >> " + slice;
    return "cache.read " + std::string(slice) + " >> " + temp;
  }

  // The growable G(i, j): entries, windows past its size, resets at every level.
  std::string growable(const Place& at) {
    const std::string i = index(at), j = index(at);
    switch (in.pick(9)) {
      case 0:
        return "cache.write c >> G[" + i + ", " + j + "]";
      case 1:
        return "op add(c, y) >> G[" + i + ", " + j + "]";
      case 2:
        return "cache.read G[" + i + ", " + j + "] >> c";
      case 3:
        return "cache.read G[" + i + ", " + choose(in, std::array{"0..2", "1..3", "n..n+2"}) +
               "] >> s2";
      case 4:
        return "cache.read G[0..2, " + j + "] >> s2";
      case 5:
        return "cache.read G[" + i + ", " + choose(in, std::array{"..4", "", "..-1", "1.."}) +
               "] >> st";
      case 6:
        return "cache.write s2 >> G[" + i + ", " + choose(in, std::array{"1..3", "0..2"}) + "]";
      case 7:
        return "cache.write st >> G[" + i + ", ..]";
      default:
        return std::string("cache.reset ") +
               choose(in,
                      std::array<std::string, 3>{"G", "G[" + i + "]", "G[" + i + ", " + j + "]"});
    }
  }

  // The @auto_dim M(i, j): T[1, B] with bounds i=2, j=3, read and written whole (its bound shape
  // [3, BM] pads) and in parts.
  std::string auto_dim(const Place& at) {
    const std::string i = index(at), j = index(at);
    switch (in.pick(6)) {
      case 0:
        return "cache.read M[" + i + ", " + j + "] >> md";
      case 1:
        return "cache.write md >> M[" + i + ", " + j + "]";
      case 2:
        return "cache.read M[0..1, ] >> m1";
      case 3:
        return "cache.write m1 >> M[" +
               std::string(choose(in, std::array{"0..1", "2..3", "1..2"})) + ", 0..BM]";
      case 4:
        return "op relu(md) >> M[" + i + ", " + j + "]";
      default:
        return "cache.reset M";
    }
  }

  // Consumer-free statements between `yield acc, u` and `await acc, u`: nothing c1 or c2 touch.
  std::string beside_consumers() {
    return choose(in, std::array<std::string, 3>{"op relu(y) >> c", "cache.read K[0] >> c",
                                                 "cache.increment n"});
  }

  void statement(const Place& at) {
    switch (in.pick(24)) {
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
      case 9:  // K's entries: written, read, reset; indices at and past the bound
        switch (in.pick(4)) {
          case 0:
            body += "op relu(" + std::string(choose(in, std::array{"y", "c"})) + ") >> K[" +
                    index(at) + "]";
            break;
          case 1:
            body += "cache.write c >> K[" + index(at) + "]";
            break;
          case 2:
            body += "cache.reset " + (in.pick(3) ? "K[" + index(at) + "]" : std::string("K"));
            break;
          default:
            body += "cache.read K[" + index(at) + "] >> c";
            break;
        }
        break;
      case 10: {  // a loop, at most two deep; its body reads and writes K at its index
        if (at.loops.size() >= 2) return;
        const std::string l = "l" + std::to_string(loops++);
        body += "loop " + l + " (" + l + " in " + choose(in, std::array{"0", "1", "n"}) + ".." +
                bound() + ") {\n  cache.read K[" + l + "] >> c;\n  ";
        Place inner = at;
        inner.loops.push_back(l);
        const size_t n = 1 + in.pick(2);
        for (size_t k = 0; k < n; ++k) statement(inner);
        body += "op add(c, y) >> K[" + l + "];\n  }\n  ";
        return;
      }
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
      case 14:
        body += std::string(choose(in, std::array{"cache.increment n", "cache.decrement 2 n",
                                                  "cache.reset n", "cache.increment 3 n"}));
        break;
      case 15:
        body += fixed_slice();
        break;
      case 16:
        body += growable(at);
        break;
      case 17:
        body += auto_dim(at);
        break;
      case 18:  // the prefix table: p.0 and p.1 exist, p.2 has the wrong shape, p.3 and on are
                // missing
        body += in.pick(2) ? "op add(c, P[" + prefix_index(at) + "]) >> c"
                           : "transfer P[" + prefix_index(at) + "] >> c";
        break;
      case 19:  // branches: conditional on the counter, or a plain call
        if (at.in_scope || !at.in_entry) return;
        if (in.pick(2)) {
          body += "op lt(n, lim) >> flag;\n  branch flag yes no";
          branches = true;
        } else {
          body += "branch side";
          side = true;
        }
        break;
      case 20:  // yield/await around statements that touch nothing of the consumers'
        if (at.in_scope || !at.in_entry || !at.loops.empty() || yielded) return;
        yielded = true;
        body += "yield acc, u;\n  ";
        for (size_t k = in.pick(3); k > 0; --k) body += beside_consumers() + ";\n  ";
        body += "await acc, u";
        break;
      case 21: {  // a scope (nodes as if written without it)
        body += "scope s" + std::to_string(scopes++) +
                std::string(in.pick(2) ? " (fuse=false)" : "") + " {\n  ";
        Place inner = at;
        inner.in_scope = true;
        const size_t n = in.pick(3);
        for (size_t k = 0; k < n; ++k) statement(inner);
        body += "}\n  ";
        return;
      }
      case 22:
        body += "transfer " +
                std::string(choose(in, std::array{"x >> t", "acc >> u", "t >> acc", "y >> c"}));
        break;
      default:
        body += "barrier";
        break;
    }
    body += ";\n  ";
  }

  // A block reached by a branch: one or two statements outside entry, then return.
  std::string block(const std::string& name) {
    body.clear();
    Place at;
    at.in_entry = false;
    const size_t n = 1 + in.pick(2);
    for (size_t k = 0; k < n; ++k) statement(at);
    return "block " + name + " {\n  " + body + "return;\n}\n";
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
  GeneratedCase c;
  // One case in four runs on the device-memory fixture, in f32 (its own kernels are f32).
  c.device_memory = in.pick(4) == 0;
  const DType dtype = c.device_memory ? DType::f32 : choose(in, kDTypes);
  const std::string T(oi::dtype_name(dtype));
  Writer gen(in);
  gen.a = in.pick(4);
  gen.b = in.pick(5);
  gen.literal = literal_of(dtype, in);
  c.max_table_bytes = choose(in, std::array<uint64_t, 8>{0, 0, 0, 1, 8, 24, 64, 1000});
  const int64_t lim = static_cast<int64_t>(in.pick(5)) - 1;
  const size_t statements = 1 + in.pick(8);
  for (size_t i = 0; i < statements; ++i) gen.statement(Place{});
  const std::string entry = gen.body;
  std::string blocks;
  if (gen.branches) blocks += gen.block("yes") + gen.block("no");
  if (gen.side) blocks += gen.block("side");
  if (gen.yielded) {
    // c1 writes acc, c2 writes u; both read y, which entry only reads meanwhile.
    blocks += "block c1 {\n  await acc;\n  op " + std::string(choose(in, kBinary)) +
              "(acc, y) >> acc;\n  yield acc;\n}\n";
    blocks += "block c2 {\n  await u;\n  op " + std::string(choose(in, kUnary)) +
              "(u) >> u;\n  yield u;\n}\n";
  }

  // Every value a statement may name, declared whether used or not.
  std::string graph = "dynamic { x: " + T + "[A, B]; }\n";
  graph += "volatile {\n  y: " + T + "[B];\n  s: " + T + " @init(" + gen.literal +
           ");\n  P(l): " + T + "[B] @pattern(\"p.{l}\");\n  flag: bool;\n}\n";
  graph += "constant { lim: i32 @init(" + std::to_string(lim) + "); }\n";
  graph += "persistent {\n  K(i): " + T + "[B] @table @fixed(i=4);\n  G(i, j): " + T +
           "[B] @table;\n  M(i, j): " + T +
           "[1, B] @auto_dim(i, j) @fixed(i=2, j=3);\n  acc: " + T +
           "[A, B];\n  n: i32 @init(0);\n}\nblock entry {\n";
  for (const char* temp :
       {"t: T[A, B]", "u: T[A, B]", "r: T[A]", "c: T[B]", "tt: T[B, A]", "m: T[A, A]",
        "bt: bool[A, B]", "wide: T[A, 2*B]", "st: T[4, B]", "s2: T[2, B]", "s1: T[1, B]",
        "s0: T[0, B]", "md: T[3, BM]", "m1: T[1, BM]", "sl: T[A, W]", "ia: i64[A]"}) {
    std::string decl(temp);
    const size_t at = decl.find(": T[");
    if (at != std::string::npos) decl.replace(at + 2, 1, T);
    graph += "  assign " + decl + ";\n";
  }
  c.graph = graph + "  " + entry + "return " + (in.pick(2) ? "t, acc" : "c") + ";\n}\n" + blocks;
  c.model.add_sizevar("A", gen.a);
  c.model.add_sizevar("B", gen.b);
  c.model.add_sizevar("W", gen.w);
  c.model.add_sizevar("BM", gen.b + 3);
  c.model.add_tensor("y", tensor_from_bytes(dtype, {gen.b}, in));
  c.model.add_tensor("p.0", tensor_from_bytes(dtype, {gen.b}, in));
  c.model.add_tensor("p.1", tensor_from_bytes(dtype, {gen.b}, in));
  c.model.add_tensor("p.2", tensor_from_bytes(dtype, {gen.b + 1}, in));
  const size_t steps = 1 + in.pick(4);
  for (size_t i = 0; i < steps; ++i) {
    c.modes.push_back(
        choose(in, std::array{StepMode::step, StepMode::iterate, StepMode::iterate_part}));
    c.xs.push_back(tensor_from_bytes(dtype, {gen.a, gen.b}, in));
  }
  c.part_events = in.pick(8);
  return c;
}

}  // namespace oi_fuzz
