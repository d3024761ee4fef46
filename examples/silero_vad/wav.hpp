// A small WAV reader for the VAD tool: 16 kHz mono files, PCM 16/24/32-bit or float 32-bit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace silero_vad {

struct Audio {
  uint32_t sample_rate = 0;
  std::vector<float> samples;  // mono, in [-1, 1): PCM divided by 2^(bits-1)
};

// Reads a RIFF/WAVE file with one channel. Throws std::runtime_error naming the file and the
// problem (not RIFF/WAVE, no fmt or data chunk, more than one channel, an unsupported sample
// format, a truncated file).
Audio read_wav(const std::string& path);

}  // namespace silero_vad
