#!/usr/bin/env python3
"""Writes docs/op-reference.md from the op catalog, core/data/op_catalog.json: per op its
inputs and their dtypes, output dtype, output-shape rule, modes (normal, in place, the acc=
pairs) and settings with their types and defaults, then the shared settings table.

  python3 scripts/gen_op_reference.py           # rewrite docs/op-reference.md
  python3 scripts/gen_op_reference.py --check   # exit 1 when docs/op-reference.md is stale

What the catalog leaves out, the reference takes from the C++ that fills it in: the output-shape
rules of the reductions and matmul come from refine_builtin() in core/src/catalog/op_catalog.cpp.
Standard library only; the CTest test docs_op_reference_current runs --check."""
import argparse
import difflib
import json
import os
import re
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CATALOG = os.path.join("core", "data", "op_catalog.json")
CATALOG_CPP = os.path.join("core", "src", "catalog", "op_catalog.cpp")
OUTPUT = os.path.join("docs", "op-reference.md")

# Where each category's semantics are written down.
CATEGORY_DOCS = {
    "arithmetic": "ops.md#the-ops", "numerical": "ops.md#the-ops", "filter": "ops.md#the-ops",
    "mutation": "ops.md#the-ops", "statistics": "ops.md#the-ops", "rounding": "ops.md#the-ops",
    "bitwise": "ops.md#the-ops", "comparison": "ops.md#the-ops", "reduction": "ops.md#the-ops",
    "casting": "ops.md#the-ops",
    "math": "ops-nn.md#elementwise-math", "normalization": "ops-nn.md#over-an-axis",
    "movement": "ops-nn.md#moving-data", "nn": "ops-nn.md#neural-network-layers",
}

# The output-shape rules of ShapeRuleRegistry (core/src/catalog/shape_rules.cpp and
# shape_rules_nn.cpp), in their registration order.
SHAPE_RULES = [
    ("broadcast", "elementwise: the inputs' shape; numpy broadcasting where the op's "
                  "`broadcast` is true, else equal shapes (the default rule)"),
    ("same_as_input0", "input 0's shape"),
    ("scalar", "a scalar (rank 0)"),
    ("declared", "the output's declared shape"),
    ("reduce_axes", "input 0 without the `axes` (all when absent), kept with size 1 under "
                    "`keepdims`"),
    ("argreduce_axis", "input 0 without `axis`, kept with size 1 under `keepdims`"),
    ("matmul", "[..., M, K] × [..., K, N] → [..., M, N]; ranks ≥ 2, batch dims broadcast"),
    ("same_as_input0_axis", "input 0's shape; `axis` must name one of its axes"),
    ("reshape", "the output's declared shape, holding as many elements as the input"),
    ("transpose", "output axis i is input axis `perm[i]` (absent: the axes reversed)"),
    ("concat", "equal ranks and dims except along `axis`, where the sizes add up"),
    ("gather", "data's dims with the `axis` dim replaced by the dims of the indices"),
    ("norm_trailing", "x's shape; every further input has x's dims from `axis` to the last"),
    ("slice", "per sliced axis, the number of indices visited (ONNX Slice clamping)"),
    ("pad", "each dim is begin + dim + end of `pads`"),
    ("conv", "x [N, C, spatial…], w [M, C/group, k…], b [M] → [N, M, out…] (ONNX floor mode)"),
    ("pool", "x [N, C, spatial…] → [N, C, out…] with `kernel` taps per axis"),
    ("batch_norm", "x [N, C, …] → x's shape; scale, bias, mean and var are [C]"),
    ("attention", "q [..., Tq, D], k [..., Tk, D], v [..., Tk, Dv] → [..., Tq, Dv]; leading "
                  "dims broadcast, mask broadcast to [..., Tq, Tk]"),
    ("rope", "x [..., T, D] with D even, pos a scalar → x's shape"),
    ("dequantize", "x's shape; scale (and zero_point) a scalar or 1-D along `axis`"),
]
SHAPE_RULE_NAMES = {name for name, _ in SHAPE_RULES}
# Names op schemas may use for the rules above (op_schema_json.cpp, shape_rule_name()).
SHAPE_RULE_ALIASES = {"input0": "same_as_input0", "reduce": "reduce_axes",
                      "argreduce": "argreduce_axis"}

# Input dtype rules the catalog cannot say, filled in by refine_builtin() as well.
INPUT_NOTES = {("filter", 2): "`c` may also be `bool` whatever `a` is"}

