// The CPU plugin's kernel table. Each kernels/<op>.cpp adds its (op, dtypes, mode) entries
// with a static KernelRegistration; the plugin turns the list into oi_kernel_def data at init.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "openinfer/plugin_abi.h"

namespace oi::cpu {

struct CpuKernel {
  std::string op;
  std::vector<uint32_t> inputs;
  uint32_t output;
  uint32_t mode;
  oi_kernel_fn run;
};

class KernelList {
 public:
  void add(std::string op, std::vector<uint32_t> inputs, uint32_t output, oi_kernel_mode mode,
           oi_kernel_fn run) {
    kernels_.push_back(
        {std::move(op), std::move(inputs), output, static_cast<uint32_t>(mode), run});
  }
  const std::vector<CpuKernel>& entries() const { return kernels_; }

 private:
  std::vector<CpuKernel> kernels_;
};

// Every registered kernel, in registration order.
KernelList& kernel_list();

struct KernelRegistration {
  explicit KernelRegistration(void (*register_kernels)(KernelList&)) {
    register_kernels(kernel_list());
  }
};

// The ABI view of kernel_list(), built once on first use (after static registration).
const std::vector<oi_kernel_def>& kernel_defs();

}  // namespace oi::cpu
