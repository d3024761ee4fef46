#define BOOST_TEST_MODULE op_catalog
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <fstream>
#include <sstream>

#include "openinfer/error.hpp"
#include "openinfer/op_catalog.hpp"

using namespace oi;
namespace json = boost::json;

namespace oi {
std::ostream& operator<<(std::ostream& os, DType t) {
  return os << dtype_name(t);
}
}  // namespace oi
BOOST_TEST_DONT_PRINT_LOG_VALUE(oi::SettingType)
BOOST_TEST_DONT_PRINT_LOG_VALUE(oi::OutputDtypeRule::Kind)
BOOST_TEST_DONT_PRINT_LOG_VALUE(oi::InputDtypeRule::Kind)

namespace {

// ops.md's 47 ops and the 23 of ops-nn.md added for issue 9: exp log sqrt sin cos tanh erf
// rsqrt sigmoid silu gelu pow softmax log_softmax reshape transpose concat gather iota
// layer_norm rms_norm slice pad.
constexpr size_t kBuiltinOps = 47 + 30;  // ops.md + ops-nn.md

json::object spec_catalog() {
  std::ifstream in(std::string(OPENINFER_SOURCE_DIR) + "/core/data/op_catalog.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str()).as_object();
}

std::vector<std::string> dtype_names(const std::vector<DType>& ts) {
  std::vector<std::string> out;
  for (DType t : ts) out.emplace_back(dtype_name(t));
  return out;
}

std::vector<std::string> strings(const json::value& v) {
  std::vector<std::string> out;
  for (const auto& e : v.as_array()) out.emplace_back(e.as_string());
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_spec_op_loads_with_its_fields) {
  const auto spec = spec_catalog();
  const auto& ops = spec.at("ops").as_object();
  const OpCatalog& cat = OpCatalog::builtin();
  // The 47 ops of ops.md and the ops-nn.md ops added so far (issue 9).
  BOOST_TEST(ops.size() == kBuiltinOps);
  BOOST_TEST(cat.size() == ops.size());
  for (const auto& [name, v] : ops) {
    BOOST_TEST_CONTEXT("op " << name) {
      const auto& o = v.as_object();
      const OpSchema* op = cat.find(std::string_view(name));
      BOOST_TEST_REQUIRE(op != nullptr);
      BOOST_TEST(op->category == std::string(o.at("category").as_string()));
      if (o.at("inputs").is_int64()) {
        BOOST_TEST(op->min_inputs() == o.at("inputs").as_int64());
        BOOST_TEST(op->max_inputs() == o.at("inputs").as_int64());
      } else {
        BOOST_TEST(op->inputs.size() == o.at("inputs").as_array().size());
      }
      BOOST_TEST(op->broadcast == o.at("broadcast").as_bool());
      BOOST_TEST(op->inplace == o.at("inplace").as_bool());
      BOOST_TEST(dtype_names(op->dtypes) == strings(o.at("dtypes")));
      std::vector<std::string> setting_names;  // a name, or an inline {"name": ...} object
      for (const auto& s : o.at("settings").as_array())
        setting_names.emplace_back(s.is_string() ? s.as_string()
                                                 : s.as_object().at("name").as_string());
      BOOST_TEST(op->settings.size() == setting_names.size());
      for (const auto& s : setting_names) BOOST_TEST(op->find_setting(s) != nullptr);
      if (o.contains("accumulate")) {
        for (const auto& [from, to] : o.at("accumulate").as_object()) {
          DType f = *dtype_from_name(std::string_view(from));
          for (const auto& t : strings(to))
            BOOST_TEST(op->allows_accumulate(f, *dtype_from_name(t)));
        }
      } else {
        BOOST_TEST(op->accumulate.empty());
      }
      if (o.contains("to_dtypes"))
        BOOST_TEST(dtype_names(op->to_dtypes) == strings(o.at("to_dtypes")));
    }
  }
}

BOOST_AUTO_TEST_CASE(settings_types_defaults_and_aliases) {
  const OpCatalog& cat = OpCatalog::builtin();
  const OpSchema* relu = cat.find("relu");
  BOOST_TEST_REQUIRE(relu != nullptr);
  const SettingSpec* alpha = relu->find_setting("negative_slope");
  BOOST_TEST_REQUIRE(alpha != nullptr);
  BOOST_TEST(alpha->name == "alpha");
  BOOST_TEST(alpha->type == SettingType::Number);
  BOOST_TEST(std::get<double>(*alpha->default_value) == 0.0);
  const SettingSpec* cmin = relu->find_setting("clamp_min");
  BOOST_TEST(std::isinf(std::get<double>(*cmin->default_value)));
  BOOST_TEST(std::get<double>(*cmin->default_value) < 0);

  const OpSchema* shl = cat.find("shl");
  BOOST_TEST(shl->find_setting("bits")->required);
  BOOST_TEST(shl->find_setting("bits")->type == SettingType::Int);

  const OpSchema* cast = cat.find("cast");
  BOOST_TEST(cast->output_dtype.kind == OutputDtypeRule::Kind::Setting);
  BOOST_TEST(cast->output_dtype.setting == "to");
  const SettingSpec* rm = cast->find_setting("rounding_mode");
  BOOST_TEST(rm->type == SettingType::String);
  BOOST_TEST(
      rm->allowed_values == (std::vector<std::string>{"trunc", "floor", "ceil", "nearest_even"}),
      boost::test_tools::per_element());
  BOOST_TEST(std::get<std::string>(*rm->default_value) == "trunc");
  BOOST_TEST(cast->to_dtypes.size() == 20u);

  BOOST_TEST(cat.find("sum_axis")->find_setting("axes")->type == SettingType::IntList);
  BOOST_TEST(!cat.find("sum_axis")->find_setting("axes")->default_value.has_value());
  BOOST_TEST(cat.find("argmax_axis")->output_dtype.kind == OutputDtypeRule::Kind::Fixed);
  BOOST_TEST(cat.find("argmax_axis")->output_dtype.fixed == DType::i64);
  BOOST_TEST(cat.find("add")->find_setting("alpha") == nullptr);
}

BOOST_AUTO_TEST_CASE(input_dtype_and_shape_rules) {
  const OpCatalog& cat = OpCatalog::builtin();
  BOOST_TEST(cat.find("is_finite")->shape_rule == "scalar");
  BOOST_TEST(cat.find("sum_axis")->shape_rule == "reduce_axes");
  BOOST_TEST(cat.find("argmin_axis")->shape_rule == "argreduce_axis");
  BOOST_TEST(cat.find("matmul")->shape_rule == "matmul");
  BOOST_TEST(cat.find("add")->shape_rule == "broadcast");
  const OpSchema* filter = cat.find("filter");
  BOOST_TEST(filter->input_at(1)->dtype_rule.kind == InputDtypeRule::Kind::SameAsInput0);
  BOOST_TEST(filter->input_at(2)->dtype_rule.dtypes == std::vector<DType>{DType::boolean});
  BOOST_TEST(filter->input_at(3) == nullptr);
  BOOST_TEST(cat.find("add")->input_at(0)->dtype_rule.kind == InputDtypeRule::Kind::OpDtypes);
}

BOOST_AUTO_TEST_CASE(lookups) {
  const OpCatalog& cat = OpCatalog::builtin();
  BOOST_TEST(cat.find("nope") == nullptr);
  BOOST_TEST(cat.find("fill_nan_like") == nullptr);
  auto names = cat.names();
  BOOST_TEST(names.size() == kBuiltinOps);
  BOOST_TEST(std::is_sorted(names.begin(), names.end()));
  BOOST_TEST(cat.find("add")->supports(DType::u4));
  BOOST_TEST(!cat.find("abs")->supports(DType::u8));
  BOOST_TEST(cat.find("add")->allows_accumulate(DType::i8, DType::i32));
  BOOST_TEST(!cat.find("add")->allows_accumulate(DType::i8, DType::u32));
  BOOST_TEST(!cat.find("add")->allows_accumulate(DType::f32, DType::f64));
}

BOOST_AUTO_TEST_CASE(adding_ops_from_json) {
  OpCatalog cat = OpCatalog::builtin();
  cat.add_from_json("concat_x", R"({"category": "movement",
      "inputs": [{"name": "x", "variadic": [1, 16]}],
      "settings": [{"name": "axis", "type": "int", "default": 0}],
      "output_dtype": "input0", "output_shape": "declared", "dtypes": ["f32", "i8"]})");
  const OpSchema* concat = cat.find("concat_x");
  BOOST_TEST_REQUIRE(concat != nullptr);
  BOOST_TEST(concat->min_inputs() == 1u);
  BOOST_TEST(concat->max_inputs() == 16u);
  BOOST_TEST(concat->input_at(15)->name == "x");
  BOOST_TEST(concat->input_at(16) == nullptr);
  BOOST_TEST(std::get<int64_t>(*concat->find_setting("axis")->default_value) == 0);

  cat.add_from_json("gather_x", R"({"category": "movement",
      "inputs": [{"name": "data"}, {"name": "indices", "dtypes": ["i32", "i64"]}],
      "settings": ["axis"], "output_dtype": "input0", "dtypes": ["f32"]})");
  const OpSchema* gather = cat.find("gather_x");
  BOOST_TEST(gather->input_at(1)->dtype_rule.kind == InputDtypeRule::Kind::Explicit);
  BOOST_TEST(gather->input_at(1)->dtype_rule.dtypes.size() == 2u);
  BOOST_TEST(gather->shape_rule == "broadcast");
  BOOST_TEST(OpCatalog::builtin().find("gather_x") == nullptr);  // the builtin stays as it was
  BOOST_TEST(cat.size() == kBuiltinOps + 2);
}

