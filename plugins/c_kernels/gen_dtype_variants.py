#!/usr/bin/python3
"""Generates the dtype variants of the C kernel library (docs/c-kernels.md) from the op catalog.

core/data/op_catalog.json says, per op, its input dtypes, the dtype rules of its other inputs,
whether it runs in place and its acc= pairs. From that this script derives every kernel
(op, input dtypes, output dtype, mode) the library provides, the C entry point serving each,
and writes:

  src/oik_variants.h        per op, X-macro lists of the dtypes its op file instantiates:
                            OIK_<op>_F / _I / _B (input 0's floats, integers incl. bitset,
                            bool), OIK_<op>_ACC (acc= pairs), OIK_<op>_PAIRS (cast, dequantize)
  include/oi_kernels_ops.h  the prototypes of every entry point, and the signature classes
  src/oik_table.c           the kernel table (oik_kernels[]) mapping kernels to entry points

The semantics live in ops/<op>.c, one file per op; this script only decides names and
signatures. Run it after a catalog change; `--check` fails when the files are stale.

  plugins/c_kernels/gen_dtype_variants.py [--check] [--list]
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

FLOATS = ["f8", "bf16", "f16", "f32", "f64"]
TAGS = {"i8": 1, "i16": 2, "i32": 3, "i64": 4, "u8": 5, "u16": 6, "u32": 7, "u64": 8,
        "f16": 9, "f32": 10, "f64": 11, "bool": 12, "bitset": 13, "bf16": 16, "f8": 17,
        "i4": 18, "i2": 19, "i1": 20, "u4": 21, "u2": 22, "u1": 23}
MODES = {"normal": "OIK_MODE_NORMAL", "inplace": "OIK_MODE_INPLACE",
         "accumulate": "OIK_MODE_ACCUMULATE"}

T = "const oik_tensor*"
# Signature classes: the C parameters of an entry point, before the final oik_error*.
SIGS = {
    "EW1": f"{T} x, {T} y",
    "EW2": f"{T} a, {T} b, {T} y",
    "EW3": f"{T} a, {T} b, {T} c, {T} y",
    "DIV_F": f"{T} a, {T} b, {T} y, int has_mask, double mask",
    "DIV_I": f"{T} a, {T} b, {T} y, int has_mask, int64_t mask",
    "RECIP": f"{T} x, {T} y, int has_mask, double mask",
    "CLAMP_F": f"{T} x, {T} y, double min, double max",
    "CLAMP_I": f"{T} x, {T} y, int has_min, int64_t min, int has_max, int64_t max",
    "RELU_F": f"{T} x, {T} y, double alpha, double clamp_min, double clamp_max",
    "RELU_I": f"{T} x, {T} y, int64_t alpha, int has_min, int64_t clamp_min, int has_max, "
              "int64_t clamp_max",
    "SHIFT": f"{T} x, {T} y, int64_t bits",
    "FILL_F": f"{T} y, double value",
    "FILL_I": f"{T} y, int64_t value",
    "REDUCE": f"{T} x, {T} y, const int64_t* axes, int64_t num_axes",
    "ARG": f"{T} x, {T} y, int64_t axis, int select_first",
    "CAST": f"{T} x, {T} y, oik_rounding rounding, int saturate",
    "GELU": f"{T} x, {T} y, oik_gelu_approx approximate",
    "AXIS": f"{T} x, {T} y, int64_t axis",
    "LAYER_NORM": f"{T} x, {T} scale, {T} bias, {T} y, int64_t axis, double epsilon",
    "RMS_NORM": f"{T} x, {T} scale, {T} y, int64_t axis, double epsilon",
    "BATCH_NORM": f"{T} x, {T} scale, {T} bias, {T} mean, {T} var, {T} y, double epsilon",
    "TRANSPOSE": f"{T} x, {T} y, const int64_t* perm",
    "CONCAT": f"const oik_tensor* const* xs, uint32_t num_inputs, {T} y, int64_t axis",
    "SLICE": f"{T} x, {T} y, const int64_t* starts, const int64_t* ends, const int64_t* axes, "
             "const int64_t* steps, uint32_t count",
    "GATHER": f"{T} data, {T} indices, {T} y, int64_t axis",
    "PAD_F": f"{T} x, {T} y, const int64_t* pads, oik_pad_mode mode, double value",
    "PAD_I": f"{T} x, {T} y, const int64_t* pads, oik_pad_mode mode, int64_t value",
    "CONV": f"{T} x, {T} w, {T} b, {T} y, const int64_t* strides, const int64_t* pads, "
            "const int64_t* dilations, int64_t group",
    "MAX_POOL": f"{T} x, {T} y, const int64_t* kernel, const int64_t* strides, "
                "const int64_t* pads, const int64_t* dilations",
    "AVG_POOL": f"{T} x, {T} y, const int64_t* kernel, const int64_t* strides, "
                "const int64_t* pads, int count_include_pad",
    "ATTENTION": f"{T} q, {T} k, {T} v, {T} mask, {T} y, int has_scale, double scale, "
                 "int causal",
    "ROPE": f"{T} x, {T} pos, {T} y, double theta, int interleaved",
    "DEQUANTIZE": f"{T} x, {T} scale, {T} zero_point, {T} y, int64_t axis",
    "MATMUL": f"{T} a, {T} b, {T} y, void* scratch",
}

# Each op's signature class: one name, or per dtype class of input 0 (F float, I integer or
# bitset, B bool).
OP_SIG = {
    "add": "EW2", "sub": "EW2", "mul": "EW2", "rem": "EW2", "min": "EW2", "max": "EW2",
    "and": "EW2", "or": "EW2", "xor": "EW2", "eq": "EW2", "ne": "EW2", "lt": "EW2",
    "le": "EW2", "gt": "EW2", "ge": "EW2", "pow": "EW2",
    "fma": "EW3", "filter": "EW3",
    "div": {"F": "DIV_F", "I": "DIV_I"}, "floor_div": {"I": "DIV_I"},
    "recip": "RECIP",
    "clamp": {"F": "CLAMP_F", "I": "CLAMP_I"},
    "relu": {"F": "RELU_F", "I": "RELU_I"},
    "shl": "SHIFT", "shr": "SHIFT",
    "fill": {"F": "FILL_F", "I": "FILL_I", "B": "FILL_I"},
    "sum_axis": "REDUCE", "mean_axis": "REDUCE", "prod_axis": "REDUCE", "max_axis": "REDUCE",
    "min_axis": "REDUCE",
    "argmax_axis": "ARG", "argmin_axis": "ARG",
    "cast": "CAST", "gelu": "GELU",
    "softmax": "AXIS", "log_softmax": "AXIS", "iota": "AXIS",
    "layer_norm": "LAYER_NORM", "rms_norm": "RMS_NORM", "batch_norm": "BATCH_NORM",
    "transpose": "TRANSPOSE", "concat": "CONCAT", "slice": "SLICE", "gather": "GATHER",
    "pad": {"F": "PAD_F", "I": "PAD_I", "B": "PAD_I"},
    "conv": "CONV", "max_pool": "MAX_POOL", "avg_pool": "AVG_POOL", "attention": "ATTENTION",
    "rope": "ROPE", "dequantize": "DEQUANTIZE", "matmul": "MATMUL",
}  # every other op: EW1

# Ops whose entry points are named by two dtypes (input 0 and the output or input 1).
PAIR_OPS = {"cast": "output", "dequantize": "input1"}


def dtype_class(dt):
    return "F" if dt in FLOATS else "B" if dt == "bool" else "I"


def sig_of(op, dt):
    s = OP_SIG.get(op, "EW1")
    return s if isinstance(s, str) else s[dtype_class(dt)]


def derive(catalog):
    """[(op, inputs tuple, output, mode, symbol, sig)] for every kernel of the library."""
    kernels = []
    for op, spec in sorted(catalog["ops"].items()):
        dtypes = spec["dtypes"]
        out_rule = spec["output_dtype"]
        inplace = spec.get("inplace", False)
        acc = spec.get("accumulate", {}) or {}
        inputs = spec["inputs"]
        if isinstance(inputs, int):
            inputs = [{"name": f"x{i}"} for i in range(inputs)]

        def input_options(x, acc_dt=None):
            """Each allowed input dtype list for input 0 of dtype x (acc_dt: accumulate)."""
            if "variadic" in inputs[0]:
                lo, hi = inputs[0]["variadic"]
                return [(x,) * n for n in range(lo, hi + 1)]
            done, complete = [], [[x]]
            for inp in inputs[1:]:
                rule = inp.get("dtypes", "input0")
                if rule == "input0":
                    opts = [x]
                elif rule == "input0_or_acc":
                    opts = [x, acc_dt] if acc_dt else [x]
                else:
                    opts = list(rule)
                if inp.get("optional"):  # optional inputs are trailing: stop here or go on
                    done += complete
                complete = [l + [o] for l in complete for o in opts]
            return [tuple(l) for l in done + complete]

        def output_of(ins):
            if out_rule == "input0":
                return ins[0]
            if out_rule == "input1":
                return ins[1]
            return out_rule

        if op == "cast":
            for x in dtypes:
                for to in spec["to_dtypes"]:
                    kernels.append((op, (x,), to, "normal", f"oik_cast_{x}_{to}", "CAST"))
            continue
        for x in dtypes:
            for ins in input_options(x):
                out = output_of(ins)
                name = f"oik_{op}_{x}" if op not in PAIR_OPS else f"oik_{op}_{x}_{ins[1]}"
                modes = ["normal"] + (["inplace"] if inplace else [])
                for mode in modes:
                    kernels.append((op, ins, out, mode, name, sig_of(op, x)))
            if op == "filter" and x != "bool":
                kernels.append((op, (x, x, "bool"), x, "normal", f"oik_filter_{x}", "EW3"))
        for x, outs in acc.items():
            for o in outs:
                for ins in input_options(x, o):
                    kernels.append((op, ins, o, "accumulate", f"oik_{op}_{x}_{o}", sig_of(op, x)))
    return kernels


def entry_points(kernels):
    """{symbol: sig} in first-seen order."""
    seen = {}
    for k in kernels:
        seen.setdefault(k[4], k[5])
    return seen


def variants_header(catalog, kernels):
    out = ["/* Generated by plugins/c_kernels/gen_dtype_variants.py from core/data/op_catalog.json;",
           " * do not edit. Per op, the dtypes its op file instantiates (docs/c-kernels.md). */",
           "/* clang-format off */",
           "#ifndef OIK_VARIANTS_H", "#define OIK_VARIANTS_H", ""]
    for op in sorted(catalog["ops"]):
        symbols = {k[4]: k for k in kernels if k[0] == op}
        if op in PAIR_OPS or op == "cast":
            pairs = []
            for sym, k in symbols.items():
                second = k[2] if op == "cast" else k[1][1]
                pairs.append(f"X({k[1][0]}, {second})")
            out.append(f"#define OIK_{op}_PAIRS(X) " + " ".join(pairs))
            continue
        by_class = {"F": [], "I": [], "B": []}
        accs = []
        for sym, k in symbols.items():
            if k[3] == "accumulate":
                accs.append(f"X({k[1][0]}, {k[2]})")
            else:
                by_class[dtype_class(k[1][0])].append(f"X({k[1][0]})")
        for c in "FIB":
            out.append(f"#define OIK_{op}_{c}(X) " + " ".join(by_class[c]))
        if accs:
            out.append(f"#define OIK_{op}_ACC(X) " + " ".join(accs))
    out += ["", "#endif", "/* clang-format on */", ""]
    return "\n".join(out)


def ops_header(kernels):
    out = ["/* Generated by plugins/c_kernels/gen_dtype_variants.py from core/data/op_catalog.json;",
           " * do not edit. The entry points of oi_kernels.h, one per (op, dtypes); the kernel table",
           " * (oik_kernels[]) says which serves each (op, input dtypes, output dtype, mode). */",
           "/* clang-format off */",
           "#ifndef OI_KERNELS_OPS_H", "#define OI_KERNELS_OPS_H", "",
           "#ifdef __cplusplus", 'extern "C" {', "#endif", "",
           "/* Signature classes (oik_kernel.sig) and their function types. */"]
    for i, (name, params) in enumerate(SIGS.items(), start=1):
        out.append(f"#define OIK_SIG_{name} {i}")
    out.append("")
    for name, params in SIGS.items():
        out.append(f"typedef int (*oik_sig_{name.lower()})({params}, oik_error* err);")
    out.append("")
    out.append("/* Scratch bytes a matmul call needs (only in place: the output aliases an input). */")
    out.append("size_t oik_matmul_scratch_size(const oik_tensor* a, const oik_tensor* b, "
               "const oik_tensor* y);")
    out.append("")
    op = None
    for sym, sig in entry_points(kernels).items():
        this_op = next(k[0] for k in kernels if k[4] == sym)
        if this_op != op:
            out.append(f"/* {this_op} */")
            op = this_op
        out.append(f"int {sym}({SIGS[sig]}, oik_error* err);")
    out += ["", "#ifdef __cplusplus", "}", "#endif", "", "#endif", "/* clang-format on */", ""]
    return "\n".join(out)


def table_source(kernels):
    # Only the ops that have their file under ops/ yet: the table links every entry point it names.
    kernels = [k for k in kernels if os.path.exists(os.path.join(HERE, "ops", k[0] + ".c"))]
    out = ["/* Generated by plugins/c_kernels/gen_dtype_variants.py from core/data/op_catalog.json;",
           " * do not edit. Every kernel of the library and its entry point. */",
           "/* clang-format off */",
           '#include <string.h>', "", '#include "oi_kernels.h"', "",
           "const oik_kernel oik_kernels[] = {"]
    for op, ins, o, mode, sym, sig in kernels:
        tags = ", ".join(str(TAGS[d]) for d in ins)
        out.append(f'  {{"{op}", {len(ins)}, {{{tags}}}, {TAGS[o]}, {MODES[mode]}, OIK_SIG_{sig}, '
                   f'"{sym}", (oik_fn){sym}}},')
    if not kernels:
        out.append('  {"", 0, {0}, 0, 0, 0, "", NULL},')
    out.append("};")
    out.append(f"const uint32_t oik_kernel_count = {len(kernels)};")
    out.append("""
