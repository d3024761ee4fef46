#define BOOST_TEST_MODULE seed_graphs
#include <boost/test/unit_test.hpp>

#include "validate_test_util.hpp"

using namespace oi;

namespace {

Diagnostics check_seed(const std::string& name) {
  return validate_graph(
      Graph::load(std::string(OPENINFER_SOURCE_DIR) + "/tests/validate/seeds/" + name));
}

}  // namespace

BOOST_AUTO_TEST_CASE(valid_seed_graphs_validate_cleanly) {
  for (const char* name :
       {"minimal.oi", "sections.oi", "snippets.oi", "yield.oi", "matmul_002.oi"}) {
    BOOST_TEST_CONTEXT(name) {
      auto d = check_seed(name);
      BOOST_TEST(d.messages().empty(), d.format());
    }
  }
}

// The seeds call ops that are not in the catalog: exactly that error, nothing else.
BOOST_AUTO_TEST_CASE(branch_seed_calls_fill_nan_like) {
  auto d = check_seed("branch.oi");
  BOOST_TEST_REQUIRE(d.messages().size() == 1u, d.format());
  BOOST_TEST(oi::test::has_message(d, "28:3", "unknown op 'fill_nan_like'"));
}

BOOST_AUTO_TEST_CASE(cache_step_seed_calls_attn) {
  auto d = check_seed("cache_step.oi");
  BOOST_TEST_REQUIRE(d.messages().size() == 1u, d.format());
  BOOST_TEST(oi::test::has_message(d, "30:7", "unknown op 'attn'"));
}