static bool message_has(const oi::Error& e, const std::string& text) {
  return std::string(e.what()).find(text) != std::string::npos;
}

BOOST_AUTO_TEST_CASE(bad_schemas_are_rejected_with_clear_errors) {
  OpCatalog cat = OpCatalog::builtin();
  const char* minimal =
      R"({"category": "x", "inputs": 1, "output_dtype": "input0", "dtypes": ["f32"]})";
  BOOST_CHECK_EXCEPTION(cat.add_from_json("add", minimal), oi::Error, [](const auto& e) {
    return message_has(e, "'add' is already in the catalog");
  });
  BOOST_CHECK_EXCEPTION(cat.add_from_json("x1", "{not json"), oi::Error,
                        [](const auto& e) { return message_has(e, "not valid JSON"); });
  BOOST_CHECK_EXCEPTION(
      cat.add_from_json(
          "x2", R"({"category": "x", "inputs": 1, "output_dtype": "input0", "dtypes": ["f33"]})"),
      oi::Error, [](const auto& e) { return message_has(e, "unknown dtype 'f33'"); });
  BOOST_CHECK_EXCEPTION(
      cat.add_from_json(
          "x3",
          R"({"category": "x", "inputs": 1, "settings": ["nope"], "output_dtype": "input0", "dtypes": ["f32"]})"),
      oi::Error,
      [](const auto& e) { return message_has(e, "setting 'nope' is not in the settings table"); });
  BOOST_CHECK_EXCEPTION(
      cat.add_from_json(
          "x4",
          R"({"category": "x", "inputs": 1, "output_shape": "spiral", "output_dtype": "input0", "dtypes": ["f32"]})"),
      oi::Error,
      [](const auto& e) { return message_has(e, "unknown output-shape rule 'spiral'"); });
  BOOST_CHECK_EXCEPTION(
      cat.add_from_json("x5", R"({"category": "x", "inputs": 1, "dtypes": ["f32"]})"), oi::Error,
      [](const auto& e) {
        return message_has(e, "op 'x5'") && message_has(e, "missing 'output_dtype'");
      });
  BOOST_CHECK_EXCEPTION(
      cat.add_from_json(
          "x6",
          R"({"category": "x", "inputs": 1, "output_dtype": "setting:to", "dtypes": ["f32"]})"),
      oi::Error, [](const auto& e) { return message_has(e, "does not name a dtype setting"); });
  BOOST_CHECK_EXCEPTION(
      OpCatalog::from_json_text(R"({"format": "other"})", "c.json"), oi::Error,
      [](const auto& e) { return message_has(e, "c.json") && message_has(e, "'format'"); });
  BOOST_TEST(cat.size() == kBuiltinOps);
}

