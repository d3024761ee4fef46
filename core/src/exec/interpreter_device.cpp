// transfer, cache.write and cache.read between values that live in a device backend's memory:
// copied inside the device (Backend::copy), so nothing crosses the bus and nobody waits
// (docs/runtime.md, "Device memory").
#include "interpreter.hpp"

#include <cstring>

namespace oi::exec {
namespace {

uint64_t bytes_of(const VarInfo& v) {
  uint64_t numel = 1;
  for (uint64_t d : v.shape) numel *= d;
  return storage_bytes(v.dtype, numel).value_or(0);
}

// The device copy of a plain variable, when one is current in a device backend's memory.
struct DeviceValue {
  std::shared_ptr<DeviceBuffer> buffer;
  Backend* backend = nullptr;
  bool host_current = false;  // the host value is as new
};

DeviceValue device_value(VarState& s) {
  std::lock_guard lock(s.device_mutex);
  if (!s.device_valid || s.device_backend == nullptr || s.device_backend->can_wrap_host_memory())
    return {};
  return {s.device, s.device_backend, !s.host_stale};
}

// A buffer of `bytes` in `backend` for a variable's whole new value: its own device buffer
// when that fits (never `avoid`, the source), else a new one.
std::shared_ptr<DeviceBuffer> destination(VarState& s, Backend& backend, uint64_t bytes,
                                          const DeviceBuffer* avoid) {
  {
    std::lock_guard lock(s.device_mutex);
    if (s.device && s.device_backend == &backend && s.device->size() == bytes &&
        s.device.get() != avoid)
      return s.device;
  }
  return backend.alloc(bytes);
}

}  // namespace

bool Interpreter::store_on_device(const Ref& source, const Access& target) {
  if (track_ != 0 || !source.indices.empty()) return false;
  const VarInfo& sv = var(source.name, source.loc);
  if (sv.table || sv.auto_dim || sv.prefix || overlay_value(sv) != nullptr) return false;
  const VarInfo& dv = var(target.name, target.loc);
  if (overlay_value(dv) != nullptr || sv.dtype != dv.dtype) return false;
  ctx_.memory.read(sv, source.loc, HostSync::No);  // this step's value (errors as the host's)
  VarState& ss = ctx_.memory.state(sv);
  DeviceValue src = device_value(ss);
  if (!src.buffer) return false;
  const uint64_t bytes = bytes_of(sv);

  if (target.has_brackets || dv.table || dv.auto_dim) {
    if (!ctx_.memory.device_table_capable(dv)) return false;
    // A value the host holds too goes to a table on the host the host's way.
    if (src.host_current && ctx_.memory.table_backend(dv) != src.backend) return false;
    const auto slots = slots_of(target);
    if (ctx_.memory.table_access_shape(dv, slots, target.loc) != sv.shape) return false;
    ctx_.memory.write_table_device(dv, slots, *src.backend, *src.buffer, 0, target.loc);
    return true;
  }
  if (dv.prefix || dv.shape != sv.shape) return false;  // the host path reports these
  Tensor& dst = ctx_.memory.write(dv, target.loc, HostSync::No);
  VarState& ds = ctx_.memory.state(dv);
  if (&ds == &ss) return true;  // transfer a >> a
  auto buffer = destination(ds, *src.backend, bytes, src.buffer.get());
  src.backend->copy(*src.buffer, 0, *buffer, 0, bytes);
  if (src.host_current) {  // both sides stay current: a later host read needs no download
    const Tensor& value = ctx_.memory.read(sv, source.loc, HostSync::No);
    if (dst.is_view() || dst.nbytes() != value.nbytes()) dst = Tensor(dv.dtype, dv.shape);
    std::memcpy(dst.mutable_bytes().data(), value.bytes().data(), value.nbytes());
    Memory::share_device(ds, std::move(buffer), *src.backend);
  } else {
    Memory::adopt_device(ds, std::move(buffer), *src.backend);
  }
  return true;
}

bool Interpreter::read_on_device(const Node& node) {
  if (track_ != 0 || node.output.has_brackets) return false;
  const VarInfo& src = var(node.target.name, node.target.loc);
  if (!ctx_.memory.device_table_capable(src)) return false;
  Backend* backend = ctx_.memory.table_backend(src);
  if (backend == nullptr) return false;
  const VarInfo& dst = var(node.output.name, node.output.loc);
  if (dst.table || dst.auto_dim || dst.prefix || overlay_value(dst) != nullptr ||
      dst.dtype != src.dtype) {
    return false;
  }
  const auto slots = slots_of(node.target);
  if (ctx_.memory.table_access_shape(src, slots, node.target.loc) != dst.shape) return false;
  ctx_.memory.write(dst, node.output.loc, HostSync::No);
  VarState& ds = ctx_.memory.state(dst);
  auto buffer = destination(ds, *backend, bytes_of(dst), nullptr);
  if (!ctx_.memory.read_table_device(src, slots, *backend, *buffer, node.target.loc)) return false;
  Memory::adopt_device(ds, std::move(buffer), *backend);
  return true;
}

}  // namespace oi::exec