DTYPE_GROUPS = [
    ("floats", ["f8", "bf16", "f16", "f32", "f64"]),
    ("signed", ["i1", "i2", "i4", "i8", "i16", "i32", "i64"]),
    ("unsigned", ["u1", "u2", "u4", "u8", "u16", "u32", "u64"]),
]


class CatalogError(Exception):
    pass


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def builtin_shape_rules():
    """The {op: rule} table of refine_builtin() in core/src/catalog/op_catalog.cpp."""
    text = read(CATALOG_CPP)
    start = text.find("void refine_builtin(")
    if start < 0:
        raise CatalogError(f"{CATALOG_CPP}: refine_builtin() not found")
    body = text[start:text.find("\n}\n", start)]
    pairs = re.findall(r'\{"(\w+)",\s*"(\w+)"\}', body)
    if not pairs:
        raise CatalogError(f"{CATALOG_CPP}: refine_builtin() holds no {{op, rule}} pairs")
    return dict(pairs)


def format_dtypes(dtypes, order):
    """'floats, signed, bool': whole groups by name, the rest one by one, in catalog order."""
    have = set(dtypes)
    out, skip = [], set()
    for t in order:
        if t not in have or t in skip:
            continue
        group = next((g for g in DTYPE_GROUPS if t in g[1]), None)
        if group and set(group[1]) <= have:
            out.append(group[0])
            skip.update(group[1])
        else:
            out.append(f"`{t}`")
    unknown = [t for t in dtypes if t not in order]
    if unknown:
        raise CatalogError(f"unknown dtypes {unknown}")
    return ", ".join(out)


def format_value(v):
    if isinstance(v, bool):
        return "`true`" if v else "`false`"
    if isinstance(v, str):
        return f"`{v}`" if v in ("inf", "-inf") else f'`"{v}"`'
    if isinstance(v, list):
        return "`[" + ", ".join(str(x) for x in v) + "]`"
    return f"`{json.dumps(v)}`"


def wrap(line):
    """A prose line or list item wrapped at 100 columns; tables, headings and blanks as they are."""
    if not line or line[0] in "|#<" or line.startswith("  |"):
        return line
    indent = "  " if line.startswith("- ") else ""
    return textwrap.fill(line, width=100, subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False)


def cell(text):
    return text.replace("|", "\\|")


def inputs_of(name, op, order):
    """[(name, dtype rule text, notes)] for the op's positional inputs."""
    spec = op["inputs"]
    if isinstance(spec, int):
        names = ["x"] if spec == 1 else [("a", "b", "c")[i] if i < 3 else f"in{i}"
                                         for i in range(spec)]
        spec = [{"name": n} if i == 0 else {"name": n, "dtypes": "input0"}
                for i, n in enumerate(names)]
    if not spec:
        raise CatalogError(f"op '{name}': no inputs")
    first = spec[0]["name"]
    out = []
    for i, inp in enumerate(spec):
        rule = inp.get("dtypes", "op")
        if rule == "op":
            text = "the op's dtypes" if i > 0 else None
        elif rule == "input0":
            text = f"as `{first}`"
            if inp.get("also"):
                text += " or " + ", ".join(f"`{t}`" for t in inp["also"])
        elif rule == "input0_or_acc":
            text = f"as `{first}`, or the `acc=` dtype"
        elif isinstance(rule, list):
            text = format_dtypes(rule, order)
        else:
            raise CatalogError(f"op '{name}' input '{inp.get('name')}': unknown dtypes {rule!r}")
        notes = []
        if "variadic" in inp:
            lo, hi = inp["variadic"]
            notes.append(f"{lo} to {hi} of them")
        if inp.get("optional"):
            notes.append("optional")
        if (name, i) in INPUT_NOTES:
            notes.append(INPUT_NOTES[(name, i)])
        out.append((inp["name"], text, notes))
    return out


def settings_of(name, op, shared):
    """[(setting name, spec)] with the op's own defaults applied."""
    out = []
    for s in op.get("settings", []):
        if isinstance(s, str):
            if s not in shared:
                raise CatalogError(f"op '{name}': unknown setting '{s}'")
            spec = dict(shared[s])
            sname = s
        else:
            spec = {k: v for k, v in s.items() if k != "name"}
            sname = s["name"]
        out.append((sname, spec))
    for key, value in op.get("setting_defaults", {}).items():
        match = [spec for sname, spec in out if sname == key]
        if not match:
            raise CatalogError(f"op '{name}': setting_defaults names '{key}', not a setting")
        match[0]["default"] = value
    return out


