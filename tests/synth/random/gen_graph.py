"""Random valid graphs of the DSL (docs/dsl.md), with their models and inputs, for the
differential test (differential.py). One seed gives one graph, always the same.

Every value is a small integer held in f32 (inputs and weights in -3..3, results clamped to
-64..64 after each chain), so sums and products are exact in any order: the targets must agree
with the simulator byte for byte, matmul and reductions included.

Each graph draws a few of the constructs below (FEATURES); `features` of the result names those
it holds, so the runner can count them.
"""

import random

import numpy as np

FEATURES = [
    "elementwise",  # a chain of add sub mul max min neg abs relu, numpy broadcasting
    "matmul",  # [R, D] x constant [D, K]
    "reduction",  # sum_axis / max_axis / min_axis, keepdims or not
    "prefix_table",  # a loop over a constant prefix table (W[l], @pattern or the default)
    "table",  # a persistent table: cache.write/read at computed indices, slices, reset
    "fixed_table",  # a @fixed table read whole (T[]), an op writing an entry
    "counter",  # i32/i64 counters: cache.increment/decrement, a loop bound from one
    "loop_bounds",  # loops bounded by an outer index, a constant scalar, a size variable
    "branch",  # a conditional branch on a comparison, an unconditional one
    "yield",  # yield/await with consumer blocks
    "settings",  # a setting naming a constant scalar or a size variable
    "transfer",  # transfer and whole-value cache.read/cache.write of a persistent tensor
    "auto_dim",  # an @auto_dim matrix: grown by scalar indices, parts read and written, reset
    "scope",  # an elementwise chain inside scopes (nested, fuse=false, no_reorder=true, placement)
]

STEPS = 3


def ints(rng, shape, lo=-3, hi=3):
    return np.asarray(rng.integers(lo, hi + 1, size=shape), dtype=np.float32)


def fmt_tensor(name, arr, dtype="f32"):
    dims = ", ".join(str(d) for d in arr.shape)
    vals = ", ".join(repr(float(v)) if dtype.startswith("f") else str(int(v)) for v in arr.ravel())
    return f"{name}: {dtype}[{dims}] = {{ {vals} }}" if arr.shape else f"{name}: {dtype} = {vals}"


