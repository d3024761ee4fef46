// A plan kernel as the Vulkan backend runs it: every op through the backend's kernel for its
// (op, dtypes, mode), recorded (vulkan_record.hpp) and turned into VulkanDispatches over the
// program's values.
#include "vulkan_kernels.hpp"

#include <deque>
#include <map>

#include "openinfer/plugin_abi.hpp"
#include "shape_limits.hpp"
#include "vulkan_record.hpp"

namespace oi::glsl {

namespace json = boost::json;

namespace {

struct DtypeInfo {
  const char* name;
  uint32_t tag;
  uint32_t bits;
};

constexpr DtypeInfo kDtypes[] = {
    {"i8", OI_DTYPE_I8, 8},         {"i16", OI_DTYPE_I16, 16},   {"i32", OI_DTYPE_I32, 32},
    {"i64", OI_DTYPE_I64, 64},      {"u8", OI_DTYPE_U8, 8},      {"u16", OI_DTYPE_U16, 16},
    {"u32", OI_DTYPE_U32, 32},      {"u64", OI_DTYPE_U64, 64},   {"f16", OI_DTYPE_F16, 16},
    {"f32", OI_DTYPE_F32, 32},      {"f64", OI_DTYPE_F64, 64},   {"bool", OI_DTYPE_BOOL, 8},
    {"bitset", OI_DTYPE_BITSET, 8}, {"bf16", OI_DTYPE_BF16, 16}, {"f8", OI_DTYPE_F8, 8},
    {"i4", OI_DTYPE_I4, 4},         {"i2", OI_DTYPE_I2, 2},      {"i1", OI_DTYPE_I1, 1},
    {"u4", OI_DTYPE_U4, 4},         {"u2", OI_DTYPE_U2, 2},      {"u1", OI_DTYPE_U1, 1},
    {"t2", OI_DTYPE_T2, 2},         {"t1", OI_DTYPE_T1, 1}};

const DtypeInfo* dtype_info(const std::string& name) {
  for (const DtypeInfo& d : kDtypes)
    if (name == d.name) return &d;
  return nullptr;
}

uint32_t tag_of(const std::string& dtype, const std::string& where) {
  const DtypeInfo* d = dtype_info(dtype);
  // kDtypes holds every dtype of the language (dsl.md's DTYPE), so a plan never names another.
  if (d == nullptr) invalid_plan(where + ": unknown dtype " + dtype);
  return d->tag;
}

// Whether the Vulkan backend has any kernel for `op`.
bool has_vulkan_kernel(const std::string& op) {
  for (const vulkan::VulkanKernel& k : vulkan::kernel_list())
    if (op == k.op) return true;
  return false;
}

const char* mode_text(uint32_t mode) {
  return mode == OI_KERNEL_MODE_INPLACE      ? "in place"
         : mode == OI_KERNEL_MODE_ACCUMULATE ? "accumulate"
                                             : "normal";
}

// The VkSubgroupFeatureFlags the fast attention paths ask for (basic, vote, arithmetic, shuffle).
constexpr uint32_t kSubgroupOps = 0x1 | 0x2 | 0x4 | 0x10;

vulkan::DeviceCaps caps_of(const DeviceIn& d) {
  vulkan::DeviceCaps c;
  c.f64 = d.fp64;
  c.i64 = d.int64;
  c.storage16 = d.fp16;
  c.subgroup_size = static_cast<uint32_t>(d.subgroup_size);
  c.subgroup_ops = d.subgroup_ops ? kSubgroupOps : 0;
  c.max_shared_memory = static_cast<uint32_t>(std::min<uint64_t>(d.shared_bytes, UINT32_MAX));
  c.max_storage_range = static_cast<uint32_t>(std::min<uint64_t>(d.max_buffer_range, UINT32_MAX));
  return c;
}

// The settings of a plan op as the ABI passes them (dtype names of `to`/`acc`/`dtype` as tags,
// "inf"/"-inf"/"nan" as floats); the strings and lists live as long as the holder.
struct Settings {
  std::vector<oi_setting> list;
  std::deque<std::string> strings;
  std::deque<std::vector<int64_t>> lists;

