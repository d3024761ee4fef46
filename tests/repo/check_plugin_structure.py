#!/usr/bin/env python3
"""The plugin structure of docs/plugin-abi.md ("What a plugin sees"), checked on the sources.

1. No plugin links openinfer_core: no CMake file under plugins/ names `openinfer_core` or
   `OpenInfer::core` outside a comment.
2. No plugin source includes a core header: every `#include` of a C/C++ file under plugins/
   either names an SDK header (`openinfer/X` that exists in plugin_api/include/openinfer/), or
   does not resolve into core/, frontend/ or cli/ (its own files, the standard library,
   third-party and generated headers are fine).
3. Slice ranges, conv/pool windows, numpy broadcasting and the float formats exist once, in the
   SDK headers (plugin_api/include/openinfer/): no other C++ file of core/, frontend/, cli/ or
   plugins/ declares or defines a function of the shared names (SHARED_FUNCTIONS), nor holds the
   arithmetic they encapsulate (SHARED_ARITHMETIC: the window span, the negative-step slice
   clamp, the bf16 rounding carry). The slice and window arithmetic itself is C11
   (openinfer/geometry.h, GEOMETRY_C): the C++ headers slice_range.hpp and window.hpp include it
   and hold none of it, and the C kernel library (plugins/c_kernels), which includes it too,
   neither defines its functions nor computes the window span or the slice clamp itself.
4. Every refusal of the C emitter (plugins/c_emitter) goes through one of three paths
   (check_c_refusals): oi::emit::refuse_device_limit (a device description key), invalid_plan (a
   plan the planner never produces) or c_gap(KEY, ...) with KEY one of C_GAPS, the emitter's
   listed gaps, each named in docs/synth.md; op writers that leave a case to the C kernel library
   throw LibraryInstead, which the one dispatch point catches. No other throw reaches the ABI as
   OI_STATUS_UNIMPLEMENTED.
5. The GLSL emitter's own writers (GLSL_OWN_WRITERS) write fused elementwise chains only
   (check_glsl_own_writers, issue #18): every other op runs the Vulkan backend's shader for it.
   The elementwise family is the planner's (core/src/synth/build_schedule.cpp's classify): the
   ops of core/data/op_catalog.json other than matmul, the reductions and those with an
   `output_shape` rule. No word of a string literal in those files names an op outside it (no
   dispatch on such an op, no message or list naming one), and no function is named write_X
   for such an op or kind (write_matmul, write_reduction).

Out of scope, because they are other languages that cannot include a C++ header: the C kernel
library shipped with generated programs (plugins/c_kernels; geometry.h aside), the GLSL shaders, the generated
host program of the GLSL target (plugins/glsl_emitter/host) and the C or GLSL text an emitter
writes (string literals). Every failure names the file and line.

Usage: check_plugin_structure.py [REPO_ROOT]   (default: two levels above this script)
"""
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2]
SDK = ROOT / "plugin_api" / "include" / "openinfer"
NOT_PLUGIN_DIRS = [ROOT / "core", ROOT / "frontend", ROOT / "cli"]
OUT_OF_SCOPE = [ROOT / "plugins" / "c_kernels", ROOT / "plugins" / "glsl_emitter" / "host"]
CXX = {".c", ".cc", ".cpp", ".h", ".hpp", ".inc"}

SHARED_FUNCTIONS = {
    "float_formats.hpp": ["f32_to_f16_bits", "f64_to_f16_bits", "f16_bits_to_f32",
                          "f32_to_bf16_bits", "f64_to_bf16_bits", "bf16_bits_to_f32",
                          "f32_to_f8_bits", "f64_to_f8_bits", "f8_bits_to_f32", "f64_to_f32"],
    "slice_range.hpp": ["slice_axis", "slice_ranges"],
    "window.hpp": ["valid_outputs", "valid_taps", "window_2d"],
    "broadcast.hpp": ["broadcast_shape", "broadcast_shapes", "broadcast_strides"],
    "reset_window.hpp": ["reset_is_window"],
}
SHARED_ARITHMETIC = {
    "the window span d * (k - 1) + 1 (window.hpp)": r"[\w\[\]\.]+\s*\*\s*\(\s*[\w\[\]\.]+\s*-\s*1\s*\)\s*\+\s*1\b",
    "the negative-step slice clamp to [-1, dim - 1] (slice_range.hpp)":
        r"clamp\s*<\s*int64_t\s*>\s*\(\s*\w+\s*,\s*-1\s*,",
    "the bf16 rounding carry (float_formats.hpp)": r"0x7fffu?\s*\+\s*\(\s*\(\s*\w+\s*>>\s*16",
}
# openinfer/geometry.h: the slice and window arithmetic in C11, which slice_range.hpp and
# window.hpp wrap, and the C kernel library and generated C programs include.
GEOMETRY_C = {
    "header": "geometry.h",
    "functions": ["oi_slice_axis", "oi_window_padded", "oi_window_span", "oi_window_fits",
                  "oi_window_valid", "oi_window_output", "oi_window_valid_outputs",
                  "oi_window_valid_taps"],
    "wrappers": ["slice_range.hpp", "window.hpp"],
    # The negative-step slice clamp as C writes it (the C++ form is in SHARED_ARITHMETIC).
    "c_clamp": r"<\s*-1\s*\?\s*-1\s*:",
}
KEYWORDS = {"return", "else", "case", "throw", "co_return", "new", "delete", "do", "goto"}


