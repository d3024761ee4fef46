// The host program of the GLSL output (docs/synth-glsl.md): runs any manifest.json the glsl
// emitter writes, on a Vulkan device, with the driver options of `openinfer run`:
//
//   HOST [--manifest DIR] [--model M.oinf] [--steps N] [--input NAME=FILE[:TENSOR]]...
//        [--fetch NAME]... [--save OUT.oinf] [--quiet] [--bench N]
//
// The same source is emitted next to the shaders of every plan and built once by the tests as
// the manifest runner. It depends on Vulkan-Hpp (libvulkan is opened at run time) and
// header-only Boost.JSON, no OpenInfer library. Exit codes as `openinfer run`: 1 a bad input,
// 2 a usage error, 3 no Vulkan device or a device failure.
#define VULKAN_HPP_DISPATCH_LOADER_DYNAMIC 1
#include <algorithm>
#include <bit>
#include <boost/json/src.hpp>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include <vulkan/vulkan.hpp>

#include "oinf_io.hpp"
#include "shape_rules.hpp"

VULKAN_HPP_DEFAULT_DISPATCH_LOADER_DYNAMIC_STORAGE

#ifdef OPENINFER_GLSL_EMBEDDED_WEIGHTS
// host/weights.cpp (--embed-weights): the model's tensors the plan reads, as an OINF image.
extern const unsigned char oi_embedded_weights[];
extern const std::size_t oi_embedded_weights_size;
#endif

namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

struct Failure : std::runtime_error {
  int code;
  Failure(int c, const std::string& m) : std::runtime_error(m), code(c) {}
};
[[noreturn]] void input_error(const std::string& m) {
  throw Failure(1, m);
}
[[noreturn]] void usage_error(const std::string& m) {
  throw Failure(2, m);
}
[[noreturn]] void device_error(const std::string& m) {
  throw Failure(3, m);
}

struct Value {
  std::string name, dtype, storage, link;
  std::vector<uint64_t> shape;
  uint64_t elements = 1, bytes = 0, offset = 0;  // offset: in the arena
  bool zero_fill = false;
  std::optional<json::value> init;
  int buffer = -1;                  // index into Runner::buffers_ (the arena for arena values)
  std::vector<uint8_t> init_image;  // the @init value repeated, when there is one
  // Tables: one buffer of entries `stride` bytes apart (the device's storage buffer offset
  // alignment), the growing index (bound 0) outermost so that growing keeps the offsets;
  // shape, elements and bytes are one entry's.
  std::vector<std::string> indices;
  std::vector<uint64_t> bound;        // 0: grows at run time
  std::string pattern;                // constant tables: the model tensor of each entry
  uint64_t stride = 0, capacity = 1;  // capacity: along the growing index
  uint64_t size = 0;  // along the growing index: the highest index written + 1 (dsl.md)
  int growing = -1;   // the outermost growing index (the last one of bound 0)
  // Further growing indices (a table growing along several): their capacities (0 for the
  // others) and sizes; growing one of them lays the entries out again (relayout).
  std::vector<uint64_t> inner_cap, inner_size, step_inner_size;
  std::vector<bool> available;  // constant tables: the model has the entry as declared
  // Persistent tables: the entries written (by entry number), what the table budget counts
  // (runtime.md "Table budget": written entries x entry bytes), and the step's start.
  std::vector<bool> written;
  uint64_t written_count = 0, step_size = 0, step_written = 0;
  int shadow = -1;  // plain persistent values: the buffer a step's start copies it into
  // A scratch value of a kernel of run-time length (the emitter's runtime_length.hpp): -1
  // static; else `shape` is the current one, the buffer allocated for `capacity` (the manifest's
  // shape), along `runtime_axis` (a matrix read) or every axis (-2: the result).
  int runtime_axis = -1;
  std::vector<uint64_t> capacity_shape;
  // @auto_dim matrices (storage "auto_dim"): kept here, not on the device (only cache
  // operations reach them). Each matrix holds its cells in the current shape, the declared one
  // plus `counts` on the leading auto axes, row-major; a table of matrices (`@table` indices
  // before the auto ones) one per key, a plain one under the empty key. A matrix exists from
  // its first access until a reset; the step's start is kept for a failed step. A cell is
  // whole bytes: an element of a packed dtype (i4, u2, i1, ...) one byte, its code in the low
  // bits, packed (oinf.md) only on the way to the device or a fetch.
  struct Matrix {
    std::vector<uint64_t> counts;
    std::vector<uint8_t> cells;
  };
  std::vector<std::string> auto_indices, auto_table;   // the auto and the @table indices
  std::vector<uint64_t> auto_bound, auto_table_bound;  // @fixed bounds, 0: none
  std::map<std::vector<int64_t>, Matrix> mats, step_mats;
  std::vector<int64_t> mat_sizes, step_mat_sizes;  // per @table index: highest key + 1
  bool auto_dim() const { return !auto_indices.empty(); }
  bool table() const { return !indices.empty(); }
  // The extent of index i in the layout (the outermost growing index aside).
  uint64_t extent(size_t i) const {
    return bound[i] ? bound[i] : i < inner_cap.size() && inner_cap[i] ? inner_cap[i] : 1;
  }
  uint64_t fixed_entries() const {
    uint64_t n = 1;
    for (size_t i = 0; i < bound.size(); ++i)
      if (static_cast<int>(i) != growing) n *= extent(i);
    return n;
  }
  uint64_t entry_count() const { return fixed_entries() * (growing >= 0 ? capacity : 1); }
  uint64_t table_bytes() const { return entry_count() * stride; }
};

struct Buffer {
  vk::UniqueBuffer buffer;
  vk::UniqueDeviceMemory memory;
  uint64_t size = 0;
};

// A kernel binding: the value, and for a table the index terms of the entry it binds.
struct KernelBinding {
  uint32_t binding = 0;
  std::string value;
  std::vector<std::string> entry;
  bool write = false;  // the kernel writes the entry: a growing table's size follows
  std::string at;      // the entry's source position, for messages
  bool whole = false;  // the value's whole buffer (the arena for an arena value), offset 0
};

struct Kernel {
  std::string spirv, spirv_ieee;  // the second keeps signed zeros, inf and NaN (float controls)
  std::array<uint64_t, 3> groups{0, 0, 0};
  std::vector<KernelBinding> bindings;
  vk::UniqueDescriptorSetLayout set_layout;
  vk::UniquePipelineLayout layout;
  vk::UniquePipeline pipeline;
  vk::DescriptorSet set;
  uint64_t bytes_moved = 0;
  bool float64 = false;    // the shader computes in f64 (shaderFloat64)
  bool storage16 = false;  // f16 buffers (storageBuffer16BitAccess)
  bool storage8 = false;   // bool buffers (storageBuffer8BitAccess)
  // A dispatch of the Vulkan backend's shaders: specialization constants, the params words
  // (binding 0), the "_fc"/"_ieee" variants chosen as the backend chooses them, and the
  // SPIR-V picked for this device.
  std::vector<uint32_t> spec, params;
  Buffer params_buffer;
  std::string spirv_fc, spirv_exact, spirv_ieee_exact;
  uint32_t float_width = 0;
  bool also_f64 = false;
  uint32_t exact_f32 = 0;  // 1: "_exact" where the device flushes f32 subnormals, 2: always
  std::string spv;
  vk::Pipeline shared_pipeline;  // the pipeline and layout it binds (its own or shared ones)
  vk::PipelineLayout shared_layout;
  // A kernel recorded from the Vulkan backend's kernels: index checks, scratch values zeroed,
  // its dispatches (a barrier after each), then copies of whole values.
  bool recorded = false;
  std::vector<Kernel> subs;
  // Params words carrying a setting that names a loop index known only at run time: before a
  // dispatch, the index's value in the word's encoding ("f32", "i32", "f64_lo", "f64_hi",
  // "i64_hi") goes into subs[dispatch].params[word].
  struct Patch {
    size_t dispatch = 0, word = 0;
    std::string index, kind;
  };
  std::vector<Patch> patches;
  // A kernel of run-time length: the manifest's "length" (segments of dispatches, the forms of
  // the length that give params words, workgroup counts and the result's shape).
  std::optional<json::object> length;
  std::vector<json::object> checks, rope_tables;
  std::vector<std::string> zero;
  std::vector<std::pair<std::string, std::string>> copies;
};

struct Options {
  fs::path manifest_dir;
  std::string model;
  uint64_t steps = 1;
  std::vector<std::pair<std::string, std::string>> inputs;  // NAME, FILE[:TENSOR]
  std::vector<std::string> fetch;
  std::string save;
  bool quiet = false;
  uint64_t bench = 0;
  uint64_t max_table_bytes = 0;  // the table budget (0: no limit)
  bool keep_going = false;       // a failed step prints its error and the next step runs
  bool device_info = false;      // print the device and how it treats f32 subnormals, then stop
};

uint32_t elem_bytes(const std::string& dtype) {
  const uint32_t bits = oinf_io::dtype_bits(oinf_io::dtype_tag(dtype));
  return bits >= 8 ? bits / 8 : 0;
}

