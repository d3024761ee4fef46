// yield/await (dsl.md "Concurrency"): consumers start from the yielded snapshot, run in
// parallel on oneTBB, and their writes come back at entry's await.
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "test_support.hpp"

using namespace exec_test;
using oi::Tensor;
namespace tt = boost::test_tools;

namespace {
constexpr int kN = 65536;
constexpr int kRepeats = 120;

const std::string kPipeline = R"(
dynamic { x: f32[N]; }
volatile {
  a: f32[N];
  b: f32[N];
  sq: f32[N];
  other: f32[N];
  y: f32[N];
}
constant { one: f32 @init(1.0); }
block entry {
  op add(x, one) >> a;
  transfer a >> b;
  yield a, b;
  op add(x, x) >> other;
  await a, b;
  op add(a, b) >> y;
  return y;
}
block bumper {
  await a;
  loop rep (r in 0..R) {
    op add(a, one) >> a;
  }
  yield a;
}
block squarer {
  await a, b;
  loop rep (r in 0..R) {
    op mul(a, b) >> sq;
  }
  yield a, b;
}
)";

struct Span {
  int64_t start = INT64_MAX;
  int64_t end = 0;
};
}  // namespace

BOOST_AUTO_TEST_SUITE(concurrency)

BOOST_AUTO_TEST_CASE(streaming_pipeline) {
  oi::ModelWriter w;
  w.add_sizevar("N", kN);
  w.add_sizevar("R", kRepeats);
  auto sim = simulate(w, kPipeline);
  auto exec = sim.make_executor();
  exec.set_timing(true);
  bool overlapped = false, kernels_overlapped = false;
  // Values are checked every step. Overlap needs the OS to give oneTBB's worker a core while the
  // consumers (about a millisecond each) run; on a machine saturated by other tests a worker can
  // sleep through many steps, so keep stepping for up to a few seconds before concluding.
  const bool can_overlap = tbb::this_task_arena::max_concurrency() >= 2;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  int steps = 0;
  for (int step = 0; step < 3 || (can_overlap && !(overlapped && kernels_overlapped) &&
                                  std::chrono::steady_clock::now() < deadline);
       ++step) {
    ++steps;
    std::vector<float> x(kN);
    for (int i = 0; i < kN; ++i) x[i] = static_cast<float>((i % 97) - 48 + step);
    exec.insert("x", Tensor::from<float>(x));
    exec.step();
    auto y = values<float>(exec, "y");
    auto sq = values<float>(exec, "sq");
    auto a = values<float>(exec, "a");
    for (int i = 0; i < kN; i += 997) {
      float snap = x[i] + 1;
      // bumper's writes come back; b was never written by a consumer, so it is the snapshot.
      BOOST_TEST(a[i] == snap + kRepeats);
      BOOST_TEST(y[i] == (snap + kRepeats) + snap);
      // squarer saw the snapshot, never bumper's writes.
      BOOST_TEST(sq[i] == snap * snap);
    }
    Span spans[3];
    std::vector<Span> ops[3];
    for (const auto& ev : exec.events()) {
      if (ev.kind == oi::NodeKind::Op && ev.track > 0 && ev.track <= 2)
        ops[ev.track].push_back({ev.start_ns, ev.end_ns});
      BOOST_TEST(ev.track <= 2u);
      spans[ev.track].start = std::min(spans[ev.track].start, ev.start_ns);
      spans[ev.track].end = std::max(spans[ev.track].end, ev.end_ns);
    }
    if (step < 3)
      BOOST_TEST_MESSAGE("consumer spans: [" << spans[1].start << ", " << spans[1].end << "] and ["
                                             << spans[2].start << ", " << spans[2].end << "]");
    BOOST_TEST(spans[1].end > 0);
    BOOST_TEST(spans[2].end > 0);
    overlapped = overlapped || (spans[1].start < spans[2].end && spans[2].start < spans[1].end);
    // The CPU backend reports OI_FEATURE_CONCURRENT_KERNELS, so the host does not serialise
    // kernel calls: some op of one consumer runs while an op of the other does.
    for (const Span& p : ops[1])
      for (const Span& q : ops[2])
        kernels_overlapped = kernels_overlapped || (p.start < q.end && q.start < p.end);
  }
  BOOST_TEST_MESSAGE("steps until overlap: " << steps);
  if (!can_overlap) {
    BOOST_TEST_MESSAGE("oneTBB has one thread here: consumers cannot overlap, not checked");
    return;
  }
  BOOST_TEST(kernels_overlapped);
  // The two consumers ran at the same time in at least one step.
  BOOST_TEST(overlapped);
}

BOOST_AUTO_TEST_SUITE_END()