const oik_kernel* oik_find_kernel(const char* op, const uint32_t* inputs, uint32_t num_inputs,
                                  uint32_t output, uint32_t mode) {
  for (uint32_t i = 0; i < oik_kernel_count; ++i) {
    const oik_kernel* k = &oik_kernels[i];
    if (k->num_inputs != num_inputs || k->output != output || k->mode != mode) continue;
    if (strcmp(k->op, op) != 0) continue;
    uint32_t j = 0;
    while (j < num_inputs && k->inputs[j] == inputs[j]) ++j;
    if (j == num_inputs) return k;
  }
  return NULL;
}

const char* oik_dtype_name(uint32_t dtype) {
  switch (dtype) {""")
    for name, tag in sorted(TAGS.items(), key=lambda kv: kv[1]):
        out.append(f'    case {tag}: return "{name}";')
    out.append("""    case 24: return "t2";
    case 25: return "t1";
    default: return NULL;
  }
}
/* clang-format on */
""")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail when a generated file is stale")
    ap.add_argument("--list", action="store_true", help="print every kernel and its entry point")
    ap.add_argument("--catalog", default=os.path.join(ROOT, "core", "data", "op_catalog.json"))
    args = ap.parse_args()
    catalog = json.load(open(args.catalog))
    kernels = derive(catalog)
    if args.list:
        for op, ins, o, mode, sym, sig in kernels:
            print(f"{op}({','.join(ins)})->{o} {mode} {sym} {sig}")
        return 0
    files = {
        os.path.join(HERE, "src", "oik_variants.h"): variants_header(catalog, kernels),
        os.path.join(HERE, "include", "oi_kernels_ops.h"): ops_header(kernels),
        os.path.join(HERE, "src", "oik_table.c"): table_source(kernels),
    }
    stale = []
    for path, text in files.items():
        old = open(path).read() if os.path.exists(path) else None
        if old == text:
            continue
        if args.check:
            stale.append(os.path.relpath(path, ROOT))
        else:
            with open(path, "w") as f:
                f.write(text)
    if stale:
        print("gen_dtype_variants: stale (run plugins/c_kernels/gen_dtype_variants.py): " +
              ", ".join(stale), file=sys.stderr)
        return 1
    counts = {}
    for k in kernels:
        counts[k[3]] = counts.get(k[3], 0) + 1
    print(f"gen_dtype_variants: {len(kernels)} kernels ({counts}), "
          f"{len(entry_points(kernels))} entry points" + (" up to date" if args.check else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