BOOST_AUTO_TEST_CASE(shape_rules) {
  const OpCatalog& cat = OpCatalog::builtin();
  auto run = [&](const char* op, std::vector<Dims> in, std::map<std::string, CatalogValue> s = {}) {
    ShapeRuleContext ctx{*cat.find(op), std::move(in), {}, std::move(s)};
    return (*ShapeRuleRegistry::global().find(cat.find(op)->shape_rule))(ctx);
  };
  BOOST_TEST(run("add", {{2, 1, 3}, {4, 1}}) == (Dims{2, 4, 3}));
  BOOST_CHECK_THROW(run("add", {{2, 3}, {4}}), ShapeRuleError);
  BOOST_TEST(run("filter", {{2, 3}, {3}, {2, 1}}) == (Dims{2, 3}));
  BOOST_TEST(run("abs", {{2, 3}}) == (Dims{2, 3}));
  BOOST_CHECK_THROW(run("max_axis", {{2}}, {{"axes", std::vector<int64_t>{3}}}), ShapeRuleError);
  BOOST_TEST(run("matmul", {{5, 2, 3}, {3, 4}}) == (Dims{5, 2, 4}));
  BOOST_CHECK_THROW(run("matmul", {{2, 3}, {4, 5}}), ShapeRuleError);
  BOOST_CHECK_THROW(run("matmul", {{3}, {3, 5}}), ShapeRuleError);
  BOOST_TEST(run("sum_axis", {{2, 3, 4}}) == Dims{});
  BOOST_TEST(run("sum_axis", {{2, 3, 4}}, {{"axes", std::vector<int64_t>{-1, 0}}}) == Dims{3});
  BOOST_TEST(run("sum_axis", {{2, 3, 4}},
                 {{"axes", std::vector<int64_t>{1}}, {"keepdims", true}}) == (Dims{2, 1, 4}));
  BOOST_TEST(run("sum_axis", {{2, 3}}, {{"axes", std::vector<int64_t>{}}}) == (Dims{2, 3}));
  BOOST_CHECK_THROW(run("sum_axis", {{2, 3}}, {{"axes", std::vector<int64_t>{0, -2}}}),
                    ShapeRuleError);
  BOOST_CHECK_THROW(run("sum_axis", {{2, 3}}, {{"axes", std::vector<int64_t>{2}}}), ShapeRuleError);
  BOOST_TEST(run("argmax_axis", {{2, 3}}, {{"axis", int64_t{-1}}}) == Dims{2});
  BOOST_TEST(run("is_finite", {{2, 3}}) == Dims{});
  BOOST_TEST(format_dims({2, 3}) == "[2, 3]");
  BOOST_CHECK_THROW(
      ShapeRuleRegistry::global().add("matmul", [](const ShapeRuleContext&) { return Dims{}; }),
      oi::Error);
}

