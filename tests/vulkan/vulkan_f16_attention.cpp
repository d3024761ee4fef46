// f16 attention on the Vulkan backend against a reference computed here in f64 from the same
// f16 inputs: every output within the op rules' bound for f16 (2 f16 ulp of the exact result;
// NaN where a visible score is NaN, 0 where a row sees no key). Run once as it is and once with
// OPENINFER_VULKAN_ATTENTION=coop (kernels/attention.cpp: attention_coop.comp on tensor cores
// where the device has VK_NV_cooperative_matrix and the shapes fit). The plugin's warnings are
// caught: forced on a device without tensor cores, the path must be skipped with a warning
// naming why (and the results still right); on a device with them, no such warning may come.
//
//   vulkan_f16_attention
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "openinfer/float_formats.hpp"
#include "openinfer/plugin_host.hpp"

using oi::DType;

namespace {

struct Case {
  std::vector<uint64_t> q, k, v;  // dims; y is q's leading dims, then Tq, Dv
  bool causal = false;
  uint64_t q_off = 0, k_off = 0, v_off = 0, y_off = 0;  // element offsets
  int64_t nan_key = -1;                                 // a NaN in k's row (first matrix)
  bool subnormal_v = false;  // v all f16 subnormals (+-1..1023 x 2^-24): so are the outputs
};

uint64_t numel(const std::vector<uint64_t>& d) {
  uint64_t n = 1;
  for (auto x : d) n *= x;
  return n;
}

std::string text(const Case& c) {
  std::string t;
  for (const auto* d : {&c.q, &c.k, &c.v}) {
    t += t.empty() ? "[" : " [";
    for (size_t i = 0; i < d->size(); ++i) t += (i ? "," : "") + std::to_string((*d)[i]);
    t += "]";
  }
  return t + (c.causal ? " causal" : "") + " offsets " + std::to_string(c.q_off) + "," +
         std::to_string(c.k_off) + "," + std::to_string(c.v_off) + "," + std::to_string(c.y_off);
}

// One f16 unit in the last place at |x| (subnormal spacing below 2^-14).
double ulp16(double x) {
  const double a = std::fabs(x);
  if (a < 0x1p-14) return 0x1p-24;
  return std::ldexp(1.0, std::ilogb(a) - 10);
}

// Row-major index of the matrix of `dims` (its leading dims right-aligned against `lead`,
// broadcast where 1) for output batch `b`.
uint64_t matrix_of(const std::vector<uint64_t>& dims, const std::vector<uint64_t>& lead,
                   uint64_t b) {
  const size_t rank = dims.size() - 2;
  uint64_t index = 0, stride = 1;
  for (size_t d = lead.size(); d-- > 0;) {
    const uint64_t at = b % lead[d];
    b /= lead[d];
    if (d + rank >= lead.size()) {
      const uint64_t extent = dims[d + rank - lead.size()];
      if (extent != 1) index += at * stride;
      stride *= extent;
    }
  }
  return index;
}

float half(uint16_t h) {
  return oi::f16_bits_to_f32(h);
}

class Checker {
 public:
  Checker(std::shared_ptr<oi::Backend> gpu, const oi::Kernel& kern) : gpu_(gpu), kern_(kern) {}