def rel(p):
    return p.relative_to(ROOT).as_posix()


def under(p, dirs):
    return any(d == p or d in p.parents for d in dirs)


def strip_comment(line):
    return line.split("#", 1)[0]


def code_lines(text):
    """(line number, line) with // comments and string literals blanked, block comments too."""
    out, in_block = [], False
    for n, line in enumerate(text.splitlines(), 1):
        s, i, buf = line, 0, []
        while i < len(s):
            if in_block:
                end = s.find("*/", i)
                if end < 0:
                    i = len(s)
                    continue
                in_block, i = False, end + 2
            elif s.startswith("/*", i):
                in_block, i = True, i + 2
            elif s.startswith("//", i):
                break
            elif s[i] == '"' or (s[i] == "'" and i + 2 < len(s)):
                q, j = s[i], i + 1
                while j < len(s) and s[j] != q:
                    j += 2 if s[j] == "\\" else 1
                buf.append(q + q)
                i = j + 1
            else:
                buf.append(s[i])
                i += 1
        out.append((n, "".join(buf)))
    return out


def sources(dirs):
    for d in dirs:
        for p in sorted(d.rglob("*")):
            if p.suffix in CXX and p.is_file() and not under(p, OUT_OF_SCOPE):
                yield p


def check_cmake(problems):
    for p in sorted((ROOT / "plugins").rglob("*")):
        if p.name != "CMakeLists.txt" and p.suffix != ".cmake":
            continue
        for n, line in enumerate(p.read_text().splitlines(), 1):
            if re.search(r"\bopeninfer_core\b|OpenInfer::core\b", strip_comment(line)):
                problems.append(f"{rel(p)}:{n}: a plugin links openinfer_core: {line.strip()}")


INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def check_includes(problems):
    for p in sources([ROOT / "plugins"]):
        # Raw strings hold generated code: only real preprocessor lines count.
        raw = False
        for n, line in enumerate(p.read_text(errors="replace").splitlines(), 1):
            if 'R"' in line and ')"' not in line.split('R"', 1)[1]:
                raw = True
            elif raw and ')"' in line:
                raw = False
                continue
            m = None if raw else INCLUDE.match(line)
            if not m:
                continue
            name = m.group(2)
            if name.startswith("openinfer/"):
                if not (SDK / name[len("openinfer/"):]).is_file():
                    problems.append(f"{rel(p)}:{n}: includes <{name}>, which is not an SDK "
                                    "header (plugin_api/include/openinfer/)")
                continue
            if m.group(1) == '"':
                target = (p.parent / name).resolve()
                if target.exists() and under(target, NOT_PLUGIN_DIRS):
                    problems.append(f"{rel(p)}:{n}: includes {rel(target)}, a core header")


def decl_of(names):
    """A declaration or definition of one of the functions `names` (group 2)."""
    return re.compile(r"^\s*(?:template\s*<[^>]*>\s*)?((?:[A-Za-z_][\w:<>,\*&]*\s+)+)[\*&]*\s*(" +
                      "|".join(names) + r")\s*\(")


