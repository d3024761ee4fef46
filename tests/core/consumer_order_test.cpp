// The SDK's order of a yield's consumers (plugin_api/include/openinfer/consumer_order.hpp). The
// expected orders are worked out by hand from the rule in docs/synth.md "Consumers of a yield":
// a table's writer after every other consumer that awaits it, otherwise source order.
#define BOOST_TEST_MODULE consumer_order
#include <boost/test/unit_test.hpp>
#include <set>
#include <string>
#include <vector>

#include "openinfer/consumer_order.hpp"

using oi::emit::order_consumers;
using oi::emit::plan_consumers;
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
BOOST_AUTO_TEST_CASE(a_cycle_copies_the_tables_written_before_a_reader) {
  // A writes K and awaits M, B writes M and awaits K: source order, and K (its writer A before
  // its reader B) is copied; M's reader A runs before its writer B, so M is not.
  std::vector<YieldConsumer> cycle = {{"A", {"K", "M"}, {"K"}}, {"B", {"K", "M"}, {"M"}}};
  auto got = plan_consumers(cycle, {"K", "M"});
  BOOST_TEST(got.order.error.empty());
  BOOST_TEST(got.order.order == (Order{0, 1}), boost::test_tools::per_element());
  BOOST_TEST(got.copied == (std::set<std::string>{"K"}), boost::test_tools::per_element());
  // The other way round: M copied. A reader C of both after them: both copied.
  std::vector<YieldConsumer> three = {
      {"B", {"K", "M"}, {"M"}}, {"A", {"K", "M"}, {"K"}}, {"C", {"K", "M"}, {"c"}}};
  got = plan_consumers(three, {"K", "M"});
  BOOST_TEST(got.order.order == (Order{0, 1, 2}), boost::test_tools::per_element());
  BOOST_TEST(got.copied == (std::set<std::string>{"K", "M"}), boost::test_tools::per_element());
  // Without a cycle nothing is copied and the writer runs after its readers.
  std::vector<YieldConsumer> plain = {{"W", {"K"}, {"K"}}, {"R", {"K"}, {"r"}}};
  got = plan_consumers(plain, {"K"});
  BOOST_TEST(got.copied.empty());
  BOOST_TEST(got.order.order == (Order{1, 0}), boost::test_tools::per_element());
  // Two writers of one table stay an error.
  std::vector<YieldConsumer> two = {{"A", {"K"}, {"K"}}, {"B", {"K"}, {"K"}}};
  BOOST_TEST(plan_consumers(two, {"K"}).order.error == "consumers 'A' and 'B' both write 'K'");
}