std::string shape_text(const std::vector<uint64_t>& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

// A double rounded once to a narrow float of eb exponent and mb mantissa bits (f16 5/10, bf16
// 8/7, f8 5/2): nearest, ties to even, overflow to inf, NaN quiet (ops.md).
uint32_t narrow_bits(double v, int eb, int mb) {
  uint64_t x;
  std::memcpy(&x, &v, 8);
  const uint32_t sign = static_cast<uint32_t>(x >> 63) << (eb + mb);
  const uint64_t e = (x >> 52) & 0x7ff, m = x & ((uint64_t{1} << 52) - 1);
  const uint32_t maxe = (1u << eb) - 1, infb = maxe << mb;
  if (e == 0x7ff) return sign | infb | (m ? (1u << (mb - 1)) | uint32_t(m >> (52 - mb)) : 0u);
  if (e == 0 && m == 0) return sign;
  int64_t ex;
  uint64_t sig;
  if (e == 0) {
    int lead = 63;
    while (!((m >> lead) & 1)) --lead;
    sig = m << (52 - lead);
    ex = -1022 - (52 - lead);
  } else {
    sig = m | (uint64_t{1} << 52);
    ex = static_cast<int64_t>(e) - 1023;
  }
  const int64_t biased = ex + (1 << (eb - 1)) - 1;
  if (biased >= static_cast<int64_t>(maxe)) return sign | infb;
  const int64_t shift = biased < 1 ? 52 - mb + 1 - biased : 52 - mb;
  if (shift > 53) return sign;
  uint64_t r = sig >> shift;
  const uint64_t rest = sig & ((uint64_t{1} << shift) - 1), tie = uint64_t{1} << (shift - 1);
  if (rest > tie || (rest == tie && (r & 1))) ++r;
  if (biased < 1) return sign | static_cast<uint32_t>(r);
  return sign | static_cast<uint32_t>((static_cast<uint64_t>(biased - 1) << mb) + r);
}

// The value of narrow float bits (narrow_bits' format): sign, exponent, mantissa.
double narrow_value(uint32_t bits, int eb, int mb) {
  const bool neg = (bits >> (eb + mb)) & 1;
  const uint32_t e = (bits >> mb) & ((1u << eb) - 1), m = bits & ((1u << mb) - 1);
  const int bias = (1 << (eb - 1)) - 1;
  double v;
  if (e == (1u << eb) - 1)
    v = m ? NAN : INFINITY;
  else if (e == 0)
    v = std::ldexp(static_cast<double>(m), 1 - bias - mb);
  else
    v = std::ldexp(static_cast<double>(m | (1u << mb)), static_cast<int>(e) - bias - mb);
  return neg ? -v : v;
}

// The @init literal as the bits of one element of `dtype` (little-endian, its low
// dtype_bits bits; integers wrap to the width, as the simulator stores a literal).
uint64_t init_bits(const Value& v) {
  const json::value& j = *v.init;
  double d = 0;
  if (j.is_int64())
    d = static_cast<double>(j.as_int64());
  else if (j.is_uint64())
    d = static_cast<double>(j.as_uint64());
  else if (j.is_double())
    d = j.as_double();
  else if (j.is_bool())
    d = j.as_bool();
  else if (j.is_string() && j.as_string() == "inf")
    d = INFINITY;
  else if (j.is_string() && j.as_string() == "-inf")
    d = -INFINITY;
  else
    input_error("value '" + v.name + "': @init " + json::serialize(j) + " is not a number");
  const std::string& t = v.dtype;
  if (t == "f32") return std::bit_cast<uint32_t>(static_cast<float>(d));
  if (t == "f64") return std::bit_cast<uint64_t>(d);
  if (t == "f16") return narrow_bits(d, 5, 10);
  if (t == "bf16") return narrow_bits(d, 8, 7);
  if (t == "f8") return narrow_bits(d, 5, 2);
  if (t == "bool") return d != 0;
  const uint32_t bits = oinf_io::dtype_bits(oinf_io::dtype_tag(t));
  if (bits == 0 || t == "t1" || t == "t2")
    input_error("value '" + v.name + "': @init of dtype " + t + " is not supported");
  const int64_t n = j.is_int64()    ? j.as_int64()
                    : j.is_uint64() ? static_cast<int64_t>(j.as_uint64())
                                    : static_cast<int64_t>(d);
  return bits == 64 ? static_cast<uint64_t>(n)
                    : static_cast<uint64_t>(n) & ((uint64_t{1} << bits) - 1);
}

// Every element of `v` set to its @init: whole little-endian elements, or packed ones (oinf.md:
// the first element in the lowest bits of its byte).
std::vector<uint8_t> init_image(const Value& v) {
  const uint64_t bits = init_bits(v);
  const uint32_t w = oinf_io::dtype_bits(oinf_io::dtype_tag(v.dtype));
  std::vector<uint8_t> image;
  if (w >= 8) {
    for (uint64_t i = 0; i < v.elements; ++i)
      for (uint32_t b = 0; b < w / 8; ++b) image.push_back(static_cast<uint8_t>(bits >> (8 * b)));
    return image;
  }
  image.assign((v.elements * w + 7) / 8, 0);
  for (uint64_t i = 0; i < v.elements; ++i)
    image[i * w / 8] |= static_cast<uint8_t>(bits << (i * w % 8));
  return image;
}

// The bits of a packed dtype's element (1, 2 or 4), 0 for whole-byte dtypes.
uint32_t packed_bits(const Value& v) {
  const uint32_t w = oinf_io::dtype_bits(oinf_io::dtype_tag(v.dtype));
  return w < 8 ? w : 0;
}

// The bytes of an @auto_dim matrix's cell (Value::Matrix): a packed element takes one.
size_t cell_size(const Value& v) {
  return packed_bits(v) ? 1 : oinf_io::dtype_bits(oinf_io::dtype_tag(v.dtype)) / 8;
}

// Cells of one byte each to packed bytes (the first element in the lowest bits), ceil(n*w/8)
// bytes; whole-byte dtypes as they are.
std::vector<uint8_t> pack_cells(const Value& v, const std::vector<uint8_t>& cells) {
  const uint32_t w = packed_bits(v);
  if (w == 0) return cells;
  std::vector<uint8_t> out((cells.size() * w + 7) / 8, 0);
  const uint32_t mask = (1u << w) - 1;
  for (size_t i = 0; i < cells.size(); ++i)
    out[i * w / 8] |= static_cast<uint8_t>((cells[i] & mask) << (i * w % 8));
  return out;
}

// Packed bytes of n elements to cells of one byte each; whole-byte dtypes as they are.
std::vector<uint8_t> unpack_cells(const Value& v, const std::vector<uint8_t>& bytes, uint64_t n) {
  const uint32_t w = packed_bits(v);
  if (w == 0) return bytes;
  std::vector<uint8_t> out(n, 0);
  for (uint64_t i = 0; i < n && i * w / 8 < bytes.size(); ++i)
    out[i] = static_cast<uint8_t>((bytes[i * w / 8] >> (i * w % 8)) & ((1u << w) - 1));
  return out;
}

std::string element_text(const std::string& dtype, const uint8_t* p) {
  std::ostringstream s;
  auto get = [&](auto x) {
    std::memcpy(&x, p, sizeof(x));
    return x;
  };
  if (dtype == "f32")
    s << get(float{});
  else if (dtype == "f64")
    s << get(double{});
  else if (dtype == "i32")
    s << get(int32_t{});
  else if (dtype == "u32")
    s << get(uint32_t{});
  else if (dtype == "i64")
    s << get(int64_t{});
  else if (dtype == "u64")
    s << get(uint64_t{});
  else if (dtype == "bool")
    s << (p[0] ? "true" : "false");
  else if (dtype == "i8")
    s << int(get(int8_t{}));
  else if (dtype == "u8")
    s << int(p[0]);
  else
    s << "?";
  return s.str();
}

class Runner {
 public:
  explicit Runner(Options o) : opt_(std::move(o)) {
    read_manifest();
    if (opt_.device_info) {  // the device alone: no model, no buffers
      open_device();
      return;
    }
    load_model();
    check_baked();
    try {
      open_device();
      create_buffers();
      create_pipelines();
      upload_create_time_values();
    } catch (...) {
      release_device_objects();  // no destructor runs for a half-built Runner
      throw;
    }
  }

  ~Runner() { release_device_objects(); }

  // Vulkan objects go before the device that made them.
  void release_device_objects() {
    if (device_) device_->waitIdle();
    kernels_.clear();
    vk_pipelines_.clear();
    vk_layout_.reset();
    vk_set_layout_.reset();
    buffers_.clear();
    staging_ = Buffer{};
    dpool_.reset();
    fence_.reset();
    cmd_.reset();
    pool_.reset();
  }
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  int run() {
    if (opt_.device_info) {  // what a conformance test needs to apply ops.md's GPU rules
      std::cout << "device: " << props_.deviceName.data()
                << "\nf32 subnormals: " << (fc32_ ? "preserved" : "may be flushed") << "\n";
      return 0;
    }
    load_inputs();
    std::vector<oinf_io::Tensor> saved;
    std::vector<std::string> fetch = opt_.fetch.empty() ? outputs_ : opt_.fetch;
    for (const std::string& f : fetch) {
      const Value& v = value(f);
      // A returned temporary holds its result after the step (the return is its last use).
      const bool returned = std::find(outputs_.begin(), outputs_.end(), f) != outputs_.end();
      if (v.storage == "internal" || (v.storage == "arena" && !returned))
        input_error("'" + f + "' is a temporary this program does not keep: synthesize with " +
                    "--fetchable " + f + " to fetch it (declared variables and returned values " +
                    "are always fetchable)");
    }
    int failed = 0;
    for (uint64_t step = 0; step < opt_.steps; ++step) {
      try {
        begin_step();
        run_step(step);
        check_status(step);
        end_step(false);
      } catch (const Failure& f) {
        if (f.code != 1) throw;
        end_step(true);  // runtime.md "Failed steps": persistent memory as before the step
        if (!opt_.keep_going) throw;
        std::cerr << "error: " << f.what() << "\n";
        failed = 1;
      }
      for (const std::string& f : fetch) {
        Value& v = mutable_value(f);
        std::vector<uint64_t> shape = v.shape;
        std::vector<uint8_t> bytes = v.auto_dim()
                                         ? pack_cells(v, read_auto_dim(v, {}, {}, "fetch: ", shape))
                                     : v.table() ? download_table(v, shape)
                                                 : download(v);
        if (!opt_.quiet) print(step, v, shape, bytes);
        oinf_io::Tensor t{f, oinf_io::dtype_tag(v.dtype), shape, true, bytes};
        if (opt_.steps > 1) {
          oinf_io::Tensor s = t;
          s.name = f + ".step" + std::to_string(step);
          saved.push_back(std::move(s));
        }
        if (step + 1 == opt_.steps) saved.push_back(std::move(t));
      }
    }
    if (!opt_.save.empty()) oinf_io::write(opt_.save, saved);
    if (opt_.bench > 0) bench();
    return failed;
  }

 private:
  // ---- manifest -------------------------------------------------------------------------
  // Constants whose values the shaders were given (settings naming them, the manifest's
  // "baked"): the model must hold the same bytes, as the C target's create() checks.
  void check_baked() const {
    for (const auto& [value, link, bytes] : baked_) {
      auto it = model_.tensors.find(link);
      if (it != model_.tensors.end() && it->second.has_data && it->second.data == bytes) continue;
      input_error(model_name_ + ": constant '" + value +
                  "' differs from the model this program was synthesized with (a setting uses "
                  "it)");
    }
  }

  // --model, else the weights compiled in (--embed-weights), else none: a constant the model
  // would give is then an error, never zeros.
  void load_model() {
    if (!opt_.model.empty()) {
      model_ = oinf_io::read(opt_.model);
      model_name_ = opt_.model;
      have_model_ = true;
      return;
    }
#ifdef OPENINFER_GLSL_EMBEDDED_WEIGHTS
    model_ = oinf_io::decode(
        std::vector<uint8_t>(oi_embedded_weights, oi_embedded_weights + oi_embedded_weights_size),
        "the embedded weights");
    model_name_ = "the embedded weights";
    have_model_ = true;
#endif
  }

  void need_model(const Value& v) const {
    if (have_model_ || v.storage != "constant" || v.init) return;
    input_error("constant '" + v.name + "' is read from the model (tensor '" +
                (v.link.empty() ? v.pattern : v.link) +
                "'): give --model M.oinf (the program was synthesized without --embed-weights)");
  }

  void read_manifest() {
    const fs::path path = opt_.manifest_dir / "manifest.json";
    std::ifstream in(path);
    if (!in) input_error("cannot read " + path.string());
    std::stringstream text;
    text << in.rdbuf();
    boost::system::error_code ec;
    json::parse_options depth;  // loops nest 64 deep, past boost::json's default of 32
    depth.max_depth = 4096;
    json::value root = json::parse(text.str(), ec, {}, depth);
    if (ec || !root.is_object()) input_error(path.string() + ": not a JSON object");
    try {
      const json::object& m = root.as_object();
      if (const json::value* b = m.if_contains("baked"); b && b->is_array())
        for (const json::value& c : b->as_array()) {
          std::vector<uint8_t> bytes;
          for (const json::value& x : c.at("bytes").as_array())
            bytes.push_back(static_cast<uint8_t>(x.to_number<uint64_t>()));
          baked_.push_back({std::string(c.at("value").as_string()),
                            std::string(c.at("link").as_string()), std::move(bytes)});
        }
      if (m.at("format").as_string() != "openinfer-glsl-manifest" ||
          m.at("version").as_int64() != 1)
        input_error(path.string() + ": not an openinfer-glsl-manifest version 1");
      arena_bytes_ = m.at("arena_bytes").to_number<uint64_t>();
      for (const json::value& jv : m.at("values").as_array()) {
        const json::object& o = jv.as_object();
        Value v;
        v.name = std::string(o.at("name").as_string());
        v.dtype = std::string(o.at("dtype").as_string());
        v.storage = std::string(o.at("storage").as_string());
        for (const json::value& d : o.at("shape").as_array())
          v.shape.push_back(d.to_number<uint64_t>());
        for (uint64_t d : v.shape) v.elements *= d;
        v.bytes = o.at("bytes").to_number<uint64_t>();
        if (auto* l = o.if_contains("link")) v.link = std::string(l->as_string());
        if (auto* i = o.if_contains("init")) v.init = *i;
        if (auto* off = o.if_contains("offset")) v.offset = off->to_number<uint64_t>();
        if (auto* z = o.if_contains("zero_fill")) v.zero_fill = z->as_bool();
        if (auto* r = o.if_contains("runtime_axis")) {
          v.runtime_axis = static_cast<int>(r->to_number<int64_t>());
          v.capacity_shape = v.shape;
        }
        if (auto* a = o.if_contains("auto_dim")) {
          for (const json::value& n : a->as_array()) v.auto_indices.emplace_back(n.as_string());
          for (const json::value& b : o.at("auto_bound").as_array())
            v.auto_bound.push_back(b.to_number<uint64_t>());
          for (const json::value& n : o.at("auto_table").as_array())
            v.auto_table.emplace_back(n.as_string());
          for (const json::value& b : o.at("auto_table_bound").as_array())
            v.auto_table_bound.push_back(b.to_number<uint64_t>());
          v.mat_sizes.assign(v.auto_table.size(), 0);
        }
        if (auto* ix = o.if_contains("indices")) {
          for (const json::value& n : ix->as_array()) v.indices.emplace_back(n.as_string());
          for (const json::value& b : o.at("bound").as_array())
            v.bound.push_back(b.is_null() ? 0 : b.to_number<uint64_t>());
          if (v.bound.size() != v.indices.size()) input_error("table '" + v.name + "': bounds");
          for (size_t i = 0; i < v.bound.size(); ++i)
            if (v.bound[i] == 0) v.growing = static_cast<int>(i);
          init_inner_growing(v);
          v.bytes = o.at("entry_bytes").to_number<uint64_t>();
          if (auto* p = o.if_contains("pattern")) v.pattern = std::string(p->as_string());
          if (v.pattern.empty()) {  // dsl.md: NAME.{i}.{j}..., the indices in order
            v.pattern = v.link;
            for (const std::string& i : v.indices) v.pattern += ".{" + i + "}";
          }
        }
        if (v.init) v.init_image = init_image(v);
        index_[v.name] = values_.size();
        values_.push_back(std::move(v));
      }
      for (const json::value& jk : m.at("kernels").as_array())
        kernels_.push_back(parse_kernel(jk.as_object()));
      if (const json::value* errors = m.if_contains("errors"))
        for (const json::value& e : errors->as_array())
          errors_[static_cast<uint32_t>(e.at("code").to_number<uint64_t>())] =
              std::string(e.at("message").as_string());
      for (const json::value& jb : m.at("blocks").as_array())
        blocks_[std::string(jb.at("name").as_string())] = jb.at("steps").as_array();
      for (const json::value& n : m.at("outputs").as_array()) outputs_.emplace_back(n.as_string());
    } catch (const Failure&) {
      throw;
    } catch (const std::exception& e) {
      input_error(path.string() + ": malformed manifest (" + e.what() + ")");
    }
    if (!blocks_.count("entry")) input_error(path.string() + ": no 'entry' block");
  }

  static Kernel parse_kernel(const json::object& o) {
    Kernel k;
    if (auto* d = o.if_contains("dispatches")) {  // the Vulkan backend's shaders
      k.recorded = true;
      for (const json::value& sub : d->as_array()) k.subs.push_back(parse_kernel(sub.as_object()));
      if (auto* pa = o.if_contains("patches"))
        for (const json::value& p : pa->as_array()) {
          Kernel::Patch patch{
              p.at("dispatch").to_number<size_t>(), p.at("word").to_number<size_t>(),
              std::string(p.at("index").as_string()), std::string(p.at("kind").as_string())};
          if (patch.dispatch >= k.subs.size() || patch.word >= k.subs[patch.dispatch].params.size())
            input_error("manifest: a params patch outside its kernel's dispatches");
          k.patches.push_back(std::move(patch));
        }
      if (auto* l = o.if_contains("length")) k.length = l->as_object();
      for (const json::value& c : o.at("checks").as_array()) k.checks.push_back(c.as_object());
      if (auto* r = o.if_contains("rope_tables"))
        for (const json::value& t : r->as_array()) k.rope_tables.push_back(t.as_object());
      for (const json::value& z : o.at("zero").as_array()) k.zero.emplace_back(z.as_string());
      for (const json::value& c : o.at("copies").as_array())
        k.copies.emplace_back(c.at("from").as_string(), c.at("to").as_string());
      return k;
    }
    k.spirv = std::string(o.at("spirv").as_string());
    if (auto* ieee = o.if_contains("spirv_ieee")) k.spirv_ieee = std::string(ieee->as_string());
    if (auto* fc = o.if_contains("spirv_fc")) k.spirv_fc = std::string(fc->as_string());
    if (auto* e = o.if_contains("spirv_exact")) k.spirv_exact = std::string(e->as_string());
    if (auto* e = o.if_contains("spirv_ieee_exact"))
      k.spirv_ieee_exact = std::string(e->as_string());
    if (auto* e = o.if_contains("exact_f32")) k.exact_f32 = e->to_number<uint32_t>();
    if (auto* w = o.if_contains("float_width")) k.float_width = w->to_number<uint32_t>();
    if (auto* a = o.if_contains("also_f64")) k.also_f64 = a->as_bool();
    if (auto* f64 = o.if_contains("float64")) k.float64 = f64->as_bool();
    if (auto* b16 = o.if_contains("storage16")) k.storage16 = b16->as_bool();
    if (auto* b8 = o.if_contains("storage8")) k.storage8 = b8->as_bool();
    if (auto* sp = o.if_contains("spec"))
      for (const json::value& x : sp->as_array()) k.spec.push_back(x.to_number<uint32_t>());
    if (auto* pa = o.if_contains("params"))
      for (const json::value& x : pa->as_array()) k.params.push_back(x.to_number<uint32_t>());
    for (int i = 0; i < 3; ++i)
      k.groups[i] = o.at("workgroups").as_array().at(i).to_number<uint64_t>();
    for (const json::value& b : o.at("bindings").as_array()) {
      KernelBinding kb{static_cast<uint32_t>(b.at("binding").to_number<uint64_t>()),
                       std::string(b.at("value").as_string()),
                       {},
                       false,
                       {},
                       false};
      if (auto* e = b.as_object().if_contains("entry"))
        for (const json::value& t : e->as_array()) kb.entry.emplace_back(t.as_string());
      kb.write = b.at("access").as_string() != "read";
      if (auto* a = b.as_object().if_contains("at")) kb.at = std::string(a->as_string());
      if (auto* w = b.as_object().if_contains("whole")) kb.whole = w->as_bool();
      k.bindings.push_back(std::move(kb));
    }
    return k;
  }

  // The SPIR-V module a kernel runs on this device: for the Vulkan backend's shaders the
  // backend's choice (its device.cpp): "_fc" where subnormals and IEEE specials are preserved at
  // the shader's float width (64 bits too with also_f64), else "_ieee" where the specials are;
  // "_exact"/"_ieee_exact" instead for f32 where there is no "_fc" and the kernel has them
  // (exact_f32 2: always); for the emitter's own shaders "_ieee" where the f32 specials are.
  std::string pick_spirv(const Kernel& k) const {
    const auto usable = [&](const std::string& p) {
      return !p.empty() && fs::exists(opt_.manifest_dir / p);
    };
    if (k.float_width) {
      const bool w32 = k.float_width == 32, w64 = k.float_width == 64;
      const bool fc = ((w32 && fc32_) || (w64 && fc64_)) && (!k.also_f64 || fc64_);
      const bool ieee = ((w32 && ieee_specials_) || (w64 && ieee64_)) && (!k.also_f64 || ieee64_);
      if (w32 && (k.exact_f32 == 2 || (k.exact_f32 == 1 && !fc))) {
        if (ieee && usable(k.spirv_ieee_exact)) return k.spirv_ieee_exact;
        if (!ieee && usable(k.spirv_exact)) return k.spirv_exact;
      }
      if (fc && usable(k.spirv_fc)) return k.spirv_fc;
      if (ieee && usable(k.spirv_ieee)) return k.spirv_ieee;
      return k.spirv;
    }
    return ieee_specials_ && usable(k.spirv_ieee) ? k.spirv_ieee : k.spirv;
  }

  std::vector<uint32_t> read_spirv(const std::string& file) const {
    const fs::path spv = opt_.manifest_dir / file;
    std::ifstream in(spv, std::ios::binary);
    if (!in) input_error("cannot read " + spv.string() + " (compile the shaders with glslc first)");
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.empty() || bytes.size() % 4) input_error(spv.string() + ": not SPIR-V");
    std::vector<uint32_t> words(bytes.size() / 4);
    std::memcpy(words.data(), bytes.data(), bytes.size());
    return words;
  }

  // The OpCapability operands of a module (Float64 10, Int64 11, Int16 22, ...).
  static std::set<uint32_t> capabilities(const std::vector<uint32_t>& words) {
    std::set<uint32_t> caps;
    for (size_t i = 5; i < words.size();) {
      const uint32_t count = words[i] >> 16, opcode = words[i] & 0xffff;
      if (count == 0) break;
      if (opcode == 17 && i + 1 < words.size()) caps.insert(words[i + 1]);
      i += count;
    }
    return caps;
  }

  const Value& value(const std::string& name) const {
    auto it = index_.find(name);
    if (it == index_.end()) {
      std::string known;
      for (const Value& v : values_)
        if (v.storage != "arena" && v.storage != "internal" && v.storage != "status" &&
            v.storage != "scratch")
          known += " " + v.name;
      input_error("no variable '" + name + "' (declared:" + known + ")");
    }
    return values_[it->second];
  }

  // ---- device ---------------------------------------------------------------------------
  void open_device() {
    try {
      static vk::DynamicLoader loader;
      VULKAN_HPP_DEFAULT_DISPATCHER.init(
          loader.getProcAddress<PFN_vkGetInstanceProcAddr>("vkGetInstanceProcAddr"));
    } catch (const std::exception& e) {
      device_error(std::string("no Vulkan loader: ") + e.what());
    }
    vk::ApplicationInfo app("openinfer-glsl-host", 1, "openinfer", 1, VK_API_VERSION_1_2);
    vk::InstanceCreateInfo ici({}, &app);
    try {
      instance_ = vk::createInstanceUnique(ici);
    } catch (const vk::IncompatibleDriverError&) {  // a loader without any driver (ICD)
      device_error("no Vulkan device (the Vulkan loader found no driver)");
    }
    VULKAN_HPP_DEFAULT_DISPATCHER.init(*instance_);
    std::vector<vk::PhysicalDevice> devices = instance_->enumeratePhysicalDevices();
    const char* want = std::getenv("OPENINFER_VULKAN_DEVICE");
    int best = -1, best_rank = 99;
    for (size_t i = 0; i < devices.size(); ++i) {
      const auto props = devices[i].getProperties();
      std::string name = props.deviceName.data();
      if (want && *want) {
        const bool numeric = std::all_of(want, want + std::strlen(want), ::isdigit);
        std::string lw = want, ln = name;
        for (auto& c : lw) c = static_cast<char>(std::tolower(c));
        for (auto& c : ln) c = static_cast<char>(std::tolower(c));
        if (numeric ? std::to_string(i) != want : ln.find(lw) == std::string::npos) continue;
      }
      const int rank = props.deviceType == vk::PhysicalDeviceType::eDiscreteGpu     ? 0
                       : props.deviceType == vk::PhysicalDeviceType::eIntegratedGpu ? 1
                       : props.deviceType == vk::PhysicalDeviceType::eCpu           ? 3
                                                                                    : 2;
      if (rank < best_rank) best = static_cast<int>(i), best_rank = rank;
    }
    if (best < 0)
      device_error("no Vulkan device" +
                   std::string(want ? " matches OPENINFER_VULKAN_DEVICE" : ""));
    phys_ = devices[static_cast<size_t>(best)];
    props_ = phys_.getProperties();
    if (props_.apiVersion >= VK_API_VERSION_1_2) {
      auto p2 = phys_.getProperties2<vk::PhysicalDeviceProperties2,
                                     vk::PhysicalDeviceFloatControlsProperties>();
      const auto& fc = p2.get<vk::PhysicalDeviceFloatControlsProperties>();
      ieee_specials_ = fc.shaderSignedZeroInfNanPreserveFloat32;
      const bool f64 = phys_.getFeatures().shaderFloat64;
      ieee64_ = f64 && fc.shaderSignedZeroInfNanPreserveFloat64;
      fc32_ = fc.shaderDenormPreserveFloat32 && fc.shaderSignedZeroInfNanPreserveFloat32;
      fc64_ = f64 && fc.shaderDenormPreserveFloat64 && fc.shaderSignedZeroInfNanPreserveFloat64;
    }
    const auto families = phys_.getQueueFamilyProperties();
    for (uint32_t i = 0; i < families.size(); ++i)
      if (families[i].queueFlags & vk::QueueFlagBits::eCompute) {
        family_ = i;
        break;
      }
    if (family_ == UINT32_MAX) device_error("device has no compute queue");
    const float priority = 1.0f;
    vk::DeviceQueueCreateInfo qci({}, family_, 1, &priority);
    // f64 arithmetic (the f32 math computed in f64) needs shaderFloat64, enabled only then.
    vk::PhysicalDeviceFeatures features;
    if (std::any_of(kernels_.begin(), kernels_.end(), [](const Kernel& k) { return k.float64; })) {
      if (!phys_.getFeatures().shaderFloat64)
        device_error(std::string("the device '") + props_.deviceName.data() +
                     "' lacks shaderFloat64, which the f32 math kernels of this manifest need");
      features.shaderFloat64 = VK_TRUE;
    }
    // The Vulkan backend's shaders: the features their modules declare (f64, i64, i16).
    for (Kernel& k : kernels_)
      for (Kernel& sub : k.subs) {
        sub.spv = pick_spirv(sub);
        const std::set<uint32_t> caps = capabilities(read_spirv(sub.spv));
        const auto have = phys_.getFeatures();
        const auto need = [&](uint32_t cap, vk::Bool32 has, vk::Bool32& enable, const char* name) {
          if (!caps.count(cap)) return;
          if (!has)
            device_error(std::string("the device '") + props_.deviceName.data() + "' lacks " +
                         name + ", which " + sub.spv + " needs");
          enable = VK_TRUE;
        };
        need(10, have.shaderFloat64, features.shaderFloat64, "shaderFloat64");
        need(11, have.shaderInt64, features.shaderInt64, "shaderInt64");
        need(22, have.shaderInt16, features.shaderInt16, "shaderInt16");
      }
    // f16 and bool buffers: 16- and 8-bit storage, enabled only when a kernel has them.
    const bool want16 =
        std::any_of(kernels_.begin(), kernels_.end(), [](const Kernel& k) { return k.storage16; });
    const bool want8 =
        std::any_of(kernels_.begin(), kernels_.end(), [](const Kernel& k) { return k.storage8; });
    vk::PhysicalDevice16BitStorageFeatures f16;
    vk::PhysicalDevice8BitStorageFeatures f8;
    if (want16 || want8) {
      if (props_.apiVersion < VK_API_VERSION_1_2)
        device_error("the device's Vulkan is older than 1.2, which f16/bool buffers need here");
      auto have =
          phys_.getFeatures2<vk::PhysicalDeviceFeatures2, vk::PhysicalDevice16BitStorageFeatures,
                             vk::PhysicalDevice8BitStorageFeatures>();
      if (want16 && !have.get<vk::PhysicalDevice16BitStorageFeatures>().storageBuffer16BitAccess)
        device_error(std::string("the device '") + props_.deviceName.data() +
                     "' lacks storageBuffer16BitAccess, which the f16 kernels need");
      if (want8 && !have.get<vk::PhysicalDevice8BitStorageFeatures>().storageBuffer8BitAccess)
        device_error(std::string("the device '") + props_.deviceName.data() +
                     "' lacks storageBuffer8BitAccess, which the bool kernels need");
      f16.storageBuffer16BitAccess = want16;
      f8.storageBuffer8BitAccess = want8;
      f16.pNext = &f8;
    }
    vk::DeviceCreateInfo dci({}, 1, &qci, 0, nullptr, 0, nullptr, &features);
    if (want16 || want8) dci.pNext = &f16;
    device_ = phys_.createDeviceUnique(dci);
    VULKAN_HPP_DEFAULT_DISPATCHER.init(*device_);
    queue_ = device_->getQueue(family_, 0);
    pool_ = device_->createCommandPoolUnique(
        {vk::CommandPoolCreateFlagBits::eResetCommandBuffer, family_});
    cmd_ = std::move(
        device_->allocateCommandBuffersUnique({*pool_, vk::CommandBufferLevel::ePrimary, 1})[0]);
    fence_ = device_->createFenceUnique({});
    cmd_->begin(vk::CommandBufferBeginInfo(vk::CommandBufferUsageFlagBits::eOneTimeSubmit));
  }

  uint32_t memory_type(uint32_t bits, vk::MemoryPropertyFlags want) {
    const auto mem = phys_.getMemoryProperties();
    for (uint32_t i = 0; i < mem.memoryTypeCount; ++i)
      if ((bits & (1u << i)) && (mem.memoryTypes[i].propertyFlags & want) == want) return i;
    device_error("no suitable memory type");
  }

  Buffer make_buffer(uint64_t size, vk::BufferUsageFlags usage, vk::MemoryPropertyFlags flags) {
    Buffer b;
    b.size = std::max<uint64_t>((size + 3) / 4 * 4, 4);
    b.buffer = device_->createBufferUnique({{}, b.size, usage, vk::SharingMode::eExclusive});
    const auto req = device_->getBufferMemoryRequirements(*b.buffer);
    b.memory = device_->allocateMemoryUnique({req.size, memory_type(req.memoryTypeBits, flags)});
    device_->bindBufferMemory(*b.buffer, *b.memory, 0);
    return b;
  }

  void create_buffers() {
    const auto usage = vk::BufferUsageFlagBits::eStorageBuffer |
                       vk::BufferUsageFlagBits::eTransferSrc |
                       vk::BufferUsageFlagBits::eTransferDst;
    uint64_t staging = 4;
    const uint64_t align = props_.limits.minStorageBufferOffsetAlignment;
    arena_ = static_cast<int>(buffers_.size());
    buffers_.push_back(make_buffer(arena_bytes_, usage, vk::MemoryPropertyFlagBits::eDeviceLocal));
    for (Value& v : values_) {
      if (v.storage == "internal") continue;
      if (v.auto_dim()) continue;  // kept here
      if (v.storage == "arena") {
        // (its offset's alignment matters only where a kernel binds it there: write_descriptors)
        if (v.offset + v.bytes > arena_bytes_)
          input_error("arena value '" + v.name + "' at offset " + std::to_string(v.offset) +
                      " lies outside the arena");
        v.buffer = arena_;
        staging = std::max(staging, (v.bytes + 15) / 16 * 16);  // a returned one is fetched
        continue;
      }
      if (v.table()) {
        v.stride = std::max<uint64_t>((v.bytes + align - 1) / align * align, align);
        v.capacity = v.growing >= 0 ? 16 : 1;
        if (v.bytes > props_.limits.maxStorageBufferRange)
          device_error("an entry of table '" + v.name +
                       "' is larger than the device's maxStorageBufferRange");
        v.buffer = static_cast<int>(buffers_.size());
        buffers_.push_back(
            make_buffer(v.table_bytes(), usage, vk::MemoryPropertyFlagBits::eDeviceLocal));
        staging += (v.bytes + 15) / 16 * 16;
        continue;
      }
      if (v.bytes > props_.limits.maxStorageBufferRange)
        device_error("value '" + v.name + "' is larger than the device's maxStorageBufferRange");
      v.buffer = static_cast<int>(buffers_.size());
      buffers_.push_back(make_buffer(v.bytes, usage, vk::MemoryPropertyFlagBits::eDeviceLocal));
      if (v.storage == "persistent" && v.bytes > 0) {  // a failed step puts it back
        v.shadow = static_cast<int>(buffers_.size());
        buffers_.push_back(make_buffer(v.bytes, usage, vk::MemoryPropertyFlagBits::eDeviceLocal));
      }
      staging += (v.bytes + 15) / 16 * 16;
    }
    for (const Buffer& b : buffers_)
      cmd_->fillBuffer(*b.buffer, 0, VK_WHOLE_SIZE, 0);  // defined start
    staging_ = make_buffer(
        staging, vk::BufferUsageFlagBits::eTransferSrc | vk::BufferUsageFlagBits::eTransferDst,
        vk::MemoryPropertyFlagBits::eHostVisible | vk::MemoryPropertyFlagBits::eHostCoherent);
    staging_map_ = static_cast<uint8_t*>(device_->mapMemory(*staging_.memory, 0, VK_WHOLE_SIZE));
  }

  // Table entries are dynamic storage buffers: the dispatch gives the entry's offset.
  static vk::DescriptorType descriptor_type(const KernelBinding& b) {
    return b.entry.empty() ? vk::DescriptorType::eStorageBuffer
                           : vk::DescriptorType::eStorageBufferDynamic;
  }

  void write_descriptors(Kernel& k) {
    std::vector<vk::DescriptorBufferInfo> infos;
    for (const KernelBinding& b : k.bindings) {
      if (b.value == "@params") {  // the Vulkan backend's shaders: their params words
        infos.push_back({*k.params_buffer.buffer, 0, VK_WHOLE_SIZE});
        continue;
      }
      if (b.value == "@arena") {
        infos.push_back({*buffers_[static_cast<size_t>(arena_)].buffer, 0, VK_WHOLE_SIZE});
        continue;
      }
      const Value& v = value(b.value);
      if (v.buffer < 0) input_error("kernel binds '" + b.value + "', which has no memory");
      if (v.table() != !b.entry.empty())
        input_error("kernel binds table '" + b.value + "' without an entry, or a value with one");
      if (b.whole) {  // addressed by offsets in the params words
        infos.push_back({*buffers_[static_cast<size_t>(v.buffer)].buffer, 0, VK_WHOLE_SIZE});
        continue;
      }
      // A value bound at its arena offset (an own kernel's binding; the Vulkan backend's
      // kernels bind the whole arena and transfers take any offset): the device must allow it.
      const uint64_t align = props_.limits.minStorageBufferOffsetAlignment;
      if (v.storage == "arena" && v.offset % align != 0)
        input_error("arena value '" + v.name + "' at offset " + std::to_string(v.offset) +
                    " is not a multiple of the device's minStorageBufferOffsetAlignment (" +
                    std::to_string(align) + "), which a kernel binding it there needs");
      infos.push_back({*buffers_[static_cast<size_t>(v.buffer)].buffer,
                       v.storage == "arena" ? v.offset : 0, std::max<uint64_t>(v.bytes, 4)});
    }
    std::vector<vk::WriteDescriptorSet> writes;
    for (size_t i = 0; i < infos.size(); ++i)
      writes.push_back(
          {k.set, k.bindings[i].binding, 0, 1, descriptor_type(k.bindings[i]), nullptr, &infos[i]});
    device_->updateDescriptorSets(writes, {});
  }

  void create_pipelines() {
    uint32_t sets = 0, plain = 0, dynamic = 0;
    const auto count = [&](const Kernel& k) {
      sets++;
      for (const KernelBinding& b : k.bindings) (b.entry.empty() ? plain : dynamic)++;
    };
    for (const Kernel& k : kernels_) {
      count(k);
      for (const Kernel& sub : k.subs) count(sub);
    }
    std::vector<vk::DescriptorPoolSize> sizes{
        {vk::DescriptorType::eStorageBuffer, std::max(plain, 1u)}};
    if (dynamic) sizes.push_back({vk::DescriptorType::eStorageBufferDynamic, dynamic});
    dpool_ = device_->createDescriptorPoolUnique(
        {{}, std::max(sets, 1u), static_cast<uint32_t>(sizes.size()), sizes.data()});
    for (Kernel& k : kernels_) {
      if (!k.recorded) create_pipeline(k, false);
      for (Kernel& sub : k.subs) create_pipeline(sub, true);
    }
  }

  // The pipeline of one shader: its bindings, specialization constants and params words.
  void create_pipeline(Kernel& k, bool shared) {
    if (k.spv.empty()) k.spv = pick_spirv(k);
    if (shared) {  // the params words: uploaded once, host-visible as the backend's arena
      k.params_buffer = make_buffer(
          k.params.size() * 4, vk::BufferUsageFlagBits::eStorageBuffer,
          vk::MemoryPropertyFlagBits::eHostVisible | vk::MemoryPropertyFlagBits::eHostCoherent);
      void* p = device_->mapMemory(*k.params_buffer.memory, 0, VK_WHOLE_SIZE);
      std::memcpy(p, k.params.data(), k.params.size() * 4);
      device_->unmapMemory(*k.params_buffer.memory);
    }
    std::vector<vk::DescriptorSetLayoutBinding> lb;
    for (const KernelBinding& b : k.bindings)
      lb.push_back({b.binding, descriptor_type(b), 1, vk::ShaderStageFlagBits::eCompute});
    // The Vulkan backend's shaders share one layout (binding 0 the params, then the data
    // bindings, as the backend's) and a pipeline per (module, specialization constants); one
    // binding a table entry (a dynamic storage buffer) takes a layout and pipeline of its own.
    const bool entries = std::any_of(k.bindings.begin(), k.bindings.end(),
                                     [](const KernelBinding& b) { return !b.entry.empty(); });
    const bool common = shared && !entries;
    if (common && !vk_set_layout_) {
      vk_set_layout_ = device_->createDescriptorSetLayoutUnique(
          {{}, static_cast<uint32_t>(lb.size()), lb.data()});
      vk_layout_ = device_->createPipelineLayoutUnique({{}, 1, &*vk_set_layout_});
    }
    if (!common) {
      k.set_layout = device_->createDescriptorSetLayoutUnique(
          {{}, static_cast<uint32_t>(lb.size()), lb.data()});
      k.layout = device_->createPipelineLayoutUnique({{}, 1, &*k.set_layout});
    }
    const vk::DescriptorSetLayout set_layout = common ? *vk_set_layout_ : *k.set_layout;
    k.shared_layout = common ? *vk_layout_ : *k.layout;
    const auto key = std::make_pair(k.spv, k.spec);
    if (auto it = vk_pipelines_.find(key); common && it != vk_pipelines_.end()) {
      k.shared_pipeline = *it->second;
    } else {
      const std::vector<uint32_t> words = read_spirv(k.spv);
      auto module = device_->createShaderModuleUnique({{}, words.size() * 4, words.data()});
      std::vector<vk::SpecializationMapEntry> entries;
      for (uint32_t i = 0; i < k.spec.size(); ++i) entries.emplace_back(i, 4 * i, 4);
      const vk::SpecializationInfo spec_info(static_cast<uint32_t>(entries.size()), entries.data(),
                                             k.spec.size() * 4, k.spec.data());
      vk::ComputePipelineCreateInfo pci({},
                                        {{},
                                         vk::ShaderStageFlagBits::eCompute,
                                         *module,
                                         "main",
                                         k.spec.empty() ? nullptr : &spec_info},
                                        k.shared_layout);
      auto result = device_->createComputePipelineUnique(nullptr, pci);
      if (result.result != vk::Result::eSuccess)
        device_error("cannot create the pipeline of " + k.spv);
      k.shared_pipeline = *result.value;
      if (common)
        vk_pipelines_[key] = std::move(result.value);
      else
        k.pipeline = std::move(result.value);
    }
    k.set = device_->allocateDescriptorSets({*dpool_, 1, &set_layout})[0];
    for (const KernelBinding& b : k.bindings)
      if (b.value[0] != '@' || index_.count(b.value)) k.bytes_moved += value(b.value).bytes;
    write_descriptors(k);
  }

  // ---- transfers ------------------------------------------------------------------------
  vk::Buffer buffer_of(const Value& v) const {
    return *buffers_[static_cast<size_t>(v.buffer)].buffer;
  }
  uint64_t offset_of(const Value& v) const {
    return v.storage == "arena" ? v.offset : 0;
  }

  void upload(const Value& v, const uint8_t* data, uint64_t bytes) {
    upload_at(v, offset_of(v), data, bytes);
  }

  void upload_at(const Value& v, uint64_t offset, const uint8_t* data, uint64_t bytes) {
    if (bytes == 0) return;
    if (staging_used_ + bytes > staging_.size) submit_and_wait();
    std::memcpy(staging_map_ + staging_used_, data, bytes);
    cmd_->copyBuffer(*staging_.buffer, buffer_of(v), vk::BufferCopy(staging_used_, offset, bytes));
    staging_used_ += (bytes + 15) / 16 * 16;
  }

  // ---- tables ---------------------------------------------------------------------------
  // An index term of the manifest: an integer, a loop index, a size variable or an integer
  // scalar on the device, optionally plus or minus an integer ("t-1").
  int64_t term(const std::string& t, const std::map<std::string, int64_t>& indices) {
    const size_t op = t.find_first_of("+-", 1);
    if (op != std::string::npos && !std::isdigit(static_cast<unsigned char>(t[0])) && t[0] != '-') {
      const int64_t rest = std::stoll(t.substr(op + 1));
      const int64_t base = bound(json::value(t.substr(0, op)), indices);
      return t[op] == '+' ? base + rest : base - rest;
    }
    return bound(json::value(t), indices);
  }

  // A prefix table's entry as the simulator checks it (core/src/exec/memory.cpp): a negative
  // index, then the model tensor its pattern names (the plan's extents are the entries the
  // model has, so an index past them names a tensor the model lacks).
  void check_prefix_entry(const Value& v, const std::vector<int64_t>& idx, const std::string& where,
                          const std::string& text) const {
    bool inside = true;
    for (size_t i = 0; i < idx.size(); ++i) {
      if (idx[i] < 0)
        input_error(where + ": prefix table '" + v.name + "': index " + v.indices[i] + " = " +
                    std::to_string(idx[i]) + " is negative");
      inside = inside && static_cast<uint64_t>(idx[i]) < v.bound[i];
    }
    if (inside) return;  // within the extents: available or not, entry_number says
    std::string name = v.pattern;
    for (size_t i = 0; i < idx.size(); ++i) name = substitute(name, v.indices[i], idx[i]);
    if (model_.tensors.count(name) == 0)
      input_error(where + ": prefix table entry " + text + " is model tensor '" + name +
                  "', which " + (opt_.model.empty() ? model_name_ : "model '" + opt_.model + "'") +
                  " lacks");
    input_error(where + ": table entry '" + text + "' is unavailable (model tensor '" + name +
                "' is not " + v.dtype + shape_text(v.shape) + ")");
  }

  // The leading index terms of a cache.reset (before any slice; `names` the table's indices),
  // evaluated and checked as the simulator's reset_table checks them: a negative one is an
  // error, one past a bound chooses nothing (no entry or matrix has it).
  std::vector<int64_t> reset_prefix(const json::object& s, const std::vector<std::string>& names,
                                    const json::array& terms,
                                    const std::map<std::string, int64_t>& indices) {
    std::vector<int64_t> prefix;
    for (const json::value& t : terms) {
      const int64_t x = term(std::string(t.as_string()), indices);
      if (x < 0) {
        const json::value* at = s.if_contains("at");
        input_error((at && at->is_string() ? std::string(at->as_string()) + ": " : std::string()) +
                    "table '" + std::string(s.at("value").as_string()) + "': index " +
                    names.at(prefix.size()) + " = " + std::to_string(x) + " is negative");
      }
      prefix.push_back(x);
    }
    return prefix;
  }

  // A cache.reset of a window (dsl.md "Blocks and nodes"): [start, end) per index of the
  // entries (or matrices) the same access reads, checked as the simulator's table_ranges
  // checks a read, index by index and in its words: a negative index, an index past its @fixed
  // bound, a negative slice start, a slice end past the bound. `bounds` 0: grows; `sizes`: the
  // current size of each index.
  std::vector<std::pair<int64_t, int64_t>> reset_window(
      const json::object& s, const std::vector<std::string>& names,
      const std::vector<uint64_t>& bounds, const std::vector<int64_t>& sizes,
      const json::array& terms, const std::map<std::string, int64_t>& indices) {
    const json::value* at = s.if_contains("at");
    const std::string where =
        (at && at->is_string() ? std::string(at->as_string()) + ": " : std::string()) + "table '" +
        std::string(s.at("value").as_string()) + "': ";
    std::vector<std::pair<int64_t, int64_t>> box;
    for (size_t i = 0; i < names.size(); ++i) {
      const std::string t = i < terms.size() ? std::string(terms[i].as_string()) : "..";
      const int64_t bound = static_cast<int64_t>(bounds.at(i));
      box.push_back(slot_range(t, names[i], bound, bound ? bound : sizes.at(i), indices, where));
    }
    return box;
  }

  // One index slot of a table access as [start, end) (a single index: one entry) with the
  // simulator's checks in its words (memory.cpp table_ranges): a negative index, one past its
  // @fixed bound (0: grows), a negative slice start, a slice end past the bound. `size` is the
  // index's current size; `where` ends with "table 'K': ".
  std::pair<int64_t, int64_t> slot_range(const std::string& t, const std::string& idx,
                                         int64_t bound, int64_t size,
                                         const std::map<std::string, int64_t>& indices,
                                         const std::string& where) {
    const size_t dots = t.find("..");
    if (dots == std::string::npos) {
      const int64_t x = term(t, indices);
      if (x < 0) input_error(where + "index " + idx + " = " + std::to_string(x) + " is negative");
      if (bound && x >= bound)
        input_error(where + "index " + idx + " = " + std::to_string(x) +
                    " exceeds its @fixed bound " + idx + "=" + std::to_string(bound));
      return {x, x + 1};
    }
    const std::string a = t.substr(0, dots), b = t.substr(dots + 2);
    const int64_t lo = a.empty() ? 0 : term(a, indices);
    int64_t hi = b.empty() ? size : term(b, indices);
    if (!b.empty() && hi < 0) hi += size;
    if (lo < 0)
      input_error(where + "slice start " + std::to_string(lo) + " of index " + idx +
                  " is negative");
    if (bound && hi > bound)
      input_error(where + "slice end " + std::to_string(hi) + " of index " + idx +
                  " exceeds its @fixed bound " + idx + "=" + std::to_string(bound));
    return {lo, std::max(hi, lo)};
  }

  // `pattern` with every {index} replaced by `value`.
  static std::string substitute(std::string pattern, const std::string& index, int64_t value) {
    const std::string key = "{" + index + "}", text = std::to_string(value);
    for (size_t at = pattern.find(key); at != std::string::npos; at = pattern.find(key, at))
      pattern.replace(at, key.size(), text), at += text.size();
    return pattern;
  }

  // The simulator's checks of an index against 0 and the @fixed bounds.
  static void check_index(const Value& v, const std::vector<int64_t>& idx,
                          const std::string& where) {
    for (size_t i = 0; i < idx.size(); ++i) {
      if (idx[i] < 0 || (v.bound[i] && static_cast<uint64_t>(idx[i]) >= v.bound[i]))
        input_error(where + ": table '" + v.name + "': index " + v.indices[i] + " = " +
                    std::to_string(idx[i]) +
                    (idx[i] < 0 ? " is negative"
                                : " exceeds its @fixed bound " + v.indices[i] + "=" +
                                      std::to_string(v.bound[i])));
    }
  }

  // The entry number of a checked index (the growing index outermost: growing keeps them).
  static uint64_t entry_of(const Value& v, const std::vector<int64_t>& idx) {
    uint64_t e = 0;
    for (size_t i = 0; i < idx.size(); ++i)
      if (static_cast<int>(i) != v.growing) e = e * v.extent(i) + static_cast<uint64_t>(idx[i]);
    if (v.growing >= 0)
      e += static_cast<uint64_t>(idx[static_cast<size_t>(v.growing)]) * v.fixed_entries();
    return e;
  }

  static bool is_written(const Value& v, uint64_t e) {
    return e < v.written.size() && v.written[e];
  }

  // ---- the table budget and failed steps (runtime.md "Table budget", "Failed steps") ----
  // A write adding `fresh` entries to `v` that would take the tables past the budget fails
  // before anything grows, with the simulator's message.
  void check_budget(const Value& v, uint64_t fresh, const std::string& where) const {
    const uint64_t added = fresh * v.bytes;
    if (opt_.max_table_bytes == 0 || added == 0 || table_total_ + added <= opt_.max_table_bytes)
      return;
    const uint64_t from = v.written_count * v.bytes;
    input_error(where + ": table '" + v.name + "' cannot grow from " + std::to_string(from) +
                " to " + std::to_string(from + added) + " bytes: the tables would hold " +
                std::to_string(table_total_ + added) + " bytes, over the limit of " +
                std::to_string(opt_.max_table_bytes) + " bytes (max_table_bytes)");
  }

  // Before the step first writes or erases entry e: a device copy of its bytes when it was
  // written (an unwritten one goes back to @init, else zeros). Copies of plain persistent
  // values are made at the step's start (begin_step).
  struct Undo {
    size_t value;
    uint64_t entry;
    bool was_written;
    size_t chunk;
    uint64_t offset;
  };
  void note_entry(Value& v, uint64_t e) {
    if (v.storage != "persistent" || noted_.count({index_.at(v.name), e})) return;
    noted_.insert({index_.at(v.name), e});
    Undo u{index_.at(v.name), e, is_written(v, e), 0, 0};
    if (u.was_written) {
      if (undo_chunks_.empty() || undo_used_ + v.bytes > undo_chunks_[undo_chunk_].size) {
        if (!undo_chunks_.empty()) ++undo_chunk_;
        undo_used_ = 0;
        if (undo_chunk_ >= undo_chunks_.size()) {
          const uint64_t size = std::max<uint64_t>(
              v.bytes, undo_chunks_.empty() ? 65536 : 2 * undo_chunks_.back().size);
          undo_chunks_.push_back(make_buffer(
              size, vk::BufferUsageFlagBits::eTransferSrc | vk::BufferUsageFlagBits::eTransferDst,
              vk::MemoryPropertyFlagBits::eDeviceLocal));
        }
      }
      u.chunk = undo_chunk_;
      u.offset = undo_used_;
      barrier();  // the entry as the work before left it
      cmd_->copyBuffer(buffer_of(v), *undo_chunks_[u.chunk].buffer,
                       vk::BufferCopy(e * v.stride, u.offset, v.bytes));
      barrier();  // before the step's write
      undo_used_ += (v.bytes + 15) / 16 * 16;
    }
    undo_.push_back(u);
  }

  void mark_written(Value& v, uint64_t e, bool written) {
    if (v.storage != "persistent") return;
    if (e >= v.written.size()) v.written.resize(std::max<uint64_t>(e + 1, v.entry_count()));
    if (v.written[e] == written) return;
    v.written[e] = written;
    if (written) {
      ++v.written_count;
      table_total_ += v.bytes;
    } else {
      --v.written_count;
      table_total_ -= v.bytes;
    }
  }

  // A step's start: the sizes and counts of the tables, copies of the plain persistent values.
  void begin_step() {
    step_total_ = table_total_;
    barrier();
    for (Value& v : values_) {
      if (v.auto_dim()) {
        v.step_mats = v.mats;
        v.step_mat_sizes = v.mat_sizes;
      }
      v.step_size = v.size;
      v.step_inner_size = v.inner_size;
      v.step_written = v.written_count;
      if (v.shadow >= 0)
        cmd_->copyBuffer(buffer_of(v), *buffers_[static_cast<size_t>(v.shadow)].buffer,
                         vk::BufferCopy(0, 0, v.bytes));
    }
    barrier();
  }

  // A yield's consumers that each await a table another writes (docs/synth-glsl.md, "Consumers
  // of a yield"): "take" copies the table as yielded (its device buffer, written flags, sizes,
  // matrices) into a buffer of its own; "swap" exchanges the copy and the live table (after the
  // writer: its readers from then on see the table as yielded); "drop" puts the writer's
  // result back and frees the copy. A failed step drops every copy before its undo record runs.
  struct Snapshot {
    Value value;    // the other side's sizes, flags and matrices
    Buffer buffer;  // the other side's entries (tables)
    bool swapped = false;
  };
  std::map<std::string, Snapshot> snapshots_;

  void snapshot(Value& v, const std::string& action) {
    if (action == "take") {
      Snapshot snap{v, {}, false};
      if (v.table()) {
        const uint64_t bytes = buffers_[static_cast<size_t>(v.buffer)].size;
        snap.buffer = make_buffer(bytes,
                                  vk::BufferUsageFlagBits::eStorageBuffer |
                                      vk::BufferUsageFlagBits::eTransferSrc |
                                      vk::BufferUsageFlagBits::eTransferDst,
                                  vk::MemoryPropertyFlagBits::eDeviceLocal);
        barrier();
        cmd_->copyBuffer(buffer_of(v), *snap.buffer.buffer, vk::BufferCopy(0, 0, bytes));
        barrier();
      }
      snapshots_[v.name] = std::move(snap);
    } else if (action == "swap") {
      swap_snapshot(v, snapshots_.at(v.name));
    } else if (action == "drop") {
      Snapshot& snap = snapshots_.at(v.name);
      if (snap.swapped) swap_snapshot(v, snap);
      if (v.table()) submit_and_wait();  // no recorded copy uses the buffer any more
      snapshots_.erase(v.name);
    } else {
      input_error("unknown snapshot action '" + action + "'");
    }
  }

  void swap_snapshot(Value& v, Snapshot& snap) {
    if (v.table()) {
      submit_and_wait();  // the dispatches recorded so far bind the buffer they were given
      std::swap(buffers_[static_cast<size_t>(v.buffer)], snap.buffer);
    }
    std::swap(v, snap.value);
    snap.swapped = !snap.swapped;
    if (!v.table()) return;
    for (Kernel& k : kernels_) {
      bool binds = false;
      for (const KernelBinding& b : k.bindings) binds = binds || b.value == v.name;
      if (binds) write_descriptors(k);
      for (Kernel& sub : k.subs) {
        bool sub_binds = false;
        for (const KernelBinding& b : sub.bindings) sub_binds = sub_binds || b.value == v.name;
        if (sub_binds) write_descriptors(sub);
      }
    }
  }

  // A step's end: a failed one puts back the entries, sizes and plain persistent values it
  // changed (and clears a shader's error status); either way the record is dropped.
  void end_step(bool failed) {
    for (auto& [name, snap] : snapshots_)  // a step that failed among a yield's consumers
      if (snap.swapped) swap_snapshot(mutable_value(name), snap);
    if (!snapshots_.empty()) submit_and_wait();
    snapshots_.clear();
    if (failed) {
      barrier();
      for (const Undo& u : undo_) {
        Value& v = values_[u.value];
        if (u.was_written)
          cmd_->copyBuffer(*undo_chunks_[u.chunk].buffer, buffer_of(v),
                           vk::BufferCopy(u.offset, u.entry * v.stride, v.bytes));
        else
          reset_entry(v, u.entry * v.stride);
        if (u.entry < v.written.size()) v.written[u.entry] = u.was_written;
      }
      for (Value& v : values_) {
        if (v.auto_dim()) {
          v.mats = v.step_mats;
          v.mat_sizes = v.step_mat_sizes;
        }
        v.size = v.step_size;
        v.inner_size = v.step_inner_size;
        v.written_count = v.step_written;
        if (v.shadow >= 0)
          cmd_->copyBuffer(*buffers_[static_cast<size_t>(v.shadow)].buffer, buffer_of(v),
                           vk::BufferCopy(0, 0, v.bytes));
      }
      if (!errors_.empty()) zero(value("@status"));
      table_total_ = step_total_;
      barrier();
      submit_and_wait();
    }
    undo_.clear();
    noted_.clear();
    undo_chunk_ = 0;
    undo_used_ = 0;
  }

  // The entry number (before the stride) of table `v` at `idx`; grows a growing table to
  // hold it. `where` names the use for the messages. A write is checked against the table
  // budget, noted for a failed step and counted.
  uint64_t entry_number(Value& v, const std::vector<int64_t>& idx, const std::string& where,
                        bool write = false) {
    std::string text = v.name + "[";
    for (size_t i = 0; i < idx.size(); ++i) text += (i ? ", " : "") + std::to_string(idx[i]);
    text += "]";
    if (v.storage == "constant") check_prefix_entry(v, idx, where, text);
    check_index(v, idx, where);
    grow_inner(v, idx, where, write);  // before the entry's number is taken
    if (write && v.storage == "persistent") {
      const uint64_t e = entry_of(v, idx);
      check_budget(v, is_written(v, e) ? 0 : 1, where);
      note_entry(v, e);
    }
    if (v.growing >= 0) {
      const auto g = static_cast<uint64_t>(idx[static_cast<size_t>(v.growing)]);
      if (g >= v.capacity) {
        try {
          grow(v, g + 1);
        } catch (const vk::SystemError&) {
          input_error(where + ": out of memory growing table '" + v.name + "'");
        }
      }
      if (write) v.size = std::max(v.size, g + 1);
    }
    const uint64_t e = entry_of(v, idx);
    if (write) mark_written(v, e, true);
    if (v.storage == "constant" && !v.available.at(e))
      input_error(where + ": table entry '" + text + "' is unavailable (model tensor '" +
                  entry_tensor(v, e) + "' is missing or not " + v.dtype + shape_text(v.shape) +
                  ")");
    return e;
  }

  // A growing table's capacity doubles until it holds `need` along the growing index: the
  // recorded work runs first, the entries move to a new buffer (zeros after them) and every
  // kernel (and recorded dispatch) binding the table gets the new buffer.
  void grow(Value& v, uint64_t need) {
    uint64_t cap = v.capacity;
    while (cap < need) cap *= 2;
    const uint64_t old_bytes = v.table_bytes();
    v.capacity = cap;
    if (v.table_bytes() > UINT32_MAX)
      device_error("table '" + v.name + "' outgrew 4 GiB (32-bit dynamic offsets)");
    submit_and_wait();
    const auto usage = vk::BufferUsageFlagBits::eStorageBuffer |
                       vk::BufferUsageFlagBits::eTransferSrc |
                       vk::BufferUsageFlagBits::eTransferDst;
    Buffer fresh = make_buffer(v.table_bytes(), usage, vk::MemoryPropertyFlagBits::eDeviceLocal);
    Buffer& old = buffers_[static_cast<size_t>(v.buffer)];
    cmd_->fillBuffer(*fresh.buffer, 0, VK_WHOLE_SIZE, 0);
    barrier();
    cmd_->copyBuffer(*old.buffer, *fresh.buffer, vk::BufferCopy(0, 0, old_bytes));
    barrier();
    submit_and_wait();
    old = std::move(fresh);
    if (v.init) {  // the new entries start from @init
      for (uint64_t e = old_bytes / v.stride; e < v.entry_count(); ++e)
        reset_entry(v, e * v.stride);
      barrier();
      submit_and_wait();
    }
    const auto rebind = [&](Kernel& k) {
      for (const KernelBinding& b : k.bindings)
        if (b.value == v.name) {
          write_descriptors(k);
          break;
        }
    };
    for (Kernel& k : kernels_) {
      rebind(k);
      for (Kernel& sub : k.subs) rebind(sub);  // recorded dispatches binding one of its entries
    }
  }

  // ---- tables growing along several indices -------------------------------------------------
  // The outermost growing index keeps the offsets as it grows (grow above, from 16); each
  // further one has a capacity of its own, from 1 (the capacities multiply: 16 for each of the
  // 8 further indices of a table of 9 would be 16^9 entries), doubling, and passing it lays the
  // entries out again (relayout).
  static void init_inner_growing(Value& v) {
    if (std::count(v.bound.begin(), v.bound.end(), 0) < 2) return;
    v.inner_cap.assign(v.bound.size(), 0);
    v.inner_size.assign(v.bound.size(), 0);
    for (size_t i = 0; i < v.bound.size(); ++i)
      if (v.bound[i] == 0 && static_cast<int>(i) != v.growing) v.inner_cap[i] = 1;
  }

  // An entry past the capacity of a growing index (it reads as unwritten).
  static bool past_capacity(const Value& v, const std::vector<int64_t>& idx) {
    if (v.growing >= 0 && static_cast<uint64_t>(idx[static_cast<size_t>(v.growing)]) >= v.capacity)
      return true;
    for (size_t i = 0; i < v.inner_cap.size() && i < idx.size(); ++i)
      if (v.inner_cap[i] && static_cast<uint64_t>(idx[i]) >= v.inner_cap[i]) return true;
    return false;
  }

  // The index of entry number e (entry_of's inverse) under the inner capacities `caps`.
  static std::vector<int64_t> index_of(const Value& v, const std::vector<uint64_t>& caps,
                                       uint64_t e) {
    Value layout;
    layout.bound = v.bound;
    layout.growing = v.growing;
    layout.inner_cap = caps;
    std::vector<int64_t> idx(v.bound.size(), 0);
    uint64_t rest = e;
    if (v.growing >= 0) {
      idx[static_cast<size_t>(v.growing)] = static_cast<int64_t>(e / layout.fixed_entries());
      rest = e % layout.fixed_entries();
    }
    for (size_t i = v.bound.size(); i-- > 0;)
      if (static_cast<int>(i) != v.growing) {
        idx[i] = static_cast<int64_t>(rest % layout.extent(i));
        rest /= layout.extent(i);
      }
    return idx;
  }

  // An access at idx: a write raises the sizes of the further growing indices, and an index
  // past one's capacity doubles it (out of memory: the simulator's message).
  void grow_inner(Value& v, const std::vector<int64_t>& idx, const std::string& where, bool write) {
    if (v.inner_cap.empty()) return;
    std::vector<uint64_t> caps = v.inner_cap;
    bool more = false;
    for (size_t i = 0; i < caps.size() && i < idx.size(); ++i) {
      if (!caps[i]) continue;
      const auto x = static_cast<uint64_t>(idx[i]);
      if (write) v.inner_size[i] = std::max(v.inner_size[i], x + 1);
      for (; caps[i] <= x; more = true) caps[i] *= 2;
    }
    if (!more) return;
    try {
      relayout(v, caps);
    } catch (const vk::SystemError&) {
      input_error(where + ": out of memory growing table '" + v.name + "'");
    }
  }

  // The entries move to their places under the new capacities (the recorded work runs first;
  // new places start as @init, else zeros); the written marks, the step's undo record and
  // the kernels binding the table follow.
  void relayout(Value& v, const std::vector<uint64_t>& caps) {
    const std::vector<uint64_t> old_caps = v.inner_cap;
    const uint64_t old_count = v.entry_count();
    v.inner_cap = caps;
    if (v.table_bytes() > UINT32_MAX)
      device_error("table '" + v.name + "' outgrew 4 GiB (32-bit dynamic offsets)");
    const auto moved = [&](uint64_t e) { return entry_of(v, index_of(v, old_caps, e)); };
    submit_and_wait();
    const auto usage = vk::BufferUsageFlagBits::eStorageBuffer |
                       vk::BufferUsageFlagBits::eTransferSrc |
                       vk::BufferUsageFlagBits::eTransferDst;
    Buffer old = std::move(buffers_[static_cast<size_t>(v.buffer)]);
    buffers_[static_cast<size_t>(v.buffer)] =
        make_buffer(v.table_bytes(), usage, vk::MemoryPropertyFlagBits::eDeviceLocal);
    cmd_->fillBuffer(buffer_of(v), 0, VK_WHOLE_SIZE, 0);
    barrier();
    if (v.init)
      for (uint64_t e = 0; e < v.entry_count(); ++e) reset_entry(v, e * v.stride);
    barrier();
    std::vector<vk::BufferCopy> copies;
    for (uint64_t e = 0; e < old_count; ++e)
      copies.emplace_back(e * v.stride, moved(e) * v.stride, v.bytes);
    if (!copies.empty()) cmd_->copyBuffer(*old.buffer, buffer_of(v), copies);
    barrier();
    submit_and_wait();
    std::vector<bool> written(v.written.empty() ? 0 : v.entry_count(), false);
    for (uint64_t e = 0; e < v.written.size(); ++e)
      if (v.written[e]) {
        const uint64_t to = moved(e);
        if (to >= written.size()) written.resize(to + 1, false);
        written[to] = true;
      }
    v.written = std::move(written);
    const size_t me = index_.at(v.name);
    for (Undo& u : undo_)
      if (u.value == me) u.entry = moved(u.entry);
    std::set<std::pair<size_t, uint64_t>> noted;
    for (const auto& [value, e] : noted_) noted.insert({value, value == me ? moved(e) : e});
    noted_ = std::move(noted);
    ++relayouts_;
    for (Kernel& k : kernels_) {
      bool binds = false;
      for (const KernelBinding& b : k.bindings) binds = binds || b.value == v.name;
      if (binds) write_descriptors(k);
      for (Kernel& sub : k.subs) {
        bool sub_binds = false;
        for (const KernelBinding& b : sub.bindings) sub_binds = sub_binds || b.value == v.name;
        if (sub_binds) write_descriptors(sub);
      }
    }
  }

  // The regions of a copy side: whole values one region; table entries (ranges "a..b"
  // expand, in row-major order) one region per entry, offset -1 for an entry past a growing
  // table's capacity (it reads as zeros).
  enum class Use { kRead, kWrite, kReset };

  // The byte offsets of the entries a use selects: one for a whole value; for table entries
  // and slices (dsl.md: "a..b", an omitted start 0, an omitted end the current size (the bound
  // of a @fixed index), a negative end counting from it), one per entry in row-major order,
  // -1 for an entry a read finds past a growing table's capacity (it reads as unwritten).
  // Writes grow the table; a reset skips entries that do not exist yet. `shape` gets the
  // slice's leading dims.
  std::vector<int64_t> regions(Value& v, const json::value* entry,
                               const std::map<std::string, int64_t>& indices,
                               const std::string& where, Use use,
                               std::vector<uint64_t>* shape = nullptr) {
    if (!v.table()) return {static_cast<int64_t>(offset_of(v))};
    if (!entry) input_error(where + ": table '" + v.name + "' without an entry");
    std::vector<std::pair<int64_t, int64_t>> ranges;
    for (const json::value& tv : entry->as_array()) {
      const std::string t(tv.as_string());
      const size_t i = ranges.size(), dots = t.find("..");
      const int64_t extent = static_cast<int64_t>(
          i < v.bound.size() && v.bound[i]                           ? v.bound[i]
          : static_cast<int>(i) == v.growing || v.inner_size.empty() ? v.size
                                                                     : v.inner_size[i]);
      if (dots == std::string::npos) {
        const int64_t x = term(t, indices);
        ranges.emplace_back(x, x + 1);
        continue;
      }
      const std::string a = t.substr(0, dots), b = t.substr(dots + 2);
      const int64_t lo = a.empty() ? 0 : term(a, indices);
      int64_t hi = b.empty() ? extent : term(b, indices);
      if (!b.empty() && hi < 0) hi += extent;
      if (lo < 0) input_error(where + ": slice '" + t + "' of '" + v.name + "' starts below 0");
      if (i < v.bound.size() && v.bound[i] && hi > static_cast<int64_t>(v.bound[i]))
        input_error(where + ": table '" + v.name + "': slice end " + std::to_string(hi) +
                    " of index " + v.indices[i] + " exceeds its @fixed bound " + v.indices[i] +
                    "=" + std::to_string(v.bound[i]));
      ranges.emplace_back(lo, std::max(hi, lo));
      if (shape) shape->push_back(static_cast<uint64_t>(std::max(hi, lo) - lo));
    }
    std::vector<int64_t> out;
    std::vector<int64_t> idx(ranges.size());
    for (size_t i = 0; i < ranges.size(); ++i) idx[i] = ranges[i].first;
    if (std::any_of(ranges.begin(), ranges.end(), [](auto& r) { return r.second <= r.first; }))
      return out;
    if (use == Use::kWrite && v.storage == "persistent") {
      // As the simulator: the whole access's new entries against the budget, before any grows.
      uint64_t fresh = 0;
      std::vector<int64_t> at = idx;
      while (true) {
        check_index(v, at, where);
        fresh += is_written(v, entry_of(v, at)) ? 0 : 1;
        size_t d = ranges.size();
        while (d > 0 && ++at[d - 1] == ranges[d - 1].second) {
          at[d - 1] = ranges[d - 1].first;
          --d;
        }
        if (d == 0) break;
      }
      check_budget(v, fresh, where);
    }
    const uint64_t layout = relayouts_;
    const std::vector<int64_t> first = idx;
    bool redone = false;
    while (true) {
      const bool past = use != Use::kWrite && past_capacity(v, idx);
      if (!past)
        out.push_back(
            static_cast<int64_t>(entry_number(v, idx, where, use == Use::kWrite) * v.stride));
      else if (use == Use::kRead)
        out.push_back(-1);
      size_t d = ranges.size();
      while (d > 0 && ++idx[d - 1] == ranges[d - 1].second) {
        idx[d - 1] = ranges[d - 1].first;
        --d;
      }
      if (d == 0) {
        // a write that laid the table out again: the offsets before it moved, once more
        if (use != Use::kWrite || relayouts_ == layout || redone) break;
        redone = true;
        out.clear();
        idx = first;
      }
    }
    return out;
  }

  // Every entry of a table (`return K`): [bound or size per index] + the entry's shape.
  std::vector<uint8_t> download_table(Value& v, std::vector<uint64_t>& shape) {
    json::array all;
    for (size_t i = 0; i < v.indices.size(); ++i) all.emplace_back("..");
    std::vector<uint64_t> lead;
    const std::map<std::string, int64_t> none;
    const std::vector<int64_t> offs = regions(v, &static_cast<const json::value&>(json::value(all)),
                                              none, "fetch", Use::kRead, &lead);
    shape = lead;
    shape.insert(shape.end(), v.shape.begin(), v.shape.end());
    if (!packed_bits(v) || v.elements == 0) return download_entries(v, offs);
    // packed entries (oinf.md) padded to whole bytes each: the fetched table packs their
    // elements one after another, as the simulator's tensor holds them
    return pack_cells(v, entry_cells(v, offs));
  }

  // The elements of table t's entries at `offs` one after another, a cell each (a packed
  // entry is padded to whole bytes).
  std::vector<uint8_t> entry_cells(const Value& t, const std::vector<int64_t>& offs) {
    const std::vector<uint8_t> bytes = download_entries(t, offs);
    const size_t per = t.elements * cell_size(t);
    std::vector<uint8_t> cells;
    for (size_t n = 0; n < offs.size(); ++n) {
      const auto at = bytes.begin() + static_cast<std::ptrdiff_t>(n * t.bytes);
      const std::vector<uint8_t> c = unpack_cells(
          t, std::vector<uint8_t>(at, at + static_cast<std::ptrdiff_t>(t.bytes)), t.elements);
      cells.insert(cells.end(), c.begin(),
                   c.begin() + static_cast<std::ptrdiff_t>(std::min(c.size(), per)));
    }
    return cells;
  }

  // Cells stored into table t's entries at `offs` (each packed again and padded to whole
  // bytes), an entry's worth of cells each.
  void store_entry_cells(Value& t, const std::vector<int64_t>& offs,
                         const std::vector<uint8_t>& cells) {
    const size_t per = t.elements * cell_size(t);
    for (size_t n = 0; n < offs.size(); ++n) {
      const auto at = cells.begin() + static_cast<std::ptrdiff_t>(n * per);
      std::vector<uint8_t> piece =
          pack_cells(t, std::vector<uint8_t>(at, at + static_cast<std::ptrdiff_t>(per)));
      piece.resize(t.bytes, 0);
      upload_at(t, static_cast<uint64_t>(offs[n]), piece.data(), piece.size());
    }
  }

  // The entries at offsets `offs` of table v (regions' Use::kRead: -1 past the capacity, read
  // as the @init value, else zeros), one after another.
  std::vector<uint8_t> download_entries(const Value& v, const std::vector<int64_t>& offs) {
    std::vector<uint8_t> bytes(offs.size() * v.bytes, 0);
    if (bytes.empty()) return bytes;
    Buffer host = make_buffer(
        bytes.size(), vk::BufferUsageFlagBits::eTransferDst,
        vk::MemoryPropertyFlagBits::eHostVisible | vk::MemoryPropertyFlagBits::eHostCoherent);
    barrier();
    std::vector<vk::BufferCopy> copies;
    for (size_t i = 0; i < offs.size(); ++i)
      if (offs[i] >= 0) copies.emplace_back(static_cast<uint64_t>(offs[i]), i * v.bytes, v.bytes);
    if (!copies.empty()) cmd_->copyBuffer(buffer_of(v), *host.buffer, copies);
    submit_and_wait();
    const auto* p = static_cast<const uint8_t*>(device_->mapMemory(*host.memory, 0, VK_WHOLE_SIZE));
    std::memcpy(bytes.data(), p, bytes.size());
    device_->unmapMemory(*host.memory);
    for (size_t i = 0; i < offs.size(); ++i)  // past the capacity: unwritten
      if (offs[i] < 0 && v.init)
        std::memcpy(bytes.data() + i * v.bytes, v.init_image.data(), v.bytes);
    return bytes;
  }

  // ---- @auto_dim matrices (core/src/exec/memory.cpp's semantics and messages) ------------
  std::vector<uint64_t> auto_dims(const Value& v, const std::vector<uint64_t>& counts) const {
    std::vector<uint64_t> d = v.shape;
    for (size_t k = 0; k < counts.size(); ++k) d[k] += counts[k];
    return d;
  }

  std::vector<uint8_t> fresh_cells(const Value& v, const std::vector<uint64_t>& dims) const {
    uint64_t n = 1;
    for (uint64_t d : dims) n *= d;
    const size_t esize = cell_size(v);
    std::vector<uint8_t> out(n * esize, 0);
    if (v.init) {  // the @init element's bytes (a packed one's code in a byte)
      const uint64_t bits = init_bits(v);
      for (uint64_t i = 0; i < n; ++i)
        for (size_t b = 0; b < esize; ++b)
          out[i * esize + b] = static_cast<uint8_t>(bits >> (8 * b));
    }
    return out;
  }

  // Copies the box st/ln between row-major `a` (dims da, at start sa) and `b` (dims db, at
  // start sb), elements of `esize` bytes: into b when `to_b`.
  static void copy_box(std::vector<uint8_t>& a, const std::vector<uint64_t>& da,
                       const std::vector<uint64_t>& sa, std::vector<uint8_t>& b,
                       const std::vector<uint64_t>& db, const std::vector<uint64_t>& sb,
                       const std::vector<uint64_t>& ln, size_t esize, bool to_b) {
    const size_t rank = ln.size();
    for (uint64_t l : ln)
      if (l == 0) return;
    std::vector<uint64_t> idx(rank, 0);
    while (true) {
      uint64_t oa = 0, ob = 0;
      for (size_t k = 0; k < rank; ++k) {
        oa = oa * da[k] + sa[k] + idx[k];
        ob = ob * db[k] + sb[k] + idx[k];
      }
      const size_t run = static_cast<size_t>(ln[rank - 1]) * esize;
      if (to_b)
        std::memcpy(b.data() + ob * esize, a.data() + oa * esize, run);
      else
        std::memcpy(a.data() + oa * esize, b.data() + ob * esize, run);
      size_t k = rank - 1;
      while (k-- > 0) {
        if (++idx[k] < ln[k]) break;
        idx[k] = 0;
      }
      if (k == static_cast<size_t>(-1)) break;
    }
  }

  // The matrix of `key`, created fresh (counts 0, cells @init) at its first access.
  Value::Matrix& matrix_at(Value& v, const std::vector<int64_t>& key) {
    auto [it, fresh] = v.mats.try_emplace(key);
    if (fresh) {
      it->second.counts.assign(v.auto_indices.size(), 0);
      it->second.cells = fresh_cells(v, v.shape);
    }
    for (size_t k = 0; k < key.size(); ++k) v.mat_sizes[k] = std::max(v.mat_sizes[k], key[k] + 1);
    return it->second;
  }

  // memory.cpp's auto_part: with scalar auto indices the matrix grown (its counts at least the
  // indices) and whole, else the box the slots select, never growing. `terms`: every index's
  // (the @table ones first), or none (the whole matrix).
  std::vector<uint8_t> matrix_part(const Value& v, Value::Matrix& e,
                                   const std::vector<std::string>& terms,
                                   const std::map<std::string, int64_t>& indices,
                                   const std::string& where, std::vector<uint64_t>& shape) {
    const size_t nt = v.auto_table.size(), nauto = v.auto_indices.size(), rank = v.shape.size();
    const size_t esize = cell_size(v);
    bool scalar = !terms.empty();
    for (size_t k = 0; k < nauto && scalar; ++k)
      scalar = terms[nt + k].find("..") == std::string::npos;
    std::vector<uint64_t> st(rank, 0);
    if (scalar) {
      std::vector<uint64_t> counts = e.counts;
      for (size_t k = 0; k < nauto; ++k) {
        const int64_t i = term(terms[nt + k], indices);
        const std::string& name = v.auto_indices[k];
        if (i < 0)
          throw Failure(1, where + "auto_dim '" + v.name + "': index " + name + " = " +
                               std::to_string(i) + " is negative");
        if (v.auto_bound[k] && static_cast<uint64_t>(i) > v.auto_bound[k])
          throw Failure(1, where + "auto_dim '" + v.name + "': count " + name + " = " +
                               std::to_string(i) + " exceeds its @fixed bound " + name + "=" +
                               std::to_string(v.auto_bound[k]));
        counts[k] = std::max(counts[k], static_cast<uint64_t>(i));
      }
      if (counts != e.counts) {  // old cells keep their positions, new ones @init
        const std::vector<uint64_t> od = auto_dims(v, e.counts), nd = auto_dims(v, counts);
        std::vector<uint8_t> grown = fresh_cells(v, nd);
        copy_box(e.cells, od, st, grown, nd, st, od, esize, true);
        e.cells = std::move(grown);
        e.counts = std::move(counts);
      }
      shape = auto_dims(v, e.counts);
      return e.cells;
    }
    const std::vector<uint64_t> dims = auto_dims(v, e.counts);
    shape = dims;
    for (size_t k = 0; k < nauto && !terms.empty(); ++k) {
      const std::string& t = terms[nt + k];
      const auto size = static_cast<int64_t>(dims[k]);
      int64_t a = 0, b = size;
      const size_t dots = t.find("..");
      if (dots == std::string::npos) {
        a = term(t, indices);
        b = a + 1;
      } else {
        const std::string from = t.substr(0, dots), to = t.substr(dots + 2);
        if (!from.empty()) a = term(from, indices);
        if (!to.empty()) {
          b = term(to, indices);
          if (b < 0) b += size;
        }
      }
      if (a < 0 || b > size || a > b)
        throw Failure(1, where + "auto_dim '" + v.name + "': range " + std::to_string(a) + ".." +
                             std::to_string(b) + " of " + v.auto_indices[k] +
                             " is outside the current " + std::to_string(size) + " rows/columns");
      st[k] = static_cast<uint64_t>(a);
      shape[k] = static_cast<uint64_t>(b - a);
    }
    uint64_t n = 1;
    for (uint64_t d : shape) n *= d;
    std::vector<uint8_t> out(n * esize);
    copy_box(e.cells, dims, st, out, shape, std::vector<uint64_t>(rank, 0), shape, esize, true);
    return out;
  }

  // The keys the @table slots of `terms` visit (row-major) and the lengths of the sliced ones,
  // with memory.cpp's table_ranges checks.
  std::vector<std::vector<int64_t>> matrix_keys(const Value& v,
                                                const std::vector<std::string>& terms,
                                                const std::map<std::string, int64_t>& indices,
                                                const std::string& where,
                                                std::vector<uint64_t>& lead) {
    const size_t nt = v.auto_table.size();
    std::vector<std::pair<int64_t, int64_t>> ranges;
    for (size_t k = 0; k < nt; ++k) {
      const std::string t = terms.empty() ? ".." : terms[k];
      const std::string& idx = v.auto_table[k];
      const uint64_t bound = v.auto_table_bound[k];
      const int64_t size = bound ? static_cast<int64_t>(bound) : v.mat_sizes[k];
      const auto [a, b] = slot_range(t, idx, static_cast<int64_t>(bound), size, indices,
                                     where + "table '" + v.name + "': ");
      if (t.find("..") != std::string::npos) lead.push_back(static_cast<uint64_t>(b - a));
      ranges.emplace_back(a, b);
    }
    std::vector<std::vector<int64_t>> keys;
    uint64_t total = 1;
    for (const auto& [a, b] : ranges) total *= static_cast<uint64_t>(b - a);
    for (uint64_t n = 0; n < total; ++n) {
      std::vector<int64_t> key(nt);
      uint64_t rest = n;
      for (size_t k = nt; k-- > 0;) {
        const auto len = static_cast<uint64_t>(ranges[k].second - ranges[k].first);
        key[k] = ranges[k].first + static_cast<int64_t>(rest % len);
        rest /= len;
      }
      keys.push_back(std::move(key));
    }
    return keys;
  }

  static std::string key_text(const std::vector<int64_t>& key) {
    std::string t = "[";
    for (size_t i = 0; i < key.size(); ++i) t += (i ? ", " : "") + std::to_string(key[i]);
    return t + "]";
  }

  // memory.cpp's read_auto_dim: one matrix (or its part) per visited key, stacked along the
  // sliced @table indices; an unwritten matrix a stacked slice visits reads as a fresh one.
  std::vector<uint8_t> read_auto_dim(Value& v, const std::vector<std::string>& terms,
                                     const std::map<std::string, int64_t>& indices,
                                     const std::string& where, std::vector<uint64_t>& shape) {
    std::vector<uint64_t> lead;
    const auto keys = matrix_keys(v, terms, indices, where, lead);
    if (lead.empty()) return matrix_part(v, matrix_at(v, keys.at(0)), terms, indices, where, shape);
    bool grows = !terms.empty();
    for (size_t k = 0; k < v.auto_indices.size() && grows; ++k)
      grows = terms[v.auto_table.size() + k].find("..") == std::string::npos;
    std::optional<std::vector<uint64_t>> part_shape;
    std::vector<uint8_t> out;
    for (const auto& key : keys) {
      auto it = v.mats.find(key);
      Value::Matrix fresh{std::vector<uint64_t>(v.auto_indices.size(), 0), fresh_cells(v, v.shape)};
      Value::Matrix* e = it != v.mats.end() ? &it->second : grows ? &matrix_at(v, key) : &fresh;
      std::vector<uint64_t> ps;
      std::vector<uint8_t> part = matrix_part(v, *e, terms, indices, where, ps);
      if (part_shape && ps != *part_shape)
        throw Failure(1, where + "auto_dim table '" + v.name + "': entry " + key_text(key) +
                             " gives shape " + shape_text(ps) + " but entry " +
                             key_text(keys.front()) + " gives " + shape_text(*part_shape) +
                             ", so they cannot be stacked (slice the matrices to equal parts)");
      part_shape = ps;
      out.insert(out.end(), part.begin(), part.end());
    }
    shape = lead;
    const std::vector<uint64_t>& inner = part_shape ? *part_shape : v.shape;
    shape.insert(shape.end(), inner.begin(), inner.end());
    return out;
  }

  // cache.read M[...] >> x, cache.write x >> M[...] (memory.cpp's read_auto_dim and
  // write_auto_dim, the interpreter's zero-padded read into a larger destination; "exact": a
  // transfer or a read on the way to a table entry or another matrix, which stores the
  // matrix's shape as it is).
  void auto_dim_copy(const json::object& s, const std::map<std::string, int64_t>& indices) {
    if (s.contains("to_entry") || s.contains("from_entry")) {
      entries_and_matrix(s, indices);
      return;
    }
    const bool write = s.contains("auto_to");
    if (write && s.contains("auto_from")) {  // matrix to matrix: the part read, as it is, stored
      Value& from = mutable_value(std::string(s.at("from").as_string()));
      Value& to = mutable_value(std::string(s.at("to").as_string()));
      std::vector<std::string> fterms, tterms;
      for (const json::value& t : s.at("auto_from").as_array()) fterms.emplace_back(t.as_string());
      for (const json::value& t : s.at("auto_to").as_array()) tterms.emplace_back(t.as_string());
      std::vector<uint64_t> shape;
      const std::vector<uint8_t> value =
          read_auto_dim(from, fterms, indices, std::string(s.at("at").as_string()) + ": ", shape);
      write_matrix(to, tterms, shape, value, indices,
                   std::string(s.at("store_at").as_string()) + ": ");
      return;
    }
    Value& m = mutable_value(std::string(s.at(write ? "to" : "from").as_string()));
    Value& other = mutable_value(std::string(s.at(write ? "from" : "to").as_string()));
    const std::string where = std::string(s.at("at").as_string()) + ": ";
    const std::string store_at = std::string(s.at("store_at").as_string()) + ": ";
    std::vector<std::string> terms;
    for (const json::value& t : s.at(write ? "auto_to" : "auto_from").as_array())
      terms.emplace_back(t.as_string());
    const size_t esize = cell_size(m);
    if (!write) {
      std::vector<uint64_t> shape;
      std::vector<uint8_t> value = read_auto_dim(m, terms, indices, where, shape);
      // An op's operand that grew: the kernel holds the declared shape, which the op's static
      // output pins, so another one is the simulator's error (host/shape_rules.hpp).
      if (const json::value* g = s.if_contains("guard"); g && shape != other.shape) {
        const json::object& guard = g->as_object();
        const std::string e = shape_rules::guard_error(guard, shape);
        throw Failure(1, std::string(guard.at("at").as_string()) + ": " +
                             (e.empty() ? "op '" + std::string(guard.at("op").as_string()) +
                                              "': operand of shape " + shape_text(shape) +
                                              ", but this program was synthesized for " +
                                              shape_text(other.shape)
                                        : e));
      }
      // A kernel of run-time length reads the matrix as it is now, up to the length its
      // scratch value holds (the emitter's runtime_length.hpp).
      if (other.runtime_axis >= 0 && shape.size() == other.shape.size()) {
        const auto a = static_cast<size_t>(other.runtime_axis);
        bool same = true;
        for (size_t d = 0; d < shape.size(); ++d)
          same = same && (d == a || shape[d] == other.capacity_shape[d]);
        if (same && shape[a] > other.capacity_shape[a])
          throw Failure(1, where + "auto_dim '" + m.name + "' has " + std::to_string(shape[a]) +
                               " along its axis " + std::to_string(a) +
                               ", but this program's kernels were synthesized for at most " +
                               std::to_string(other.capacity_shape[a]) +
                               " (open gap auto-dim-operand)");
        if (same) set_shape(other, shape);
      }
      const json::value* exact = s.if_contains("exact");
      const bool pad = !(exact && exact->is_bool() && exact->as_bool());
      bool fits = shape.size() == other.shape.size();
      for (size_t k = 0; k < shape.size() && fits; ++k)
        fits = pad ? shape[k] <= other.shape[k] : shape[k] == other.shape[k];
      if (!fits)
        throw Failure(1, store_at + "cannot store " + m.dtype + shape_text(shape) + " into '" +
                             other.name + "' of " + other.dtype + shape_text(other.shape));
      std::vector<uint8_t> out(other.elements * esize, 0);
      const std::vector<uint64_t> zero(shape.size(), 0);
      copy_box(value, shape, zero, out, other.shape, zero, shape, esize, true);
      out = pack_cells(m, out);
      out.resize(other.bytes, 0);
      barrier();
      upload(other, out.data(), out.size());
      return;
    }
    const json::value* sp = s.if_contains("spread");
    write_matrix(m, terms, other.shape, unpack_cells(m, download(other), other.elements), indices,
                 where, sp && sp->is_bool() && sp->as_bool());
  }

  // A copy between a matrix and table entries where neither side's shape is known before run
  // time (a window of run-time length, a matrix that grows): the matrix's part read as
  // cache.read reads it (its current shape) and stored into the entries as cache.write stores
  // a value (memory.cpp's write_table: the access's shape first, then the budget and growth),
  // or the entries read as a table window is and stored into the matrix (write_auto_dim).
  void entries_and_matrix(const json::object& s, const std::map<std::string, int64_t>& indices) {
    const bool to_table = s.contains("to_entry");
    Value& from = mutable_value(std::string(s.at("from").as_string()));
    Value& to = mutable_value(std::string(s.at("to").as_string()));
    const std::string at(s.at("at").as_string()), store_at(s.at("store_at").as_string());
    std::vector<std::string> terms;
    for (const json::value& t : s.at(to_table ? "auto_from" : "auto_to").as_array())
      terms.emplace_back(t.as_string());
    if (!to_table) {
      Value& t = from;
      std::vector<uint64_t> shape;
      const std::vector<int64_t> src =
          regions(t, s.if_contains("from_entry"), indices, at, Use::kRead, &shape);
      shape.insert(shape.end(), t.shape.begin(), t.shape.end());
      write_matrix(to, terms, shape, entry_cells(t, src), indices, store_at + ": ");
      return;
    }
    Value& t = to;
    std::vector<uint64_t> shape, access;
    const std::vector<uint8_t> cells = read_auto_dim(from, terms, indices, at + ": ", shape);
    regions(t, s.if_contains("to_entry"), indices, store_at, Use::kRead, &access);
    access.insert(access.end(), t.shape.begin(), t.shape.end());
    if (shape != access)
      input_error(store_at + ": cannot store a value of shape " + shape_text(shape) + " into '" +
                  t.name + "' where the access has shape " + shape_text(access));
    const std::vector<int64_t> dst =
        regions(t, s.if_contains("to_entry"), indices, store_at, Use::kWrite);
    barrier();
    store_entry_cells(t, dst, cells);
  }

  // Stores a value of shape vs (its bytes) at the matrix access `terms` of m (memory.cpp's
  // write_auto_dim): per key the @table slots visit, the grown matrix or the part.
  void write_matrix(Value& m, const std::vector<std::string>& terms,
                    const std::vector<uint64_t>& vs, const std::vector<uint8_t>& bytes,
                    const std::map<std::string, int64_t>& indices, const std::string& where,
                    bool spread = false) {
    const size_t esize = cell_size(m);
    std::vector<uint64_t> lead;
    const auto keys = matrix_keys(m, terms, indices, where, lead);
    if (vs.size() < lead.size() || !std::equal(lead.begin(), lead.end(), vs.begin()))
      throw Failure(1, where + "cannot store a value of shape " + shape_text(vs) + " into " +
                           std::to_string(keys.size()) + " entries of auto_dim table '" + m.name +
                           "'");
    const std::vector<uint64_t> inner(vs.begin() + static_cast<std::ptrdiff_t>(lead.size()),
                                      vs.end());
    uint64_t numel = 1;
    for (uint64_t d : inner) numel *= d;
    if (bytes.size() < keys.size() * numel * esize)
      throw Failure(
          1, where + "cannot store a value of shape " + shape_text(vs) + " into '" + m.name + "'");
    for (size_t n = 0; n < keys.size(); ++n) {
      Value::Matrix& e = matrix_at(m, keys[n]);
      std::vector<uint64_t> target;
      const bool scalar = !terms.empty() && [&] {
        for (size_t k = 0; k < m.auto_indices.size(); ++k)
          if (terms[m.auto_table.size() + k].find("..") != std::string::npos) return false;
        return true;
      }();
      // The box the slots select (matrix_part with a throwaway copy), or the grown matrix.
      matrix_part(m, e, terms, indices, where, target);
      std::vector<uint8_t> piece(
          bytes.begin() + static_cast<std::ptrdiff_t>(n * numel * esize),
          bytes.begin() + static_cast<std::ptrdiff_t>((n + 1) * numel * esize));
      // An op's result that broadcasts to a part fills it (dsl.md; the interpreter's spread).
      std::vector<uint64_t> common;
      if (spread && inner != target && shape_rules::broadcast(inner, target, common) &&
          common == target) {
        piece = broadcast_cells(piece, inner, target, esize);
        if (scalar)  // the grown matrix whole
          e.cells = std::move(piece);
        else if (!piece.empty())  // an empty part: nothing stored
          write_box(m, e, terms, indices, piece, esize);
        continue;
      }
      if (inner != target) {
        const std::string entry = lead.empty() ? "" : " entry " + key_text(keys[n]);
        throw Failure(1,
                      where + "cannot store a value of shape " + shape_text(vs) +
                          (scalar ? " as auto_dim '" + m.name + "'" + entry + " of current shape "
                                  : " into a part of '" + m.name + "'" + entry + " of shape ") +
                          shape_text(target));
      }
      if (scalar) {
        e.cells = std::move(piece);
        continue;
      }
      write_box(m, e, terms, indices, piece, esize);
    }
  }

  // Cells of shape `from` broadcast to shape `to` (numpy's rule; `from` right-aligned).
  static std::vector<uint8_t> broadcast_cells(const std::vector<uint8_t>& cells,
                                              const std::vector<uint64_t>& from,
                                              const std::vector<uint64_t>& to, size_t esize) {
    uint64_t n = 1;
    for (uint64_t d : to) n *= d;
    std::vector<uint8_t> out;
    out.reserve(n * esize);
    const size_t rank = to.size(), off = rank - from.size();
    std::vector<uint64_t> at(rank, 0);
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t src = 0;
      for (size_t a = off; a < rank; ++a)
        src = src * from[a - off] + (from[a - off] == 1 ? 0 : at[a]);
      out.insert(out.end(), cells.begin() + static_cast<std::ptrdiff_t>(src * esize),
                 cells.begin() + static_cast<std::ptrdiff_t>((src + 1) * esize));
      for (size_t d = rank; d > 0 && ++at[d - 1] == to[d - 1];) at[--d] = 0;
    }
    return out;
  }

  // Stores `piece` into the box the (non-scalar) slots select of matrix e (checked by
  // matrix_part before).
  void write_box(const Value& v, Value::Matrix& e, const std::vector<std::string>& terms,
                 const std::map<std::string, int64_t>& indices, std::vector<uint8_t>& piece,
                 size_t esize) {
    const size_t nt = v.auto_table.size(), rank = v.shape.size();
    const std::vector<uint64_t> dims = auto_dims(v, e.counts);
    std::vector<uint64_t> st(rank, 0), ln = dims;
    for (size_t k = 0; k < v.auto_indices.size() && !terms.empty(); ++k) {
      const std::string& t = terms[nt + k];
      const size_t dots = t.find("..");
      int64_t a = 0, b = static_cast<int64_t>(dims[k]);
      if (dots == std::string::npos) {
        a = term(t, indices);
        b = a + 1;
      } else {
        const std::string from = t.substr(0, dots), to = t.substr(dots + 2);
        if (!from.empty()) a = term(from, indices);
        if (!to.empty()) {
          b = term(to, indices);
          if (b < 0) b += static_cast<int64_t>(dims[k]);
        }
      }
      st[k] = static_cast<uint64_t>(a);
      ln[k] = static_cast<uint64_t>(b - a);
    }
    copy_box(e.cells, dims, st, piece, ln, std::vector<uint64_t>(rank, 0), ln, esize, false);
  }

  // An op's result (a scratch value) stored into a window of table entries of run-time length
  // as the simulator stores it (interpreter_op.cpp): where it broadcasts to the access's shape
  // it fills the access (dsl.md), another shape is write_table's error naming the access.
  // "acc" (an op with acc=, which runs over the access): a result of another shape is the
  // interpreter's error naming the op, unless the op broadcasts ("spreads") and the result
  // broadcasts to the access.
  void spread_copy(Value& from, Value& to, const json::value* entry,
                   const std::map<std::string, int64_t>& indices, const std::string& where,
                   const json::value* acc) {
    std::vector<uint64_t> access, common;
    regions(to, entry, indices, where, Use::kRead, &access);
    access.insert(access.end(), to.shape.begin(), to.shape.end());
    const bool fits = shape_rules::broadcast(from.shape, access, common) && common == access;
    if (acc) check_acc_shape(acc->as_object(), from.shape, access, to.name);
    if (!fits)
      input_error(where + ": cannot store a value of shape " + shape_text(from.shape) + " into '" +
                  to.name + "' where the access has shape " + shape_text(access));
    const std::vector<int64_t> dst = regions(to, entry, indices, where, Use::kWrite);
    if (dst.empty()) return;
    const size_t esize = cell_size(to);
    const std::vector<uint8_t> cells = unpack_cells(to, download(from), from.elements);
    // each cell of the access from the result's cell it broadcasts from
    const size_t rank = access.size(), off = rank - from.shape.size();
    std::vector<uint64_t> at(rank, 0);
    std::vector<uint8_t> spread;
    while (true) {
      uint64_t src = 0;
      for (size_t a = off; a < rank; ++a)
        src = src * from.shape[a - off] + (from.shape[a - off] == 1 ? 0 : at[a]);
      spread.insert(spread.end(), cells.begin() + static_cast<std::ptrdiff_t>(src * esize),
                    cells.begin() + static_cast<std::ptrdiff_t>((src + 1) * esize));
      size_t d = rank;
      while (d > 0 && ++at[d - 1] == access[d - 1]) at[--d] = 0;
      if (d == 0) break;
    }
    barrier();
    store_entry_cells(to, dst, spread);
  }

  // A kernel of run-time length reading a window of table entries (the emitter's
  // table_window_inputs.hpp): its scratch value `to` takes the window's shape (the lengths
  // `lead`, then an entry's), up to the length its kernels were synthesized for.
  static void window_length(const Value& from, Value& to, const std::vector<uint64_t>& lead,
                            const json::object& s, const std::string& where) {
    std::vector<uint64_t> shape = lead;
    shape.insert(shape.end(), from.shape.begin(), from.shape.end());
    const auto a = static_cast<size_t>(to.runtime_axis);
    if (shape.size() != to.capacity_shape.size() || a >= shape.size())
      input_error("manifest: the window of '" + from.name + "' does not have the rank of '" +
                  to.name + "'");
    if (shape[a] > to.capacity_shape[a]) {
      std::string text = from.name + "[";
      for (const json::value& t : s.at("from_entry").as_array())
        text += (text.back() == '[' ? "" : ", ") + std::string(t.as_string());
      throw Failure(1, where + ": the window " + text + "] of table '" + from.name + "' has " +
                           std::to_string(shape[a]) +
                           " entries along its axis of run-time length, but this program's "
                           "kernels were synthesized for at most " +
                           std::to_string(to.capacity_shape[a]) +
                           " (open gap table-window-operand)");
    }
    set_shape(to, shape);
  }

  // transfer / cache.read / cache.write between whole values and table entries.
  void copy_step(const json::object& s, const std::map<std::string, int64_t>& indices) {
    Value& from = mutable_value(std::string(s.at("from").as_string()));
    Value& to = mutable_value(std::string(s.at("to").as_string()));
    const std::string where = s.contains("at")
                                  ? std::string(s.at("at").as_string())
                                  : "copy from '" + from.name + "' to '" + to.name + "'";
    if (const json::value* sp = s.if_contains("spread"); sp && sp->is_bool() && sp->as_bool()) {
      spread_copy(from, to, s.if_contains("to_entry"), indices, where, s.if_contains("acc"));
      return;
    }
    std::vector<uint64_t> lead, to_lead;
    const std::vector<int64_t> dst =
        regions(to, s.if_contains("to_entry"), indices, where, Use::kWrite, &to_lead);
    std::vector<int64_t> src =
        regions(from, s.if_contains("from_entry"), indices, where, Use::kRead, &lead);
    if (to.runtime_axis >= 0 && from.table()) window_length(from, to, lead, s, where);
    uint64_t piece = from.table() ? from.bytes : to.table() ? to.bytes : from.bytes;
    const uint64_t got = from.table() ? src.size() * piece : from.bytes;
    const uint64_t room = to.table() ? dst.size() * to.bytes : to.bytes;
    // "repeat": an op's result spread over the window it writes (dsl.md), the value again and
    // again over the entries.
    const json::value* rep = s.if_contains("repeat");
    if (rep && rep->is_bool() && rep->as_bool() && to.table() && room == 0)
      return;  // broadcast to a window of no entries: nothing to store
    const bool repeat = rep && rep->is_bool() && rep->as_bool() && !from.table() && to.table() &&
                        piece && got && got < room && room % got == 0 &&
                        (got % piece == 0 || piece % got == 0);
    if (repeat) {                    // the value's pieces, then again for each further copy
      piece = std::min(piece, got);  // a value smaller than an entry: repeated within each
      const int64_t base = src.at(0);
      src.clear();
      for (uint64_t r = 0; r < room / got; ++r)
        for (uint64_t k = 0; k < got / piece; ++k)
          src.push_back(base + static_cast<int64_t>(k * piece));
    }
    // "repack": packed entries padded to whole bytes each and a whole value packing the
    // elements one after another (the emitter's entry_copy): the elements are moved.
    const json::value* rp = s.if_contains("repack");
    const bool repack = rp && rp->is_bool() && rp->as_bool() && from.table() != to.table();
    const uint64_t have = from.table() ? src.size() * from.elements : from.elements;
    const uint64_t want = to.table() ? dst.size() * to.elements : to.elements;
    if ((repack ? have != want : got != room) &&
        !repeat) {  // dsl.md: a slice of another shape than the destination's is an error
      lead.insert(lead.end(), from.shape.begin(), from.shape.end());
      to_lead.insert(to_lead.end(), to.shape.begin(), to.shape.end());
      if (from.table() && !to.table())  // the simulator's messages (interpreter, memory.cpp)
        input_error(where + ": cannot store " + from.dtype + shape_text(lead) + " into '" +
                    to.name + "' of " + to.dtype + shape_text(to.shape));
      if (to.table() && !from.table())
        input_error(where + ": cannot store a value of shape " + shape_text(from.shape) +
                    " into '" + to.name + "' where the access has shape " + shape_text(to_lead));
      input_error(where + ": the slice is " + from.dtype + shape_text(lead) + ", '" + to.name +
                  "' is " + to.dtype + shape_text(to.shape));
    }
    if (repack) {
      repack_copy(from, to, src, dst);
      return;
    }
    if (piece == 0) return;
    if (!from.table() && piece && !repeat)  // a whole value into several entries: one per entry
      for (uint64_t k = 1; k < from.bytes / piece; ++k)
        src.push_back(src[0] + static_cast<int64_t>(k * piece));
    // Each source piece goes to the next `piece` bytes of the destination.
    uint64_t at = 0;
    for (int64_t off : src) {
      const uint64_t d = to.table() ? static_cast<uint64_t>(dst.at(at / to.bytes)) + at % to.bytes
                                    : offset_of(to) + at;
      if (off < 0 && from.init)  // past a growing table's capacity: @init, else zeros
        upload_at(to, d, from.init_image.data(), std::min<uint64_t>(piece, from.init_image.size()));
      else if (off < 0)
        zero_range(to, d, piece);
      else
        cmd_->copyBuffer(buffer_of(from), buffer_of(to),
                         vk::BufferCopy(static_cast<uint64_t>(off), d, piece));
      at += piece;
    }
  }

  // The elements of table entries `src` (or of a whole value) stored packed one after another
  // into a whole value (or entries `dst`), each entry padded to whole bytes.
  void repack_copy(Value& from, Value& to, const std::vector<int64_t>& src,
                   const std::vector<int64_t>& dst) {
    const std::vector<uint8_t> cells =
        from.table() ? entry_cells(from, src) : unpack_cells(from, download(from), from.elements);
    barrier();
    if (!to.table()) {
      std::vector<uint8_t> b = pack_cells(to, cells);
      b.resize(to.bytes, 0);
      upload(to, b.data(), b.size());
      return;
    }
    store_entry_cells(to, dst, cells);
  }

  Value& mutable_value(const std::string& name) {
    value(name);  // the message for an unknown name
    return values_[index_.at(name)];
  }

  void zero(const Value& v) {
    zero_range(v, offset_of(v), v.bytes);
  }

  std::vector<uint8_t> download(const Value& v) {
    barrier();
    submit_and_wait();
    cmd_->copyBuffer(buffer_of(v), *staging_.buffer,
                     vk::BufferCopy(offset_of(v), 0, std::max<uint64_t>(v.bytes, 4)));
    submit_and_wait();
    return std::vector<uint8_t>(staging_map_, staging_map_ + v.bytes);
  }

  // cache.increment / cache.decrement of an integer scalar the kernels keep in 8 or 16 bits,
  // or packed in the low bits of its byte: read back, the amount added wrapping at the
  // dtype's width (dsl.md), written back; the byte's other bits stay as they are.
  void count(const Value& v, int64_t delta) {
    std::vector<uint8_t> bytes = download(v);
    const uint32_t w = oinf_io::dtype_bits(oinf_io::dtype_tag(v.dtype));
    if (w == 0 || w > 64 || bytes.size() < std::max<uint32_t>(w / 8, 1))
      input_error("manifest: counter '" + v.name + "' of dtype " + v.dtype);
    const uint32_t n = std::max<uint32_t>(w / 8, 1);
    uint64_t x = 0;
    for (uint32_t b = 0; b < n; ++b) x |= uint64_t{bytes[b]} << (8 * b);
    const uint64_t mask = w == 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
    x = (x & ~mask) | ((x + static_cast<uint64_t>(delta)) & mask);
    for (uint32_t b = 0; b < n; ++b) bytes[b] = static_cast<uint8_t>(x >> (8 * b));
    upload(v, bytes.data(), bytes.size());
    barrier();
  }

  void barrier() {
    const vk::MemoryBarrier mb(
        vk::AccessFlagBits::eShaderWrite | vk::AccessFlagBits::eTransferWrite,
        vk::AccessFlagBits::eShaderRead | vk::AccessFlagBits::eShaderWrite |
            vk::AccessFlagBits::eTransferRead | vk::AccessFlagBits::eTransferWrite);
    const auto stages =
        vk::PipelineStageFlagBits::eComputeShader | vk::PipelineStageFlagBits::eTransfer;
    cmd_->pipelineBarrier(stages, stages, {}, mb, {}, {});
  }

  void submit_and_wait() {
    cmd_->end();
    vk::SubmitInfo si({}, {}, *cmd_);
    queue_.submit(si, *fence_);
    if (device_->waitForFences(*fence_, VK_TRUE, UINT64_MAX) != vk::Result::eSuccess)
      device_error("waiting for the device failed");
    device_->resetFences(*fence_);
    cmd_->reset();
    cmd_->begin(vk::CommandBufferBeginInfo(vk::CommandBufferUsageFlagBits::eOneTimeSubmit));
    staging_used_ = 0;
  }

  // The model tensor a value links to, checked against its dtype and shape; null when the
  // model has no such tensor or only declares it (the value then starts from @init, else zeros).
  const oinf_io::Tensor* linked(const Value& v) {
    if (v.link.empty()) return nullptr;
    need_model(v);
    auto it = model_.tensors.find(v.link);
    if (it == model_.tensors.end()) return nullptr;
    if (!it->second.has_data) return nullptr;  // a declaration: @init, else zeros
    if (it->second.dtype != oinf_io::dtype_tag(v.dtype) || it->second.dims != v.shape)
      input_error(model_name_ + ": tensor '" + v.link + "' is not " + v.dtype +
                  shape_text(v.shape));
    return &it->second;
  }

  // A constant table's entries come from the model tensors its pattern names; an entry the
  // model lacks or holds with another dtype or shape is unavailable (a dispatch that binds it
  // stops the step, as the simulator fails where it reads the entry). Other tables start from
  // @init, else zeros.
  void set_initial_table(Value& v) {
    zero_table(v);
    if (v.storage == "constant") {
      need_model(v);
      v.available.assign(v.entry_count(), false);
      for (uint64_t e = 0; e < v.entry_count(); ++e) {
        auto it = model_.tensors.find(entry_tensor(v, e));
        if (it == model_.tensors.end() || !it->second.has_data ||
            it->second.dtype != oinf_io::dtype_tag(v.dtype) || it->second.dims != v.shape)
          continue;
        v.available[e] = true;
        upload_at(v, e * v.stride, it->second.data.data(), it->second.data.size());
      }
    } else if (v.init) {
      for (uint64_t e = 0; e < v.entry_count(); ++e)
        upload_at(v, e * v.stride, v.init_image.data(), v.init_image.size());
    }
  }

  // The model tensor of entry e (row-major over the bounds): each {index} of the pattern
  // replaced by its value.
  static std::string entry_tensor(const Value& v, uint64_t e) {
    std::string name = v.pattern;
    for (size_t i = v.indices.size(); i-- > 0;) {
      const uint64_t b = v.bound[i] ? v.bound[i] : 1;
      name = substitute(name, v.indices[i], static_cast<int64_t>(e % b));
      e /= b;
    }
    return name;
  }

  void zero_table(const Value& v) {
    cmd_->fillBuffer(buffer_of(v), 0, VK_WHOLE_SIZE, 0);
  }

  // An entry (at byte `offset`) or every entry of a table back to @init, else zeros.
  void reset_entry(const Value& v, uint64_t offset) {
    if (v.init)
      upload_at(v, offset, v.init_image.data(), v.init_image.size());
    else
      zero_range(v, offset, v.bytes);
  }

  // Exactly these bytes of v's buffer (fillBuffer needs multiples of 4; a neighbour's bytes
  // must not be touched by a command unordered with its own copy).
  void zero_range(const Value& v, uint64_t offset, uint64_t bytes) {
    const uint64_t end = offset + bytes;
    const uint64_t lo = std::min(end, (offset + 3) / 4 * 4), hi = std::max(lo, end / 4 * 4);
    const uint8_t zeros[4] = {0, 0, 0, 0};
    upload_at(v, offset, zeros, lo - offset);  // the unaligned head and tail: at most 3 bytes
    if (hi > lo) cmd_->fillBuffer(buffer_of(v), lo, hi - lo, 0);
    upload_at(v, hi, zeros, end - hi);
  }

  void reset_table(const Value& v) {
    zero_table(v);
    if (v.init) {
      barrier();
      for (uint64_t e = 0; e < v.entry_count(); ++e) reset_entry(v, e * v.stride);
    }
  }

  void set_initial(Value& v) {
    if (v.table()) return set_initial_table(v);
    if (const oinf_io::Tensor* t = linked(v)) {
      upload(v, t->data.data(), t->data.size());
    } else if (v.init) {
      upload(v, v.init_image.data(), v.init_image.size());
    } else {
      zero(v);
    }
  }

  void upload_create_time_values() {
    for (Value& v : values_)
      if (v.storage == "constant" || v.storage == "persistent") set_initial(v);
    barrier();
    submit_and_wait();
  }

  void load_inputs() {
    for (const auto& [name, spec] : opt_.inputs) {
      const Value& v = value(name);
      if (v.storage != "dynamic") input_error("'" + name + "' is not a dynamic variable");
      const size_t colon = spec.find(':');
      const std::string file = spec.substr(0, colon);
      if (!input_files_.count(file)) input_files_[file] = oinf_io::read(file);
    }
  }

  // Every dynamic value needs a fresh insert each step (dsl.md); the simulator and the C target
  // stop with the same message, so a missing one never runs on stale or zero data.
  void insert_inputs(uint64_t step) {
    std::set<std::string> inserted;
    for (const auto& [name, spec] : opt_.inputs) {
      const Value& v = value(name);
      const size_t colon = spec.find(':');
      const std::string file = spec.substr(0, colon);
      std::string tensor = colon == std::string::npos ? name : spec.substr(colon + 1);
      if (size_t at = tensor.find("{step}"); at != std::string::npos)
        tensor.replace(at, 6, std::to_string(step));
      const auto& pkg = input_files_.at(file);
      auto it = pkg.tensors.find(tensor);
      if (it == pkg.tensors.end()) {
        if (colon == std::string::npos) input_error(file + ": no tensor '" + tensor + "'");
        continue;  // this step inserts nothing
      }
      if (it->second.dtype != oinf_io::dtype_tag(v.dtype) || it->second.dims != v.shape ||
          !it->second.has_data)
        input_error(file + ": tensor '" + tensor + "' is not " + v.dtype + shape_text(v.shape) +
                    " with data");
      upload(v, it->second.data.data(), it->second.data.size());
      inserted.insert(name);
    }
    for (const Value& v : values_)
      if (v.storage == "dynamic" && !inserted.count(v.name))
        throw Failure(1, "step " + std::to_string(step) + ": dynamic variable '" + v.name +
                             "' was not inserted for this step (insert it before every step)");
  }

  // A shader that met a run-time error (gather's index out of range) wrote its code and
  // detail to the status buffer: the run stops after that step with the manifest's message.
  void check_status(uint64_t step) {
    if (errors_.empty()) return;
    const std::vector<uint8_t> words = download(value("@status"));
    uint32_t code = 0;
    int32_t detail = 0;
    std::memcpy(&code, words.data(), 4);
    std::memcpy(&detail, words.data() + 4, 4);
    if (code == 0) return;
    auto it = errors_.find(code);
    std::string message = it == errors_.end()
                              ? "a shader reported the unknown error code " + std::to_string(code)
                              : it->second;
    if (const size_t at = message.find("{value}"); at != std::string::npos)
      message.replace(at, 7, std::to_string(detail));
    throw Failure(1, "step " + std::to_string(step) + ": " + message);
  }

  // A kernel of the Vulkan backend's shaders, as the backend runs it: gather's indices checked
  // first, then each dispatch with a barrier after it, then the copies of a result computed
  // into scratch.
  void run_recorded(Kernel& k, const std::map<std::string, int64_t>& indices,
                    const std::string& where) {
    set_patches(k, indices);
    const auto [first, count] = set_length(k);
    length_access(k, indices);
    for (const json::object& c : k.checks) check_indices(c);
    for (const std::string& z : k.zero) zero(value(z));
    if (!k.zero.empty()) barrier();
    for (const json::object& t : k.rope_tables) rope_table(t, indices);
    if (!k.rope_tables.empty()) barrier();
    for (size_t d = first; d < first + count; ++d) {
      Kernel& sub = k.subs[d];
      if (sub.groups[0] == 0 || sub.groups[1] == 0 || sub.groups[2] == 0) continue;
      // First: finding an entry may record copies or submit (the pipeline bound after).
      const std::vector<uint32_t> offsets = entry_offsets(sub, indices, where);
      cmd_->bindPipeline(vk::PipelineBindPoint::eCompute, sub.shared_pipeline);
      cmd_->bindDescriptorSets(vk::PipelineBindPoint::eCompute, sub.shared_layout, 0, sub.set,
                               offsets);
      cmd_->dispatch(static_cast<uint32_t>(sub.groups[0]), static_cast<uint32_t>(sub.groups[1]),
                     static_cast<uint32_t>(sub.groups[2]));
      barrier();
    }
    for (const auto& [from, to] : k.copies) {
      const Value &f = value(from), &t = value(to);
      if (t.bytes)  // exactly its bytes: a neighbour's must not be touched
        cmd_->copyBuffer(buffer_of(f), buffer_of(t),
                         vk::BufferCopy(offset_of(f), offset_of(t), t.bytes));
      barrier();
    }
  }

  // floor((a * L + b) / c) of a form of the length (the emitter's LengthForm), or the value
  // recorded for L where the form is a table of "values" from length "from" on.
  static int64_t length_form(const json::value& f, int64_t L) {
    if (const json::value* t = f.as_object().if_contains("values"))
      return t->as_array()
          .at(static_cast<size_t>(L - f.at("from").to_number<int64_t>()))
          .to_number<int64_t>();
    const int64_t a = f.at("a").to_number<int64_t>(), b = f.at("b").to_number<int64_t>(),
                  c = f.at("c").to_number<int64_t>();
    const int64_t n = a * L + b;
    return n >= 0 ? n / c : -((-n + c - 1) / c);
  }

  static void set_shape(Value& v, const std::vector<uint64_t>& shape) {
    v.shape = shape;
    v.elements = 1;
    for (uint64_t d : shape) v.elements *= d;
    const uint32_t bits = packed_bits(v);
    v.bytes = bits ? (v.elements * bits + 7) / 8 : v.elements * elem_bytes(v.dtype);
  }

  // A kernel of run-time length: the length L its matrix has now (the scratch value the copy
  // before it filled), the params words and workgroup counts of L's segment and the result's
  // shape set from their forms. Returns the segment's dispatches (all of them for another
  // kernel).
  int64_t length_now_ = 0;  // the length set_length last read
  std::pair<size_t, size_t> set_length(Kernel& k) {
    if (!k.length) return {0, k.subs.size()};
    const json::object& l = *k.length;
    const Value& in = value(std::string(l.at("value").as_string()));
    const auto L = static_cast<int64_t>(in.shape.at(l.at("axis").to_number<size_t>()));
    length_now_ = L;
    // a length where the op stops the step, in the simulator's words (the emitter's
    // runtime_length_errors.hpp: lengths from, from + step, .. to; literal pieces, the numbers
    // between them a L + b)
    if (const json::value* errs = l.if_contains("errors"))
      for (const json::value& e : errs->as_array()) {
        const int64_t from = e.at("from").to_number<int64_t>();
        if (L < from || L > e.at("to").to_number<int64_t>() ||
            (L - from) % e.at("step").to_number<int64_t>() != 0)
          continue;
        const json::array &text = e.at("text").as_array(), &nums = e.at("numbers").as_array();
        std::string m(text.at(0).as_string());
        for (size_t n = 0; n < nums.size(); ++n)
          m += std::to_string(nums[n].as_array().at(0).to_number<int64_t>() * L +
                              nums[n].as_array().at(1).to_number<int64_t>()) +
               std::string(text.at(n + 1).as_string());
        throw Failure(1, std::string(l.at("at").as_string()) + ": " + m);
      }
    // several matrices read (the emitter's runtime_access.hpp): recorded for one length L
    if (const json::value* sl = l.if_contains("same_length")) {
      const json::object& o = sl->as_object();
      const size_t axis = l.at("axis").to_number<size_t>();
      std::string lengths;
      bool same = true;
      for (const json::value& n : o.at("inputs").as_array()) {
        const uint64_t at = value(std::string(n.as_string())).shape.at(axis);
        same = same && at == static_cast<uint64_t>(L);
        lengths += (lengths.empty() ? "" : ", ") + std::to_string(at);
      }
      if (!same) {
        std::vector<std::vector<uint64_t>> in;
        for (const json::value& n : o.at("operands").as_array())
          in.push_back(value(std::string(n.as_string())).shape);
        std::vector<uint64_t> out;
        const std::string rule(o.at("rule").as_string());
        const std::string e =
            rule == "broadcast" || rule == "matmul" ? shape_rules::result_shape(o, in, out) : "";
        throw Failure(1, std::string(l.at("at").as_string()) + ": op '" +
                             std::string(o.at("op").as_string()) + "': " +
                             (e.empty() ? "matrices of lengths " + lengths + " along axis " +
                                              std::to_string(axis) +
                                              ", but this program's kernel was recorded for "
                                              "equal ones (open gap auto-dim-operand)"
                                        : e));
      }
    }
    const json::object* seg = nullptr;
    for (const json::value& g : l.at("segments").as_array())
      if (L >= g.at("from").to_number<int64_t>() && L <= g.at("to").to_number<int64_t>())
        seg = &g.as_object();
    if (seg == nullptr)  // the copy before the kernel stops first
      input_error("manifest: no segment of a kernel of run-time length for length " +
                  std::to_string(L));
    const size_t first = seg->at("first").to_number<size_t>();
    const size_t count = seg->at("count").to_number<size_t>();
    bool flushed = false;
    for (const json::value& f : l.at("forms").as_array()) {
      const size_t d = f.at("dispatch").to_number<size_t>();
      if (d < first || d >= first + count) continue;
      const size_t slot = f.at("slot").to_number<size_t>();
      const int64_t v = length_form(f, L);
      Kernel& sub = k.subs.at(d);
      if (slot < 3) {
        sub.groups[slot] = static_cast<uint64_t>(v);
        continue;
      }
      const auto w = static_cast<uint32_t>(v);
      if (sub.params.at(slot - 3) == w) continue;
      if (!flushed) submit_and_wait();  // recorded dispatches still read the old words
      flushed = true;
      sub.params[slot - 3] = w;
      void* m = device_->mapMemory(*sub.params_buffer.memory, 0, VK_WHOLE_SIZE);
      std::memcpy(m, sub.params.data(), sub.params.size() * 4);
      device_->unmapMemory(*sub.params_buffer.memory);
    }
    std::map<std::string, std::vector<uint64_t>> shapes;
    for (const json::value& f : l.at("shapes").as_array()) {
      if (L < f.at("from").to_number<int64_t>() || L > f.at("to").to_number<int64_t>())
        continue;  // another segment's
      std::vector<uint64_t>& s = shapes[std::string(f.at("value").as_string())];
      const size_t axis = f.at("axis").to_number<size_t>();
      if (s.size() <= axis) s.resize(axis + 1);
      s[axis] = static_cast<uint64_t>(length_form(f, L));
    }
    for (const auto& [name, shape] : shapes) set_shape(mutable_value(name), shape);
    return {first, count};
  }

  // A kernel of run-time length that needs its output access (the emitter's
  // runtime_access.hpp), after set_length gave the result the shape the length L gives:
  // reshape's result takes the access's shape (the matrix grown, the part, the entries or the
  // plain value), holding as many elements as the matrix read (the rule's words otherwise);
  // acc= runs over the access in the simulator, whose shape the result must have or, for an op
  // that broadcasts, fill (the copy after spreads it; the interpreter's words otherwise). As in
  // the simulator (interpreter_op.cpp) the access is taken first, a scalar one growing the
  // matrix.
  void length_access(const Kernel& k, const std::map<std::string, int64_t>& indices) {
    const json::value* a = k.length ? k.length->if_contains("access") : nullptr;
    if (!a) return;
    const json::object& o = a->as_object();
    Value& to = mutable_value(std::string(o.at("to").as_string()));
    const std::string at(o.at("at").as_string()), op(o.at("op").as_string());
    const std::string store_at(o.at("store_at").as_string());
    std::vector<uint64_t> access;
    if (const json::value* t = o.if_contains("auto_to")) {
      std::vector<std::string> terms;
      for (const json::value& x : t->as_array()) terms.emplace_back(x.as_string());
      read_auto_dim(to, terms, indices, store_at + ": ", access);
    } else if (const json::value* e = o.if_contains("to_entry")) {
      regions(to, e, indices, store_at, Use::kRead, &access);
      access.insert(access.end(), to.shape.begin(), to.shape.end());
    } else {
      access = to.shape;
    }
    Value* result =
        o.contains("result") ? &mutable_value(std::string(o.at("result").as_string())) : nullptr;
    if (o.at("kind").as_string() == "reshape") {
      const Value& in = value(std::string(o.at("input").as_string()));
      uint64_t n = 1, m = 1;
      for (uint64_t d : in.shape) n *= d;
      for (uint64_t d : access) m *= d;
      if (n != m)
        throw Failure(1, at + ": op '" + op + "': cannot reshape " + shape_text(in.shape) + " (" +
                             std::to_string(n) + " elements) to " + shape_text(access) + " (" +
                             std::to_string(m) + " elements)");
      if (result) set_shape(*result, access);
      return;
    }
    check_acc_shape(o, result->shape, access, to.name);
  }

  // acc= runs over the output access (interpreter_op.cpp): the op's result must have its shape
  // or, for an op that broadcasts (`spreads`), broadcast to it; else the interpreter's words.
  static void check_acc_shape(const json::object& acc, const std::vector<uint64_t>& result,
                              const std::vector<uint64_t>& access, const std::string& to) {
    std::vector<uint64_t> common;
    if (result == access || (acc.at("spreads").as_bool() &&
                             shape_rules::broadcast(result, access, common) && common == access))
      return;
    throw Failure(1, std::string(acc.at("at").as_string()) + ": op '" +
                         std::string(acc.at("op").as_string()) + "' produces shape " +
                         shape_text(result) + " but the access to '" + to + "' has shape " +
                         shape_text(access));
  }

  // Integer v as params word `kind` (the emitter's ParamPatch kinds).
  static uint32_t patch_word(const std::string& kind, int64_t v) {
    const auto x = static_cast<double>(v);
    const auto d = std::bit_cast<uint64_t>(x);
    struct Narrow {
      const char* name;
      int eb, mb;
    };
    for (const Narrow n : {Narrow{"f16", 5, 10}, Narrow{"bf16", 8, 7}, Narrow{"f8", 5, 2}}) {
      if (kind != n.name && kind != std::string(n.name) + "_f32") continue;
      const uint32_t bits = narrow_bits(x, n.eb, n.mb);
      if (kind == n.name) return bits;
      return std::bit_cast<uint32_t>(static_cast<float>(narrow_value(bits, n.eb, n.mb)));
    }
    if (kind == "f32") return std::bit_cast<uint32_t>(static_cast<float>(v));
    if (kind == "i32") return static_cast<uint32_t>(v);
    if (kind == "f64_lo") return static_cast<uint32_t>(d);
    if (kind == "f64_hi") return static_cast<uint32_t>(d >> 32);
    if (kind == "i64_hi") return static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32);
    input_error("manifest: unknown params patch '" + kind + "'");
  }

  // The loop indices' current values into the params words that carry them (the emitter's
  // ParamPatch); recorded dispatches still read the old words, so those run first.
  void set_patches(Kernel& k, const std::map<std::string, int64_t>& indices) {
    bool flushed = false;
    for (const Kernel::Patch& p : k.patches) {
      auto it = indices.find(p.index);
      if (it == indices.end())
        input_error("manifest: loop index '" + p.index +
                    "' of a kernel's settings is not set here");
      const uint32_t w = patch_word(p.kind, it->second);
      Kernel& sub = k.subs[p.dispatch];
      if (sub.params[p.word] == w) continue;
      if (!flushed) submit_and_wait();
      flushed = true;
      sub.params[p.word] = w;
      void* m = device_->mapMemory(*sub.params_buffer.memory, 0, VK_WHOLE_SIZE);
      std::memcpy(m, sub.params.data(), sub.params.size() * 4);
      device_->unmapMemory(*sub.params_buffer.memory);
    }
  }

  // rope's cos/sin table for the position read back now, as the Vulkan backend computes it on
  // the host: angle (pos + t) * theta^(-2i/D) in f64, pairs (cos, sin), f32 unless `f64`.
  void rope_table(const json::object& r, const std::map<std::string, int64_t>& indices) {
    const std::vector<uint8_t> p = download(value(std::string(r.at("pos").as_string())));
    int64_t pos = 0;
    if (r.at("wide").as_bool()) {
      std::memcpy(&pos, p.data(), 8);
    } else {
      int32_t p32;
      std::memcpy(&p32, p.data(), 4);
      pos = p32;
    }
    double theta = r.at("theta").to_number<double>();
    if (const json::value* ti = r.if_contains("theta_index")) {  // a loop index's value now
      auto it = indices.find(std::string(ti->as_string()));
      if (it == indices.end())
        input_error("manifest: loop index '" + std::string(ti->as_string()) +
                    "' of rope's theta is not set here");
      theta = static_cast<double>(it->second);
    }
    uint64_t T = r.at("T").to_number<uint64_t>();
    uint64_t D = r.at("D").to_number<uint64_t>();
    // in a kernel of run-time length, its rows (and its pairs, the matrix growing its last
    // axis) follow the length set_length read
    if (const json::value* tl = r.if_contains("T_length"))
      T = static_cast<uint64_t>(length_form(*tl, length_now_));
    if (const json::value* dl = r.if_contains("D_length"))
      D = static_cast<uint64_t>(length_form(*dl, length_now_));
    const uint64_t half = D / 2;
    const bool f64 = r.at("f64").as_bool();
    std::vector<double> table(2 * T * half);
    for (uint64_t i = 0; i < half; ++i) {
      const double freq = std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(D));
      for (uint64_t t = 0; t < T; ++t) {
        const double angle = (static_cast<double>(pos) + static_cast<double>(t)) * freq;
        table[2 * (t * half + i)] = std::cos(angle);
        table[2 * (t * half + i) + 1] = std::sin(angle);
      }
    }
    const Value& v = value(std::string(r.at("table").as_string()));
    if (f64) {
      upload(v, reinterpret_cast<const uint8_t*>(table.data()), table.size() * 8);
    } else {
      const std::vector<float> t32(table.begin(), table.end());
      upload(v, reinterpret_cast<const uint8_t*>(t32.data()), t32.size() * 4);
    }
  }

  // Indices in [-bound, bound), read back before the kernel runs: one out of range stops the
  // step with the manifest's message, nothing read out of bounds.
  void check_indices(const json::object& c) {
    const Value& v = value(std::string(c.at("value").as_string()));
    const std::vector<uint8_t> bytes = download(v);
    const bool wide = c.at("wide").as_bool();
    const int64_t bound = c.at("bound").to_number<int64_t>();
    const uint64_t n =
        std::min<uint64_t>(c.at("count").to_number<uint64_t>(), bytes.size() / (wide ? 8 : 4));
    for (uint64_t i = 0; i < n; ++i) {
      int64_t x = 0;
      if (wide) {
        std::memcpy(&x, bytes.data() + i * 8, 8);
      } else {
        int32_t y;
        std::memcpy(&y, bytes.data() + i * 4, 4);
        x = y;
      }
      if (x >= -bound && x < bound) continue;
      std::string message(c.at("message").as_string());
      if (const size_t at = message.find("{value}"); at != std::string::npos)
        message.replace(at, 7, std::to_string(x));
      throw Failure(1, "step " + std::to_string(step_) + ": " + message);
    }
  }

  // ---- the program ----------------------------------------------------------------------
  void run_step(uint64_t step) {
    step_ = step;
    for (Value& v : values_) {
      if (v.storage == "step") set_initial(v);
      if (v.storage == "arena" && v.zero_fill) zero(v);
    }
    insert_inputs(step);
    barrier();
    std::map<std::string, int64_t> indices;
    run_block("entry", indices);
    barrier();
  }

  int64_t bound(const json::value& b, const std::map<std::string, int64_t>& indices) {
    if (b.is_int64()) return b.as_int64();
    const std::string t(b.as_string());
    if (!t.empty() && (std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '-'))
      return std::stoll(t);
    if (auto it = indices.find(t); it != indices.end()) return it->second;
    if (auto it = model_.sizevars.find(t); it != model_.sizevars.end())
      return static_cast<int64_t>(it->second);
    // An integer scalar of constant or persistent memory, of any width (dsl.md): whole
    // little-endian bytes, or packed in the low bits of its byte; i* sign-extended.
    const Value& v = value(t);
    const uint32_t w = oinf_io::dtype_bits(oinf_io::dtype_tag(v.dtype));
    const bool integer = (v.dtype[0] == 'i' || v.dtype[0] == 'u') && w >= 1 && w <= 64;
    if (integer && v.elements == 1) {
      const std::vector<uint8_t> bytes = download(v);
      const uint32_t n = std::max<uint32_t>(w / 8, 1);
      uint64_t x = 0;
      for (uint32_t b = 0; b < n && b < bytes.size(); ++b) x |= uint64_t{bytes[b]} << (8 * b);
      if (w < 64) {
        x &= (uint64_t{1} << w) - 1;
        if (v.dtype[0] == 'i' && (x >> (w - 1)) & 1) x |= ~uint64_t{0} << w;
      }
      return static_cast<int64_t>(x);
    }
    input_error("loop bound '" + t + "' is not an integer scalar, size variable or loop index");
  }

  void run_block(const std::string& name, std::map<std::string, int64_t>& indices) {
    auto it = blocks_.find(name);
    if (it == blocks_.end()) input_error("manifest: no block '" + name + "'");
    run_steps(it->second, indices);
  }

  // The offsets of a kernel's table entries, in binding order (its dynamic descriptors).
  std::vector<uint32_t> entry_offsets(const Kernel& k,
                                      const std::map<std::string, int64_t>& indices,
                                      const std::string& where) {
    std::vector<uint32_t> offsets;
    const uint64_t layout = relayouts_;
    for (int pass = 0; pass < 2; ++pass) {  // again where an entry laid its table out anew
      offsets.clear();
      for (const KernelBinding& b : k.bindings) {
        if (b.entry.empty()) continue;
        Value& v = mutable_value(b.value);
        std::vector<int64_t> idx;
        for (const std::string& t : b.entry) idx.push_back(term(t, indices));
        const uint64_t e = entry_number(v, idx, b.at.empty() ? where : b.at, b.write);
        offsets.push_back(static_cast<uint32_t>(e * v.stride));
      }
      if (relayouts_ == layout) break;
    }
    return offsets;
  }

  // conv's catalog rule for `group` g ({"group": {"at", "c", "m", "w1", "x", "w"}}, the
  // emitter's group_domain): its error with the op's position, or "" where g fits.
  static std::string group_error(const json::object& o, int64_t g) {
    const auto c = o.at("c").to_number<uint64_t>(), m = o.at("m").to_number<uint64_t>(),
               w1 = o.at("w1").to_number<uint64_t>();
    const std::string at(o.at("at").as_string()), gs = std::to_string(g);
    if (g < 1) return at + "'group' must be at least 1, got " + gs;
    const auto u = static_cast<uint64_t>(g);
    if (c % u != 0 || m % u != 0)
      return at + "'group' " + gs + " must divide the input channels " + std::to_string(c) +
             " and the output channels " + std::to_string(m);
    if (w1 * u != c)  // u <= c here
      return at + "conv weight " + std::string(o.at("w").as_string()) + " has " +
             std::to_string(w1) + " input channels per group but x " +
             std::string(o.at("x").as_string()) + " with group " + gs + " needs " +
             std::to_string(c / u);
    return "";
  }

  // The kernel a dispatch runs: the step's, or for a kernel whose settings name loop indices
  // (its `select`), the copy written for their current values.
  size_t selected_kernel(const json::object& s, const std::map<std::string, int64_t>& indices) {
    const json::value* sel = s.if_contains("select");
    std::vector<int64_t> now;
    // "map": the value's class for settings of a finite domain (the emitter's finite_classes):
    // "bool" 0 or 1; "any" 0 (dequantize's axis with a scalar scale); {"group": ...} conv's
    // group, the one value that fits or its rule's error; {"axis": R, "message",
    // "errors", "raw", "keep"}: the axis made non-negative (kept as it is where "raw": the index
    // also names a bool setting), or the simulator's error for one out of range or (errors, by
    // that value, and by keepdims where "keep" names the index that sets it) one whose inputs
    // do not fit the op's shape rule or whose result has another shape than the output. The
    // simulator reads the output access and the inputs first: their table entries are checked
    // before such an error.
    const json::value* map = sel ? sel->as_object().if_contains("map") : nullptr;
    auto fail = [&](const std::string& message) {
      Kernel& k = kernels_.at(s.at("kernel").to_number<size_t>());
      const std::string where = "kernel " + std::to_string(s.at("kernel").to_number<uint64_t>());
      if (k.recorded)
        for (const Kernel& sub : k.subs) entry_offsets(sub, indices, where);
      else
        entry_offsets(k, indices, where);
      throw Failure(1, message);  // the simulator's words, its position first
    };
    // "ranges": shl/shr's `bits` named by a loop index ("index") or a number out of range
    // ("value"), checked as the simulator checks it when the step reaches the op: 0 <= bits <
    // "width", else its "message" with {value} the count.
    if (const json::value* ranges = s.if_contains("ranges"))
      for (const json::value& r : ranges->as_array()) {
        int64_t v = 0;
        if (const json::value* n = r.as_object().if_contains("index")) {
          auto it = indices.find(std::string(n->as_string()));
          if (it == indices.end())
            input_error("manifest: loop index '" + std::string(n->as_string()) +
                        "' of a shift's bits is not set here");
          v = it->second;
        } else {
          v = r.at("value").to_number<int64_t>();
        }
        if (v < 0 || v >= r.at("width").to_number<int64_t>()) {
          std::string m(r.at("message").as_string());
          m.replace(m.find("{value}"), 7, std::to_string(v));
          fail(m);
        }
      }
    if (sel == nullptr) return s.at("kernel").to_number<size_t>();
    for (const json::value& n : sel->at("by").as_array()) {
      auto it = indices.find(std::string(n.as_string()));
      if (it == indices.end())
        input_error("manifest: loop index '" + std::string(n.as_string()) +
                    "' of a kernel's settings is not set here");
      int64_t v = it->second;
      const json::value* c = map ? &map->as_array().at(now.size()) : nullptr;
      if (c && c->is_string() && c->as_string() == "bool") v = v != 0 ? 1 : 0;
      if (c && c->is_string() && c->as_string() == "any") v = 0;  // a setting read nowhere
      if (const json::value* g =
              c && c->is_object() ? c->as_object().if_contains("group") : nullptr)
        if (const std::string e = group_error(g->as_object(), v); !e.empty()) fail(e);
      if (c && c->is_object() && c->as_object().contains("axis")) {
        const auto rank = c->at("axis").to_number<int64_t>();
        if (v < -rank || v >= rank) {
          std::string m(c->at("message").as_string());
          m.replace(m.find("{value}"), 7, std::to_string(v));
          fail(m);
        }
        const json::value* raw = c->as_object().if_contains("raw");
        if (v < 0 && !(raw && raw->as_bool())) v += rank;
        if (const json::value* e = c->as_object().if_contains("errors")) {
          std::string key = std::to_string(v);
          // "keep": J, the loop index naming the op's keepdims: errors by value and keepdims
          if (const json::value* keep = c->as_object().if_contains("keep")) {
            auto it = indices.find(std::string(keep->as_string()));
            if (it == indices.end())
              input_error("manifest: loop index '" + std::string(keep->as_string()) +
                          "' of a kernel's keepdims is not set here");
            key += it->second != 0 ? "/1" : "/0";
          }
          if (const json::value* m = e->as_object().if_contains(key))
            fail(std::string(m->as_string()));
        }
      }
      now.push_back(v);
    }
    const json::array& values = sel->at("values").as_array();
    for (size_t r = 0; r < values.size(); ++r) {
      bool same = values[r].as_array().size() == now.size();
      for (size_t i = 0; same && i < now.size(); ++i)
        same = values[r].as_array()[i].to_number<int64_t>() == now[i];
      if (same) return sel->at("kernels").as_array()[r].to_number<size_t>();
    }
    input_error("manifest: no copy of kernel " +
                std::to_string(s.at("kernel").to_number<size_t>()) +
                " for the loop indices' current values");
  }

  // Returns false when a `return` ended the block.
  bool run_steps(const json::array& steps, std::map<std::string, int64_t>& indices) {
    for (const json::value& s : steps) {
      const std::string op(s.at("op").as_string());
      if (op == "dispatch") {
        Kernel& k = kernels_.at(selected_kernel(s.as_object(), indices));
        const std::string where = "kernel " + std::to_string(s.at("kernel").to_number<uint64_t>());
        if (k.recorded) {
          run_recorded(k, indices, where);
          continue;
        }
        if (k.groups[0] == 0 || k.groups[1] == 0 || k.groups[2] == 0) continue;
        const std::vector<uint32_t> offsets = entry_offsets(k, indices, where);
        cmd_->bindPipeline(vk::PipelineBindPoint::eCompute, *k.pipeline);
        cmd_->bindDescriptorSets(vk::PipelineBindPoint::eCompute, *k.layout, 0, k.set, offsets);
        cmd_->dispatch(static_cast<uint32_t>(k.groups[0]), static_cast<uint32_t>(k.groups[1]),
                       static_cast<uint32_t>(k.groups[2]));
      } else if (op == "barrier") {
        barrier();
      } else if (op == "reset") {  // cache.reset: the @init value, else zeros
        Value& v = mutable_value(std::string(s.at("value").as_string()));
        if (const json::value* keys = s.as_object().if_contains("auto_window");
            keys && v.auto_dim()) {
          // the matrices the window holds fresh again; the table's sizes stay
          const auto box = reset_window(s.as_object(), v.auto_table, v.auto_table_bound,
                                        v.mat_sizes, keys->as_array(), indices);
          std::erase_if(v.mats, [&](const auto& kv) {
            for (size_t k = 0; k < box.size() && k < kv.first.size(); ++k)
              if (kv.first[k] < box[k].first || kv.first[k] >= box[k].second) return false;
            return true;
          });
        } else if (const json::value* part = s.as_object().if_contains("auto_entry");
                   part && v.auto_dim()) {
          // the matrices under these @table indices fresh again; the table's sizes stay
          const std::vector<int64_t> prefix =
              reset_prefix(s.as_object(), v.auto_table, part->as_array(), indices);
          std::erase_if(v.mats, [&](const auto& kv) {
            return std::equal(prefix.begin(), prefix.end(), kv.first.begin());
          });
        } else if (v.auto_dim()) {  // dsl.md: counts back to 0, cells @init (every matrix: fresh)
          v.mats.clear();
          v.mat_sizes.assign(v.auto_table.size(), 0);
        } else if (const json::value* entry = s.as_object().if_contains("entry")) {
          json::value window_entry;
          if (s.as_object().contains("window")) {
            // the entries the same access reads, checked as a read (reset_window); then the
            // emptied window's entries, each "lo..hi" (regions skips those past the capacity)
            std::vector<int64_t> sizes;
            for (size_t i = 0; i < v.indices.size(); ++i)
              sizes.push_back(static_cast<int64_t>(
                  static_cast<int>(i) == v.growing || v.inner_size.empty() ? v.size
                                                                           : v.inner_size[i]));
            json::array terms;
            for (const auto& [lo, hi] :
                 reset_window(s.as_object(), v.indices, v.bound, sizes, entry->as_array(), indices))
              terms.push_back(json::value(std::to_string(lo) + ".." + std::to_string(hi)));
            window_entry = std::move(terms);
            entry = &window_entry;
          }
          for (int64_t off :
               regions(v, entry, indices,
                       s.as_object().contains("at") ? std::string(s.at("at").as_string())
                                                    : "cache.reset of '" + v.name + "'",
                       Use::kReset)) {
            const uint64_t e = static_cast<uint64_t>(off) / v.stride;
            note_entry(v, e);  // the erased entry goes to the undo record
            mark_written(v, e, false);
            reset_entry(v, static_cast<uint64_t>(off));
          }
        } else if (v.table()) {
          for (uint64_t e = 0; e < v.written.size(); ++e)
            if (v.written[e]) {
              note_entry(v, e);
              mark_written(v, e, false);
            }
          reset_table(v);
          v.size = 0;  // dsl.md: a whole-table reset empties it
          std::fill(v.inner_size.begin(), v.inner_size.end(), 0);
        } else if (v.init) {
          upload(v, v.init_image.data(), v.init_image.size());
        } else {
          zero(v);
        }
      } else if (op == "snapshot") {
        snapshot(mutable_value(std::string(s.at("value").as_string())),
                 std::string(s.at("action").as_string()));
      } else if (op == "counter") {
        count(mutable_value(std::string(s.at("value").as_string())),
              s.at("delta").to_number<int64_t>());
      } else if (op == "copy") {
        if (s.as_object().contains("auto_from") || s.as_object().contains("auto_to"))
          auto_dim_copy(s.as_object(), indices);
        else
          copy_step(s.as_object(), indices);
      } else if (op == "loop") {
        const std::string index(s.at("index").as_string());
        const int64_t start = bound(s.at("start"), indices), end = bound(s.at("end"), indices);
        for (int64_t i = start; i < end; ++i) {
          indices[index] = i;
          barrier();
          if (!run_steps(s.at("body").as_array(), indices)) return false;
        }
        indices.erase(index);
        barrier();
      } else if (op == "branch") {
        const std::string cond(s.at("cond").as_string());
        bool yes = true;
        if (!cond.empty()) {
          const std::vector<uint8_t> bytes = download(value(cond));
          yes = std::any_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b != 0; });
        }
        const std::string target(s.at(yes ? "then" : "else").as_string());
        std::map<std::string, int64_t> none;  // loop indices are not visible in branched blocks
        if (!target.empty()) run_block(target, none);
        barrier();
      } else if (op == "return") {
        return false;
      } else {
        input_error("manifest: unknown step '" + op + "'");
      }
    }
    return true;
  }

  void print(uint64_t step, const Value& v, const std::vector<uint64_t>& shape,
             const std::vector<uint8_t>& bytes) {
    std::cout << "step " << step << ": " << v.name << ": " << v.dtype << shape_text(shape) << " =";
    const uint32_t eb = elem_bytes(v.dtype);
    const uint64_t elements = eb ? bytes.size() / eb : 0;
    const uint64_t n = std::min<uint64_t>(elements, 8);
    for (uint64_t i = 0; i < n; ++i)
      std::cout << " " << element_text(v.dtype, bytes.data() + i * eb);
    if (elements > n) std::cout << " ...";
    std::cout << "\n";
  }

  // Dispatches of the entry block only (no uploads), against a device-to-device copy of the
  // same number of bytes, both as the median of `bench` timed submissions.
  void bench() {
    uint64_t moved = 0;
    for (const json::value& s : blocks_.at("entry"))
      if (s.at("op").as_string() == "dispatch")
        moved += kernels_.at(s.at("kernel").to_number<size_t>()).bytes_moved;
    auto time = [&](auto record) {
      std::vector<double> ms;
      for (uint64_t r = 0; r < opt_.bench + 1; ++r) {
        submit_and_wait();
        record();
        const auto t0 = std::chrono::steady_clock::now();
        submit_and_wait();
        ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
      }
      ms.erase(ms.begin());  // warm-up
      std::sort(ms.begin(), ms.end());
      return ms[ms.size() / 2];
    };
    std::map<std::string, int64_t> indices;
    const int reps = 20;
    const double kernel_ms = time([&] {
                               for (int i = 0; i < reps; ++i) {
                                 run_steps(blocks_.at("entry"), indices);
                                 barrier();
                               }
                             }) /
                             reps;
    const uint64_t half = std::max<uint64_t>(moved / 2, 4) / 4 * 4;
    Buffer a = make_buffer(half, vk::BufferUsageFlagBits::eTransferSrc,
                           vk::MemoryPropertyFlagBits::eDeviceLocal);
    Buffer b = make_buffer(half, vk::BufferUsageFlagBits::eTransferDst,
                           vk::MemoryPropertyFlagBits::eDeviceLocal);
    const double copy_ms = time([&] {
                             for (int i = 0; i < reps; ++i) {
                               cmd_->copyBuffer(*a.buffer, *b.buffer, vk::BufferCopy(0, 0, half));
                               barrier();
                             }
                           }) /
                           reps;
    const double kernel_gbs = moved / kernel_ms / 1e6, copy_gbs = 2.0 * half / copy_ms / 1e6;
    std::cout << "bench: device " << props_.deviceName.data() << "\n"
              << "bench: entry kernels " << kernel_ms << " ms, " << moved << " bytes, "
              << kernel_gbs << " GB/s\n"
              << "bench: copy " << copy_ms << " ms, " << 2 * half << " bytes, " << copy_gbs
              << " GB/s\n"
              << "bench: ratio " << kernel_gbs / copy_gbs << "\n";
  }

  Options opt_;
  oinf_io::Package model_;
  std::string model_name_ = "the model";  // in errors: the --model path or "the embedded weights"
  bool have_model_ = false;
  std::map<std::string, oinf_io::Package> input_files_;
  std::vector<Value> values_;
  std::map<std::string, size_t> index_;
  std::vector<Kernel> kernels_;
  std::map<std::string, json::array> blocks_;
  std::vector<std::string> outputs_;
  uint64_t arena_bytes_ = 0;
  uint64_t step_ = 0;
  std::map<uint32_t, std::string> errors_;  // run-time error code -> message

  vk::UniqueInstance instance_;
  vk::PhysicalDevice phys_;
  vk::PhysicalDeviceProperties props_;
  struct Baked {
    std::string value, link;
    std::vector<uint8_t> bytes;
  };
  std::vector<Baked> baked_;
  bool ieee_specials_ = false;
  bool ieee64_ = false, fc32_ = false, fc64_ = false;  // float controls, as the Vulkan backend's
  uint32_t family_ = UINT32_MAX;
  vk::UniqueDevice device_;
  vk::Queue queue_;
  vk::UniqueCommandPool pool_;
  vk::UniqueCommandBuffer cmd_;
  vk::UniqueFence fence_;
  vk::UniqueDescriptorPool dpool_;
  vk::UniqueDescriptorSetLayout vk_set_layout_;  // the Vulkan backend's shaders: one layout
  vk::UniquePipelineLayout vk_layout_;
  std::map<std::pair<std::string, std::vector<uint32_t>>, vk::UniquePipeline> vk_pipelines_;
  std::vector<Buffer> buffers_;
  int arena_ = -1;
  Buffer staging_;
  uint8_t* staging_map_ = nullptr;
  uint64_t staging_used_ = 0;
  // The table budget's count and the step's undo record (device copies of overwritten
  // entries in chunks that only grow, reused from the first at every step).
  uint64_t table_total_ = 0, step_total_ = 0;
  std::vector<Undo> undo_;
  std::set<std::pair<size_t, uint64_t>> noted_;
  uint64_t relayouts_ = 0;  // tables laid out again (entry offsets taken before it moved)
  std::vector<Buffer> undo_chunks_;
  size_t undo_chunk_ = 0;
  uint64_t undo_used_ = 0;
};

