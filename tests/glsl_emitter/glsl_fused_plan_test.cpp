// Plans fused by hand around operands of run-time shape through the glsl target: the planner
// gives an op reading a whole @auto_dim matrix that grows, or a window of table entries of
// run-time length, or writing such a window, a kernel of its own (build_schedule.cpp's
// plain_operands), so graphs/fused_runtime.oi's plan is fused here into one kernel. The emitter
// runs its ops one after another (split_fused.hpp), as the simulator does: the values after the
// last step must be the simulator's and those computed here, for devices/lavapipe.json and
// devices/generic_vulkan.json. No Vulkan device: SKIPPED, exit 77.
#define BOOST_TEST_MODULE glsl_fused_plan
#include "glsl_case.hpp"

using namespace glsl_test;

namespace {

// The plan with every kernel fused into kernel 0 (its ops in plan order, the values only they
// touch internal), its other kernel steps gone: the graph's ops are consecutive, so kernel 0's
// step runs them all where the first ran.
std::string fuse_all(const std::string& plan_json, const std::set<std::string>& internal) {
  json::object p = json::parse(plan_json).as_object();
  json::array& kernels = p.at("kernels").as_array();
  BOOST_REQUIRE_MESSAGE(kernels.size() > 1, "nothing to fuse: " << kernels.size() << " kernel");
  json::object& one = kernels.front().as_object();
  std::set<std::string> reads, writes;
  for (const json::value& kv : kernels) {
    const json::object& k = kv.as_object();
    for (const json::value& v : k.at("reads").as_array()) reads.emplace(v.as_string());
    for (const json::value& v : k.at("writes").as_array()) writes.emplace(v.as_string());
    if (&k == &one) continue;
    for (const json::value& op : k.at("ops").as_array()) one.at("ops").as_array().push_back(op);
  }
  auto list = [](const std::set<std::string>& names) {
    json::array a;
    for (const std::string& n : names) a.emplace_back(n);
    return a;
  };
  one["reads"] = list(reads);
  one["writes"] = list(writes);
  one["internal"] = list(internal);
  kernels.resize(1);
  for (json::value& v : p.at("values").as_array())
    if (internal.count(std::string(v.as_object().at("name").as_string()))) {
      v.as_object()["storage"] = "internal";
      v.as_object().erase("offset");
    }
  json::array& steps = p.at("blocks").as_array().front().as_object().at("steps").as_array();
  json::array kept;
  for (const json::value& s : steps)
    if (s.as_object().at("kind") != "kernel" || s.as_object().at("kernel").to_number<int>() == 0)
      kept.push_back(s);
  steps = std::move(kept);
  return json::serialize(p);
}

const std::vector<std::vector<float>> kX = {{1, -2, 0.5f}, {3, 4, -1}, {-0.5f, 2, 6}};

// graphs/fused_runtime.oi by dsl.md and the op rules after kX.size() steps, every value exact
// in f32: M's row r is 1 plus x of steps r..s (a row added a step, @init 1), A = M * x, y the
// column sums of A, t = y * x, s the sum of every step's t, K[0] every x so far, q its column
// sums, S's row r x_r + t.
std::map<std::string, Tensor> expected() {
  const size_t steps = kX.size();
  std::vector<std::vector<float>> m;
  std::vector<float> s(3, 0.0f), y, t, q;
  std::vector<float> flat_m, flat_a, flat_s;
  for (size_t step = 0; step < steps; ++step) {
    const std::vector<float>& x = kX[step];
    m.push_back({1, 1, 1});  // add(M[n, 0], x) grows M by a row of @init 1, then adds x
    for (auto& row : m)
      for (size_t j = 0; j < 3; ++j) row[j] += x[j];
    flat_m.clear();
    flat_a.clear();
    y.assign(3, 0.0f);
    for (const auto& row : m)
      for (size_t j = 0; j < 3; ++j) {
        flat_m.push_back(row[j]);
        flat_a.push_back(row[j] * x[j]);
        y[j] += row[j] * x[j];
      }
    t.assign(3, 0.0f);
    q.assign(3, 0.0f);
    for (size_t j = 0; j < 3; ++j) {
      t[j] = y[j] * x[j];
      s[j] += t[j];
      for (size_t r = 0; r <= step; ++r) q[j] += kX[r][j];
    }
    flat_s.clear();
    for (size_t r = 0; r <= step; ++r)
      for (size_t j = 0; j < 3; ++j) flat_s.push_back(kX[r][j] + t[j]);
  }
  return {{"M", Tensor::from(flat_m, {steps, 3})},
          {"A", Tensor::from(flat_a, {steps, 3})},
          {"y", Tensor::from(y, {3})},
          {"s", Tensor::from(s, {3})},
          {"q", Tensor::from(q, {3})},
          {"S", Tensor::from(flat_s, {steps, 3})}};
}

Case fused_case(const std::string& name, const std::string& device) {
  Case c;
  c.name = name;
  c.source = read_text(fs::path(OPENINFER_SOURCE_DIR) / "tests" / "glsl_emitter" / "graphs" /
                       "fused_runtime.oi");
  c.model = [](ModelWriter&) {};
  for (const std::vector<float>& x : kX) c.step_inputs.push_back({{"x", Tensor::from(x, {3})}});
  c.steps = static_cast<int>(kX.size());
  c.fetch = {"M", "A", "y", "s", "q", "S"};
  c.device = device;
  c.plan_edit = [](const std::string& plan) { return fuse_all(plan, {"t"}); };
  c.want = expected();
  return c;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_kernel_fused_around_matrices_and_windows_of_run_time_length) {
  run_case(fused_case("fused_runtime", ""));
}

BOOST_AUTO_TEST_CASE(the_same_on_the_generic_vulkan_description) {
  run_case(
      fused_case("fused_runtime_generic",
                 (fs::path(OPENINFER_SOURCE_DIR) / "devices" / "generic_vulkan.json").string()));
}
