// The model behind dsl_parser_fuzz's level-2 validation (fuzz_support.hpp).
#include <vector>

#include "fuzz_support.hpp"
#include "openinfer/tensor.hpp"

namespace oi_fuzz {

const oi::Model& small_model() {
  static const oi::Model model = [] {
    oi::ModelWriter w;
    for (auto [name, value] : {std::pair{"B", 2},
                               {"D", 3},
                               {"T", 4},
                               {"H", 2},
                               {"Dh", 2},
                               {"V", 5},
                               {"Tmax", 8},
                               {"n", 2},
                               {"N", 3},
                               {"layers", 2}})
      w.add_sizevar(name, static_cast<uint64_t>(value));
    w.add_tensor("a", oi::Tensor::from<float>({1, 2}));
    w.add_tensor("scale", oi::Tensor::scalar<float>(0.5f));
    w.add_tensor("layers", oi::Tensor::scalar<int64_t>(2));
    w.add_tensor("W.0", oi::Tensor::from<float>(std::vector<float>(9, 1.0f), {3, 3}));
    w.add_tensor("W.1", oi::Tensor::from<float>(std::vector<float>(9, -1.0f), {3, 3}));
    w.add_tensor("model.embed.weight",
                 oi::Tensor::from<float>(std::vector<float>(15, 0.25f), {5, 3}));
    w.add_tensor("weights", oi::Tensor::from<float>({3, 4}));
    w.add_declaration("empty", oi::DType::f32, {0, 3});
    return oi::Model::from_bytes(w.to_bytes(), "small.oinf");
  }();
  return model;
}

}  // namespace oi_fuzz