// ops-nn.md rows (issue 9): variadic and per-input dtype rules, setting defaults, shape rules.
BOOST_AUTO_TEST_CASE(nn_ops_rows_and_shape_rules) {
  const OpCatalog& cat = OpCatalog::builtin();
  auto run = [&](const char* op, std::vector<Dims> in, std::map<std::string, CatalogValue> s = {},
                 Dims declared = {}) {
    const OpSchema& schema = *cat.find(op);
    for (const auto& spec : schema.settings)
      if (spec.default_value && !s.count(spec.name)) s[spec.name] = *spec.default_value;
    ShapeRuleContext ctx{schema, std::move(in), std::move(declared), std::move(s)};
    return (*ShapeRuleRegistry::global().find(schema.shape_rule))(ctx);
  };
  const OpSchema* concat = cat.find("concat");
  BOOST_TEST(concat->min_inputs() == 1u);
  BOOST_TEST(concat->max_inputs() == 16u);
  BOOST_TEST(cat.find("gather")->input_at(1)->dtype_rule.kind == InputDtypeRule::Kind::Explicit);
  BOOST_TEST(std::get<int64_t>(*cat.find("softmax")->find_setting("axis")->default_value) == -1);
  BOOST_TEST(std::get<int64_t>(*cat.find("concat")->find_setting("axis")->default_value) == 0);
  BOOST_TEST(std::get<std::string>(*cat.find("gelu")->find_setting("approximate")->default_value) ==
             "none");
  BOOST_TEST(!cat.find("iota")->supports(DType::boolean));
  BOOST_TEST(cat.find("reshape")->supports(DType::u2));
  BOOST_TEST(!cat.find("reshape")->supports(DType::t1));

  BOOST_TEST(run("softmax", {{2, 3}}) == (Dims{2, 3}));
  BOOST_CHECK_THROW(run("softmax", {{2, 3}}, {{"axis", int64_t{2}}}), ShapeRuleError);
  BOOST_CHECK_THROW(run("iota", {{}}), ShapeRuleError);  // rank 0 has no axis -1
  BOOST_TEST(run("reshape", {{2, 3}}, {}, {3, 1, 2}) == (Dims{3, 1, 2}));
  BOOST_TEST(run("reshape", {{}}, {}, {1, 1}) == (Dims{1, 1}));
  BOOST_CHECK_THROW(run("reshape", {{2, 3}}, {}, {4}), ShapeRuleError);
  BOOST_TEST(run("transpose", {{2, 3, 4}}) == (Dims{4, 3, 2}));
  BOOST_TEST(run("transpose", {{2, 3, 4}}, {{"perm", std::vector<int64_t>{1, -1, 0}}}) ==
             (Dims{3, 4, 2}));
  BOOST_CHECK_THROW(run("transpose", {{2, 3}}, {{"perm", std::vector<int64_t>{0, 0}}}),
                    ShapeRuleError);
  BOOST_CHECK_THROW(run("transpose", {{2, 3}}, {{"perm", std::vector<int64_t>{0}}}),
                    ShapeRuleError);
  BOOST_TEST(run("concat", {{2, 3}, {0, 3}, {4, 3}}) == (Dims{6, 3}));
  BOOST_TEST(run("concat", {{2, 3}, {2, 1}}, {{"axis", int64_t{-1}}}) == (Dims{2, 4}));
  BOOST_CHECK_THROW(run("concat", {{2, 3}, {2, 1}}), ShapeRuleError);
  BOOST_CHECK_THROW(run("concat", {{2, 3}, {2}}, {{"axis", int64_t{1}}}), ShapeRuleError);
  BOOST_TEST(run("gather", {{5, 4, 3}, {2, 6}}, {{"axis", int64_t{1}}}) == (Dims{5, 2, 6, 3}));
  BOOST_TEST(run("gather", {{5, 4}, {}}) == (Dims{4}));
  BOOST_CHECK_THROW(run("gather", {{5}, {2}}, {{"axis", int64_t{1}}}), ShapeRuleError);

  const OpSchema* layer_norm = cat.find("layer_norm");
  BOOST_TEST(layer_norm->min_inputs() == 2u);
  BOOST_TEST(layer_norm->max_inputs() == 3u);
  BOOST_TEST(std::get<double>(*layer_norm->find_setting("epsilon")->default_value) == 1e-5);
  BOOST_TEST(std::get<double>(*cat.find("rms_norm")->find_setting("epsilon")->default_value) ==
             1e-6);
  BOOST_TEST(run("layer_norm", {{2, 3, 4}, {4}, {4}}) == (Dims{2, 3, 4}));
  BOOST_TEST(run("layer_norm", {{2, 3, 4}, {3, 4}}, {{"axis", int64_t{1}}}) == (Dims{2, 3, 4}));
  BOOST_CHECK_THROW(run("layer_norm", {{2, 3, 4}, {4}, {3}}), ShapeRuleError);
  BOOST_TEST(run("rms_norm", {{2, 8}, {8}}) == (Dims{2, 8}));
  BOOST_CHECK_THROW(run("rms_norm", {{2, 8}, {2, 8}}), ShapeRuleError);
  BOOST_CHECK_THROW(run("rms_norm", {{}, {}}), ShapeRuleError);

  using L = std::vector<int64_t>;
  BOOST_TEST(run("slice", {{4, 6}}, {{"starts", L{1, -4}}, {"ends", L{3, 100}}}) == (Dims{2, 4}));
  BOOST_TEST(run("slice", {{5, 4}},
                 {{"starts", L{-1}}, {"ends", L{-6}}, {"axes", L{0}}, {"steps", L{-2}}}) ==
             (Dims{3, 4}));
  BOOST_TEST(run("slice", {{3, 7}},
                 {{"starts", L{6}}, {"ends", L{-100}}, {"axes", L{-1}}, {"steps", L{-3}}}) ==
             (Dims{3, 3}));
  BOOST_TEST(run("slice", {{3, 4}}, {{"starts", L{2}}, {"ends", L{2}}, {"axes", L{1}}}) ==
             (Dims{3, 0}));
  BOOST_CHECK_THROW(run("slice", {{3}}, {{"starts", L{0}}, {"ends", L{2}}, {"steps", L{0}}}),
                    ShapeRuleError);
  BOOST_CHECK_THROW(run("slice", {{3, 4}}, {{"starts", L{0, 0}}, {"ends", L{1}}}), ShapeRuleError);
  BOOST_CHECK_THROW(
      run("slice", {{3, 4}}, {{"starts", L{0, 0}}, {"ends", L{1, 1}}, {"axes", L{1, -1}}}),
      ShapeRuleError);

  BOOST_TEST(run("pad", {{2, 3}}, {{"pads", L{1, 0, 2, 1}}}) == (Dims{5, 4}));
  BOOST_TEST(run("pad", {{3, 4}}, {{"pads", L{2, 3, 2, 3}}, {"mode", std::string("reflect")}}) ==
             (Dims{7, 10}));
  BOOST_CHECK_THROW(
      run("pad", {{3, 4}}, {{"pads", L{3, 0, 0, 0}}, {"mode", std::string("reflect")}}),
      ShapeRuleError);
  BOOST_CHECK_THROW(run("pad", {{0}}, {{"pads", L{1, 0}}, {"mode", std::string("edge")}}),
                    ShapeRuleError);
  BOOST_CHECK_THROW(run("pad", {{2, 3}}, {{"pads", L{1, 0}}}), ShapeRuleError);
  BOOST_CHECK_THROW(run("pad", {{2}}, {{"pads", L{-1, 0}}}), ShapeRuleError);
}
