"""Command-buffer replay on the Vulkan backend (docs/vulkan.md, "Replay").

Runs tests/vulkan/replay_step.oi for 20 steps whose inputs (branch `go`, loop bound `n`, table
entry `k`) stay the same for four steps, then change one thing. With
OPENINFER_VULKAN_STATS=units the backend logs each unit of work (the commands between two host
round trips) with how many of its commands were replayed and how many recorded; the CLI prints
`step N:` after step N ran (stdout line-buffered, in one stream with the log), so the units
logged between `step N-1:` and `step N:` are step N's up to its last round trip plus step N-1's
after it (the fetch), so a change shows in two windows. Checked: the last step of each group logs
only replayed commands; the first two steps of a group after a change (branch, loop bound, an entry past the table's size: a new
buffer) log recorded ones. The fetched values of all steps are byte-identical to the CPU
backend's, with replay on and off (OPENINFER_VULKAN_REPLAY=0).

usage: vulkan_replay_test.py OPENINFER PLUGIN_DIR SOURCE_DIR WORK_DIR
Exit status 77 (CTest: skipped) when the Vulkan backend has no device.
"""
import os
import re
import subprocess
import sys

# Groups of steps with the same (go, n, k), each changing one thing from the group before.
GROUPS = [
    ("first", (True, 3, 0), 4),
    ("the other branch", (False, 3, 0), 4),
    ("another loop bound", (False, 5, 0), 4),
    ("entry 20: the table grows into a new buffer", (False, 5, 20), 4),
    ("branch and loop bound back to the first group's", (True, 3, 20), 4),
]
STEPS = [inputs for _, inputs, count in GROUPS for _ in range(count)]
UNIT = re.compile(r"unit of (\d+) commands: (\d+) replayed, (\d+) recorded")
STEP = re.compile(r"^step (\d+):")

def main():
    openinfer, plugin_dir, source_dir, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    graph = os.path.join(source_dir, "tests", "vulkan", "replay_step.oi")
    model_txt = os.path.join(work, "model.txt")
    inputs_txt = os.path.join(work, "inputs.txt")
    with open(model_txt, "w") as f:
        f.write("# openinfer oinf text v1\nB := 8\n")
    with open(inputs_txt, "w") as f:
        f.write("# openinfer oinf text v1\n")
        for i, (go, n, k) in enumerate(STEPS):
            f.write(f"go.{i}: bool = {'true' if go else 'false'}\nn.{i}: i32 = {n}\nk.{i}: i32 = {k}\n")
    model, inputs = os.path.join(work, "model.oinf"), os.path.join(work, "inputs.oinf")
    for src, dst in ((model_txt, model), (inputs_txt, inputs)):
        subprocess.run([openinfer, "oinf", "pack", src, "-o", dst], check=True,
                       stdout=subprocess.DEVNULL)

    def run(backend, steps, save, quiet=True, **env):
        # stdbuf: `step N:` lines reach the stream as they are printed, between the log lines.
        cmd = ["stdbuf", "-oL", openinfer, "--plugin-dir", plugin_dir, "run", graph, "--model",
               model, "--backend", backend, "--steps", str(steps), "--save", save]
        cmd += ["-q"] if quiet else []
        for name in ("go", "n", "k"):
            cmd += ["--input", f"{name}={inputs}:{name}.{{step}}"]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           env={**os.environ, **env})
        if backend == "vulkan" and "has no device" in r.stdout:
            print("no Vulkan device: skipped")
            sys.exit(77)
        if r.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}")
        return r.stdout

    failures = []
    # Results: byte-identical files of every step's fetched values.
    cpu = os.path.join(work, "cpu.oinf")
    run("cpu", len(STEPS), cpu)
    for replay in ("1", "0"):
        out = os.path.join(work, f"vulkan_replay{replay}.oinf")
        run("vulkan", len(STEPS), out, OPENINFER_VULKAN_REPLAY=replay)
        with open(cpu, "rb") as a, open(out, "rb") as b:
            if a.read() != b.read():
                failures.append(f"OPENINFER_VULKAN_REPLAY={replay}: results differ from the CPU's")

    # Units per step window, from one run with the log and the step lines in one stream.
    log = run("vulkan", len(STEPS), os.path.join(work, "units.oinf"), quiet=False,
              OPENINFER_VULKAN_STATS="units")
    windows = [[0, 0] for _ in STEPS]  # replayed, recorded
    step = 0
    for line in log.splitlines():
        if m := STEP.match(line):
            step = int(m.group(1)) + 1
        elif (m := UNIT.search(line)) and step < len(STEPS):
            windows[step][0] += int(m.group(2))
            windows[step][1] += int(m.group(3))
    if step != len(STEPS):
        sys.exit(f"expected 'step N:' lines up to {len(STEPS) - 1} in:\n{log}")
    first = 0
    for what, inputs, count in GROUPS:
        for i in range(first, first + count):
            print(f"step {i} {inputs}: {windows[i][0]} replayed, {windows[i][1]} recorded")
        if first > 0 and windows[first][1] + windows[first + 1][1] == 0:
            failures.append(f"steps {first}-{first + 1} ({what}): nothing was recorded")
        last = first + count - 1
        if windows[last][1] != 0 or windows[last][0] == 0:
            failures.append(f"step {last} ({what}, as the steps before): {windows[last][1]} "
                            f"commands recorded, {windows[last][0]} replayed")
        first += count
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
