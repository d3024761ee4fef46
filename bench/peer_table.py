#!/usr/bin/python3
"""The table of a benchmark and its PyTorch peer (bench/peer_run.sh's openinfer.jsonl and
torch.jsonl in OUT_DIR): per case both medians (and minima), PyTorch's form where the peer names
one (the faster form is the peer), OI/torch = torch time / OpenInfer time (above 1: OpenInfer
faster) on medians and on minima, and OpenInfer's GFLOP/s where the case counts flops.

    /usr/bin/python3 bench/peer_table.py OUT_DIR
"""
import json
import os
import sys


def read(out):
    tables, infos = ({}, {}), []
    for impl, table in zip(("openinfer", "torch"), tables):
        with open(os.path.join(out, impl + ".jsonl")) as f:
            for line in f:
                rec = json.loads(line)
                if "info" in rec:
                    infos.append(f"{impl}: {rec['info']}")
                else:
                    table.setdefault(rec["case"], []).append(rec)
    return tables, infos


def main():
    (oi, torch), infos = read(sys.argv[1])
    for line in infos:
        print("#", line)
    forms = any("how" in r for recs in torch.values() for r in recs)
    head = ["case", "OpenInfer ms (min)", "torch ms (min)"] + (["torch form"] if forms else [])
    head += ["OI/torch median", "OI/torch min", "OI GFLOP/s"]
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for case, recs in oi.items():
        o = recs[0]
        peers = torch.get(case, [])
        t = min(peers, key=lambda r: r["median_ms"]) if peers else None
        gf = f"{o['flops'] / (o['median_ms'] * 1e6):.1f}" if o.get("flops") else "-"
        row = [case, f"{o['median_ms']:.2f} ({o['min_ms']:.2f})"]
        if t:
            row.append(f"{t['median_ms']:.2f} ({t['min_ms']:.2f})")
            row += [t.get("how", "-")] if forms else []
            row += [f"{t['median_ms'] / o['median_ms']:.2f}x", f"{t['min_ms'] / o['min_ms']:.2f}x"]
        else:
            row += ["-"] * (4 if forms else 3)
        print("| " + " | ".join(row + [gf]) + " |")
    print("# OI/torch above 1: OpenInfer faster.")


if __name__ == "__main__":
    main()
