// The catalog that kernels plugins extend (plugin_catalog.hpp): the schema fields of
// docs/plugin-abi.md, errors naming the plugin, validation of graphs using the new ops, and
// the real softplus fixture plugin loaded from disk.
#define BOOST_TEST_MODULE plugin_catalog
#include <boost/test/unit_test.hpp>
#include <string>

#include "openinfer/error.hpp"
#include "openinfer/graph.hpp"
#include "openinfer/plugin_catalog.hpp"
#include "openinfer/validate.hpp"

using namespace oi;

namespace {

// A schema with every extended field: three inputs of which the last is optional, per-input
// dtypes, an op-local typed setting with a default, a default for a shared setting, and the
// short output-shape name "input0".
constexpr const char* kBlend = R"({"blend": {"category": "numerical", "inputs": 3,
  "min_inputs": 2, "max_inputs": 3, "input_dtypes": ["op", ["i32", "i64"], "input0"],
  "settings": ["beta", "alpha"], "setting_types": {"beta": "number"},
  "setting_defaults": {"beta": 2.5, "alpha": 0.125},
  "output_dtype": "input0", "output_shape": "input0", "dtypes": ["f32", "f64"]},
  "total": {"category": "reduction", "inputs": 1, "settings": ["axes", "keepdims"],
  "output_dtype": "input0", "output_shape": "reduce", "dtypes": ["f32"]}})";

std::string error_text(const std::vector<PluginOpSchemas>& schemas) {
  try {
    catalog_with_schemas(schemas);
  } catch (const Error& e) {
    BOOST_TEST((e.kind() == ErrorKind::Input));
    return e.what();
  }
  return "(no error)";
}

}  // namespace

BOOST_AUTO_TEST_CASE(extended_fields_are_ingested) {
  const OpCatalog cat = catalog_with_schemas({{"blendplug", kBlend}});
  BOOST_TEST(cat.size() == OpCatalog::builtin().size() + 2);
  const OpSchema* op = cat.find("blend");
  BOOST_TEST_REQUIRE(op != nullptr);
  BOOST_TEST(op->min_inputs() == 2u);
  BOOST_TEST(op->max_inputs() == 3u);
  BOOST_TEST(!op->inputs[1].optional);
  BOOST_TEST(op->inputs[2].optional);
  BOOST_TEST((op->inputs[0].dtype_rule.kind == InputDtypeRule::Kind::OpDtypes));
  BOOST_TEST((op->inputs[1].dtype_rule.kind == InputDtypeRule::Kind::Explicit));
  BOOST_TEST((op->inputs[1].dtype_rule.dtypes == std::vector<DType>{DType::i32, DType::i64}));
  BOOST_TEST((op->inputs[2].dtype_rule.kind == InputDtypeRule::Kind::SameAsInput0));
  BOOST_TEST(op->shape_rule == "same_as_input0");
  const SettingSpec* beta = op->find_setting("beta");
  BOOST_TEST_REQUIRE(beta != nullptr);
  BOOST_TEST((beta->type == SettingType::Number));
  BOOST_TEST((beta->default_value == CatalogValue(2.5)));
  // A plugin's default for a shared setting is its own: the shared table and relu keep 0.
  BOOST_TEST((op->find_setting("alpha")->default_value == CatalogValue(0.125)));
  BOOST_TEST((op->find_setting("negative_slope") == op->find_setting("alpha")));
  BOOST_TEST((cat.shared_settings().at("alpha").default_value == CatalogValue(0.0)));
  BOOST_TEST((cat.find("relu")->find_setting("alpha")->default_value == CatalogValue(0.0)));
  BOOST_TEST(cat.find("total")->shape_rule == "reduce_axes");
  BOOST_TEST(OpCatalog::builtin().find("blend") == nullptr);
}

BOOST_AUTO_TEST_CASE(graphs_using_plugin_ops_validate_only_with_the_plugin) {
  const OpCatalog cat = catalog_with_schemas({{"blendplug", kBlend}});
  const std::string text = R"(dynamic { x: f32[4]; i: i32[4]; }
volatile { y: f32[4]; }
block entry {
  op blend(x, i, beta=3.0) >> y;
  op blend(x, i, x) >> y;
  return y;
}
)";
  const Graph g = Graph::parse(text, "g.oi");
  const Diagnostics with = validate_graph(g, cat);
  BOOST_TEST(with.ok(), with.format());
  const Diagnostics without = validate_graph(g);
  BOOST_TEST(!without.ok());
  BOOST_TEST(without.format().find("unknown op 'blend'") != std::string::npos);

  // The schema's rules apply: one input is too few, and beta is a number.
  const Graph bad = Graph::parse(R"(dynamic { x: f32[4]; }
volatile { y: f32[4]; }
block entry {
  op blend(x) >> y;
  op blend(x, x, beta=true) >> y;
  return y;
}
)",
                                 "bad.oi");
  const std::string errors = validate_graph(bad, cat).format();
  BOOST_TEST(
      errors.find("bad.oi:4:3: error: op 'blend' takes 2 to 3 inputs, got 1") != std::string::npos,
      errors);
  BOOST_TEST(errors.find("setting 'beta' of op 'blend' takes number") != std::string::npos, errors);
}