  Settings(const json::object& settings, const std::string& where) {
    for (const auto& kv : settings) {
      strings.emplace_back(kv.key());
      oi_setting s{};
      s.struct_size = sizeof(s);
      s.abi_version = OI_PLUGIN_ABI_VERSION;
      s.name = strings.back().c_str();
      const json::value& v = kv.value();
      if (v.is_bool()) {
        s.type = OI_SETTING_BOOL;
        s.int_value = v.as_bool();
      } else if (v.is_int64()) {
        s.type = OI_SETTING_INT;
        s.int_value = v.as_int64();
      } else if (v.is_uint64()) {
        s.type = OI_SETTING_INT;
        s.int_value = static_cast<int64_t>(v.as_uint64());
      } else if (v.is_double()) {
        s.type = OI_SETTING_FLOAT;
        s.float_value = v.as_double();
      } else if (v.is_string()) {
        const std::string text(v.as_string());
        const DtypeInfo* d = dtype_info(text);
        if (d && (kv.key() == "to" || kv.key() == "acc" || kv.key() == "dtype")) {
          s.type = OI_SETTING_DTYPE;
          s.int_value = d->tag;
        } else if (text == "inf" || text == "-inf" || text == "nan") {
          s.type = OI_SETTING_FLOAT;
          s.float_value = text == "nan" ? std::nan("") : text == "inf" ? HUGE_VAL : -HUGE_VAL;
        } else {
          strings.push_back(text);
          s.type = OI_SETTING_STRING;
          s.string_value = strings.back().c_str();
        }
      } else if (v.is_array()) {
        lists.emplace_back();
        for (const json::value& x : v.as_array()) {
          if (!x.is_int64())
            invalid_plan(where + ": setting '" + s.name + "' is not a list of integers");
          lists.back().push_back(x.as_int64());
        }
        s.type = OI_SETTING_INT_LIST;
        s.list_values = lists.back().data();
        s.list_length = lists.back().size();
      } else if (v.is_null()) {
        continue;
      } else {
        invalid_plan(where + ": setting '" + std::string(kv.key()) +
                     "' still names a variable (resolve_settings and the loop index copies "
                     "give every setting its value)");
      }
      list.push_back(s);
    }
  }
};

// Where a value lives for the recorded kernel: a buffer of the program (its name in the
// manifest) and the byte offset in it.
struct Place {
  std::string buffer;  // "@arena", a value's own name, or a scratch value
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

class KernelRecorder {
 public:
  KernelRecorder(const PlanIn& plan, const DeviceIn& device, const KernelIn& kernel)
      : plan_(plan), device_(device), kernel_(kernel), caps_(caps_of(device)), rec_(caps_) {}

  KernelShader record() {
    out_.recorded = true;
    for (const OpIn& op : kernel_.ops) record_op(op);
    for (const RecordedDispatch& d : rec_.dispatches) {
      VulkanDispatch v;
      v.variant = d.job.shader;
      v.float_width = d.job.float_width;
      v.also_f64 = d.job.also_f64;
      v.exact_f32 = d.job.exact_f32;
      v.spec = d.job.spec;
      v.params = d.job.params;
      v.groups = d.job.groups;
      for (uint32_t id : d.buffer) v.values.push_back(buffer_name(id));
      out_.dispatches.push_back(std::move(v));
    }
    for (const auto& [id, name] : names_)
      if (rec_.is_scratch(id)) out_.scratch.push_back({name, rec_.bytes(id)});
    return std::move(out_);
  }

 private:
  std::string prefix() const { return "@vk" + std::to_string(kernel_.id) + "_"; }

  static uint64_t value_bytes(const ValueIn& v) {
    const DtypeInfo* d = dtype_info(v.dtype);
    const uint64_t bits = v.elements * (d ? d->bits : 32);
    return std::max<uint64_t>((bits + 63) / 64 * 8, 8);
  }

  // The buffer handle of a program buffer `name` of `bytes`, made once.
  oi_buffer* handle(const std::string& name, uint64_t bytes, bool scratch_value) {
    auto it = handles_.find(name);
    if (it != handles_.end()) return it->second;
    oi_buffer* b = rec_.buffer(bytes);
    handles_[name] = b;
    names_[rec_.id(b)] = name;
    if (scratch_value) out_.scratch.push_back({name, bytes});
    return b;
  }

