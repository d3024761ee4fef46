// Silero VAD as a stream: one OpenInfer step per 512-sample chunk of 16 kHz audio. The context
// window and the LSTM state are persistent memory of vad.oi, so this class only inserts the
// chunk and fetches the probability.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "openinfer/graph.hpp"
#include "openinfer/model.hpp"
#include "openinfer/plugin_host.hpp"
#include "openinfer/simulator.hpp"

namespace silero_vad {

inline constexpr size_t kChunk = 512;
inline constexpr uint32_t kSampleRate = 16000;

class SileroStream {
 public:
  // Loads the model package and the graph, validates them and prepares the CPU backend found on
  // the plugin search path (OPENINFER_PLUGIN_PATH, the install, `build_plugin_dir`).
  SileroStream(const std::string& model_path, const std::string& graph_path,
               const std::string& build_plugin_dir);

  // The speech probability of the next chunk; fewer than 512 samples are zero-padded (the end of
  // a file), more is an error.
  float push(std::span<const float> samples);

  // Starts a new stream: zero context and state.
  void reset();

  oi::Executor& executor() { return exec_; }
  // The CPU backend's device, as `openinfer plugins` prints it ("cpu (2 threads, OpenBLAS
  // Cooperlake)"): which BLAS kernel its products use.
  std::string device_name() const;

 private:
  oi::Model model_;
  oi::Graph graph_;
  oi::PluginRegistry registry_;
  oi::Simulator sim_;
  oi::Executor exec_;
  oi::Tensor chunk_;
};

}  // namespace silero_vad
