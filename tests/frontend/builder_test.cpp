// The builder produces the same graph as the DSL text it mirrors.
#define BOOST_TEST_MODULE frontend_builder
#include <boost/test/unit_test.hpp>

#include "openinfer/error.hpp"
#include "openinfer/graph_builder.hpp"
#include "openinfer/graph_json.hpp"

using namespace oi;

BOOST_AUTO_TEST_CASE(builder_matches_the_parsed_text) {
  Graph parsed = Graph::parse(R"(
    dynamic { x: f32[B, 3*D]; }
    volatile { W(l): f32[D, D] @pattern("W.{l}"); }
    constant { eps: f32 @init(1e-6) @ref("eps") @doc("x", 2); }
    persistent {
      step: i32 @init(0);
      K(l, t): f16[H, Dh] @table @fixed(l=24, t=T);
      M(i, j): f16[D, H] @auto_dim(i, j);
    }
    block entry {
      assign h: f32[B, D];
      transfer x >> h;
      op relu(h, alpha=0.5, to=f16, axes=[0, 1], act=slope) >> h;
      loop layers (l in 0..num_layers) {
        cache.read K[l, step-1] >> k;
        op matmul(h, W[l]) >> h;
        cache.write k >> K[l, 0..];
      }
      cache.increment step;
      cache.decrement 2 step;
      cache.reset M[];
      branch c yes no;
      branch yes;
      barrier;
      dep after(matmul) before(cache.write);
      yield h;
      await h;
      return h;
    }
    block yes { return; }
  )");

  GraphBuilder b("<string>");
  b.declare(MemoryKind::Dynamic, "x", DType::f32, {dim("B"), dim_product({{3, ""}, {0, "D"}})});
  b.declare(MemoryKind::Volatile, "W", DType::f32, {dim("D"), dim("D")})
      .indices({"l"})
      .pattern("W.{l}");
  b.declare(MemoryKind::Constant, "eps", DType::f32)
      .init(Value::floating(1e-6))
      .ref("eps")
      .attribute("doc", {Value::string("x"), Value::integer(2)});
  b.declare(MemoryKind::Persistent, "step", DType::i32).init(Value::integer(0));
  b.declare(MemoryKind::Persistent, "K", DType::f16, {dim("H"), dim("Dh")})
      .indices({"l", "t"})
      .table()
      .fixed("l", bound(24))
      .fixed("t", bound("T"));
  b.declare(MemoryKind::Persistent, "M", DType::f16, {dim("D"), dim("H")})
      .indices({"i", "j"})
      .auto_dim({"i", "j"});
  b.block("entry")
      .assign("h", DType::f32, {dim("B"), dim("D")})
      .transfer(ref("x"), ref("h"))
      .op("relu", {ref("h")},
          {setting("alpha", Value::floating(0.5)), setting("to", Value::dtype_name(DType::f16)),
           setting("axes", Value::int_list({0, 1})), setting("act", Value::ident("slope"))},
          out("h"))
      .loop("layers", "l", bound(0), bound("num_layers"),
            [](NodeListBuilder& body) {
              body.cache_read(out("K", {slot_at(idx("l")), slot_at(idx("step", -1))}), ref("k"))
                  .op("matmul", {ref("h"), ref("W", {idx("l")})}, {}, out("h"))
                  .cache_write(ref("k"), out("K", {slot_at(idx("l")), slot_range(idx(0), {})}));
            })
      .cache_increment("step")
      .cache_decrement("step", 2)
      .cache_reset(out("M", {}))
      .branch("c", "yes", "no")
      .branch("yes")
      .barrier()
      .dep("matmul", "cache.write")
      .yield({"h"})
      .await({"h"})
      .ret({"h"});
  b.block("yes").ret();
  Graph built = b.build();

  GraphJsonOptions no_locations{.locations = false};
  BOOST_TEST(graph_to_json(built, no_locations) == graph_to_json(parsed, no_locations));
  BOOST_TEST(built.blocks[0].nodes[3].body[1].uuid == parsed.blocks[0].nodes[3].body[1].uuid);
  BOOST_TEST(built.node_count() == parsed.node_count());
}

BOOST_AUTO_TEST_CASE(non_literal_init_is_rejected) {
  GraphBuilder b;
  b.declare(MemoryKind::Constant, "a", DType::f32).init(Value::ident("x"));
  b.block("entry").ret();
  BOOST_CHECK_EXCEPTION(b.build(), Error, [](const Error& e) {
    return e.kind() == ErrorKind::Usage &&
           std::string(e.what()) == "@init of 'a' must be a literal";
  });
  GraphBuilder c;
  c.declare(MemoryKind::Constant, "a", DType::f32).attribute("doc", {Value::int_list({1})});
  BOOST_CHECK_THROW(c.build(), Error);
}