  std::string buffer_name(uint32_t id) {
    auto it = names_.find(id);
    if (it != names_.end()) return it->second;
    // A buffer the kernel allocated: scratch of the program.
    const std::string name = prefix() + "s" + std::to_string(id);
    names_[id] = name;
    return name;
  }

  // `at`: the use's source position, `write`: the op writes it (for a table entry).
  Place place(const std::string& text, const OpIn& op, const std::string& at, bool write) {
    const ValueRef ref = parse_ref(text);
    if (!ref.index.empty()) {
      // A table entry: a buffer of its own to the kernels, which the host program binds to
      // the entry the index terms select at each dispatch (so at offset 0 here).
      const ValueIn& v = plan_.value(text);  // checks the index count, refuses windows
      handle(text, std::max<uint64_t>(value_bytes(v), 4), false);
      Binding& b = out_.entries[text];
      b.value = ref.name;
      b.entry = ref.index;
      if (b.at.empty()) b.at = at;
      b.read = b.read || !write;
      b.write = b.write || write;
      return {text, 0, v.entry_bytes};
    }
    const ValueIn& v = plan_.value(ref.name);
    if (v.is_table()) invalid_plan(op_where(op) + ": table '" + v.name + "' as a whole operand");
    if (v.storage == "internal") {
      const std::string name = prefix() + v.name;
      const uint64_t bytes = value_bytes(v);
      handle(name, bytes, true);
      return {name, 0, bytes};
    }
    if (v.storage == "arena") {
      handle("@arena", plan_.arena_bytes, false);
      return {"@arena", v.offset, v.bytes};
    }
    handle(v.name, std::max<uint64_t>(v.bytes, 4), false);
    return {v.name, 0, v.bytes};
  }

  oi_tensor_desc desc(const std::string& text, const Place& p,
                      std::deque<std::vector<uint64_t>>& dims) {
    const ValueIn& v = plan_.value(parse_ref(text).name);
    dims.push_back(v.shape);
    oi_tensor_desc t{};
    t.struct_size = sizeof(t);
    t.abi_version = OI_PLUGIN_ABI_VERSION;
    t.dtype = tag_of(v.dtype, "value '" + v.name + "'");
    t.rank = static_cast<uint32_t>(v.shape.size());
    t.dims = dims.back().empty() ? nullptr : dims.back().data();
    t.buffer = handles_.at(p.buffer);
    t.byte_offset = p.offset;
    return t;
  }

  static bool overlaps(const Place& a, const Place& b) {
    return a.buffer == b.buffer && a.offset < b.offset + std::max<uint64_t>(b.bytes, 1) &&
           b.offset < a.offset + std::max<uint64_t>(a.bytes, 1);
  }

  void device_limit(const OpIn& op, vulkan::Needs needs) {
    if (needs == vulkan::Needs::F64 && !caps_.f64)
      glsl::device_limit(device_, op_where(op), "f64 needs shaderFloat64", "features.fp64 false");
  }

  void record_op(const OpIn& op) {
    const std::string where = op_where(op);
    std::vector<Place> in_places;
    std::vector<uint32_t> in_tags;
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const std::string& in = op.inputs[i];
      in_places.push_back(
          place(in, op, i < op.inputs_at.size() ? op.inputs_at[i] : std::string(), false));
      in_tags.push_back(tag_of(plan_.value(parse_ref(in).name).dtype, where));
    }
    const ValueIn& out_value = plan_.value(parse_ref(op.output).name);
    Place out_place = place(op.output, op, op.output_at, true);
    const uint32_t out_tag = tag_of(out_value.dtype, where);
    // Arena values at offsets no multiple of their element size (a description's
    // preferences.arena_alignment below it): the backend's kernels address whole elements, so
    // the op works on scratch copies of them (the output's copied back after it).
    for (size_t i = 0; i < op.inputs.size(); ++i)
      if (misaligned(in_places[i], plan_.value(parse_ref(op.inputs[i]).name).dtype))
        in_places[i] = aligned_copy(in_places[i], where);
    const Place arena_out = out_place;
    const bool out_misaligned = misaligned(out_place, out_value.dtype);
    if (out_misaligned) out_place = aligned_copy(out_place, where);  // acc= reads it

