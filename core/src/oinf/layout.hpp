// Constants of the OINF version 1 layout (oinf.md) shared by the reader and the writer.
#pragma once

#include <array>
#include <cstdint>

namespace oi::oinf {

inline constexpr std::array<char, 5> kMagic{'O', 'I', 'N', 'F', '\0'};
inline constexpr uint32_t kVersion = 1;
inline constexpr uint64_t kHeaderBytes = 69;        // packed fields
inline constexpr uint64_t kHeaderPaddedBytes = 72;  // where the first table may start
inline constexpr uint32_t kTensorHasData = 1u;      // tensor entry flags bit 0

// Byte offsets of the header fields.
inline constexpr uint64_t kOffVersion = 5, kOffFlags = 9, kOffNSizevars = 13, kOffNMetadata = 17,
                          kOffNTensors = 21, kOffReserved = 25, kOffOffsetSizevars = 29,
                          kOffOffsetMetadata = 37, kOffOffsetTensors = 45, kOffOffsetData = 53,
                          kOffFileSize = 61;

// Smallest possible encoded entry per table: used to bound header counts by table bytes
// before anything is allocated. A string takes at least 8 bytes (u32 length, >= 1 char, pad).
inline constexpr uint64_t kMinSizevarEntry = 8 + 8;
inline constexpr uint64_t kMinMetadataEntry = 8 + 4 + 4 + 8 + 8;
inline constexpr uint64_t kMinTensorEntry = 8 + 4 + 4 + 4 + 8 + 8;

}  // namespace oi::oinf
