// A matmul or reduction kernel as two: the head through the Vulkan backend's shader, the
// elementwise epilogue as an own fused chain reading the head's result (head_epilogue.hpp).
#include "head_epilogue.hpp"

#include <algorithm>

#include "openinfer/plugin_abi.hpp"
#include "vulkan_kernels.hpp"

namespace oi::glsl {

namespace {

uint64_t dtype_bits(const std::string& d) {
  if (d == "f64" || d == "i64" || d == "u64") return 64;
  if (d == "f32" || d == "i32" || d == "u32") return 32;
  if (d == "f16" || d == "bf16" || d == "i16" || d == "u16") return 16;
  if (d == "i4" || d == "u4") return 4;
  if (d == "i2" || d == "u2" || d == "t2") return 2;
  if (d == "i1" || d == "u1" || d == "t1") return 1;
  return 8;  // f8, i8, u8, bool, bitset
}

bool contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

}  // namespace

bool split_head(const KernelIn& kernel) {
  return (kernel.kind == "matmul" || kernel.kind == "reduction") && !kernel.ops.empty() &&
         !kernel.ops.front().settings.contains("acc");
}

void give_heads_memory(PlanIn& plan) {
  for (const KernelIn& k : plan.kernels) {
    if (!split_head(k) || k.ops.size() < 2) continue;
    const ValueRef out = parse_ref(k.ops.front().output);
    auto it = plan.value_index.find(out.name);
    if (it == plan.value_index.end())
      invalid_plan(op_where(k.ops.front()) + ": the plan does not list '" + out.name + "'");
    ValueIn& v = plan.values[it->second];
    if (v.storage != "internal") continue;
    v.storage = "scratch";
    // whole 64-bit words, as the backend's kernels address their buffers
    v.bytes = std::max<uint64_t>((v.elements * dtype_bits(v.dtype) + 63) / 64 * 8, 8);
  }
}

KernelShader write_head_kernel(const PlanIn& plan, const DeviceIn& device, const KernelIn& kernel) {
  const OpIn& head = kernel.ops.front();
  if (kernel.ops.size() == 1) return record_kernel(plan, device, kernel);
  const std::string result = parse_ref(head.output).name;
  // The chain: the ops after the head, reading what they read of the kernel's reads and the
  // head's result, writing what they write of the kernel's writes.
  KernelIn chain;
  chain.id = kernel.id;
  chain.kind = "elementwise";
  chain.shape = kernel.shape;
  chain.ops.assign(kernel.ops.begin() + 1, kernel.ops.end());
  chain.reads.push_back(result);
  for (const OpIn& op : chain.ops)
    for (const std::string& in : op.inputs) {
      const std::string name = parse_ref(in).name;
      if (contains(kernel.reads, name) && !contains(chain.reads, name)) chain.reads.push_back(name);
    }
  for (const std::string& w : kernel.writes)
    for (const OpIn& op : chain.ops)
      if (parse_ref(op.output).name == w && !contains(chain.writes, w)) chain.writes.push_back(w);
  for (const std::string& n : kernel.internal)
    if (n != result) chain.internal.push_back(n);
  KernelShader epilogue;
  try {
    epilogue = write_kernel_shader(plan, device, chain);
  } catch (const abi::StatusError& own) {
    if (own.code() != OI_STATUS_UNIMPLEMENTED) throw;
    std::string declined = own.what();
    if (declined.rfind("glsl emitter: ", 0) == 0) declined = declined.substr(14);
    try {
      return record_kernel(plan, device, kernel);
    } catch (const abi::StatusError&) {
      rethrow_with_context(declined + "; through the Vulkan backend's kernels");
    }
  }
  KernelIn alone = kernel;
  alone.ops.resize(1);
  alone.writes = {result};
  alone.internal.clear();
  KernelShader out = record_kernel(plan, device, alone);
  out.epilogue.push_back(std::move(epilogue));
  return out;
}

}  // namespace oi::glsl
