"""The tiny GPT decoder of tests/gpt on the Vulkan backend with replay (docs/vulkan.md, "Replay").

Runs gpt_example over 32 greedy tokens against the PyTorch reference (its own check: the tokens
equal, the logits within its tolerance) with OPENINFER_VULKAN_STATS=1, and checks from the stats
line that most commands were replayed: the decode steps differ from the one before only in the
K/V entry written and the attention's workgroups, which one-command segments patch in place.

usage: vulkan_gpt_replay_test.py GPT_EXAMPLE PLUGIN_DIR SOURCE_DIR
Exit status 77 (CTest: skipped) when the Vulkan backend has no device.
"""
import os
import re
import subprocess
import sys


def main():
    gpt, plugin_dir, source = sys.argv[1:4]
    fixtures = os.path.join(source, "tests", "gpt", "fixtures")
    cmd = [gpt, "--model", os.path.join(fixtures, "tiny_model.oinf"), "--reference",
           os.path.join(fixtures, "tiny_reference.oinf"), "--steps", "32", "--backend", "vulkan"]
    env = {**os.environ, "OPENINFER_VULKAN_STATS": "1", "OPENINFER_PLUGIN_PATH": plugin_dir}
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    print(r.stdout)
    if "no device" in r.stdout and r.returncode != 0:
        return 77
    if r.returncode != 0 or "ok: " not in r.stdout:
        print("FAIL: the decode does not match the reference")
        return 1
    m = re.search(r"(\d+) commands \(\d+ dispatches\).* (\d+) replayed \(", r.stdout)
    if not m:
        print("FAIL: no stats line")
        return 1
    commands, replayed = int(m.group(1)), int(m.group(2))
    # 33 steps: the prompt step and the first decode steps record; the rest replay.
    if replayed * 2 < commands:
        print(f"FAIL: only {replayed} of {commands} commands replayed")
        return 1
    print(f"{replayed} of {commands} commands replayed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
