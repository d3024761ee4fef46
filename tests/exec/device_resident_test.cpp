// Values stay in a device backend's memory between nodes and steps: only inserts, host reads
// (fetch, a CPU-fallback node, a cache operation) and host writes cross the bus. Checked on the
// "devmem" fixture backend, which counts its transfers.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "test_support.hpp"

using namespace exec_test;
using oi::Tensor;
namespace tt = boost::test_tools;

namespace {

std::shared_ptr<oi::Backend> devmem() {
  static oi::PluginRegistry registry = oi::PluginRegistry::discover({EXEC_FIXTURE_PLUGIN_DIR});
  static std::shared_ptr<oi::Backend> backend = registry.backend("devmem");
  return backend;
}

struct Transfers {
  uint64_t uploads = 0;
  uint64_t downloads = 0;
  uint64_t copies = 0;  // inside the device
};

// The fixture's counters: it adds to them through DEVMEM_COUNTERS (device_memory_backend.cpp).
Transfers transfers() {
  static uint64_t counters[3] = {0, 0, 0};
  static const bool set = [] {
    char at[32];
    std::snprintf(at, sizeof at, "%llx",
                  static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(counters)));
    return setenv("DEVMEM_COUNTERS", at, 1) == 0;
  }();
  BOOST_TEST_REQUIRE(set);
  return {counters[0], counters[1], counters[2]};
}

oi::Simulator simulate_on_devmem(const std::string& graph) {
  oi::SimulatorOptions options;
  options.fallback = cpu();
  return oi::Simulator(model(oi::ModelWriter()), parse_graph(oi::ModelWriter(), graph), devmem(),
                       options);
}

oi::Simulator simulate_on_cpu(const std::string& graph) {
  return oi::Simulator(model(oi::ModelWriter()), parse_graph(oi::ModelWriter(), graph), cpu());
}

// False when the fixture was loaded without buffer_copy (the exec_device_no_copy test): the
// executor then copies through the host.
bool device_copies() {
  return std::getenv("DEVMEM_NO_COPY") == nullptr;
}

constexpr size_t kWidth = 24;  // 96-byte entries: above the host tiny-op limit (16 bytes)

// Step s's input: distinct values per step and element.
std::vector<float> input_of(size_t step) {
  std::vector<float> x(kWidth);
  for (size_t i = 0; i < kWidth; ++i) x[i] = 0.5f * static_cast<float>(step) - 0.25f * i + 1.0f;
  return x;
}

// A decoder's KV cache in miniature: per step two table entries written by device kernels (K)
// and by cache.write of a device value (V), a window of K copied out, and a value transferred.
const char* kCacheGraph = R"(
dynamic { x: f32[24]; }
constant { one: f32 @init(1.0); }
persistent {
  pos: i32 @init(0);
  K(l, t): f32[24] @table @fixed(l=2);
  V(t): f32[24] @table;
}
volatile {
  k: f32[24];
  k2: f32[24];
  win: f32[4, 24];
  out: f32[4, 24];
}
block entry {
  op add(x, one) >> k;
  op add(k, one) >> K[0, pos];   // x + 2
  op add(k, k) >> K[1, pos];     // 2x + 2
  transfer k >> k2;
  cache.write k2 >> V[pos];      // x + 1
  cache.read K[1, 0..4] >> win;  // positions 0..3 of layer 1, zeros where unwritten
  op add(win, one) >> out;
  cache.increment pos;
  return out;
}
)";

