#!/usr/bin/python3
"""The host side of the tests/mcu harness (mcu_test.sh): the driver's raw files, the checks and
the figures.

    mcu_check.py inputs FILE.oinf PATTERN[,PATTERN...] STEPS OUT.bin
        the raw bytes of tensor PATTERN ({step} replaced) for steps 0..STEPS-1, one after another
        (several patterns: each step's tensors in their order)
    mcu_check.py outputs SIM.oinf RAW.bin STEPS NAME... -o GOT.oinf [--failed K,...]
        the driver's outputs (per step, each NAME's bytes) as an .oinf laid out like the
        simulator's --save file (NAME.stepK, and NAME for the last step when STEPS > 1; NAME alone
        for one step), so tests/synth/compare_oinf.py compares them. --failed: steps that failed
        (the driver's --keep-going), left out of GOT.oinf (SIM.oinf ran without them); each
        NAME's bytes there must be byte for byte the step before's (a failed step leaves
        persistent memory as it was: NAMEs are persistent)
    mcu_check.py vad SIM.oinf GOT.oinf STEPS REFERENCE.json
        Silero VAD: every probability within 1e-4 of the simulator's and of ONNX Runtime's, and
        the same speech segments (Silero's get_speech_timestamps rules, as ort_reference.js)
    mcu_check.py macs PLAN.json
        the multiply-accumulates of one step (matmul, conv, attention; an upper bound where a
        branch decides)
    mcu_check.py table OPENINFER SOURCE_DIR [VAD_MODEL] < "EXAMPLE BOARD WORK" lines
        bench/mcu_table.sh's table of mcu_test.sh's figures
    mcu_check.py sizes --map MAP --elf-size TEXT_DATA_BSS --model-object NAME.o --report REPORT
                       --console LOG [--su-dir DIR] [--json OUT] [--budget KEY=MAX]...
                       [--flash-within PERCENT]
        flash, RAM and stack from the linker map, the driver's console and -fstack-usage, against
        the synthesis report (within 5%, flash within PERCENT; its stack estimate at least the
        painted stack), and the budgets given (ram, stack, code, instructions); prints one line
        per figure"""
import json
import math
import os
import re
import struct
import sys


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


# ---- OINF files (docs/oinf.md): the tensor table, payloads as raw bytes ----

def oinf_tensors(path):
    """{name: (dtype tag, dims, payload offset, nbytes)} of an OINF file, and its bytes."""
    data = open(path, "rb").read()
    if data[:5] != b"OINF\0":
        fail(f"{path}: not an OINF file")
    count = struct.unpack_from("<I", data, 21)[0]
    pos, end = struct.unpack_from("<QQ", data, 45)
    out = {}
    for _ in range(count):
        length = struct.unpack_from("<I", data, pos)[0]
        name = data[pos + 4:pos + 4 + length].decode()
        pos += (4 + length + 7) // 8 * 8
        tag, rank, flags = struct.unpack_from("<III", data, pos)
        pos += 12
        dims = list(struct.unpack_from(f"<{rank}Q", data, pos))
        pos += 8 * rank
        nbytes, offset = struct.unpack_from("<QQ", data, pos)
        pos += 16
        out[name] = (tag, dims, offset if flags & 1 else None, nbytes)
    if pos > end:
        fail(f"{path}: malformed tensor table")
    return out, data


def cmd_inputs(args):
    path, patterns, steps, out = args[0], args[1].split(","), int(args[2]), args[3]
    tensors, data = oinf_tensors(path)
    with open(out, "wb") as f:
        for step in range(steps):
            for pattern in patterns:
                name = pattern.replace("{step}", str(step))
                if name not in tensors or tensors[name][2] is None:
                    fail(f"{path}: no tensor {name}")
                _, _, offset, nbytes = tensors[name]
                f.write(data[offset:offset + nbytes])