    // The mode: acc= accumulates; an output sharing memory with an input runs in place when
    // it is exactly that input (same bytes, the output's shape) and the backend has an in-place
    // kernel, else through a scratch copy.
    const bool acc = op.settings.contains("acc");
    int exact = -1;
    bool overlap = false;
    for (size_t i = 0; i < in_places.size(); ++i) {
      if (!overlaps(in_places[i], out_place)) continue;
      overlap = true;
      const ValueIn& iv = plan_.value(parse_ref(op.inputs[i]).name);
      if (in_places[i].offset == out_place.offset && iv.shape == out_value.shape &&
          iv.dtype == out_value.dtype)
        exact = static_cast<int>(i);
    }
    const uint32_t base = acc ? OI_KERNEL_MODE_ACCUMULATE : OI_KERNEL_MODE_NORMAL;
    const vulkan::VulkanKernel* k = nullptr;
    if (overlap && !acc && exact >= 0)
      k = find_vulkan_kernel(op.op, in_tags, out_tag, OI_KERNEL_MODE_INPLACE);
    const bool staged = overlap && k == nullptr;
    if (k == nullptr) k = find_vulkan_kernel(op.op, in_tags, out_tag, base);
    if (k == nullptr) {
      // The Vulkan backend has a kernel for every core op and each (dtypes, mode) the catalog
      // and the validator allow it (an in-place one for each op marked in place, the
      // accumulate ones for acc=): an op with none at all is one a kernel pack (a third-party
      // plugin) added, and a missing combination of a core op one a pack's catalog allows.
      if (!has_vulkan_kernel(op.op))
        glsl_gap("vulkan-kernel", where + ": op '" + op.op +
                                      "' comes from a kernel pack, and the Vulkan backend has no "
                                      "kernel for it");
      std::string ins;
      for (const std::string& in : op.inputs)
        ins += (ins.empty() ? "" : ", ") + plan_.value(parse_ref(in).name).dtype;
      glsl_gap("vulkan-kernel", where + ": the Vulkan backend has no kernel for " + op.op + "(" +
                                    ins + ") -> " + out_value.dtype + " (" + mode_text(base) +
                                    "), which a kernel pack's catalog allows, not the core one");
    }
    device_limit(op, k->needs);

    std::deque<std::vector<uint64_t>> dims;
    std::vector<oi_tensor_desc> ins;
    for (size_t i = 0; i < op.inputs.size(); ++i)
      ins.push_back(desc(op.inputs[i], in_places[i], dims));
    Place target = out_place;
    if (staged) {  // computed into scratch of its own, then copied over the output
      const std::string name = prefix() + "out" + std::to_string(copies_++);
      handle(name, value_bytes(out_value), true);
      target = {name, 0, value_bytes(out_value)};
    }
    oi_tensor_desc out = desc(op.output, target, dims);
    Settings settings(op.settings, where);

    oi_kernel_call call{};
    call.struct_size = sizeof(call);
    call.abi_version = OI_PLUGIN_ABI_VERSION;
    call.inputs = ins.data();
    call.outputs = &out;
    call.settings = settings.list.data();
    call.num_inputs = static_cast<uint32_t>(ins.size());
    call.num_outputs = 1;
    call.num_settings = static_cast<uint32_t>(settings.list.size());
    // The host reads the kernels do become host work of the program at run time: gather's
    // index check, rope's table from the position.
    rec_.allow_host_reads = op.op == "gather" || op.op == "rope";
    rec_.allow_uploads = op.op == "rope";
    rec_.uploaded.clear();
    if (op.op == "gather") add_index_check(op);
    op_start_ = rec_.dispatches.size();
    run_kernel(*k, call, where);
    if (op.op == "rope") add_rope_table(op);
    if (staged) {
      // A table entry or an internal value overlaps an input only as that same entry or value
      // (each has a buffer of its own above), of the output's shape and dtype: the validator
      // lets only ops the catalog marks in place do that, and the Vulkan backend has an in-place
      // kernel for each of them and each of their dtypes, so such an op never stages.
      if (!parse_ref(op.output).index.empty())
        invalid_plan(where +
                     ": a table entry as the output sharing memory with an input, "
                     "which has no in-place kernel");
      if (out_value.storage == "internal")
        invalid_plan(where +
                     ": an internal output sharing memory with an input, which has no "
                     "in-place kernel");
      out_.copies.emplace_back(target.buffer, out_value.name);
    }
    if (out_misaligned) copy_bytes(out_place, arena_out, where);
  }

