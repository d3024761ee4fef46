// Scopes in the synthesizer's plan (dsl.md "Scopes", synth.md "Reordering"): a scope boundary
// splits a fused group, fuse=false gives one kernel per op, an independent op moves up to
// lengthen a group unless no_reorder or a barrier stands in the way, and kernels carry their
// scope and placement into the JSON form and the report. Groups are read off the graphs by hand.
#define BOOST_TEST_MODULE synth_scopes
#include <boost/test/unit_test.hpp>
#include <string>

#include "openinfer/model.hpp"
#include "openinfer/synth.hpp"

using namespace oi;

namespace {

Plan plan_of(const std::string& source) {
  static const Model model = [] {
    ModelWriter w;
    w.add_sizevar("B", 4);
    w.add_sizevar("D", 3);
    return Model::from_bytes(w.to_bytes(), "m.oinf");
  }();
  return Synthesizer::for_target("c").synthesize(model, Graph::parse(source, "t.oi"));
}

// "add mul | sub": each kernel's ops in run order, kernels separated by " | ".
std::string groups(const Plan& p) {
  std::string s;
  for (const PlanKernel& k : p.kernels) {
    if (!s.empty()) s += " | ";
    for (size_t i = 0; i < k.ops.size(); ++i) s += (i ? " " : "") + k.ops[i]->op;
  }
  return s;
}

const std::string kDecls =
    "dynamic { x: f32[B]; v: f32[D]; }\nvolatile { y: f32[B]; z: f32[B]; w: f32[D]; s: f32; }\n";

std::string entry(const std::string& body) {
  return kDecls + "block entry {\n" + body + "  return y;\n}\n";
}

// add and mul over [B] with an independent op over [D] between them: reordering moves mul up.
std::string interleaved(const std::string& open, const std::string& between = "",
                        const std::string& close = "") {
  return entry(open + "  op add(x, x) >> y;\n  op relu(v) >> w;\n" + between +
               "  op mul(y, x) >> y;\n" + close);
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_scope_boundary_splits_a_fused_group) {
  BOOST_TEST(groups(plan_of(entry("  op add(x, x) >> y;\n  op mul(y, x) >> y;\n"))) == "add mul");
  const Plan p = plan_of(entry("  op add(x, x) >> y;\n  scope s { op mul(y, x) >> y; }\n"));
  BOOST_TEST(groups(p) == "add | mul");
  BOOST_TEST(p.kernels[0].scope == "");
  BOOST_TEST(p.kernels[1].scope == "s");
  // Inside one scope the group forms as usual; a nested scope is a boundary too.
  BOOST_TEST(groups(plan_of(entry("  scope s { op add(x, x) >> y; op mul(y, x) >> y; scope t { op "
                                  "sub(y, x) >> y; } }\n"))) == "add mul | sub");
}

BOOST_AUTO_TEST_CASE(fuse_false_turns_fusion_off_inside_the_scope_and_its_scopes) {
  const Plan p =
      plan_of(entry("  scope s (fuse=false) { op add(x, x) >> y; op mul(y, x) >> y; scope t { op "
                    "sub(y, x) >> y; op relu(y) >> y; } }\n"
                    "  op add(y, x) >> y;\n  op mul(y, x) >> y;\n"));
  BOOST_TEST(groups(p) == "add | mul | sub | relu | add mul");
  BOOST_TEST(p.kernels[3].scope == "s.t");
}

BOOST_AUTO_TEST_CASE(reordering_lengthens_a_group) {
  const Plan p = plan_of(interleaved(""));
  BOOST_TEST(groups(p) == "add mul | relu");
  BOOST_TEST(p.kernels[0].reordered);
  BOOST_TEST(!p.kernels[1].reordered);
  BOOST_TEST((p.find_value("y")->storage == Storage::Step));
  // The same inside a scope.
  BOOST_TEST(groups(plan_of(interleaved("  scope s {\n", "", "  }\n"))) == "add mul | relu");
}

BOOST_AUTO_TEST_CASE(no_reorder_and_a_barrier_prevent_the_reordering) {
  BOOST_TEST(groups(plan_of(interleaved("  scope s (no_reorder=true) {\n", "", "  }\n"))) ==
             "add | relu | mul");
  BOOST_TEST(groups(plan_of(interleaved("", "  barrier;\n"))) == "add | relu | mul");
  // Nor across a dep, a cache operation or a scope boundary.
  BOOST_TEST(groups(plan_of(interleaved("", "  dep after(relu) before(mul);\n"))) ==
             "add | relu | mul");
  BOOST_TEST(groups(plan_of(entry("  op add(x, x) >> y;\n  op relu(v) >> w;\n"
                                  "  scope s { op mul(y, x) >> y; }\n"))) == "add | relu | mul");
}

BOOST_AUTO_TEST_CASE(reordering_never_passes_a_dependent_op) {
  // sum_axis reads the y that add wrote and mul overwrites: mul may not move above it.
  BOOST_TEST(groups(plan_of(entry("  op add(x, x) >> y;\n  op sum_axis(y, axes=[0]) >> s;\n"
                                  "  op mul(y, x) >> y;\n"))) == "add | sum_axis | mul");
  // s is written by the op between and read by the candidate.
  BOOST_TEST(groups(plan_of(entry("  op add(x, x) >> y;\n  op sum_axis(x, axes=[0]) >> s;\n"
                                  "  op mul(y, s) >> y;\n"))) == "add | sum_axis | mul");
}

BOOST_AUTO_TEST_CASE(kernels_carry_scope_and_placement_into_json_and_report) {
  const Plan p =
      plan_of(entry("  scope attention (placement=\"vulkan\") { scope qk { op add(x, x) >> y; op "
                    "mul(y, x) >> y; } }\n"
                    "  scope tail { transfer y >> z; }\n"));
  BOOST_TEST(p.kernels[0].scope == "attention.qk");
  BOOST_TEST(p.kernels[0].placement == "vulkan");
  const std::string json = p.to_json();
  BOOST_TEST(json.find(R"("scope": "attention.qk")") != std::string::npos);
  BOOST_TEST(json.find(R"("placement": "vulkan")") != std::string::npos);
  BOOST_TEST(json.find(R"("scope": "tail")") != std::string::npos);  // the transfer's step
  BOOST_TEST(p.report().find("add mul  scope attention.qk placement vulkan") != std::string::npos,
             p.report());
  const Plan r = plan_of(interleaved(""));
  BOOST_TEST(r.report().find("add mul  (reordered)") != std::string::npos, r.report());
}
