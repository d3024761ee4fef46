// Every graph of the corpus (seed examples, original-implementation style, full language)
// parses, and JSON round-trips to identical text.
#define BOOST_TEST_MODULE frontend_corpus
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <vector>

#include "openinfer/graph.hpp"
#include "openinfer/graph_json.hpp"

namespace fs = std::filesystem;

static std::vector<fs::path> corpus_files() {
  std::vector<fs::path> files;
  for (const auto& entry :
       fs::directory_iterator(fs::path(OPENINFER_SOURCE_DIR) / "tests" / "frontend" / "corpus")) {
    if (entry.path().extension() == ".oi") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

BOOST_AUTO_TEST_CASE(corpus_is_not_empty) {
  BOOST_TEST(corpus_files().size() >= 9u);
}

BOOST_AUTO_TEST_CASE(every_corpus_graph_parses_and_round_trips) {
  for (const fs::path& file : corpus_files()) {
    BOOST_TEST_CONTEXT(file.filename().string()) {
      oi::Graph graph = oi::Graph::load(file);
      BOOST_TEST(!graph.blocks.empty());
      std::string first = oi::graph_to_json(graph);
      oi::Graph reread = oi::graph_from_json(first, "reread.json");
      std::string second = oi::graph_to_json(reread);
      BOOST_TEST(first == second);
      BOOST_TEST((reread == graph));
      BOOST_TEST(reread.node_count() == graph.node_count());
    }
  }
}

BOOST_AUTO_TEST_CASE(original_style_graph_keeps_repeated_sections_in_order) {
  oi::Graph graph =
      oi::Graph::load(fs::path(OPENINFER_SOURCE_DIR) / "tests/frontend/corpus/original_style.oi");
  std::vector<std::string> names;
  for (const oi::VarDecl& decl : graph.decls) names.push_back(decl.name);
  std::vector<std::string> expected = {"q", "zero", "h", "W", "bias", "num_layers"};
  BOOST_TEST(names == expected, boost::test_tools::per_element());
  BOOST_TEST((graph.decls[3].memory == oi::MemoryKind::Volatile));
  const oi::Node& loop = graph.blocks[0].nodes[2];
  BOOST_TEST((loop.kind == oi::NodeKind::Loop));
  BOOST_TEST(loop.end.name == "num_layers");
  // 1 entry block: add, transfer, loop(3 nodes), loop(1 node), return = 9 nodes.
  BOOST_TEST(graph.node_count() == 9u);
}