def setting_row(sname, spec):
    default = "required" if spec.get("required") else (
        format_value(spec["default"]) if "default" in spec else "—")
    notes = spec.get("doc", "")
    if spec.get("values"):
        notes += "; one of " + " ".join(f'`"{v}"`' for v in spec["values"])
    if spec.get("aliases"):
        notes += "; also named " + " ".join(f"`{a}`" for a in spec["aliases"])
    return f"| `{sname}` | {spec['type']} | {default} | {cell(notes)} |"


def accumulate_text(acc, order):
    """'i1, i2, i4 → i8, i16, i32, i64; i8 → i16, i32, i64' (inputs sharing targets joined)."""
    groups = {}
    for t in order:
        if t in acc:
            groups.setdefault(tuple(acc[t]), []).append(t)
    return "; ".join(", ".join(f"`{t}`" for t in ins) + " → " +
                     ", ".join(f"`{t}`" for t in outs) for outs, ins in groups.items())


def output_dtype_text(name, op, inputs):
    rule = op["output_dtype"]
    if rule in ("input0", "acc"):
        text = f"as `{inputs[0][0]}`"
    elif re.fullmatch(r"input\d+", rule):
        index = int(rule[5:])
        if index >= len(inputs):
            raise CatalogError(f"op '{name}': output_dtype {rule} names no input")
        text = f"as `{inputs[index][0]}`"
    elif rule.startswith("setting:"):
        text = f"the `{rule[8:]}` setting's dtype"
    else:
        text = f"`{rule}`"
    if op.get("accumulate"):
        text += "; with `acc=`, that dtype"
    return text


def shape_rule_of(name, op, refined):
    rule = op.get("output_shape") or refined.get(name) or "broadcast"
    rule = SHAPE_RULE_ALIASES.get(rule, rule)
    if rule not in SHAPE_RULE_NAMES:
        raise CatalogError(f"op '{name}': shape rule '{rule}' is not described in "
                           f"scripts/gen_op_reference.py (SHAPE_RULES)")
    return rule


def inline_settings_text(ops):
    """' (`pads` of `avg_pool`, `conv`, `max_pool`)': the settings ops define inline, if any."""
    inline = {}
    for name in sorted(ops):
        for s in ops[name].get("settings", []):
            if isinstance(s, dict):
                inline.setdefault(s["name"], []).append(name)
    if not inline:
        return ""
    return " (" + "; ".join(f"`{s}` of " + ", ".join(f"`{o}`" for o in names)
                            for s, names in sorted(inline.items())) + ")"


def modes_text(op):
    modes = ["normal"]
    if op.get("inplace"):
        modes.append("in place")
    if op.get("accumulate"):
        modes.append("accumulate")
    return modes


