// The OINF text form (cli.md, `openinfer oinf dump` / `pack`) and the human `inspect` view.
//
// Element values are exchanged as raw storage bits, zero-extended (as Tensor::get_raw gives
// them): an i4 of -1 is 0xF, a t1 of -1 is 0, an f16 is its 16-bit pattern.
//
// Floats print as the shortest decimal that reads back to the same bits (Python-repr layout:
// positional for decimal exponents -4..15, else `1.5e-07`), `-0.0`, `inf`, `-inf`, `nan` for
// the canonical quiet NaN and `nan(0xHEX)` (all the dtype's bits, zero-padded) for any other
// NaN. The canonical quiet NaN of a float dtype has sign 0, all exponent bits set, the top
// mantissa bit (quiet bit) set and every other mantissa bit 0: f8 0x7e, f16 0x7e00,
// bf16 0x7fc0, f32 0x7fc00000, f64 0x7ff8000000000000.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "openinfer/model.hpp"

namespace oi {

// The raw bits of the canonical quiet NaN of a float dtype.
uint64_t canonical_nan_bits(DType dtype);

// One element in the text form.
std::string format_element(DType dtype, uint64_t raw);

// Reads one element written as in the text form; decimals round to nearest even (overflow
// gives +-inf, as every float conversion does). Throws oi::Error (Input, no `where`) naming
// the problem: not a number, out of range for the dtype, a bit pattern that is not a NaN.
uint64_t parse_element(DType dtype, std::string_view token);

// The complete text form of a package: header comment, sizevars, metadata, tensors, each
// sorted by name.
std::string dump_oinf_text(const Model& model);

// Parses the text form into a writer holding the package's content. `origin` names the text
// in errors, which carry where = "ORIGIN:LINE:COL".
ModelWriter parse_oinf_text(std::string_view text, const std::string& origin);

// The human-readable view printed by `openinfer oinf inspect`.
std::string inspect_oinf(const Model& model);

}  // namespace oi