def cmd_outputs(args):
    if "-o" not in args:
        fail("outputs needs -o GOT.oinf")
    at = args.index("-o")
    out = args[at + 1]
    args = args[:at] + args[at + 2:]
    failed = set()
    if "--failed" in args:
        at = args.index("--failed")
        failed = {int(k) for k in args[at + 1].split(",")}
        args = args[:at] + args[at + 2:]
    sim, raw, steps, names = args[0], args[1], int(args[2]), args[3:]
    tensors, data = oinf_tensors(sim)
    got = bytearray(data)
    stream = open(raw, "rb").read()
    pos = 0
    before = {}  # name -> the bytes the step before left
    ran = steps - len(failed)
    for step in range(steps):
        if step in failed:
            for name in names:
                nbytes = len(before.get(name, b""))
                if step == 0 or stream[pos:pos + nbytes] != before[name]:
                    fail(f"step {step} failed: '{name}' is not what step {step - 1} left")
                pos += nbytes
            continue
        kept = step - len([k for k in failed if k < step])  # the simulator's step
        for name in names:
            key = f"{name}.step{kept}" if ran > 1 else name
            if key not in tensors:
                fail(f"{sim}: no tensor {key}")
            _, _, offset, nbytes = tensors[key]
            chunk = stream[pos:pos + nbytes]
            if len(chunk) != nbytes:
                fail(f"{raw}: {len(stream)} bytes, short at step {step} ({name})")
            got[offset:offset + nbytes] = chunk
            before[name] = chunk
            if ran > 1 and kept == ran - 1:
                _, _, last, _ = tensors[name]
                got[last:last + nbytes] = chunk
            pos += nbytes
    if pos != len(stream):
        fail(f"{raw}: {len(stream) - pos} bytes more than {steps} steps of {' '.join(names)}")
    open(out, "wb").write(bytes(got))


# ---- Silero VAD: probabilities and speech segments ----

def speech_segments(probs, total, threshold=0.5, sample_rate=16000, chunk=512,
                    min_speech_ms=250, min_silence_ms=100, pad_ms=30):
    """examples/silero_vad/segments.cpp (Silero's get_speech_timestamps), sample indices."""
    neg = max(threshold - 0.15, 0.01)
    min_speech = sample_rate * min_speech_ms / 1000
    min_silence = sample_rate * min_silence_ms / 1000
    pad = sample_rate * pad_ms / 1000
    speeches, triggered, temp_end, start = [], False, 0, 0
    for i, p in enumerate(probs):
        cur = i * chunk
        if p >= threshold and temp_end:
            temp_end = 0
        if p >= threshold and not triggered:
            triggered, start = True, cur
            continue
        if p < neg and triggered:
            if not temp_end:
                temp_end = cur
            if cur - temp_end < min_silence:
                continue
            if temp_end - start >= min_speech:
                speeches.append([start, temp_end])
            triggered, temp_end = False, 0
    if triggered and total - start >= min_speech:
        speeches.append([start, total])
    padded = [list(s) for s in speeches]
    for i, (s, e) in enumerate(speeches):
        prev_end = 0.0 if i == 0 else float(padded[i - 1][1])
        next_start = float(total) if i + 1 == len(speeches) else float(speeches[i + 1][0])
        padded[i][0] = max(0, int(math.floor(max(s - pad, prev_end))))
        padded[i][1] = min(total, int(math.floor(min(e + pad, next_start))))
    return [{"start_sample": s, "end_sample": e} for s, e in padded]


def f32_values(path, names):
    tensors, data = oinf_tensors(path)
    values = []
    for name in names:
        _, _, offset, nbytes = tensors[name]
        values.append(struct.unpack_from("<f", data, offset)[0])
    return values


def cmd_vad(args):
    sim, got, steps, reference = args[0], args[1], int(args[2]), args[3]
    names = [f"prob.step{i}" for i in range(steps)] if steps > 1 else ["prob"]
    want, have = f32_values(sim, names), f32_values(got, names)
    ref = json.load(open(reference))
    total = ref["samples"] if steps == len(ref["probabilities"]) else steps * 512
    problems = []
    for label, other in (("the simulator", want), ("ONNX Runtime", ref["probabilities"][:steps])):
        diffs = [abs(a - b) for a, b in zip(have, other)]
        worst = max(range(len(diffs)), key=diffs.__getitem__)
        bad = [i for i, d in enumerate(diffs) if not d <= 1e-4]
        print(f"vad: {len(diffs)} chunks, max |diff| from {label} {diffs[worst]:.3g} (chunk {worst})")
        if bad:
            problems.append(f"{len(bad)} chunks differ from {label} by more than 1e-4, first {bad[0]}")
    ours, theirs = speech_segments(have, total), speech_segments(want, total)
    print(f"vad: segments {[(s['start_sample'], s['end_sample']) for s in ours]}")
    if ours != theirs:
        problems.append(f"segments differ from the simulator's: {ours} vs {theirs}")
    if steps == len(ref["probabilities"]) and ours != ref["segments"]:
        problems.append(f"segments differ from ONNX Runtime's: {ours} vs {ref['segments']}")
    if problems:
        fail("; ".join(problems))