def check_geometry_c(problems, decl, arith):
    """openinfer/geometry.h defines its functions; the C++ wrappers include it and hold none of
    its arithmetic; the C kernel library defines none of them and holds none of it either."""
    header = SDK / GEOMETRY_C["header"]
    text = header.read_text() if header.is_file() else ""
    for f in GEOMETRY_C["functions"]:
        if not re.search(r"\b" + f + r"\s*\(", text):
            problems.append(f"plugin_api/include/openinfer/{GEOMETRY_C['header']}: does not "
                            f"define {f}()")
    c_clamp = re.compile(GEOMETRY_C["c_clamp"])
    wrappers = [SDK / w for w in GEOMETRY_C["wrappers"]]
    for p in wrappers:
        if f'#include "openinfer/{GEOMETRY_C["header"]}"' not in p.read_text():
            problems.append(f"{rel(p)}: does not include openinfer/{GEOMETRY_C['header']}, "
                            "whose arithmetic it wraps")
    kernels = sorted(q for q in (ROOT / "plugins" / "c_kernels").rglob("*")
                     if q.suffix in CXX and q.is_file())
    for p in wrappers + kernels:
        for n, line in code_lines(p.read_text(errors="replace")):
            m = decl.match(line)
            if m and not (set(m.group(1).split()) & KEYWORDS) and "=" not in m.group(1):
                problems.append(f"{rel(p)}:{n}: declares or defines {m.group(2)}(), which "
                                f"openinfer/{GEOMETRY_C['header']} defines once")
            for what, rx in list(arith.items()) + [("the slice clamp to -1", c_clamp)]:
                if "bf16" not in what and rx.search(line):
                    problems.append(f"{rel(p)}:{n}: computes {what} itself: use "
                                    f"openinfer/{GEOMETRY_C['header']}")


def check_shared(problems):
    names = [f for fs in SHARED_FUNCTIONS.values() for f in fs]
    decl = decl_of(names)
    arith = {what: re.compile(rx) for what, rx in SHARED_ARITHMETIC.items()}
    for p in sources(NOT_PLUGIN_DIRS + [ROOT / "plugins"]):
        for n, line in code_lines(p.read_text(errors="replace")):
            m = decl.match(line)
            if m and not (set(m.group(1).split()) & KEYWORDS) and "=" not in m.group(1):
                problems.append(f"{rel(p)}:{n}: declares or defines {m.group(2)}(), which "
                                "the SDK's openinfer/ headers define once")
            for what, rx in arith.items():
                if rx.search(line):
                    problems.append(f"{rel(p)}:{n}: computes {what} itself: use the SDK header")
    check_geometry_c(problems, decl_of(GEOMETRY_C["functions"]), arith)
    # ... and the SDK does define each of them.
    for header, fs in SHARED_FUNCTIONS.items():
        text = (SDK / header).read_text() if (SDK / header).is_file() else ""
        for f in fs:
            if f != "broadcast_shapes" and not re.search(r"\b" + f + r"\s*\(", text):
                problems.append(f"plugin_api/include/openinfer/{header}: does not define {f}()")


# The C emitter's remaining gaps: c_gap(KEY, ...) sites, each listed in docs/synth.md ("What the
# C target refuses"). Keep it short: a gap closed is a key removed.
C_GAPS = {
    "library-missing": "the C kernel library not installed beside the plugin",
    "library-entry-point": "an op the C kernel library has no entry point for (a kernel pack's)",
    "library-signature": "a C kernel library entry point of an unknown signature class",
}
C_EMITTER = ROOT / "plugins" / "c_emitter"
# Environment errors (not refusals): the model given does not match the plan, the kernel
# library's files cannot be read. Matched against the throw's line.
C_ENVIRONMENT_ERRORS = ["model tensor", "the C kernel library's", "cannot read the C kernel"]


def check_c_refusals(problems):
    used = {}
    for p in sorted(C_EMITTER.glob("*")):
        if p.suffix not in CXX:
            continue
        raw = p.read_text(errors="replace").splitlines()
        for n, line in code_lines(p.read_text(errors="replace")):
            where = f"{rel(p)}:{n}"
            if "CUnsupported" in line:
                problems.append(f"{where}: CUnsupported: refuse through refuse_device_limit, "
                                "invalid_plan or c_gap")
            for m in re.finditer(r"\bthrow\b\s*([\w:]*)", line):
                what = m.group(1)
                if what in ("", "LibraryInstead"):
                    continue
                if what in ("InvalidPlan", "CGap") and p.name == "c_common.cpp":
                    continue
                if what == "oi::abi::StatusError" and p.name == "plugin.cpp":
                    continue
                if what == "std::runtime_error" and any(e in raw[n - 1] for e in C_ENVIRONMENT_ERRORS):
                    continue
                problems.append(f"{where}: throws {what}: a refusal goes through "
                                "refuse_device_limit, invalid_plan or c_gap")
            if "OI_STATUS_UNIMPLEMENTED" in line:
                before = raw[n - 2] if n >= 2 else ""
                if not re.search(r"catch \(const (oi::emit::DeviceLimit|oi::c_emitter::CGap)&", before):
                    problems.append(f"{where}: OI_STATUS_UNIMPLEMENTED other than for a "
                                    "DeviceLimit or a CGap")
            if re.search(r"\bc_gap\s*\(", line) and not re.search(r"void\s+c_gap\s*\(", line):
                m = re.search(r"\bc_gap\s*\(\s*\"([^\"]*)\"", raw[n - 1])
                if not m:
                    problems.append(f"{where}: c_gap without a literal key")
                elif m.group(1) not in C_GAPS:
                    problems.append(f"{where}: c_gap key '{m.group(1)}' is not in C_GAPS "
                                    "(tests/repo/check_plugin_structure.py)")
                else:
                    used[m.group(1)] = where
    for key in C_GAPS:
        if key not in used:
            problems.append(f"tests/repo/check_plugin_structure.py: C_GAPS lists '{key}', which "
                            "no c_gap of plugins/c_emitter uses: remove it")
    doc = (ROOT / "docs" / "synth.md").read_text()
    for key in C_GAPS:
        if f"`{key}`" not in doc:
            problems.append(f"docs/synth.md: does not list the C target's gap `{key}`")
    return len(used)
