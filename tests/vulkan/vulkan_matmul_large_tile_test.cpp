// f32 matmul through every tile of the tuning sweep (bench/vulkan_gpu_tune.sh) forced with
// OPENINFER_VULKAN_MATMUL_TILE, and with OPENINFER_VULKAN_MATMUL_SUBNORMALS=scan (a scan, then
// the fast or the careful pass: kernels/matmul.cpp) and =inline, against a reference computed
// here in double precision. The data make every sum exact in f32 in any order, so each output
// must equal the reference bit for bit (NaN matching NaN):
//   - dyadic: k/8 for k in [-32, 32] at odd shapes, offsets and broadcast batches;
//   - subnormal operands: one operand j * 2^-149 (|j| <= 8: subnormal or 0), the other
//     +-2^120..2^125, so every product is a normal multiple of 2^-29 (a device that read the
//     subnormals as 0 gives 0);
//   - a subnormal meeting an infinity: inf of the right sign (0 * inf would be NaN), and NaN
//     where a 0 of A meets it.
//
//   vulkan_matmul_large_tile_test   (exit 77 when there is no Vulkan device)
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "openinfer/plugin_host.hpp"

using oi::DType;

namespace {

uint64_t numel(const std::vector<uint64_t>& d) {
  uint64_t n = 1;
  for (auto x : d) n *= x;
  return n;
}

uint64_t mix(uint64_t i, uint64_t salt) {
  return (i + salt) * 2654435761ull >> 11;
}

float dyadic(uint64_t i, uint64_t salt) {
  return static_cast<float>(static_cast<int>(mix(i, salt) % 65) - 32) / 8;
}

float subnormal(uint64_t i, uint64_t salt) {  // j * 2^-149, |j| <= 8
  return std::ldexp(static_cast<float>(static_cast<int>(mix(i, salt) % 17) - 8), -149);
}

float huge(uint64_t i, uint64_t salt) {  // +-2^120..2^125
  const uint64_t h = mix(i, salt);
  return std::ldexp(h % 2 ? -1.0f : 1.0f, 120 + static_cast<int>(h / 2 % 6));
}

struct Case {
  std::string name;
  std::vector<uint64_t> a, b, y;             // dims
  uint64_t a_off = 0, b_off = 0, y_off = 0;  // element offsets
  std::vector<float> ha, hb;                 // the operand buffers' contents
};

std::string dims(const Case& c) {
  std::string t;
  for (const auto* d : {&c.a, &c.b}) {
    t += t.empty() ? "[" : " x [";
    for (size_t i = 0; i < d->size(); ++i) t += (i ? "," : "") + std::to_string((*d)[i]);
    t += "]";
  }
  return t;
}

Case make(std::string name, std::vector<uint64_t> a, std::vector<uint64_t> b,
          std::vector<uint64_t> y, uint64_t a_off, uint64_t b_off, uint64_t y_off,
          float (*fa)(uint64_t, uint64_t), float (*fb)(uint64_t, uint64_t)) {
  Case c{std::move(name), std::move(a), std::move(b), std::move(y), a_off, b_off, y_off, {}, {}};
  c.ha.resize(a_off + numel(c.a));
  c.hb.resize(b_off + numel(c.b));
  for (uint64_t i = 0; i < c.ha.size(); ++i) c.ha[i] = fa(i, 1);
  for (uint64_t i = 0; i < c.hb.size(); ++i) c.hb[i] = fb(i, 7);
  return c;
}

std::vector<Case> cases() {
  std::vector<Case> list;
  // Edges around every tile: M, N, K off the tile sizes, one row, odd offsets, broadcasting;
  // K, N and offsets multiples of 4 take the 16-byte loads (VEC4), the others scalar ones.
  list.push_back(make("dyadic", {259, 37}, {37, 131}, {259, 131}, 3, 5, 7, dyadic, dyadic));
  list.push_back(make("dyadic", {300, 200}, {200, 260}, {300, 260}, 0, 0, 0, dyadic, dyadic));
  list.push_back(make("dyadic", {1, 9}, {9, 300}, {1, 300}, 1, 2, 3, dyadic, dyadic));
  list.push_back(
      make("dyadic", {3, 1, 130, 67}, {2, 67, 131}, {3, 2, 130, 131}, 3, 1, 5, dyadic, dyadic));
  list.push_back(
      make("dyadic", {3, 1, 130, 68}, {2, 68, 132}, {3, 2, 130, 132}, 4, 8, 12, dyadic, dyadic));
  list.push_back(make("subnormal a", {133, 45}, {45, 129}, {133, 129}, 1, 0, 0, subnormal, huge));
  list.push_back(make("subnormal a", {133, 44}, {44, 132}, {133, 132}, 0, 4, 0, subnormal, huge));
  list.push_back(make("subnormal b", {70, 51}, {51, 257}, {70, 257}, 0, 3, 1, huge, subnormal));
  list.push_back(make("subnormal b", {70, 52}, {52, 260}, {70, 260}, 4, 0, 1, huge, subnormal));
  // One subnormal of A meets +inf and -inf in B's row k0.
  for (uint64_t K : {33, 36}) {
    const uint64_t N = K == 33 ? 135 : 136;
    Case inf = make("subnormal x inf", {140, K}, {K, N}, {140, N}, 0, 0, 0, dyadic, dyadic);
    const uint64_t i0 = 129, k0 = 17, j0 = 130, j1 = 3;
    inf.ha[i0 * K + k0] = std::ldexp(-3.0f, -149);
    inf.hb[k0 * N + j0] = INFINITY;
    inf.hb[k0 * N + j1] = -INFINITY;
    list.push_back(std::move(inf));
  }
  return list;
}

// The reference: double sums (exact for these data), rounded once to f32.
std::vector<float> reference(const Case& c) {
  const uint64_t count = numel(c.y), M = c.a[c.a.size() - 2], K = c.a.back(), N = c.b.back();
  const size_t rank = c.y.size() - 2;
  std::vector<float> want(count);
  for (uint64_t e = 0; e < count; ++e) {
    uint64_t rest = e / (M * N), ia = 0, ib = 0, sa = 1, sb = 1;  // numpy batch broadcasting
    for (size_t d = rank; d-- > 0;) {
      const uint64_t at = rest % c.y[d];
      rest /= c.y[d];
      if (d + c.a.size() >= c.y.size()) {
        const uint64_t extent = c.a[d + c.a.size() - c.y.size()];
        if (extent != 1) ia += at * sa;
        sa *= extent;
      }
      if (d + c.b.size() >= c.y.size()) {
        const uint64_t extent = c.b[d + c.b.size() - c.y.size()];
        if (extent != 1) ib += at * sb;
        sb *= extent;
      }
    }
    const uint64_t i = e / N % M, j = e % N;
    double sum = 0;
    for (uint64_t k = 0; k < K; ++k)
      sum += double(c.ha[c.a_off + (ia * M + i) * K + k]) * c.hb[c.b_off + (ib * K + k) * N + j];
    want[e] = static_cast<float>(sum);
  }
  return want;
}

bool same(float got, float want) {
  if (std::isnan(want)) return std::isnan(got);
  uint32_t g, w;
  std::memcpy(&g, &got, 4);
  std::memcpy(&w, &want, 4);
  return g == w;
}

// Runs `c` once; returns the number of wrong outputs (printing the first few).
size_t check(oi::Backend& gpu, const oi::Kernel& mm, const Case& c, const std::vector<float>& want,
             const std::string& setting) {
  auto a = gpu.alloc(c.ha.size() * 4), b = gpu.alloc(c.hb.size() * 4);
  auto y = gpu.alloc((c.y_off + numel(c.y)) * 4);
  gpu.upload(*a, 0, std::as_bytes(std::span(c.ha)));
  gpu.upload(*b, 0, std::as_bytes(std::span(c.hb)));
  oi::TensorArg ins[] = {{DType::f32, c.a, a.get(), c.a_off * 4},
                         {DType::f32, c.b, b.get(), c.b_off * 4}};
  oi::TensorArg outs[] = {{DType::f32, c.y, y.get(), c.y_off * 4}};
  gpu.run(mm, ins, outs, {});
  std::vector<float> got(numel(c.y));
  gpu.download(*y, c.y_off * 4, std::as_writable_bytes(std::span(got)));
  size_t bad = 0;
  for (uint64_t e = 0; e < got.size(); ++e) {
    if (!same(got[e], want[e]) && bad++ < 3) {
      std::cout << "  " << setting << " " << c.name << " " << dims(c) << ": output " << e << " is "
                << got[e] << ", want " << want[e] << "\n";
    }
  }
  return bad;
}

}  // namespace