// A tensor's bytes as printable numbers.
std::vector<unsigned> byte_values(const Tensor& t) {
  std::vector<unsigned> out;
  for (std::byte b : t.bytes()) out.push_back(static_cast<unsigned>(b));
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(device_resident)

BOOST_AUTO_TEST_CASE(values_stay_on_the_device_between_nodes_and_steps) {
  // 96-byte values: results of at most 16 bytes from host values are computed on the host.
  auto sim = simulate_on_devmem(R"(
dynamic { x: f32[24]; }
constant { one: f32 @init(1.0); }
persistent {
  acc: f32[24];   // the sum of every step's y
  peak: f32[24];  // the largest y so far (max runs in place)
}
volatile {
  y: f32[24];
  z: f32[24];
}
block entry {
  op add(x, x) >> y;
  op add(y, one) >> y;     // output aliases an input: a buffer of its own, then kept
  op add(acc, y) >> acc;
  op max(peak, y) >> peak;
  op mul(acc, one) >> z;   // the CPU fallback: acc comes back to the host
  return z;
}
)");
  transfers();  // counting from here
  auto exec = sim.make_executor();
  std::vector<float> acc(kWidth, 0.0f), peak(kWidth, 0.0f);
  for (size_t s = 0; s < 4; ++s) {
    const std::vector<float> x = input_of(s);
    exec.insert("x", Tensor::from<float>(x));
    const Transfers before = transfers();
    exec.step();
    const Transfers after = transfers();
    for (size_t i = 0; i < kWidth; ++i) {
      float y = 2 * x[i] + 1;
      acc[i] += y;
      peak[i] = std::max(peak[i], y);
    }
    if (s > 0) {
      // In steady state only the inserted x goes up and only acc (for the CPU's mul) comes
      // down: y, one, acc and peak stayed in device memory.
      BOOST_TEST(after.uploads - before.uploads == 1u);
      BOOST_TEST(after.downloads - before.downloads == 1u);
    }
    BOOST_TEST(values<float>(exec, "z") == acc, tt::per_element());
    BOOST_TEST(values<float>(exec, "acc") == acc, tt::per_element());
    const Transfers fetched = transfers();
    BOOST_TEST(values<float>(exec, "peak") == peak, tt::per_element());  // downloads peak
    BOOST_TEST(transfers().downloads - fetched.downloads == 1u);
    BOOST_TEST(values<float>(exec, "peak") == peak, tt::per_element());  // now current
    BOOST_TEST(transfers().downloads - fetched.downloads == 1u);
  }
}

BOOST_AUTO_TEST_CASE(tiny_results_of_host_values_are_computed_on_the_host) {
  // n (4 bytes) comes from host values: computed by the CPU, so reading it needs no download;
  // big (96 bytes) stays on the device.
  auto sim = simulate_on_devmem(R"(
dynamic { x: f32[24]; }
constant { one: f32 @init(1.0); }
persistent { n: f32 @init(0.0); }
volatile { big: f32[24]; }
block entry {
  op add(n, one) >> n;       // tiny, host inputs: on the host
  op add(x, one) >> big;     // on the device
  return big, n;
}
)");
  auto exec = sim.make_executor();
  exec.insert("x", Tensor::from<float>(input_of(0)));
  exec.step();
  for (size_t s = 1; s < 3; ++s) {
    exec.insert("x", Tensor::from<float>(input_of(s)));
    const Transfers before = transfers();
    exec.step();
    const Transfers after = transfers();
    BOOST_TEST(after.uploads - before.uploads == 1u);  // x
    BOOST_TEST(after.downloads - before.downloads == 0u);
    BOOST_TEST(values<float>(exec, "n") == std::vector<float>({static_cast<float>(s) + 1}),
               tt::per_element());
    BOOST_TEST(transfers().downloads - after.downloads == 0u);  // n is on the host
  }
}

BOOST_AUTO_TEST_CASE(a_host_write_replaces_the_device_copy) {
  auto sim = simulate_on_devmem(R"(
dynamic { x: f32[3]; }
persistent { acc: f32[3]; }
block entry {
  op add(acc, x) >> acc;   // on the device
  cache.reset acc;         // the host writes zeros over it
  op add(acc, x) >> acc;   // must start from those zeros
  return acc;
}
)");
  auto exec = sim.make_executor();
  for (float base : {1.0f, 2.0f, -3.0f}) {
    exec.insert("x", Tensor::from<float>({base, 2 * base, 0.25f}));
    exec.step();
    BOOST_TEST(values<float>(exec, "acc") == std::vector<float>({base, 2 * base, 0.25f}),
               tt::per_element());
  }
}

BOOST_AUTO_TEST_CASE(an_inserted_value_replaces_the_device_copy) {
  auto sim = simulate_on_devmem(R"(
dynamic { x: f32[3]; }
volatile { y: f32[3]; }
block entry {
  op add(x, x) >> x;   // a dynamic written on the device, re-inserted every step
  op add(x, x) >> y;
  return y;
}
)");
  auto exec = sim.make_executor();
  for (float base : {1.0f, -0.5f}) {
    exec.insert("x", Tensor::from<float>({base, 0, 3}));
    exec.step();
    BOOST_TEST(values<float>(exec, "y") == std::vector<float>({4 * base, 0, 12}),
               tt::per_element());
    BOOST_TEST(values<float>(exec, "x") == std::vector<float>({2 * base, 0, 6}), tt::per_element());
  }
}

BOOST_AUTO_TEST_CASE(tables_stay_on_the_device_and_match_the_cpu) {
  auto sim = simulate_on_devmem(kCacheGraph);
  auto reference = simulate_on_cpu(kCacheGraph);
  transfers();
  auto exec = sim.make_executor();
  auto ref = reference.make_executor();
  const size_t steps = 20;  // past the first capacity of 16 positions: the table grows once
  for (size_t s = 0; s < steps; ++s) {
    exec.insert("x", Tensor::from<float>(input_of(s)));
    ref.insert("x", Tensor::from<float>(input_of(s)));
    const Transfers before = transfers();
    exec.step();
    ref.step();
    const Transfers after = transfers();
    if (s > 0 && s != 16 && device_copies()) {
      // Only x goes up; entries, the window and k2 are copied inside the device.
      BOOST_TEST(after.uploads - before.uploads == 1u);
      BOOST_TEST(after.downloads - before.downloads == 0u);
      BOOST_TEST(after.copies - before.copies == 5u);  // K[0], K[1], k2, V and win
    } else if (s > 0 && s != 16) {
      // Without buffer_copy each of the five copies goes through the host (still correct).
      BOOST_TEST(after.uploads - before.uploads == 6u);
      BOOST_TEST(after.downloads - before.downloads == 5u);
      BOOST_TEST(after.copies - before.copies == 0u);
    }
    std::vector<float> want(4 * kWidth, 1.0f);  // unwritten entries read as zeros, plus one
    for (size_t t = 0; t < 4 && t <= s; ++t)
      for (size_t i = 0; i < kWidth; ++i) want[t * kWidth + i] = 2 * input_of(t)[i] + 3;
    BOOST_TEST(values<float>(exec, "out") == want, tt::per_element());
    BOOST_TEST(values<float>(exec, "out") == values<float>(ref, "out"), tt::per_element());
  }
  // A fetch gives every entry, the ones from before the growth included.
  const Transfers before = transfers();
  auto k = exec.fetch<float>("K");
  BOOST_TEST(transfers().downloads - before.downloads == 1u);
  BOOST_TEST(k.shape == oi::Shape({2, steps, kWidth}), tt::per_element());
  for (size_t t = 0; t < steps; ++t) {
    for (size_t i = 0; i < kWidth; ++i) {
      BOOST_TEST(k.data[t * kWidth + i] == input_of(t)[i] + 2);
      BOOST_TEST(k.data[(steps + t) * kWidth + i] == 2 * input_of(t)[i] + 2);
    }
  }
  BOOST_TEST(k.data == values<float>(ref, "K"), tt::per_element());
  auto v = exec.fetch<float>("V");
  BOOST_TEST(v.shape == oi::Shape({steps, kWidth}), tt::per_element());
  for (size_t t = 0; t < steps; ++t)
    for (size_t i = 0; i < kWidth; ++i) BOOST_TEST(v.data[t * kWidth + i] == input_of(t)[i] + 1);
}

BOOST_AUTO_TEST_CASE(device_tables_reset_and_serve_host_reads) {
  const char* graph = R"(
dynamic {
  x: f32[24];
  clear: bool;
}
constant { one: f32 @init(1.0); }
persistent {
  pos: i32 @init(0);
  K(l, t): f32[24] @table @fixed(l=2);
}
volatile {
  first: f32[24];
  last: f32[24];
}
block entry {
  op add(x, one) >> K[0, pos];   // x + 1
  op add(x, x) >> K[1, pos];     // 2x
  op mul(K[1, 0], one) >> first; // the CPU fallback reads an entry: the table comes back
  cache.read K[0, pos] >> last;  // a single entry, inside the device
  cache.increment pos;
  branch clear wipe keep;
  return first, last;
}
block wipe {
  cache.reset K[0];              // every entry under l = 0 reads as unwritten again
  return;
}
block keep {
  return;
}
)";
  auto sim = simulate_on_devmem(graph);
  auto exec = sim.make_executor();
  transfers();
  for (size_t s = 0; s < 3; ++s) {
    exec.insert("x", Tensor::from<float>(input_of(s)));
    exec.insert("clear", Tensor::scalar(s == 2));
    const Transfers before = transfers();
    exec.step();
    // The mul's read of K[1, 0] (and, without buffer_copy, the entries and `last` through the
    // host: two down and up per entry written, one for the read of K[0, pos]).
    BOOST_TEST(transfers().downloads - before.downloads == (device_copies() ? 1u : 4u));
    std::vector<float> first(kWidth), last(kWidth);
    for (size_t i = 0; i < kWidth; ++i) {
      first[i] = 2 * input_of(0)[i];
      last[i] = input_of(s)[i] + 1;
    }
    BOOST_TEST(values<float>(exec, "first") == first, tt::per_element());
    BOOST_TEST(values<float>(exec, "last") == last, tt::per_element());
  }
  // After the reset, layer 0 reads as zeros; layer 1 kept its entries; sizes did not shrink.
  auto k = exec.fetch<float>("K");
  BOOST_TEST(k.shape == oi::Shape({2, 3, kWidth}), tt::per_element());
  for (size_t t = 0; t < 3; ++t) {
    for (size_t i = 0; i < kWidth; ++i) {
      BOOST_TEST(k.data[t * kWidth + i] == 0.0f);
      BOOST_TEST(k.data[(3 + t) * kWidth + i] == 2 * input_of(t)[i]);
    }
  }
  // The next step writes layer 0 again on the device, over the reset places.
  exec.insert("x", Tensor::from<float>(input_of(3)));
  exec.insert("clear", Tensor::scalar(false));
  exec.step();
  k = exec.fetch<float>("K");
  BOOST_TEST(k.shape == oi::Shape({2, 4, kWidth}), tt::per_element());
  for (size_t i = 0; i < kWidth; ++i) {
    BOOST_TEST(k.data[0 * kWidth + i] == 0.0f);
    BOOST_TEST(k.data[3 * kWidth + i] == input_of(3)[i] + 1);
  }
}