Options parse_options(int argc, char** argv) {
  Options o;
  o.manifest_dir = fs::path(argv[0]).parent_path();
#ifdef OPENINFER_GLSL_MANIFEST_DIR
  o.manifest_dir = OPENINFER_GLSL_MANIFEST_DIR;
#endif
  auto need = [&](int& i) -> std::string {
    if (i + 1 >= argc) usage_error(std::string(argv[i]) + " needs a value");
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--manifest")
      o.manifest_dir = need(i);
    else if (a == "--model" || a == "-m")
      o.model = need(i);
    else if (a == "--steps") {
      const std::string n = need(i);
      if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos ||
          std::stoull(n) == 0)
        usage_error("--steps needs a positive integer, got '" + n + "'");
      o.steps = std::stoull(n);
    } else if (a == "--input") {
      const std::string spec = need(i);
      const size_t eq = spec.find('=');
      if (eq == std::string::npos || eq == 0)
        usage_error("--input needs NAME=FILE[:TENSOR], got '" + spec + "'");
      o.inputs.emplace_back(spec.substr(0, eq), spec.substr(eq + 1));
    } else if (a == "--fetch")
      o.fetch.push_back(need(i));
    else if (a == "--save")
      o.save = need(i);
    else if (a == "--quiet" || a == "-q")
      o.quiet = true;
    else if (a == "--bench")
      o.bench = std::stoull(need(i));
    else if (a == "--max-table-bytes") {
      const std::string n = need(i);
      if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos || n.size() > 19)
        usage_error("--max-table-bytes takes a number of bytes, 0 or more (got '" + n + "')");
      o.max_table_bytes = std::stoull(n);
    } else if (a == "--keep-going")
      o.keep_going = true;
    else if (a == "--device-info")
      o.device_info = true;
    else if (a == "--help" || a == "-h") {
      std::cout
          << "Usage: " << argv[0]
          << " [--manifest DIR] [--model M.oinf] [--steps N] [--input NAME=FILE[:TENSOR]]...\n"
             "       [--fetch NAME]... [--save OUT.oinf] [--max-table-bytes N] [--keep-going]\n"
             "       [--quiet] [--bench N] [--device-info]\n";
      std::exit(0);
    } else
      usage_error("unknown option '" + a + "' (see --help)");
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Runner runner(parse_options(argc, argv));
    return runner.run();
  } catch (const Failure& f) {
    std::cerr << "error: " << f.what() << "\n";
    return f.code;
  } catch (const vk::SystemError& e) {
    std::cerr << "error: Vulkan: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
