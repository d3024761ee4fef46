#!/usr/bin/python3
"""device_cflags.py DEVICE.json: the GCC/Clang flags that let a compiler use exactly the SIMD
features a CPU device description lists (docs/devices.md, "Compiler flags"), on one line.

    openinfer devices probe --backend cpu -o dev.json
    cc -O2 $(scripts/device_cflags.py dev.json) OUT/*.c -lm

Generated C needs none of them (its x86-64 SIMD micro-kernels carry target attributes and are
picked at run time); they let the compiler vectorize the portable loops for the device too.
A feature the table does not know is skipped with a note on stderr; a description of another
ISA, or a GPU, gives no flags."""
import json
import sys

# cpu.simd feature (as /proc/cpuinfo spells it) -> flag, x86-64 only; sse2 is the baseline.
X86_FLAGS = {
    "sse2": None,
    "sse4_1": "-msse4.1",
    "sse4_2": "-msse4.2",
    "avx": "-mavx",
    "avx2": "-mavx2",
    "fma": "-mfma",
    "f16c": "-mf16c",
    "avx512f": "-mavx512f",
    "avx512bw": "-mavx512bw",
    "avx512dq": "-mavx512dq",
    "avx512vl": "-mavx512vl",
    "avx512cd": "-mavx512cd",
    "avx512_bf16": "-mavx512bf16",
    "avx512_vnni": "-mavx512vnni",
    "avx512vnni": "-mavx512vnni",
    "avx512_fp16": "-mavx512fp16",
}


def flags(device):
    cpu = device.get("cpu")
    if device.get("device", {}).get("type") != "cpu" or not isinstance(cpu, dict):
        return []
    if cpu.get("isa") != "x86-64":
        return []
    out = []
    for feature in cpu.get("simd", []):
        if feature not in X86_FLAGS:
            print(f"device_cflags.py: no flag known for '{feature}' (skipped)", file=sys.stderr)
            continue
        if X86_FLAGS[feature] and X86_FLAGS[feature] not in out:
            out.append(X86_FLAGS[feature])
    return out


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        sys.exit(__doc__.strip())
    with open(sys.argv[1]) as f:
        print(" ".join(flags(json.load(f))))


if __name__ == "__main__":
    main()
