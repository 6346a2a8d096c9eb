#!/usr/bin/env python3
"""Write a GOAL trace of an all-to-all-heavy code (in the style of LogGOPSim's Schedgen).

Each of ITERS iterations on every one of N ranks: a calc of CALC units, then an all-to-all by
pairwise exchange: in step s (1 .. N-1) rank r sends BYTES to r + s and receives from r - s
(mod N), and step s + 1 starts when step s's receive is in. The next calc requires the last
receive and every send of the iteration. Tags are iteration * N + step.

    python3 examples/traces/alltoall.py 128 --iters 2 --bytes 4096 > a2a-128.goal
"""
import argparse
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ranks", type=int, metavar="N")
    ap.add_argument("--iters", type=int, default=2)
    ap.add_argument("--bytes", type=int, default=4096, help="bytes per message")
    ap.add_argument("--calc", type=int, default=1000, help="calc units per iteration")
    a = ap.parse_args()
    n = a.ranks
    w = sys.stdout.write
    w(f"// all-to-all by pairwise exchange on {n} ranks: {a.iters} iterations, {a.bytes} B per pair, calc {a.calc}\nnum_ranks {n}\n")
    for r in range(n):
        lines = [f"\nrank {r} {{\n"]
        for k in range(a.iters):
            lines.append(f"c{k}: calc {a.calc}\n")
            if k > 0:
                lines.append(f"c{k} requires r{k - 1}_{n - 1}\n")
                lines.extend(f"c{k} requires s{k - 1}_{s}\n" for s in range(1, n))
            for s in range(1, n):
                tag = k * n + s
                before = f"c{k}" if s == 1 else f"r{k}_{s - 1}"
                lines.append(f"s{k}_{s}: send {a.bytes}b to {(r + s) % n} tag {tag}\ns{k}_{s} requires {before}\n")
                lines.append(f"r{k}_{s}: recv {a.bytes}b from {(r - s) % n} tag {tag}\nr{k}_{s} requires {before}\n")
        lines.append("}\n")
        w("".join(lines))


if __name__ == "__main__":
    main()
