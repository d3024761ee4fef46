#!/usr/bin/python3
"""Which catalog (op, dtypes, mode) kernels the Vulkan backend lacks.

The CPU backend implements every (op, dtype) of the op catalog (issue #8), so its kernel table
is the list of what a backend can be asked for; the Vulkan table is read from the same plugin
ABI (plugin_abi.h) through ctypes, on the device the plugin picked (OPENINFER_VULKAN_DEVICE).
Pairs the Vulkan table lacks fall back to the CPU per node at run time. Also checks that every
op and dtype of core/data/op_catalog.json has a CPU kernel (an op's dtype list is the dtype of
its first input).

  tests/vulkan/kernel_coverage.py --plugin-dir build/NAME/lib/openinfer/plugins [--by-op]
      [--ops softmax,rope] [--modes normal,inplace] [--fail-on-missing]

Prints one line per missing kernel ("op(in0,in1)->out mode"), or one line per op with
--by-op, then the totals. Exits 1 with --fail-on-missing when anything is missing, 2 when a
plugin cannot be loaded, 77 when the Vulkan plugin found no device.
"""
import argparse
import ctypes
import json
import os
import sys
from collections import defaultdict

DTYPES = {1: "i8", 2: "i16", 3: "i32", 4: "i64", 5: "u8", 6: "u16", 7: "u32", 8: "u64",
          9: "f16", 10: "f32", 11: "f64", 12: "bool", 13: "bitset", 16: "bf16", 17: "f8",
          18: "i4", 19: "i2", 20: "i1", 21: "u4", 22: "u2", 23: "u1", 24: "t2", 25: "t1"}
MODES = {0: "normal", 1: "inplace", 2: "accumulate"}
ABI_VERSION = 1
KIND_BACKEND = 1

FN = ctypes.c_void_p  # function pointers this script never calls


class Host(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("abi_version", ctypes.c_uint32),
                ("status_create", ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_uint32,
                                                   ctypes.c_char_p)),
                ("status_code", ctypes.CFUNCTYPE(ctypes.c_uint32, ctypes.c_void_p)),
                ("status_message", ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.c_void_p)),
                ("status_free", ctypes.CFUNCTYPE(None, ctypes.c_void_p))]


class KernelDef(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("abi_version", ctypes.c_uint32),
                ("op", ctypes.c_char_p), ("input_dtypes", ctypes.POINTER(ctypes.c_uint32)),
                ("num_inputs", ctypes.c_uint32), ("output_dtype", ctypes.c_uint32),
                ("mode", ctypes.c_uint32), ("reserved", ctypes.c_uint32), ("run", FN),
                ("user_data", ctypes.c_void_p)]


class BackendApi(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("abi_version", ctypes.c_uint32)] + \
               [(name, FN) for name in ("device_count", "device_get_info", "device_open",
                                        "device_close", "buffer_alloc", "buffer_free",
                                        "buffer_upload", "buffer_download", "synchronize")] + \
               [("kernels", ctypes.POINTER(KernelDef)), ("num_kernels", ctypes.c_uint32),
                ("reserved", ctypes.c_uint32), ("buffer_wrap_host", FN),
                ("buffer_host_pointer", FN)]


class PluginInfo(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("abi_version", ctypes.c_uint32),
                ("kind", ctypes.c_uint32), ("score", ctypes.c_uint32),
                ("name", ctypes.c_char_p), ("version", ctypes.c_char_p),
                ("description", ctypes.c_char_p), ("context", ctypes.c_void_p),
                ("shutdown", FN), ("backend", ctypes.POINTER(BackendApi)),
                ("kernels", ctypes.c_void_p), ("emitter", ctypes.c_void_p)]


# Statuses are Python-owned strings kept alive here (the plugins only create them on errors).
_statuses = {}


def _status_create(code, message):
    buf = ctypes.create_string_buffer(message or b"")
    _statuses[ctypes.addressof(buf)] = (code, buf)
    return ctypes.addressof(buf)


HOST = Host(ctypes.sizeof(Host), ABI_VERSION,
            Host._fields_[2][1](_status_create),
            Host._fields_[3][1](lambda s: _statuses[s][0]),
            Host._fields_[4][1](lambda s: _statuses[s][1].value),
            Host._fields_[5][1](lambda s: _statuses.pop(s, None) and None))


