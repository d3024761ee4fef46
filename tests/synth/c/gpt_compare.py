"""gpt_compare.py REFERENCE.oinf SIM.oinf GEN.oinf...: examples/gpt/gpt.oi's runs (`--save` of
next, logits_at, tokens, K and V over N steps) held against PyTorch's reference
(tests/gpt/fixtures, export_gpt.py) by examples/gpt/gpt_check.hpp's rule, and each GEN against
SIM (the simulator):

- logits: max |got - want| <= 2e-3 * max |want| at every position the reference has;
- greedy tokens: the same as PyTorch's wherever PyTorch's best two logits differ by more than
  that tolerance (at a closer call either token is right, and positions after it are not
  compared);
- GEN against SIM: the same fed tokens and greedy tokens, logits_at within the same tolerance,
  K and V (f16) within 2e-3 * their largest magnitude.
"""
import sys

import numpy as np
from openinfer import oinf

REL = 2e-3


def generated(run):
    steps = sorted(int(n.split(".step")[1]) for n in run.tensors if n.startswith("next.step"))
    if not steps:
        return np.array([int(np.asarray(run["next"]).ravel()[0])])
    return np.array([int(np.asarray(run[f"next.step{k}"]).ravel()[0]) for k in steps])


def against_reference(ref, run, label):
    want_logits = np.asarray(ref["logits"], dtype=np.float64)
    want_fed = np.asarray(ref["tokens"])
    want_gen = np.asarray(ref["generated"])
    got_logits = np.asarray(run["logits_at"], dtype=np.float64)
    got_fed = np.asarray(run["tokens"])
    gen = generated(run)
    n, vocab = want_logits.shape
    prompt = n + 1 - want_gen.size
    if got_logits.shape[0] < n or got_logits.shape[1] != vocab or gen.size != want_gen.size:
        sys.exit(f"{label}: the run does not have the reference's shape")
    tol = REL * np.abs(want_logits).max()
    worst, tokens = 0.0, 0
    for pos in range(n):
        if got_fed[pos] != want_fed[pos]:
            sys.exit(f"{label}: position {pos}: fed {got_fed[pos]}, PyTorch fed {want_fed[pos]}")
        d = np.abs(got_logits[pos] - want_logits[pos])
        if not np.all(d <= tol):
            sys.exit(f"{label}: position {pos}: max |d logit| {d.max():.3g} > {tol:.3g}")
        worst = max(worst, float(d.max()))
        if pos + 1 < prompt:
            continue
        g = pos + 1 - prompt
        if gen[g] == want_gen[g]:
            tokens += 1
            continue
        best, second = np.sort(want_logits[pos])[::-1][:2]
        if best - second > tol:
            sys.exit(f"{label}: generated token {g}: {gen[g]}, PyTorch picked {want_gen[g]} "
                     f"by a margin of {best - second:.3g}")
        print(f"{label}: generated token {g}: a near tie; later positions are not compared")
        break
    print(f"ok: {label} vs PyTorch: {n} positions, {tokens} greedy tokens; max |d logit| "
          f"{worst:.3g} (tolerance {tol:.3g})")


def against_simulator(sim, run, label):
    for name in ("tokens",):
        if not np.array_equal(np.asarray(sim[name]), np.asarray(run[name])):
            sys.exit(f"{label}: '{name}' differs from the simulator's")
    if not np.array_equal(generated(sim), generated(run)):
        sys.exit(f"{label}: greedy tokens differ from the simulator's: "
                 f"{generated(run).tolist()} vs {generated(sim).tolist()}")
    report = []
    for name in ("logits_at", "K", "V"):
        w = np.asarray(sim[name], dtype=np.float64)
        g = np.asarray(run[name], dtype=np.float64)
        if w.shape != g.shape:
            sys.exit(f"{label}: '{name}' has shape {list(g.shape)}, the simulator's {list(w.shape)}")
        d = float(np.abs(w - g).max()) if w.size else 0.0
        tol = REL * float(np.abs(w).max()) if w.size else 0.0
        if not d <= tol:
            sys.exit(f"{label}: '{name}': max |d| {d:.3g} > {tol:.3g}")
        report.append(f"{name} {list(w.shape)} max |d| {d:.3g}")
    print(f"ok: {label} vs the simulator: same {generated(run).size} greedy tokens; " +
          ", ".join(report))


def main():
    ref = oinf.read(sys.argv[1])
    sim = oinf.read(sys.argv[2])
    against_reference(ref, sim, "simulator")
    for path in sys.argv[3:]:
        run = oinf.read(path)
        against_reference(ref, run, path)
        against_simulator(sim, run, path)


if __name__ == "__main__":
    main()
