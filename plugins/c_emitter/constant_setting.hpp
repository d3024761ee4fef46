// A setting that names a constant scalar (dsl.md: `op relu(h, alpha=slope)`), resolved when the
// C is written: the constant's bytes (the model's tensor, or its @init stored as the simulator
// stores it) and the value the simulator's op then sees (interpreter_op.cpp: a float constant
// as its exact double, any other as its integer), for every catalog dtype with C storage.
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <string>

namespace oi::c_emitter {

// The bytes of a scalar of `dtype` holding `init` (a number, a bool, "inf"/"-inf"/"nan"):
// floats rounded once from f64 (f32 from its double), integers truncated to their width,
// packed integers in the low bits of one byte, bool as 0 or 1. nullopt for a literal the
// dtype cannot hold (the validator refuses those).
std::optional<std::string> scalar_init_bytes(const boost::json::value& init,
                                             const std::string& dtype);
// The bytes a scalar of `dtype` occupies in a model (1 for a packed integer).
size_t scalar_bytes(const std::string& dtype);
// The setting's value: a double for the floats (f16, bf16 and f8 widened exactly), an int64
// for the integers (u64 as its two's-complement bits, packed ones sign- or zero-extended,
// bool 0 or 1).
boost::json::value scalar_setting(const std::string& bytes, const std::string& dtype);

}  // namespace oi::c_emitter