def generate(catalog, refined):
    order = catalog["dtypes"]
    shared = catalog["settings"]
    ops = catalog["ops"]
    for name, op in ops.items():
        if op["category"] not in CATEGORY_DOCS:
            raise CatalogError(f"op '{name}': category '{op['category']}' has no page in "
                               f"scripts/gen_op_reference.py (CATEGORY_DOCS)")
    categories = []
    for op in ops.values():
        if op["category"] not in categories:
            categories.append(op["category"])

    lines = [
        "# Op reference",
        "",
        "<!-- Generated by scripts/gen_op_reference.py from core/data/op_catalog.json: "
        "do not edit. -->",
        "",
        f"Every builtin op of the catalog, `core/data/op_catalog.json` ({len(ops)} ops), as the "
        "validator and the backends read it. What each op computes is written in "
        "[ops.md](ops.md) and [ops-nn.md](ops-nn.md); the general rules (float and integer "
        "arithmetic, modes, settings, accuracy) are at the top of ops.md.",
        "",
        "This page is generated: after changing the catalog, run "
        "`python3 scripts/gen_op_reference.py`. The test `docs_op_reference_current` "
        "(`gen_op_reference.py --check`) fails while the page is stale.",
        "",
        "Dtype groups: " + "; ".join(f"**{g}** = " + " ".join(f"`{t}`" for t in ts)
                                     for g, ts in DTYPE_GROUPS) +
        ". The dtypes listed for an op are those of its first input; the other inputs follow "
        "the rule given for each. Modes: *normal* (the output is a new variable), *in place* "
        "(the output is one of the inputs), *accumulate* (`acc=DTYPE`: the inputs widened "
        "exactly to DTYPE, the output of that dtype; the pairs are listed per op).",
        "",
        "## Index",
        "",
        "| op | category | dtypes | modes | settings |",
        "|---|---|---|---|---|",
    ]
    for name in sorted(ops):
        op = ops[name]
        settings = ", ".join(f"`{s}`" for s, _ in settings_of(name, op, shared)) or "—"
        lines.append(f"| [`{name}`](#{name}) | {op['category']} | "
                     f"{format_dtypes(op['dtypes'], order)} | "
                     f"{', '.join(modes_text(op))} | {settings} |")
    lines.append("")

    for category in categories:
        lines += [f"## Category: {category}", "",
                  f"Semantics: [{CATEGORY_DOCS[category].replace('#', ', ')}]"
                  f"({CATEGORY_DOCS[category]}).", ""]
        for name in sorted(n for n, op in ops.items() if op["category"] == category):
            op = ops[name]
            inputs = inputs_of(name, op, order)
            lines += [f"### `{name}`", ""]
            parts = []
            for i, (iname, rule, notes) in enumerate(inputs):
                text = f"`{iname}`: " + (format_dtypes(op["dtypes"], order) if i == 0 and rule
                                          is None else rule or "")
                if notes:
                    text += " (" + "; ".join(notes) + ")"
                parts.append(text)
            lines.append("- inputs: " + "; ".join(parts))
            lines.append(f"- output: {output_dtype_text(name, op, inputs)}; shape rule "
                         f"[`{shape_rule_of(name, op, refined)}`](#shape-rules)" +
                         (" with numpy broadcasting" if op.get("broadcast") else ""))
            modes = modes_text(op)
            text = "- modes: " + ", ".join(modes)
            if op.get("accumulate"):
                text += " (`acc=`: " + accumulate_text(op["accumulate"], order) + ")"
            lines.append(text)
            if op.get("to_dtypes"):
                lines.append("- `to` dtypes: " + format_dtypes(op["to_dtypes"], order))
            settings = settings_of(name, op, shared)
            if not settings:
                lines += ["- settings: none", ""]
                continue
            lines += ["- settings:", "", "  | setting | type | default | meaning |",
                      "  |---|---|---|---|"]
            lines += ["  " + setting_row(s, spec) for s, spec in settings]
            lines.append("")

    lines += [
        "## Shape rules",
        "",
        "An op's `output_shape` names one of these rules (`ShapeRuleRegistry` in "
        "`core/src/catalog/shape_rules.cpp` and `shape_rules_nn.cpp`); a plugin may register "
        "more. The validator applies the rule to the input shapes and settings, and the output "
        "variable must have the shape it gives.",
        "",
        "| rule | output shape |",
        "|---|---|",
    ]
    lines += [f"| `{rule}` | {cell(text)} |" for rule, text in SHAPE_RULES]
    lines += [
        "",
        "## Shared settings",
        "",
        "The catalog's `settings` table, which op entries name. An op may give a setting its own "
        "default (`setting_defaults`) or define a setting inline" + inline_settings_text(ops) +
        "; the op's own section shows what applies to it.",
        "",
        "| setting | type | default | meaning |",
        "|---|---|---|---|",
    ]
    lines += [setting_row(s, spec) for s, spec in shared.items()]
    return "\n".join(wrap(line) for line in lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help=f"exit 1 when {OUTPUT} differs from what would be written")
    args = parser.parse_args()
    try:
        catalog = json.loads(read(CATALOG))
        text = generate(catalog, builtin_shape_rules())
    except (CatalogError, KeyError, ValueError, OSError) as e:
        print(f"gen_op_reference.py: error: {e}", file=sys.stderr)
        return 2
    path = os.path.join(ROOT, OUTPUT)
    if args.check:
        try:
            with open(path, encoding="utf-8") as f:
                current = f.read()
        except OSError as e:
            print(f"gen_op_reference.py: error: {e}", file=sys.stderr)
            return 1
        if current != text:
            diff = difflib.unified_diff(current.splitlines(), text.splitlines(),
                                        f"{OUTPUT} (committed)", f"{OUTPUT} (from {CATALOG})",
                                        lineterm="", n=1)
            print(f"{OUTPUT} is stale: it does not match {CATALOG}. Run "
                  "`python3 scripts/gen_op_reference.py` and commit the result.", file=sys.stderr)
            for i, line in enumerate(diff):
                if i == 40:
                    print("...", file=sys.stderr)
                    break
                print(line, file=sys.stderr)
            return 1
        print(f"{OUTPUT} is current")
        return 0
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {OUTPUT} ({len(catalog['ops'])} ops)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