// cache.reset of a window of a table in device memory (dsl.md): exactly the entries it reads
// upload @init values (here zeros), those past the capacity nothing; the same as the CPU.
BOOST_AUTO_TEST_CASE(device_tables_reset_a_window) {
  const char* graph = R"(
dynamic { x: f32[24]; }
constant { one: f32 @init(1.0); }
persistent { K(l, t): f32[24] @table @fixed(l=2); }
block entry {
  loop w (t in 0..4) {
    op add(x, one) >> K[0, t];
    op add(x, one) >> K[1, t];
  }
  cache.reset K[1, 1..3];
  cache.reset K[0, 3..9];
  return;
}
)";
  auto sim = simulate_on_devmem(graph);
  auto reference = simulate_on_cpu(graph);
  auto exec = sim.make_executor();
  auto ref = reference.make_executor();
  exec.insert("x", Tensor::from<float>(input_of(0)));
  ref.insert("x", Tensor::from<float>(input_of(0)));
  exec.step();
  ref.step();
  auto k = exec.fetch<float>("K");
  BOOST_TEST(k.shape == oi::Shape({2, 4, kWidth}), tt::per_element());
  // K[0, 0..3] and K[1, 0], K[1, 3] hold x + 1; K[1, 1..3] and K[0, 3] are zeros again.
  for (size_t t = 0; t < 8; ++t) {
    const bool reset = t == 3 || t == 5 || t == 6;
    for (size_t i = 0; i < kWidth; ++i)
      BOOST_TEST(k.data[t * kWidth + i] == (reset ? 0.0f : input_of(0)[i] + 1));
  }
  BOOST_TEST(k.data == ref.fetch<float>("K").data, tt::per_element());
}