# ---- the GLSL target's refusals (issue #18; plugins/glsl_emitter/refusal.hpp) -----------------
# Every refusal in plugins/glsl_emitter (the host program aside) goes through one of
# refusal.hpp's paths: device_limit (a device description key), invalid_plan (a plan the
# planner never produces) or glsl_gap("KEY", ...) with KEY one of GLSL_OPEN_GAPS, each listed
# in docs/synth-glsl.md's "Open gaps" table. `decline` is the own writers' signal that a kernel
# goes to the Vulkan backend's kernels (output_writer.cpp's write_kernel), never a refusal of
# its own. No other file makes an UNIMPLEMENTED or INVALID_ARGUMENT status.
GLSL_OPEN_GAPS = {
    "loop-setting-runtime-bounds": "a setting naming a loop index whose values are known only "
                                   "at run time or over 256 that neither a params word nor a "
                                   "kernel copy per value covers (an axis's result spread over "
                                   "a table entry, a rule error into a window, operands of "
                                   "run-time shape, more than 256 copies)",
    "auto-dim-operand": "an op reading a whole @auto_dim matrix that grows where its static "
                        "output does not pin the shape and the kernel cannot be one of run-time "
                        "length (several keys' matrices or two growing axes, other "
                        "operands neither plain values nor table entries, acc=, reshape, "
                        "rope table rows of no floor((a L + b) / c) form), or a part of "
                        "run-time length the result of an elementwise op alone does not give",
    "table-window-operand": "a window of table entries of run-time length as an op's output, "
                            "written by an op whose result's shape is not static (a rule the "
                            "emitter does not evaluate, a loop-index setting), or as an op's "
                            "input where the kernel cannot be one of run-time length (two "
                            "run-time axes, several keys' output) or is longer than recorded",
    "vulkan-kernel": "an op or dtype a kernel pack adds (the Vulkan backend has no kernel for "
                     "it)",
}
GLSL_EMITTER = ROOT / "plugins" / "glsl_emitter"
GLSL_OWN_WRITERS = {"shader_writer.cpp", "ops_math.cpp", "ops.cpp", "shader_common.cpp"}
GLSL_PATHS = {"device_limit", "invalid_plan", "glsl_gap", "decline"}


