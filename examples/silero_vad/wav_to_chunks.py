#!/usr/bin/python3
"""Cuts a 16 kHz mono PCM16 WAV into the inputs of `openinfer run` for vad.oi: tensors
chunk.0, chunk.1, ... of f32[1, 512] (the last one zero-padded), one per step.

    wav_to_chunks.py speech.wav chunks.oinf [--max-chunks N]
    openinfer run vad.oi --model silero_vad_16k.oinf --steps N --input 'chunk=chunks.oinf:chunk.{step}'
"""
import argparse
import os
import sys
import wave

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from openinfer import oinf  # noqa: E402

CHUNK = 512


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wav")
    ap.add_argument("out")
    ap.add_argument("--max-chunks", type=int, default=0, help="only the first N chunks")
    args = ap.parse_args()
    with wave.open(args.wav, "rb") as w:
        if w.getframerate() != 16000 or w.getnchannels() != 1 or w.getsampwidth() != 2:
            sys.exit(f"error: {args.wav}: need 16000 Hz mono 16-bit PCM, got {w.getframerate()} Hz, "
                     f"{w.getnchannels()} channels, {8 * w.getsampwidth()}-bit")
        samples = np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(np.float32) / 32768
    count = -(-len(samples) // CHUNK)
    if args.max_chunks:
        count = min(count, args.max_chunks)
    padded = np.zeros(count * CHUNK, np.float32)
    padded[:min(len(samples), len(padded))] = samples[:len(padded)]
    tensors = {f"chunk.{i}": padded[i * CHUNK:(i + 1) * CHUNK].reshape(1, CHUNK) for i in range(count)}
    oinf.write(args.out, tensors=tensors)
    print(count)


if __name__ == "__main__":
    main()
