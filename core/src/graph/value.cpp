// Constructors of literal and setting values.
#include <limits>
#include <string>

#include "openinfer/graph.hpp"

namespace oi {

Value Value::integer(int64_t v) {
  Value value;
  value.kind = Kind::Int;
  value.int_value = v;
  return value;
}

Value Value::unsigned_integer(uint64_t v) {
  Value value = integer(static_cast<int64_t>(v));
  value.above_int64 = v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  return value;
}

double Value::int_as_double() const {
  return above_int64 ? static_cast<double>(static_cast<uint64_t>(int_value))
                     : static_cast<double>(int_value);
}

std::string Value::int_text() const {
  return above_int64 ? std::to_string(static_cast<uint64_t>(int_value)) : std::to_string(int_value);
}

Value Value::floating(double v) {
  Value value;
  value.kind = Kind::Float;
  value.float_value = v;
  return value;
}

Value Value::boolean(bool v) {
  Value value;
  value.kind = Kind::Bool;
  value.bool_value = v;
  return value;
}

Value Value::string(std::string s) {
  Value value;
  value.kind = Kind::String;
  value.text = std::move(s);
  return value;
}

Value Value::dtype_name(DType t) {
  Value value;
  value.kind = Kind::DType;
  value.dtype = t;
  return value;
}

Value Value::ident(std::string name) {
  Value value;
  value.kind = Kind::Ident;
  value.text = std::move(name);
  return value;
}

Value Value::int_list(std::vector<int64_t> v) {
  Value value;
  value.kind = Kind::IntList;
  value.ints = std::move(v);
  return value;
}

bool Value::is_literal() const {
  return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool || kind == Kind::String;
}

}  // namespace oi