# ---- multiply-accumulates of a plan (openinfer synth --plan-only) ----

def prod(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def plan_macs(plan):
    """The multiply-accumulates of one step of a plan: matmul (output elements x depth), conv
    (output elements x C/group x the kernel's taps, padding included), attention (q.k and p.v);
    loop bodies times their trip count (literals and size variables), and of a conditional
    branch the costlier alternative, so an upper bound where the path depends on data."""
    values = {v["name"]: v for v in plan["values"]}
    sizes = plan.get("sizevars", {})
    kernels = {k["id"]: k for k in plan["kernels"]}
    blocks = {b["name"]: b for b in plan["blocks"]}

    def shape(text):
        v = values[text.split("[")[0].strip()]
        return v["shape"]

    def kernel(k):
        op = k["ops"][0]
        name, ins = op["op"], op["inputs"]
        if name == "matmul":
            return prod(k["shape"]) * shape(ins[0])[-1]
        if name == "conv":
            return prod(shape(op["output"])) * prod(shape(ins[1])[1:])
        if name == "attention":
            q, kk, v = shape(ins[0]), shape(ins[1]), shape(ins[2])
            return prod(q[:-1]) * kk[-2] * (q[-1] + v[-1])
        return 0

    def bound(text):
        text = str(text)
        if text.lstrip("-").isdigit():
            return int(text)
        if text in sizes:
            return int(sizes[text])
        raise ValueError(f"loop bound {text} is known only at run time")

    def steps(list_):
        total = 0
        for st in list_:
            kind = st["kind"]
            if kind == "kernel":
                total += kernel(kernels[st["kernel"]])
            elif kind == "loop":
                total += max(bound(st["end"]) - bound(st["start"]), 0) * steps(st["body"])
            elif kind == "branch":
                then = steps(blocks[st["then"]]["steps"]) if st.get("then") else 0
                other = steps(blocks[st["else"]]["steps"]) if st.get("else") else 0
                total += max(then, other)
        return total

    return steps(blocks[plan["blocks"][0]["name"]]["steps"])


def cmd_macs(args):
    print(plan_macs(json.load(open(args[0]))))


# ---- sizes: the linker map, the driver's console, -fstack-usage, the synthesis report ----

SECTION = re.compile(r"^ (\.[^\s]+)(?:\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(.+))?$")
PLACED = re.compile(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(.+)$")
OUTPUT = re.compile(r"^(\.[^\s]+)")


def parse_map(path):
    """[(output section, input section, size, file)] of the placed input sections, and the
    archive members with the file whose reference pulled each in."""
    lines = open(path).read().splitlines()
    pulled, placed = {}, []
    i = 0
    if lines and lines[0].startswith("Archive member included"):
        i = 1
        while i < len(lines) and not lines[i].startswith(("Discarded", "Memory Configuration")):
            member = lines[i].strip()
            if member and i + 1 < len(lines) and lines[i + 1].startswith(" "):
                by = lines[i + 1].strip()
                pulled[member] = by.rsplit(" (", 1)[0]
                i += 2
                continue
            i += 1
    while i < len(lines) and not lines[i].startswith("Linker script and memory map"):
        i += 1
    output = None
    while i < len(lines):
        line = lines[i]
        m = OUTPUT.match(line)
        if m:
            output = m.group(1)
        m = SECTION.match(line)
        if m and output:
            name = m.group(1)
            if m.group(2) is None and i + 1 < len(lines):
                p = PLACED.match(lines[i + 1])
                if p:
                    placed.append((output, name, int(p.group(2), 16), p.group(3).strip()))
                    i += 2
                    continue
            elif m.group(2) is not None:
                placed.append((output, name, int(m.group(3), 16), m.group(4).strip()))
        i += 1
    return placed, pulled


def owner(file, model, pulled):
    """'model', 'runtime' (a library member the model's references pulled in) or 'driver'."""
    if os.path.basename(file) == model:
        return "model"
    seen = set()
    while file in pulled and file not in seen:
        seen.add(file)
        file = pulled[file]
        if os.path.basename(file) == model:
            return "runtime"
    return "driver"


def report_figures(path):
    text = open(path).read()

    def grab(pattern):
        m = re.search(pattern, text)
        if not m:
            fail(f"{path}: no '{pattern}'")
        return int(m.group(1))

    return {"flash": grab(r"flash\s+(\d+) B"), "weights": grab(r"weights and constants (\d+) B"),
            "code": grab(r"code about (\d+) B"), "ram": grab(r"RAM\s+(\d+) B"),
            "arena": grab(r"arena (\d+) B"), "state": grab(r"state (\d+) B"),
            "io": grab(r"I/O buffers (\d+) B"), "stack": grab(r"stack about (\d+) B")}


def cmd_sizes(args):
    opts = {"budget": []}
    i = 0
    while i < len(args):
        key = args[i].lstrip("-").replace("-", "_")
        if key == "budget":
            opts["budget"].append(args[i + 1])
        else:
            opts[key] = args[i + 1]
        i += 2
    placed, pulled = parse_map(opts["map"])
    model = os.path.basename(opts["model_object"])
    sums = {}
    for output, name, size, file in placed:
        who = owner(file, model, pulled)
        if output in (".text", ".vectors", ".ARM.exidx", ".ARM.extab"):
            kind = "code"
        elif output == ".rodata":
            kind = "weights" if who == "model" and re.match(r"\.rodata\.(emb_|cinit_)", name) else "code"
        elif output in (".data", ".tdata"):
            kind = "data"
        else:
            kind = "bss"
        sums[(who, kind)] = sums.get((who, kind), 0) + size
        if who == "model" and output == ".bss" and ".bss.arena_storage" in name:
            sums[("model", "arena")] = sums.get(("model", "arena"), 0) + size
        if output == ".bss" and name == ".bss.oi_model_state":  # the driver's state variable
            sums[("model", "state")] = size

    def get(who, kind):
        return sums.get((who, kind), 0)

    console = {}
    for line in open(opts["console"]):
        m = re.match(r"mcu: (\w+) (\d+)", line)
        if m:
            console[m.group(1)] = int(m.group(2))
    rep = report_figures(opts["report"])
    su_max, su_fn = 0, "-"
    if opts.get("su_dir"):
        for su in os.listdir(opts["su_dir"]):
            if su.endswith(".su") and os.path.splitext(su)[0] == os.path.splitext(model)[0]:
                for line in open(os.path.join(opts["su_dir"], su)):
                    parts = line.rstrip("\n").split("\t")
                    if len(parts) >= 2 and int(parts[1]) > su_max:
                        su_max, su_fn = int(parts[1]), parts[0].rsplit(":", 1)[-1]
    fig = {
        "weights": get("model", "weights"),
        "model_code": get("model", "code"),
        "libm_libc_code": get("runtime", "code"),
        "driver_code": get("driver", "code"),
        "arena": get("model", "arena"),
        "state": get("model", "state"),
        "io": rep["io"],
        "stack_painted": max(console.get(k, 0) for k in
                             ("stack_init", "stack_insert", "stack_step", "stack_fetch")),
        "stack_step": console.get("stack_step", 0),
        "stack_su_max_frame": su_max,
        "stack_estimate": rep["stack"],
        "report_flash": rep["flash"],
        "report_ram": rep["ram"],
        "steps": console.get("steps", 0),
        "instructions_total": console.get("instructions_total", 0),
        "instructions_min": console.get("instructions_min", 0),
        "instructions_max": console.get("instructions_max", 0),
    }
    fig["code"] = fig["model_code"] + fig["libm_libc_code"]
    fig["flash"] = fig["weights"] + fig["code"] + get("model", "data") + get("runtime", "data")
    fig["ram"] = fig["arena"] + fig["state"]  # the state holds the I/O buffers
    fig["instructions_per_step"] = fig["instructions_total"] // max(fig["steps"], 1)
    problems = []

    def near(label, reported, measured, percent=5):
        if measured and abs(reported - measured) > percent / 100 * measured:
            problems.append(f"the report's {label} {reported} B is not within {percent}% of the "
                            f"map's {measured} B")

    if fig["state"] != console.get("state_bytes", 0):
        problems.append(f"the map's state {fig['state']} B is not sizeof(state) "
                        f"{console.get('state_bytes', 0)} B")
    near("flash", rep["flash"], fig["flash"], float(opts.get("flash_within", 5)))
    near("RAM without the stack", rep["ram"] - rep["stack"], fig["ram"])
    if rep["stack"] < fig["stack_painted"]:
        problems.append(f"the report's stack estimate {rep['stack']} B is below the painted "
                        f"{fig['stack_painted']} B")
    limits = {"ram": fig["ram"], "stack": fig["stack_painted"], "code": fig["code"],
              "instructions": fig["instructions_per_step"]}
    for b in opts["budget"]:
        key, most = b.split("=")
        if limits[key] > int(most):
            problems.append(f"{key} {limits[key]} over the budget {most}")
    print(f"flash: {fig['flash']} B = weights {fig['weights']} B + code {fig['code']} B (model "
          f"{fig['model_code']} B, libm/libc {fig['libm_libc_code']} B); driver, startup and "
          f"semihosting apart: {fig['driver_code']} B; report {rep['flash']} B")
    print(f"RAM: {fig['ram']} B = arena {fig['arena']} B + state {fig['state']} B (I/O buffers "
          f"{fig['io']} B of it); report {rep['ram'] - rep['stack']} B + stack estimate "
          f"{rep['stack']} B")
    print(f"stack: painted {fig['stack_painted']} B (step {fig['stack_step']} B), largest "
          f"-fstack-usage frame {su_max} B ({su_fn}), report's estimate {rep['stack']} B")
    print(f"instructions: {fig['instructions_per_step']} per step (min {fig['instructions_min']}, "
          f"max {fig['instructions_max']}, {fig['steps']} steps; QEMU -icount shift=0 counts "
          f"instructions, not cycles)")
    if opts.get("json"):
        json.dump(fig, open(opts["json"], "w"), indent=1)
    if problems:
        fail("; ".join(problems))


def cmd_table(args):
    """Lines "EXAMPLE BOARD WORK" on stdin (mcu_test.sh's work folders) -> one Markdown table."""
    import subprocess
    oi, root, model_vad = args[0], args[1], args[2] if len(args) > 2 else ""
    graphs = {"vad": ("examples/silero_vad/vad.oi", model_vad),
              "resnet": ("examples/resnet/resnet.oi",
                         os.path.join(root, "tests/examples/resnet/fixtures/model.oinf")),
              "gpt": (None, os.path.join(root, "tests/gpt/fixtures/tiny_model.oinf"))}
    names = {"m4": "Cortex-M4F (mps2-an386)", "m7": "Cortex-M7 (mps2-an500)",
             "m55": "Cortex-M55 (mps3-an547)"}
    print("| example | board | instructions | MACs | instr/MAC | flash: weights + code (driver "
          "apart) | RAM: arena + state (I/O) | stack: painted / report | report: flash / RAM |")
    print("|---|---|---|---|---|---|---|---|---|")
    for line in sys.stdin:
        example, board, work = line.split()
        fig = json.load(open(os.path.join(work, "figures.json")))
        graph, model = graphs[example]
        graph = os.path.join(work, "gpt_fixed.oi") if graph is None else os.path.join(root, graph)
        plan = json.loads(subprocess.run([oi, "synth", graph, "--model", model, "--plan-only"],
                                         capture_output=True, text=True, check=True).stdout)
        if example == "gpt":
            # per token over the 32-position window: the layers' products, attention, the head
            s = plan["sizevars"]
            macs = s["L"] * (4 * s["D"] ** 2 + 2 * s["D"] * s["F"] + 2 * s["D"] * 32) + \
                s["D"] * s["Vocab"]
            insn, what = fig["instructions_total"] // (s["P"] + fig["steps"] - 1), "per token"
        else:
            macs, insn, what = plan_macs(plan), fig["instructions_per_step"], "per step"
        print(f"| {example} | {names[board]} | {insn:,} {what} | {macs:,} | {insn / macs:.2f} | "
              f"{fig['weights']:,} + {fig['code']:,} ({fig['driver_code']:,}) | "
              f"{fig['arena']:,} + {fig['state']:,} ({fig['io']:,}) | "
              f"{fig['stack_painted']} / {fig['stack_estimate']} B | "
              f"{fig['report_flash']:,} / {fig['report_ram']:,} |")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    {"inputs": cmd_inputs, "outputs": cmd_outputs, "vad": cmd_vad, "sizes": cmd_sizes,
     "macs": cmd_macs, "table": cmd_table}.get(
        cmd, lambda _: sys.exit(__doc__))(args)


if __name__ == "__main__":
    main()
