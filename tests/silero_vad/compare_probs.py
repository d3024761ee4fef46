#!/usr/bin/python3
"""Compares OpenInfer's Silero VAD output with ONNX Runtime's (both JSON with "probabilities"
and "segments", as `vad --json` and ort_reference.js print them).

    compare_probs.py OURS.json REFERENCE.json [--tol 1e-4] [--min-chunks 200] [--first N]

Passes (exit 0) when every per-chunk probability is within --tol of the reference, there are
at least --min-chunks of them, and the speech segments are the same; else prints what differs
and exits 1. --first N compares only the first N chunks (and skips the segment check)."""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ours")
    ap.add_argument("reference")
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--min-chunks", type=int, default=200)
    ap.add_argument("--first", type=int, default=0)
    args = ap.parse_args()
    ours = json.load(open(args.ours))
    ref = json.load(open(args.reference))
    got, want = ours["probabilities"], ref["probabilities"]
    problems = []
    if args.first:
        got, want = got[:args.first], want[:args.first]
    if len(got) != len(want):
        problems.append(f"{len(got)} probabilities, the reference has {len(want)}")
    if len(want) < args.min_chunks:
        problems.append(f"only {len(want)} chunks compared, at least {args.min_chunks} wanted")
    diffs = [abs(a - b) for a, b in zip(got, want)]
    worst = max(range(len(diffs)), key=diffs.__getitem__) if diffs else None
    bad = [i for i, d in enumerate(diffs) if not d <= args.tol]  # NaN counts as bad
    if bad:
        problems.append(f"{len(bad)} chunks differ by more than {args.tol}, first at chunk {bad[0]}: "
                        f"{got[bad[0]]!r} vs {want[bad[0]]!r}")
    if not args.first and ours["segments"] != ref["segments"]:
        problems.append(f"segments differ:\n  ours      {ours['segments']}\n  reference {ref['segments']}")
    summary = (f"{len(diffs)} chunks, max |diff| {diffs[worst]:.3g} at chunk {worst}" if diffs
               else "no chunks")
    if problems:
        print(f"FAIL ({summary})\n" + "\n".join(problems))
        return 1
    segs = "" if args.first else f", segments equal: {ours['segments']}"
    print(f"ok: {summary} (tolerance {args.tol}){segs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