def load_backend(path):
    """(description, [(op, inputs, output, mode)]) of the backend plugin at `path`."""
    lib = ctypes.CDLL(path)
    init = lib.openinfer_plugin_init
    init.restype = ctypes.c_void_p
    init.argtypes = [ctypes.c_uint32, ctypes.POINTER(Host), ctypes.POINTER(PluginInfo)]
    info = PluginInfo()
    info.struct_size = ctypes.sizeof(PluginInfo)
    status = init(ABI_VERSION, ctypes.byref(HOST), ctypes.byref(info))
    if status:
        raise RuntimeError(f"{path}: init failed: {_statuses[status][1].value.decode()}")
    if info.kind != KIND_BACKEND or not info.backend:
        raise RuntimeError(f"{path}: not a backend plugin")
    api = info.backend.contents
    kernels = []
    for i in range(api.num_kernels):
        k = api.kernels[i]
        ins = tuple(DTYPES.get(k.input_dtypes[j], str(k.input_dtypes[j]))
                    for j in range(k.num_inputs))
        kernels.append((k.op.decode(), ins, DTYPES.get(k.output_dtype, str(k.output_dtype)),
                        MODES.get(k.mode, str(k.mode))))
    return (info.description or b"").decode(), info.score, kernels


def key_text(k):
    op, ins, out, mode = k
    return f"{op}({','.join(ins)})->{out} {mode}"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plugin-dir", required=True)
    ap.add_argument("--catalog", default=os.path.join(root, "core", "data", "op_catalog.json"))
    ap.add_argument("--by-op", action="store_true", help="one line per op: the missing dtypes")
    ap.add_argument("--ops", default="", help="comma-separated ops to report (default: all)")
    ap.add_argument("--modes", default="normal,inplace,accumulate")
    ap.add_argument("--fail-on-missing", action="store_true")
    args = ap.parse_args()

    def plugin(name):
        for file in (f"libopeninfer_{name}.so", f"openinfer_{name}.so"):
            path = os.path.join(args.plugin_dir, file)
            if os.path.exists(path):
                return load_backend(path)
        raise RuntimeError(f"no {name} plugin in {args.plugin_dir}")

    try:
        _, _, cpu = plugin("cpu")
        vk_description, vk_score, vulkan = plugin("vulkan")
    except (OSError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if vk_score == 0:
        print(f"SKIPPED: no Vulkan device ({vk_description})")
        return 77

    catalog = json.load(open(args.catalog))["ops"]
    cpu_pairs = {(k[0], k[1][0] if k[1] else k[2]) for k in cpu}
    for op, schema in sorted(catalog.items()):
        for dt in schema.get("dtypes", []):
            if (op, dt) not in cpu_pairs:
                print(f"note: catalog {op} {dt} has no CPU kernel either")

    ops = set(filter(None, args.ops.split(",")))
    modes = set(args.modes.split(","))
    have = set(vulkan)
    wanted = [k for k in cpu if (not ops or k[0] in ops) and k[3] in modes and k[0] in catalog]
    missing = [k for k in wanted if k not in have]
    print(f"# {vk_description}")
    if args.by_op:
        per_op = defaultdict(lambda: defaultdict(set))
        for op, ins, out, mode in missing:
            per_op[op][mode].add("/".join(sorted(set(ins))) if ins else out)
        for op in sorted(per_op):
            parts = [f"{mode}: {' '.join(sorted(per_op[op][mode]))}" for mode in sorted(per_op[op])]
            print(f"{op}: " + "; ".join(parts))
    else:
        for k in sorted(missing):
            print(key_text(k))
    extra = [k for k in vulkan if k not in set(cpu)]
    for k in sorted(extra):
        print(f"note: vulkan has {key_text(k)}, which the CPU table lacks")
    by_mode = defaultdict(lambda: [0, 0])
    for k in wanted:
        by_mode[k[3]][0] += 1
        by_mode[k[3]][1] += k in have
    for mode, (n, got) in sorted(by_mode.items()):
        print(f"{mode}: vulkan has {got} of {n} kernels, {n - got} missing")
    covered_ops = {k[0] for k in wanted if k in have}
    print(f"ops with at least one vulkan kernel: {len(covered_ops)} of "
          f"{len({k[0] for k in wanted})}")
    return 1 if args.fail_on_missing and missing else 0


if __name__ == "__main__":
    sys.exit(main())
