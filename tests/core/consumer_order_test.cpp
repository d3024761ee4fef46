// The SDK's order of a yield's consumers (plugin_api/include/openinfer/consumer_order.hpp). The
// expected orders are worked out by hand from the rule in docs/synth.md "Consumers of a yield":
// a table's writer after every other consumer that awaits it, otherwise source order.
#define BOOST_TEST_MODULE consumer_order
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "openinfer/consumer_order.hpp"

using oi::emit::order_consumers;
using oi::emit::YieldConsumer;
using Order = std::vector<size_t>;

BOOST_AUTO_TEST_CASE(plain_values_keep_source_order) {
  // x is copied (not in place): its writer needs no place of its own.
  std::vector<YieldConsumer> c = {{"a", {"x"}, {"x"}}, {"b", {"x"}, {}}, {"c", {"x"}, {}}};
  auto got = order_consumers(c, {});
  BOOST_TEST(got.error.empty());
  BOOST_TEST(got.order == (Order{0, 1, 2}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(table_writer_runs_after_its_readers) {
  // grow writes K (awaited by rd too), rd reads K and M, mat writes M: rd, grow, mat.
  std::vector<YieldConsumer> c = {
      {"grow", {"K"}, {"K", "g"}}, {"rd", {"K", "M"}, {"a"}}, {"mat", {"M"}, {"M", "mr"}}};
  auto got = order_consumers(c, {"K", "M"});
  BOOST_TEST(got.error.empty());
  BOOST_TEST(got.order == (Order{1, 0, 2}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(consumers_not_awaiting_the_table_keep_their_place) {
  // w writes K; u does not await K and stays first; v awaits K and moves before w.
  std::vector<YieldConsumer> c = {{"u", {"x"}, {}}, {"w", {"K"}, {"K"}}, {"v", {"K", "x"}, {}}};
  auto got = order_consumers(c, {"K"});
  BOOST_TEST(got.order == (Order{0, 2, 1}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(cycles_and_two_writers_have_no_order) {
  std::vector<YieldConsumer> cycle = {{"A", {"K", "M"}, {"K"}}, {"B", {"K", "M"}, {"M"}}};
  auto got = order_consumers(cycle, {"K", "M"});
  BOOST_TEST(got.order.empty());
  BOOST_TEST(got.error ==
             "consumers 'A', 'B' each await a table or @auto_dim matrix that "
             "another of them writes");
  std::vector<YieldConsumer> two = {{"A", {"K"}, {"K"}}, {"B", {"K"}, {"K"}}};
  BOOST_TEST(order_consumers(two, {"K"}).error == "consumers 'A' and 'B' both write 'K'");
}
