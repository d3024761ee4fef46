// The op table: every family registers its generators once.
#include "c_ops.hpp"

namespace oi::c_emitter {

const OpTable& op_table() {
  static const OpTable table = [] {
    OpTable t;
    register_arith_ops(t);
    register_matmul_ops(t);
    register_reduce_ops(t);
    register_math_ops(t);
    register_movement_ops(t);
    register_conv_ops(t);
    register_pool_ops(t);
    register_norm_ops(t);
    register_compare_ops(t);
    register_attention_ops(t);
    return t;
  }();
  return table;
}

}  // namespace oi::c_emitter