  // Wrong outputs of one case (the 8 halves around y must keep their sentinel too).
  size_t check(const Case& c, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
    auto fill = [&](uint64_t n) {
      std::vector<uint16_t> h(n);
      for (auto& x : h) x = oi::f32_to_f16_bits(uni(rng));
      return h;
    };
    const uint64_t nq = numel(c.q), nk = numel(c.k), nv = numel(c.v);
    std::vector<uint16_t> hq = fill(c.q_off + nq), hk = fill(c.k_off + nk), hv = fill(c.v_off + nv);
    const uint64_t Tq = c.q[c.q.size() - 2], D = c.q.back(), Tk = c.k[c.k.size() - 2];
    const uint64_t Dv = c.v.back();
    if (c.nan_key >= 0) hk[c.k_off + c.nan_key * D + D / 2] = 0x7e00;
    if (c.subnormal_v) {
      for (auto& x : hv) x = static_cast<uint16_t>((rng() & 0x8000u) | (1u + rng() % 1023u));
    }
    std::vector<uint64_t> lead(c.q.begin(), c.q.end() - 2), ydims = lead;
    ydims.push_back(Tq);
    ydims.push_back(Dv);
    const uint64_t ny = numel(ydims), batches = numel(lead);
    auto buffer = [&](const std::vector<uint16_t>& h) {
      auto b = gpu_->alloc(h.size() * 2 + 16);
      gpu_->upload(*b, 0, std::as_bytes(std::span(h)));
      return b;
    };
    auto bq = buffer(hq), bk = buffer(hk), bv = buffer(hv);
    const uint16_t sentinel = 0x7bff;
    std::vector<uint16_t> hy(c.y_off + ny + 8, sentinel);
    auto by = buffer(hy);
    oi::TensorArg ins[] = {{DType::f16, c.q, bq.get(), c.q_off * 2},
                           {DType::f16, c.k, bk.get(), c.k_off * 2},
                           {DType::f16, c.v, bv.get(), c.v_off * 2}};
    oi::TensorArg outs[] = {{DType::f16, ydims, by.get(), c.y_off * 2}};
    std::vector<oi::KernelSetting> settings{{"causal", c.causal}};
    gpu_->run(kern_, ins, outs, settings);
    gpu_->download(*by, 0, std::as_writable_bytes(std::span(hy)));
    size_t bad = 0;
    for (uint64_t i = 0; i < c.y_off; ++i) bad += hy[i] != sentinel;
    for (uint64_t i = c.y_off + ny; i < hy.size(); ++i) bad += hy[i] != sentinel;
    const double scale = 1.0 / std::sqrt(double(D));
    const int64_t shift = int64_t(Tk) - int64_t(Tq);
    for (uint64_t b = 0; b < batches; ++b) {
      const uint64_t q0 = c.q_off + matrix_of(c.q, lead, b) * Tq * D;
      const uint64_t k0 = c.k_off + matrix_of(c.k, lead, b) * Tk * D;
      const uint64_t v0 = c.v_off + matrix_of(c.v, lead, b) * Tk * Dv;
      for (uint64_t i = 0; i < Tq; ++i) {
        const int64_t last =
            c.causal ? std::min<int64_t>(int64_t(i) + shift, int64_t(Tk) - 1) : int64_t(Tk) - 1;
        std::vector<double> s;
        bool nan = false;
        double top = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j <= last; ++j) {
          double dot = 0;
          for (uint64_t d = 0; d < D; ++d)
            dot += double(half(hq[q0 + i * D + d])) * half(hk[k0 + j * D + d]);
          s.push_back(dot * scale);
          nan = nan || std::isnan(dot);
          if (!std::isnan(dot)) top = std::max(top, s.back());
        }
        double total = 0;
        for (auto& x : s) total += x = std::exp(x - top);
        for (uint64_t d = 0; d < Dv; ++d) {
          double want = 0;
          for (size_t j = 0; j < s.size(); ++j) want += s[j] * half(hv[v0 + j * Dv + d]);
          want = s.empty() ? 0.0 : want / total;
          const float got = half(hy[c.y_off + (b * Tq + i) * Dv + d]);
          const bool ok = nan ? std::isnan(got) : std::fabs(got - want) <= 2 * ulp16(want);
          if (!ok && bad++ < 5) {
            std::cout << "  " << text(c) << ": batch " << b << " row " << i << " col " << d
                      << " is " << got << ", want " << (nan ? NAN : want) << "\n";
          }
        }
      }
    }
    return bad;
  }

 private:
  std::shared_ptr<oi::Backend> gpu_;
  const oi::Kernel& kern_;
};