  // Runs `k` on `call`, keeping its dispatches; its failures are refused here.
  void run_kernel(const vulkan::VulkanKernel& k, const oi_kernel_call& call,
                  const std::string& where) {
    try {
      rec_.run(k, call);
    } catch (const Recorder::KernelFailed& e) {
      // Limits of the device the kernels decline for: a buffer past the storage range (the
      // recording device), a rank or head dim past what the shaders hold.
      if (e.code == OI_STATUS_DECLINED) {
        if (e.message.find("max_storage_buffer_range_bytes") != std::string::npos)
          glsl::device_limit(
              device_, where, e.message,
              "limits.max_storage_buffer_range_bytes " + std::to_string(device_.max_buffer_range));
        if (e.message.find("rank above") != std::string::npos)
          glsl::device_limit(device_, where,
                             "tensors of rank above " + std::to_string(device_.max_rank),
                             "limits.max_rank " + std::to_string(device_.max_rank));
        // 32-bit sizes, indices and strides past what the kernel addresses (an arena offset,
        // dequantize's 2^30): the element limit, with the kernel's words
        if (e.message.find(" above 2^3") != std::string::npos)
          glsl::device_limit(device_, where, e.message, element_limit_key(device_));
        if (e.message.find("head dims above") != std::string::npos)
          glsl::device_limit(device_, where,
                             "head dims above " + std::to_string(device_.max_head_dim),
                             "limits.max_head_dim " + std::to_string(device_.max_head_dim));
      }
      // Nothing else: the scratch copies above give every kernel offsets of whole elements,
      // and the matmul shaders take any M and N, so no validated plan gets here.
      invalid_plan(where +
                   " on the Vulkan backend's kernel, which refuses what the planner and "
                   "the validator never produce: " +
                   e.message);
    }
  }

  bool misaligned(const Place& p, const std::string& dtype) const {
    const DtypeInfo* d = dtype_info(dtype);
    return p.buffer == "@arena" && d != nullptr && d->bits >= 16 && p.offset % (d->bits / 8) != 0;
  }

  // A scratch buffer of its own holding a copy of `p`'s bytes.
  Place aligned_copy(const Place& p, const std::string& where) {
    const std::string name = prefix() + "al" + std::to_string(copies_++);
    handle(name, std::max<uint64_t>((p.bytes + 7) / 8 * 8, 8), true);
    const Place s{name, 0, p.bytes};
    copy_bytes(p, s, where);
    return s;
  }

  // `from`'s bytes into `to`, through the backend's reshape kernel on u8 (byte offsets of any
  // alignment; the bytes around `to` kept).
  void copy_bytes(const Place& from, const Place& to, const std::string& where) {
    const vulkan::VulkanKernel* k =
        find_vulkan_kernel("reshape", {OI_DTYPE_U8}, OI_DTYPE_U8, OI_KERNEL_MODE_NORMAL);
    if (k == nullptr) invalid_plan(where + ": the Vulkan backend has no u8 reshape kernel");
    uint64_t dims[1] = {from.bytes};
    auto bytes_of = [&](const Place& p) {
      oi_tensor_desc t{};
      t.struct_size = sizeof(t);
      t.abi_version = OI_PLUGIN_ABI_VERSION;
      t.dtype = OI_DTYPE_U8;
      t.rank = 1;
      t.dims = dims;
      t.buffer = handles_.at(p.buffer);
      t.byte_offset = p.offset;
      return t;
    };
    oi_tensor_desc in = bytes_of(from), out = bytes_of(to);
    oi_kernel_call call{};
    call.struct_size = sizeof(call);
    call.abi_version = OI_PLUGIN_ABI_VERSION;
    call.inputs = &in;
    call.outputs = &out;
    call.num_inputs = 1;
    call.num_outputs = 1;
    rec_.allow_host_reads = false;
    rec_.allow_uploads = false;
    run_kernel(*k, call, where);
  }