class Graph:
    def __init__(self, seed):
        self.py = random.Random(seed)
        self.np = np.random.default_rng(seed)
        self.D = self.py.randint(2, 5)
        self.R = self.py.randint(1, 3)
        self.K = self.py.randint(1, 4)
        self.L = self.py.randint(1, 3)
        self.decl = {"dynamic": [], "constant": [], "persistent": [], "volatile": []}
        self.model = [f"D := {self.D}", f"R := {self.R}", f"K := {self.K}", f"L := {self.L}"]
        self.entry = []
        self.blocks = []  # (name, [lines])
        self.outputs = []
        self.features = set()
        self.n = 0
        self.decl["dynamic"].append("x: f32[D];")
        self.decl["dynamic"].append("xr: f32[R, D];")
        self.decl["constant"].append("lo: f32[1] @init(-64.0);")
        self.decl["constant"].append("hi: f32[1] @init(64.0);")
        self.inputs = {}
        for s in range(STEPS):
            self.inputs[f"x.{s}"] = ints(self.np, (self.D,))
            self.inputs[f"xr.{s}"] = ints(self.np, (self.R, self.D))

    def fresh(self, base):
        self.n += 1
        return f"{base}{self.n}"

    def clamp(self, lines, v):
        lines.append(f"op min({v}, hi) >> {v};")
        lines.append(f"op max({v}, lo) >> {v};")

    # ---- the constructs ----

    def elementwise(self, scoped=False):
        out = self.fresh("e")
        full = self.py.random() < 0.6
        self.decl["volatile"].append(f"{out}: f32[{'R, D' if full else 'D'}];")
        c = self.fresh("c")
        cshape = self.py.choice([(1,), (self.D,)])
        self.decl["constant"].append(f"{c}: f32[{'1' if cshape == (1,) else 'D'}];")
        self.model.append(fmt_tensor(c, ints(self.np, cshape)))
        srcs = ["x", c] + (["xr"] if full else [])
        # the first op's result has the output's shape: one operand has it
        op = self.py.choice(["add", "sub", "mul", "max", "min"])
        a, b = ("xr" if full else "x"), self.py.choice(srcs)
        if self.py.random() < 0.5:
            a, b = b, a
        lines = [f"op {op}({a}, {b}) >> {out};"]
        for _ in range(self.py.randint(1, 4)):
            kind = self.py.choice(["add", "sub", "mul", "max", "min", "neg", "abs", "relu"])
            if kind in ("neg", "abs", "relu"):
                lines.append(f"op {kind}({out}) >> {out};")
            else:
                o = self.py.choice(srcs + [out])
                args = (out, o) if self.py.random() < 0.5 else (o, out)
                lines.append(f"op {kind}({args[0]}, {args[1]}) >> {out};")
            if kind == "mul":
                self.clamp(lines, out)
        if scoped:
            lines = self.in_scopes(lines)
        self.entry += lines
        self.outputs.append(out)
        self.features.add("elementwise")

    def in_scopes(self, lines):
        """`lines` inside a scope with random hints, the later ones in a nested scope: scopes
        change no value (dsl.md "Scopes"), they only bound fusion and reordering."""
        hints = [h for h in ("fuse=false", "no_reorder=true", 'placement="cpu"')
                 if self.py.random() < 0.4]
        split = self.py.randint(0, len(lines))
        inner = lines[split:]
        if inner and self.py.random() < 0.5:
            inner_hints = "(fuse=false) " if self.py.random() < 0.5 else ""
            inner = [f"scope {self.fresh('s')} {inner_hints}{{"] + ["  " + l for l in inner] + ["}"]
        body = lines[:split] + inner
        head = f"scope {self.fresh('s')} " + (f"({', '.join(hints)}) " if hints else "") + "{"
        self.features.add("scope")
        return [head] + ["  " + l for l in body] + ["}"]

    def scope(self):
        self.elementwise(scoped=True)

    def matmul(self):
        w, y = self.fresh("w"), self.fresh("mm")
        self.decl["constant"].append(f"{w}: f32[D, K];")
        self.model.append(fmt_tensor(w, ints(self.np, (self.D, self.K))))
        self.decl["volatile"].append(f"{y}: f32[R, K];")
        self.entry.append(f"op matmul(xr, {w}) >> {y};")
        if self.py.random() < 0.5:  # a fused epilogue
            self.entry.append(f"op relu({y}) >> {y};")
        self.outputs.append(y)
        self.features.add("matmul")

    def reduction(self):
        y = self.fresh("r")
        op = self.py.choice(["sum_axis", "max_axis", "min_axis"])
        axis = self.py.randint(0, 1)
        keep = self.py.random() < 0.5
        dims = ("R" if axis == 1 else "D") if not keep else ("R, 1" if axis == 1 else "1, D")
        self.decl["volatile"].append(f"{y}: f32[{dims}];")
        self.entry.append(
            f"op {op}(xr, axes=[{axis}]{', keepdims=true' if keep else ''}) >> {y};")
        self.outputs.append(y)
        self.features.add("reduction")

    def prefix_table(self):
        W, y = self.fresh("W"), self.fresh("p")
        entries = self.L + self.py.randint(0, 1)
        if self.py.random() < 0.5:
            pat = f"blk.{{l}}.{W}"
            self.decl["constant"].append(f'{W}(l): f32[D] @pattern("{pat}");')
            names = [pat.replace("{l}", str(i)) for i in range(entries)]
        else:
            self.decl["constant"].append(f"{W}(l): f32[D];")
            names = [f"{W}.{i}" for i in range(entries)]
        for n in names:
            self.model.append(fmt_tensor(n, ints(self.np, (self.D,))))
        self.decl["volatile"].append(f"{y}: f32[D];")
        lines = [f"op add(x, {W}[0]) >> {y};"]
        lp = self.fresh("layers")
        lines.append(f"loop {lp} (l in 0..L) {{")
        body = [f"op mul({y}, {W}[l]) >> {y};", f"op add({y}, x) >> {y};"]
        self.clamp(body, y)
        lines += ["  " + b for b in body] + ["}"]
        if self.py.random() < 0.5:  # an entry chosen by a constant scalar
            k = self.fresh("k")
            self.decl["constant"].append(f"{k}: i32 @init({self.py.randint(0, entries - 1)});")
            lines.append(f"op sub({y}, {W}[{k}]) >> {y};")
        if self.py.random() < 0.5:  # an offset loop index
            lines += [f"loop {self.fresh('back')} (l in 1..L) {{",
                      f"  op add({y}, {W}[l-1]) >> {y};", "}"]
        if self.py.random() < 0.5:  # a table of two indices, @pattern naming them
            Q, E = self.fresh("Q"), (self.py.randint(1, 3), self.py.randint(1, 3))
            self.decl["constant"].append(f'{Q}(a, b): f32[D] @pattern("{Q}.{{b}}.at.{{a}}");')
            for a in range(E[0]):
                for b in range(E[1]):
                    self.model.append(fmt_tensor(f"{Q}.{b}.at.{a}", ints(self.np, (self.D,))))
            ea, eb = self.fresh("ea"), self.fresh("eb")
            self.decl["constant"] += [f"{ea}: i32 @init({E[0]});", f"{eb}: i32 @init({E[1]});"]
            lines += [f"loop {self.fresh('qa')} (a in 0..{ea}) {{",
                      f"  loop {self.fresh('qb')} (b in 0..{eb}) {{",
                      f"    op add({y}, {Q}[a, b]) >> {y};", "  }", "}",
                      f"op mul({y}, {Q}[{E[0] - 1}, 0]) >> {y};"]
            self.clamp(lines, y)
        self.entry += lines
        self.outputs.append(y)
        self.features.add("prefix_table")

    def counter_var(self):
        if not hasattr(self, "_cnt"):
            self._cnt = self.fresh("n")
            self.decl["persistent"].append(f"{self._cnt}: i32 @init(0);")
            self._cnt_incr = True
        return self._cnt

    def table(self):
        T, win, z = self.fresh("T"), self.fresh("win"), self.fresh("tz")
        n = self.counter_var()
        fixed = self.py.random() < 0.3
        attrs = f" @fixed(t={STEPS + 3})" if fixed else ""
        init = " @init(1.0)" if self.py.random() < 0.4 else ""
        self.decl["persistent"].append(f"{T}(t): f32[D] @table{attrs}{init};")
        width = self.py.randint(1, STEPS + 2)
        self.decl["volatile"].append(f"{win}: f32[{width}, D];")
        self.decl["volatile"].append(f"{z}: f32[D];")
        e = self.fresh("e")
        self.decl["constant"].append(f"{e}: i32 @init({self.py.randint(0, 2)});")
        index = self.py.choice([n, f"{n}+1", f"{n}+2", e])
        lines = [f"cache.write x >> {T}[{index}];"]
        if self.py.random() < 0.5:
            lines.append(f"op add({T}[{n}], x) >> {T}[{n}+1];")
        start = self.py.randint(0, 1)
        lines.append(f"cache.read {T}[{start}..{start + width}] >> {win};")
        lines.append(f"op add({T}[{n}], x) >> {z};")
        if self.py.random() < 0.5:
            lines.append(f"cache.reset {T}[{self.py.choice([e, '0', n])}];")
        if self.py.random() < 0.2:
            lines.append(f"cache.read {T}[0..{width}] >> {win};")
        self.entry += lines
        self.outputs += [win, z]
        self.features.add("table")

    def fixed_table(self):
        F, all_ = self.fresh("F"), self.fresh("all")
        size = self.py.randint(2, 4)
        self.decl["persistent"].append(f"{F}(i): f32[D] @table @fixed(i={size}) @init(2.0);")
        self.decl["volatile"].append(f"{all_}: f32[{size}, D];")
        i = self.py.randint(0, size - 1)
        lines = [f"op sub({F}[{i}], x) >> {F}[{i}];"]
        lines.append(f"cache.read {F}[] >> {all_};")
        if self.py.random() < 0.3:
            lines.append(f"cache.reset {F};")
        self.entry += lines
        self.outputs.append(all_)
        self.features.add("fixed_table")

    def counter(self):
        c = self.fresh("k")
        dt = self.py.choice(["i32", "i64"])
        self.decl["persistent"].append(f"{c}: {dt} @init({self.py.randint(-2, 3)});")
        acc = self.fresh("acc")
        self.decl["persistent"].append(f"{acc}: f32[D];")
        lines = [
            f"loop {self.fresh('cl')} (j in 0..{c}) {{",
            f"  op add({acc}, x) >> {acc};",
            "}",
        ]
        self.clamp(lines, acc)
        for _ in range(self.py.randint(1, 3)):
            kind = self.py.choice(["increment", "decrement"])
            amount = self.py.choice(["", "2 ", "3 "])
            lines.append(f"cache.{kind} {amount}{c};")
        self.entry += lines
        self.outputs += [c, acc]
        self.features.add("counter")

    def loop_bounds(self):
        c = self.fresh("nb")
        self.decl["constant"].append(f"{c}: {self.py.choice(['i32', 'i64'])} @init(3);")
        y = self.fresh("lb")
        self.decl["volatile"].append(f"{y}: f32[D];")
        lines = [
            f"loop {self.fresh('o')} (i in 0..{c}) {{",
            f"  loop {self.fresh('m')} (j in i..L) {{",
            f"    op add({y}, x) >> {y};",
            "  }",
            f"  loop {self.fresh('m')} (j in 1..i) {{",
            f"    op sub({y}, x) >> {y};",
            "  }",
            "}",
        ]
        self.entry += lines
        self.outputs.append(y)
        self.features.add("loop_bounds")

    def branch(self):
        s, flag, y = self.fresh("s"), self.fresh("flag"), self.fresh("b")
        self.decl["volatile"].append(f"{s}: f32;")
        self.decl["volatile"].append(f"{flag}: bool;")
        self.decl["persistent"].append(f"{y}: f32[D];")
        zero = self.fresh("z")
        self.decl["constant"].append(f"{zero}: f32 @init(0.0);")
        yes, no, tail = self.fresh("yes"), self.fresh("no"), self.fresh("tail")
        self.entry += [
            f"op sum_axis(x, axes=[0]) >> {s};",
            f"op gt({s}, {zero}) >> {flag};",
            f"branch {flag} {yes} {no};",
        ]
        self.blocks.append((yes, [f"op add({y}, x) >> {y};", f"branch {tail};", "return;"]))
        self.blocks.append((no, [f"op sub({y}, x) >> {y};", "return;"]))
        tail_lines = [f"op mul({y}, x) >> {y};"]
        self.clamp(tail_lines, y)
        self.blocks.append((tail, tail_lines + ["return;"]))
        self.outputs.append(y)
        self.features.add("branch")

    def yield_(self):
        u, v, w = self.fresh("u"), self.fresh("v"), self.fresh("w")
        self.decl["volatile"] += [f"{u}: f32[D] @init(1.0);", f"{v}: f32[D] @init(2.0);",
                                  f"{w}: f32[D];"]
        c1, c2 = self.fresh("cons"), self.fresh("cons")
        self._yields = getattr(self, "_yields", []) + [(u, v)]
        self.entry.append(f"op add({u}, x) >> {u};")
        self.entry.append(("YIELD", u, v, w))
        self.blocks.append((c1, [f"await {u};", f"op mul({u}, {u}) >> {u};",
                                 f"op min({u}, hi) >> {u};", f"yield {u};"]))
        self.blocks.append((c2, [f"await {u}, {v};", f"op add({u}, {v}) >> {w};",
                                 f"op neg({v}) >> {v};", f"yield {u}, {v};"]))
        self.outputs += [u, v, w]
        self.features.add("yield")

    def settings(self):
        slope, y = self.fresh("slope"), self.fresh("st")
        if self.py.random() < 0.5:
            self.decl["constant"].append(f"{slope}: f32;")
            self.model.append(f"{slope}: f32 = {self.py.choice([0.25, 0.5, 2.0, -1.0])}")
        else:
            self.decl["constant"].append(f"{slope}: f32 @init({self.py.choice([0.25, 0.5])});")
        self.decl["volatile"].append(f"{y}: f32[D];")
        self.entry.append(f"op relu(x, alpha={slope}) >> {y};")
        if self.py.random() < 0.5:
            f = self.fresh("fl")
            self.decl["volatile"].append(f"{f}: f32[D];")
            self.entry.append(f"op fill({y}, value={self.py.choice(['D', 'L', 'K'])}) >> {f};")
            self.outputs.append(f)
        self.outputs.append(y)
        self.features.add("settings")

    def transfer(self):
        p, h, snap = self.fresh("ps"), self.fresh("h"), self.fresh("snap")
        self.decl["persistent"].append(f"{p}: f32[D] @init(0.5);")
        self.decl["volatile"] += [f"{h}: f32[D];", f"{snap}: f32[D];"]
        lines = [f"cache.read {p} >> {h};", f"op add({h}, x) >> {h};", f"transfer {h} >> {snap};"]
        self.clamp(lines, h)
        lines.append(f"cache.write {h} >> {p};")
        self.entry += lines
        self.outputs += [p, snap]
        self.features.add("transfer")

    def auto_dim(self):
        A, aw, ar, ac = self.fresh("A"), self.fresh("aw"), self.fresh("ar"), self.fresh("ac")
        gi, gj = self.py.randint(0, 2), self.py.randint(0, 2)
        attrs = " @init(1.0)" if self.py.random() < 0.5 else ""
        if self.py.random() < 0.4:
            attrs += f" @fixed(i={max(gi, 1) + self.py.randint(0, 1)}, j={gj + 1})"
        self.decl["persistent"].append(f"{A}(i, j): f32[2, D] @auto_dim(i, j){attrs};")
        rows, cols = 2 + gi, self.D + gj
        p, c = self.py.randint(0, rows - 1), self.py.randint(0, cols - 1)
        self.decl["volatile"] += [f"{aw}: f32[{rows}, {cols}];", f"{ar}: f32[1, {cols}];",
                                  f"{ac}: f32[{rows}, {cols - c}];"]
        lines = [f"cache.read {A}[{gi}, {gj}] >> {aw};",
                 f"cache.read {A}[{p}..{p + 1}, ] >> {ar};",
                 f"op sub({ar}, {self.py.choice(['lo', 'hi'])}) >> {ar};"]
        self.clamp(lines, ar)
        end = self.py.choice([str(cols), ""])  # an explicit or an open end
        lines.append(f"cache.write {ar} >> {A}[{p}..{p + 1}, 0..{end}];")
        lines.append(f"cache.read {A}[0.., {c}..] >> {ac};")
        if self.py.random() < 0.4:  # a part read into a larger destination: zero padded
            ap = self.fresh("ap")
            self.decl["volatile"].append(f"{ap}: f32[{rows + 1}, {cols + 2}];")
            lines.append(f"cache.read {A}[0..{rows}, 1..] >> {ap};")
            self.outputs.append(ap)
        if self.py.random() < 0.3:
            lines.append(f"cache.write {aw} >> {A}[{gi}, {gj}];")
        if self.py.random() < 0.3:
            lines.append(f"cache.reset {A};")
        self.entry += lines
        self.outputs += [aw, ar, ac]
        self.features.add("auto_dim")

    # ---- the whole graph ----

    def build(self, features):
        for f in features:
            getattr(self, f if f != "yield" else "yield_")()
        if hasattr(self, "_cnt"):
            self.entry.append(f"cache.increment {self._cnt};")
            self.outputs.append(self._cnt)
        out = ["// generated by tests/synth/random/gen_graph.py"]
        for sec in ("dynamic", "constant", "persistent", "volatile"):
            if self.decl[sec]:
                out.append(f"{sec} {{")
                out += ["  " + d for d in self.decl[sec]]
                out.append("}")
        out.append("block entry {")
        # A yield's consumers run from the snapshot; entry reads the yielded values only after
        # its await (the consumer writes to w, read afterwards).
        for line in self.entry:
            if isinstance(line, tuple):
                _, u, v, w = line
                out.append(f"  yield {u}, {v};")
                out.append(f"  await {u}, {v};")
                out.append(f"  op add({w}, {u}) >> {w};")
            else:
                out.append("  " + line)
        out.append(f"  return {', '.join(self.outputs)};")
        out.append("}")
        for name, lines in self.blocks:
            out.append(f"block {name} {{")
            out += ["  " + l for l in lines]
            out.append("}")
        model = ["# openinfer oinf text v1"] + [m for m in self.model if m]
        inputs = ["# openinfer oinf text v1"] + [
            fmt_tensor(k, v) for k, v in sorted(self.inputs.items())]
        return "\n".join(out) + "\n", "\n".join(model) + "\n", "\n".join(inputs) + "\n"


def generate(seed):
    """(graph text, model text, input text, features, steps) of graph `seed`."""
    g = Graph(seed)
    # Each graph holds 2 to 4 constructs: one in turn (so every construct comes in every run of
    # a dozen seeds), one or two drawn, and often an elementwise chain.
    others = FEATURES[1:]
    first = others[seed % len(others)]
    picks = [first] + g.py.sample([f for f in others if f != first], g.py.randint(0, 2))
    if g.py.random() < 0.6:
        picks.insert(0, "elementwise")
    graph, model, inputs = g.build(picks)
    return graph, model, inputs, sorted(g.features), STEPS