std::vector<Case> cases() {
  std::vector<Case> list;
  // Blocks of rows on and off attention_coop's 64, key tiles on and off its 32.
  list.push_back({{2, 8, 100, 64}, {2, 8, 100, 64}, {2, 8, 100, 64}, true});
  list.push_back({{3, 77, 128}, {3, 77, 128}, {3, 77, 128}, true});
  list.push_back({{2, 64, 32}, {2, 130, 32}, {2, 130, 48}, false});
  list.push_back({{1, 70, 16}, {1, 50, 16}, {1, 50, 16}, true});  // rows 0..19 see no key
  list.push_back({{2, 128, 128}, {2, 256, 128}, {2, 256, 128}, true});
  list.push_back({{2, 3, 40, 64}, {2, 1, 40, 64}, {2, 1, 40, 64}, true});  // shared k/v head
  list.push_back({{4, 1, 128}, {4, 300, 128}, {4, 300, 128}, true});       // a decoding row
  // A decoding row over 2,600 keys: with OPENINFER_VULKAN_ATTENTION_CHUNK=16 the split path's
  // second pass merges 163 chunks (past its blocks of 128, eight at a time and the rest).
  list.push_back({{2, 1, 64}, {2, 2600, 64}, {2, 2600, 64}, true});
  // The bench's decode shape (Dh 128, 2,048 keys; fewer heads): 16 chunks of 128 keys by
  // default, K and V read 16 bytes a load (OPENINFER_VULKAN_ATTENTION_WIDE=off: 8).
  list.push_back({{3, 1, 128}, {3, 2048, 128}, {3, 2048, 128}, false});
  list.push_back({{2, 33, 64}, {2, 33, 64}, {2, 33, 64}, true, 8, 16, 24, 2});
  list.push_back({{2, 33, 64}, {2, 33, 64}, {2, 33, 64}, false, 3, 5, 7, 1});  // odd offsets
  Case nan{{1, 96, 64}, {1, 96, 64}, {1, 96, 64}, true};
  nan.nan_key = 40;  // rows 40.. are NaN, rows before it are not
  list.push_back(nan);
  // Subnormal values: a device that flushes them when widening gives 0 rows.
  Case tiny{{2, 1, 64}, {2, 300, 64}, {2, 300, 64}, true};
  tiny.subnormal_v = true;
  list.push_back(tiny);
  Case tiny_rows{{2, 40, 64}, {2, 40, 64}, {2, 40, 64}, true};
  tiny_rows.subnormal_v = true;
  list.push_back(tiny_rows);
  return list;
}

}  // namespace

int main() {
  std::vector<std::string> warnings;
  oi::set_plugin_log_sink([&](const oi::PluginLogMessage& m) {
    std::cout << "plugin '" << m.plugin << "': " << oi::log_level_name(m.level) << ": " << m.message
              << "\n";
    if (m.level == oi::LogLevel::Warning) warnings.emplace_back(m.message);
  });
  const char* dir = std::getenv("OPENINFER_TEST_PLUGIN_DIR");
  auto registry = oi::PluginRegistry::discover({dir != nullptr ? dir : PLUGIN_DIR});
  auto gpu = registry.backend("vulkan");
  const char* forced = std::getenv("OPENINFER_VULKAN_ATTENTION");
  const bool coop = forced != nullptr && std::string(forced) == "coop";
  const bool tensor_cores = gpu->device_name().find("tensor cores") != std::string::npos;
  std::cout << "device: " << gpu->device_name()
            << "\nOPENINFER_VULKAN_ATTENTION=" << (forced ? forced : "(unset)") << "\n";
  const auto* kern = gpu->find_kernel("attention", {{DType::f16, DType::f16, DType::f16}},
                                      DType::f16, oi::KernelMode::Normal);
  if (kern == nullptr) {
    std::cerr << "no f16 attention kernel\n";
    return 1;
  }
  Checker checker(gpu, *kern);
  size_t bad = 0, count = 0;
  uint32_t seed = 1;
  for (const Case& c : cases()) {
    bad += checker.check(c, seed++);
    ++count;
  }
  std::cout << "checks: " << count << " cases, " << bad << " wrong outputs\n";
  bool skipped = false;
  for (const auto& w : warnings) {
    skipped = skipped || w.find("attention_coop) skipped: the device has no tensor cores") !=
                             std::string::npos;
  }
  if (coop && !tensor_cores && !skipped) {
    std::cout << "FAILED: forced onto tensor cores without them, no skip warning came\n";
    return 1;
  }
  if (skipped && tensor_cores) {
    std::cout << "FAILED: the device has tensor cores, yet the path was skipped for their lack\n";
    return 1;
  }
  if (coop) {
    std::cout << (tensor_cores ? "tensor cores: attention_coop ran where the shapes fit\n"
                               : "tensor cores: none on this device: attention_coop skipped, "
                                 "with a warning\n");
  }
  return bad == 0 ? 0 : 1;
}