def check_glsl_refusals(problems):
    gap_call = re.compile(r"\bglsl_gap\s*\(\s*\"([^\"]*)\"")
    # a status made here: StatusError(...) or make_status(...), OI_STATUS_DECLINED aside (the
    # backend kernels' own protocol: try another way); comparing codes is fine
    bad = re.compile(r"\b(unsupported|invalid|refuse|CUnsupported)\s*\(|"
                     r"\bStatusError\s*\((?!\s*OI_STATUS_DECLINED)|\bmake_status\s*\(")
    used = set()
    for p in sorted(GLSL_EMITTER.glob("*")):
        if p.suffix not in CXX or p.name.startswith("refusal."):
            continue
        text = p.read_text(errors="replace")
        raw = text.splitlines()
        for n, line in code_lines(text):
            m = bad.search(line)
            if m:
                problems.append(f"{rel(p)}:{n}: refuses outside refusal.hpp's paths "
                                f"({m.group(0).strip()}): {raw[n - 1].strip()}")
            if re.search(r"\bdecline\s*\(", line) and p.name not in GLSL_OWN_WRITERS:
                problems.append(f"{rel(p)}:{n}: decline() outside the own writers "
                                f"({', '.join(sorted(GLSL_OWN_WRITERS))}): a refusal here goes "
                                "through device_limit, invalid_plan or glsl_gap")
            if re.search(r"\bglsl_gap\s*\(", line):
                # the key is a string literal: read it from the line as written
                k = gap_call.search(raw[n - 1]) or (
                    gap_call.search(raw[n - 1] + raw[n]) if n < len(raw) else None)
                if not k:
                    problems.append(f"{rel(p)}:{n}: glsl_gap without a literal gap key")
                elif k.group(1) not in GLSL_OPEN_GAPS:
                    problems.append(f"{rel(p)}:{n}: glsl_gap(\"{k.group(1)}\") is not listed "
                                    "in GLSL_OPEN_GAPS (tests/repo/check_plugin_structure.py)")
                else:
                    used.add(k.group(1))
    doc = (ROOT / "docs" / "synth-glsl.md").read_text()
    for key in sorted(GLSL_OPEN_GAPS):
        if key not in used:
            problems.append(f"GLSL_OPEN_GAPS lists '{key}', which no glsl_gap() names: "
                            "remove it (the gap is closed)")
        if f"`{key}`" not in doc:
            problems.append(f"docs/synth-glsl.md: the open gap `{key}` is not listed")


def catalog_ops():
    """The op catalog's ops: (every name, the elementwise family as the planner classifies)."""
    ops = json.loads((ROOT / "core" / "data" / "op_catalog.json").read_text())["ops"]
    family = {n for n, o in ops.items()
              if n != "matmul" and o.get("category") != "reduction" and "output_shape" not in o}
    return set(ops), family


def string_literals(text):
    """(line number, content) of the string literals of C++ text (raw strings too), comments
    left out."""
    out, i, line, n = [], 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            i = text.find("\n", i) if text.find("\n", i) >= 0 else n
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += text.count("\n", i, end)
            i = end
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            paren = text.find("(", i)
            delim = ")" + text[i + 2:paren] + '"'
            end = text.find(delim, paren)
            end = n if end < 0 else end
            out.append((line, text[paren + 1:end]))
            line += text.count("\n", i, end)
            i = end + len(delim)
        elif c == "'" and i + 2 < n:  # a character literal
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append((line, text[i + 1:j]))
            i = j + 1
        else:
            i += 1
    return out


def check_glsl_own_writers(problems):
    names, family = catalog_ops()
    others = names - family
    kinds = others | {"reduction", "movement", "normalization", "single", "op"}
    for name in sorted(GLSL_OWN_WRITERS | {"shader_writer.hpp", "ops.hpp", "shader_common.hpp"}):
        p = GLSL_EMITTER / name
        text = p.read_text(errors="replace")
        for n, lit in string_literals(text):
            for word in sorted(set(re.findall(r"[a-z][a-z0-9_]*", lit)) & others):
                problems.append(f"{rel(p)}:{n}: the own writers name op '{word}' in \"{lit[:60]}\", "
                                "which is not elementwise: it runs the Vulkan backend's shader "
                                "(output_writer.cpp's write_kernel), the own writers write fused "
                                "elementwise chains only")
        for n, line in code_lines(text):
            for m in re.finditer(r"\bwrite_([a-z0-9_]+)\s*\(", line):
                if m.group(1) in kinds:
                    problems.append(f"{rel(p)}:{n}: an own writer for '{m.group(1)}' "
                                    f"(write_{m.group(1)}): the own writers write fused "
                                    "elementwise chains only; the op runs the Vulkan backend's "
                                    "shader")
    return len(others)


def main():
    problems = []
    check_cmake(problems)
    check_includes(problems)
    check_shared(problems)
    c_gaps = check_c_refusals(problems)
    check_glsl_refusals(problems)
    others = check_glsl_own_writers(problems)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} structure problem(s); docs/plugin-abi.md 'What a plugin sees'")
        return 1
    print("plugin structure ok: no plugin links openinfer_core or includes a core header; "
          f"{sum(len(f) for f in SHARED_FUNCTIONS.values())} shared functions defined once "
          f"under plugin_api/ (the slice and window arithmetic in C11, geometry.h's "
          f"{len(GEOMETRY_C['functions'])}); the C emitter refuses only through refuse_device_limit, "
          f"invalid_plan and {c_gaps} listed gaps; the GLSL emitter's own writers name none of "
          f"the {others} ops outside the elementwise family")
    return 0


if __name__ == "__main__":
    sys.exit(main())