// A failed step on the device (docs/runtime.md "Failed steps"): a device-resident persistent
// value, appended and overwritten device-table entries and a counter come back as they were
// before it, as the CPU backend's do; a reset then lets the stream go on.
BOOST_AUTO_TEST_CASE(failed_step_restores_device_tables) {
  const char* graph = R"(
dynamic { x: f32[24]; wipe: bool; }
constant { one: f32 @init(1.0); }
persistent {
  pos: i32 @init(0);
  acc: f32[24] @init(0.0);
  K(t): f32[24] @table;
  F(t): f32[24] @table @fixed(t=3);
}
block entry {
  branch wipe clear keep;
  op add(acc, x) >> acc;
  op add(x, one) >> K[pos];
  op add(acc, one) >> K[0];
  op add(x, x) >> F[pos];
  cache.increment pos;
  op add(x, one) >> F[pos];
  return acc;
}
block clear {
  cache.reset F;
  cache.reset pos;
  return;
}
block keep { return; }
)";
  auto sim = simulate_on_devmem(graph);
  auto reference = simulate_on_cpu(graph);
  auto exec = sim.make_executor();
  auto ref = reference.make_executor();
  auto step_both = [&](size_t s, bool wipe) {
    for (oi::Executor* e : {&exec, &ref}) {
      e->insert("x", Tensor::from<float>(input_of(s)));
      e->insert("wipe", Tensor::scalar<bool>(wipe));
    }
  };
  const std::vector<std::string> names = {"pos", "acc", "K", "F"};
  for (size_t s = 0; s < 2; ++s) {
    step_both(s, false);
    exec.step();
    ref.step();
  }
  // The reference's state before the failing step (the device executor is not read here, so
  // its table entries are newer on the device than on the host).
  std::vector<Tensor> before;
  for (const auto& n : names) before.push_back(ref.fetch(n));
  step_both(2, false);  // pos = 2: F[3] passes the @fixed bound after every other write
  BOOST_TEST(contains(error_of([&] { exec.step(); }), "@fixed bound t=3"));
  BOOST_TEST(contains(error_of([&] { ref.step(); }), "@fixed bound t=3"));
  for (size_t i = 0; i < names.size(); ++i) {
    BOOST_TEST_CONTEXT(names[i]) {
      Tensor got = exec.fetch(names[i]);
      BOOST_TEST(got.shape() == before[i].shape(), tt::per_element());
      BOOST_TEST(byte_values(got) == byte_values(before[i]), tt::per_element());
    }
  }
  for (size_t s = 3; s < 5; ++s) {  // a reset, then pos 0 and 1 again
    step_both(s, s == 3);
    exec.step();
    ref.step();
  }
  for (const auto& n : names) {
    BOOST_TEST_CONTEXT(n) {
      Tensor got = exec.fetch(n), want = ref.fetch(n);
      BOOST_TEST(byte_values(got) == byte_values(want), tt::per_element());
    }
  }
}

// Zero-sized values cross no bus: the fixture would be handed a NULL host pointer, so the
// host moves nothing for them (found by exec_run_fuzz, corpus regress_download_zero_sized).
BOOST_AUTO_TEST_CASE(zero_sized_values_move_nothing) {
  auto sim = simulate_on_devmem(R"(
dynamic { x: f32[0]; }
constant { one: f32 @init(1.0); }
volatile { y: f32[0]; }
persistent { acc: f32[0]; }
block entry {
  op add(x, acc) >> acc;   // on the device
  op mul(acc, one) >> y;   // the CPU fallback: acc comes back to the host
  return y, acc;
}
)");
  auto exec = sim.make_executor();
  for (int s = 0; s < 2; ++s) {
    exec.insert("x", Tensor(oi::DType::f32, {0}));
    exec.step();
    BOOST_TEST(exec.fetch("y").shape() == oi::Shape({0}), tt::per_element());
    BOOST_TEST(exec.fetch("acc").shape() == oi::Shape({0}), tt::per_element());
  }
}

BOOST_AUTO_TEST_SUITE_END()