int main() {
  const char* dir = std::getenv("OPENINFER_TEST_PLUGIN_DIR");
  auto registry = oi::PluginRegistry::discover({dir != nullptr ? dir : PLUGIN_DIR});
  bool has_device = false;
  for (const auto& p : registry.plugins())
    has_device |= p.name == "vulkan" && !p.device_name.empty();
  if (!has_device) {
    std::cout << "SKIPPED: no Vulkan device\n";
    return 77;
  }
  auto gpu = registry.backend("vulkan");
  std::cout << "device: " << gpu->device_name() << "\n";
  const auto* mm =
      gpu->find_kernel("matmul", {{DType::f32, DType::f32}}, DType::f32, oi::KernelMode::Normal);
  if (mm == nullptr) {
    std::cerr << "no f32 matmul kernel\n";
    return 1;
  }
  const std::vector<Case> list = cases();
  std::vector<std::vector<float>> wants;
  for (const Case& c : list) wants.push_back(reference(c));
  // The default pick, then every tile of the sweep (bench/vulkan_gpu_tune.sh) and kernels/
  // matmul.cpp's own; each with the scan and the inline subnormal handling.
  const std::vector<std::string> tiles{"",
                                       "128,128,8,8,8",
                                       "128,128,16,8,8",
                                       "256,128,8,16,8",
                                       "128,256,8,8,16",
                                       "128,128,8,16,8",
                                       "128,128,8,8,16",
                                       "128,128,16,16,8",
                                       "256,64,8,16,8",
                                       "64,256,8,8,16",
                                       "128,64,8,8,4",
                                       "64,64,16,4,4"};
  size_t bad = 0, runs = 0;
  for (const std::string& tile : tiles) {
    for (const char* mode : {"scan", "inline"}) {
      if (tile.empty()) {
        unsetenv("OPENINFER_VULKAN_MATMUL_TILE");
      } else {
        setenv("OPENINFER_VULKAN_MATMUL_TILE", tile.c_str(), 1);
      }
      setenv("OPENINFER_VULKAN_MATMUL_SUBNORMALS", mode, 1);
      const std::string setting = "tile " + (tile.empty() ? "default" : tile) + " " + mode;
      size_t wrong = 0;
      for (size_t i = 0; i < list.size(); ++i)
        wrong += check(*gpu, *mm, list[i], wants[i], setting);
      std::cout << setting << ": " << list.size() << " cases, " << wrong << " wrong outputs\n";
      bad += wrong;
      runs += list.size();
    }
  }
  std::cout << "checks: " << runs << " runs, " << bad << " wrong outputs\n";
  return bad == 0 ? 0 : 1;
}