  // gather: the host program checks the indices before the kernel runs, as the backend does.
  void add_index_check(const OpIn& op) {
    const ValueIn& data = plan_.value(parse_ref(op.inputs.at(0)).name);
    const ValueIn& idx = plan_.value(parse_ref(op.inputs.at(1)).name);
    // gather is the first op of its kernel (only elementwise ops join a kernel,
    // build_schedule.cpp's can_join), so its indices are never written inside it.
    if (idx.storage == "internal")
      invalid_plan(op_where(op) + ": gather indices computed in the same kernel");
    int64_t axis = 0;
    if (const json::value* a = op.settings.if_contains("axis"); a && a->is_int64())
      axis = a->as_int64();
    const auto rank = static_cast<int64_t>(data.shape.size());
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) invalid_plan(op_where(op) + ": axis out of range");
    IndexCheck c;
    c.value = idx.name;
    c.count = idx.elements;
    c.wide = idx.dtype == "i64";
    c.bound = static_cast<int64_t>(data.shape[static_cast<size_t>(axis)]);
    c.message = "gather (line " + std::to_string(op.line) +
                "): index {value} is out of range for axis " + std::to_string(axis) + " of size " +
                std::to_string(c.bound) + " (allowed " + std::to_string(-c.bound) + ".." +
                std::to_string(c.bound - 1) + ")";
    out_.checks.push_back(std::move(c));
  }

  void add_rope_table(const OpIn& op) {
    const ValueIn& x = plan_.value(parse_ref(op.inputs.at(0)).name);
    const ValueIn& pos = plan_.value(parse_ref(op.inputs.at(1)).name);
    // rope is the first op of its kernel, as gather above.
    if (pos.storage == "internal")
      invalid_plan(op_where(op) + ": a rope position computed in the same kernel");
    if (rec_.uploaded.empty() && rec_.dispatches.size() == op_start_)
      return;  // no elements: nothing to do
    // The backend's rope kernel uploads one table for an x of rank 2 or more and fails itself
    // for a lower rank (refused above), so this holds unless that kernel changes.
    if (rec_.uploaded.size() != 1 || x.shape.size() < 2)
      invalid_plan(op_where(op) + ": the Vulkan backend's rope kernel changed (one table upload)");
    RopeTable r;
    r.pos = pos.name;
    r.wide = pos.dtype == "i64";
    if (const json::value* t = op.settings.if_contains("theta"); t && t->is_number())
      r.theta = t->to_number<double>();
    r.T = x.shape[x.shape.size() - 2];
    r.D = x.shape.back();
    r.f64 = x.dtype == "f64";
    r.table = buffer_name(rec_.uploaded[0]);
    out_.rope_tables.push_back(std::move(r));
  }

  const PlanIn& plan_;
  const DeviceIn& device_;
  const KernelIn& kernel_;
  vulkan::DeviceCaps caps_;
  Recorder rec_;
  std::map<std::string, oi_buffer*> handles_;
  std::map<uint32_t, std::string> names_;
  KernelShader out_;
  int copies_ = 0;
  size_t op_start_ = 0;  // the op's first dispatch (after the copies of misaligned inputs)
};

}  // namespace

KernelShader record_kernel(const PlanIn& plan, const DeviceIn& device, const KernelIn& kernel) {
  return KernelRecorder(plan, device, kernel).record();
}

uint64_t dtype_bytes(const std::string& dtype, uint64_t elements) {
  const DtypeInfo* d = dtype_info(dtype);
  if (d == nullptr) invalid_plan("unknown dtype " + dtype);
  return (elements * d->bits + 7) / 8;
}

}  // namespace oi::glsl
