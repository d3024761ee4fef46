#include "kernel_registry.hpp"

namespace oi::cpu {

KernelList& kernel_list() {
  static KernelList list;
  return list;
}

const std::vector<oi_kernel_def>& kernel_defs() {
  static const std::vector<oi_kernel_def> defs = [] {
    std::vector<oi_kernel_def> out;
    for (const CpuKernel& k : kernel_list().entries()) {
      oi_kernel_def d{};
      d.struct_size = sizeof(d);
      d.abi_version = OI_PLUGIN_ABI_VERSION;
      d.op = k.op.c_str();
      d.input_dtypes = k.inputs.data();
      d.num_inputs = static_cast<uint32_t>(k.inputs.size());
      d.output_dtype = k.output;
      d.mode = k.mode;
      d.run = k.run;
      out.push_back(d);
    }
    return out;
  }();
  return defs;
}

}  // namespace oi::cpu