BOOST_AUTO_TEST_CASE(errors_name_the_plugin_and_the_op) {
  const std::string minimal =
      R"({"category": "x", "inputs": 1, "output_dtype": "input0", "dtypes": ["f32"]})";
  std::string e = error_text({{"clash", R"({"add": )" + minimal + "}"}});
  BOOST_TEST(e.find("plugin 'clash'") != std::string::npos, e);
  BOOST_TEST(e.find("op 'add' is already in the catalog") != std::string::npos, e);

  // The second plugin to define an op is the one named.
  e = error_text(
      {{"first", R"({"twin": )" + minimal + "}"}, {"second", R"({"twin": )" + minimal + "}"}});
  BOOST_TEST(e.find("plugin 'second'") != std::string::npos, e);

  e = error_text({{"broken", "{\"x\": "}});
  BOOST_TEST(e.find("plugin 'broken'") != std::string::npos, e);
  BOOST_TEST(e.find("not valid JSON") != std::string::npos, e);
  e = error_text({{"listy", "[1, 2]"}});
  BOOST_TEST(e.find("plugin 'listy': bad op schema: op_schemas_json must be a JSON object") !=
                 std::string::npos,
             e);

  // Each malformed extended field, with the op and the field named.
  const auto field_error = [&](const std::string& extra, const std::string& expect) {
    const std::string entry = R"({"category": "x", "inputs": 2, "output_dtype": "input0",
        "dtypes": ["f32"], )" +
                              extra + "}";
    const std::string msg = error_text({{"p", R"({"newop": )" + entry + "}"}});
    BOOST_TEST(msg.find("plugin 'p'") != std::string::npos, msg);
    BOOST_TEST(msg.find("op 'newop'") != std::string::npos, msg);
    BOOST_TEST(msg.find(expect) != std::string::npos, msg);
  };
  field_error(R"("settings": ["gamma"])", "setting 'gamma' is not in the settings table");
  field_error(R"("settings": ["gamma"], "setting_types": {"gamma": "complex"})",
              "unknown setting type 'complex'");
  field_error(R"("settings": [], "setting_types": {"gamma": "int"})",
              "'setting_types' names 'gamma', which is not in 'settings'");
  field_error(R"("settings": [], "setting_defaults": {"gamma": 1})",
              "'setting_defaults' names 'gamma'");
  field_error(R"("settings": ["gamma"], "setting_types": {"gamma": "int"},
      "setting_defaults": {"gamma": 1.5})",
              "default does not have the setting's type int");
  field_error(R"("min_inputs": 3)", "'min_inputs' must be between 0 and the number of 'inputs'");
  field_error(R"("max_inputs": 5)", "'max_inputs' must equal the number of 'inputs' (2)");
  field_error(R"("input_dtypes": [["f32"]])", "'input_dtypes' must hold one entry per input (2)");
  field_error(R"("input_dtypes": ["op", ["q7"]])", "unknown dtype 'q7'");
  field_error(R"("output_shape": "spiral")", "unknown output-shape rule 'spiral'");
}

BOOST_AUTO_TEST_CASE(the_softplus_fixture_plugin_adds_its_op) {
  const PluginRegistry registry = PluginRegistry::discover({FIXTURE_PLUGIN_DIR});
  const OpCatalog cat = catalog_with_plugins(registry);
  const OpSchema* op = cat.find("softplus");
  BOOST_TEST_REQUIRE(op != nullptr);
  BOOST_TEST(op->shape_rule == "same_as_input0");
  BOOST_TEST(op->inplace);
  BOOST_TEST((op->dtypes == std::vector<DType>{DType::f32, DType::f64}));
  BOOST_TEST_REQUIRE(op->find_setting("beta") != nullptr);
  BOOST_TEST((op->find_setting("beta")->default_value == CatalogValue(1.0)));
  // No plugins: exactly the builtin catalog.
  BOOST_TEST(catalog_with_plugins(PluginRegistry{}).names() == OpCatalog::builtin().names());
}
