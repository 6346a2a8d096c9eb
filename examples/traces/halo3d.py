#!/usr/bin/env python3
"""Write a GOAL trace of a 3D halo exchange (in the style of LogGOPSim's Schedgen).

Ranks form an X x Y x Z torus (rank = x + X*(y + Y*z)). Each of ITERS iterations on every
rank: a calc of CALC units, then a send of BYTES to each of its six neighbours and a receive
from each; the next calc requires the six receives of the iteration before. Tags are
iteration * 6 + direction, so messages of different iterations never match each other.

    python3 examples/traces/halo3d.py 2 2 2 --iters 2 > examples/traces/halo-8.goal
    python3 examples/traces/halo3d.py 32 32 16 --iters 47 > /tmp/halo-16k.goal   # 10.0M operations (docs/traces.md, Scale)
"""
import argparse
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dims", type=int, nargs=3, metavar="N", help="X Y Z: ranks along each axis")
    ap.add_argument("--iters", type=int, default=2)
    ap.add_argument("--bytes", type=int, default=4096, help="bytes per halo message")
    ap.add_argument("--calc", type=int, default=1000, help="calc units per iteration")
    a = ap.parse_args()
    X, Y, Z = a.dims
    n = X * Y * Z
    out = sys.stdout
    w = out.write
    w(f"// 3D halo exchange on a {X}x{Y}x{Z} torus of ranks: {a.iters} iterations, "
      f"{a.bytes} B per neighbour, calc {a.calc}\nnum_ranks {n}\n")
    for r in range(n):
        x, y, z = r % X, (r // X) % Y, r // (X * Y)

        def at(dx, dy, dz):
            return (x + dx) % X + X * (((y + dy) % Y) + Y * ((z + dz) % Z))

        # Direction d: +x, -x, +y, -y, +z, -z; its opposite is d ^ 1.
        nbr = [at(1, 0, 0), at(-1, 0, 0), at(0, 1, 0), at(0, -1, 0), at(0, 0, 1), at(0, 0, -1)]
        lines = [f"\nrank {r} {{\n"]
        for k in range(a.iters):
            lines.append(f"c{k}: calc {a.calc}\n")
            if k > 0:
                lines.extend(f"c{k} requires r{k - 1}_{d}\n" for d in range(6))
            for d in range(6):
                tag = k * 6 + d
                lines.append(f"s{k}_{d}: send {a.bytes}b to {nbr[d]} tag {tag}\ns{k}_{d} requires c{k}\n")
                lines.append(f"r{k}_{d}: recv {a.bytes}b from {nbr[d ^ 1]} tag {tag}\nr{k}_{d} requires c{k}\n")
        lines.append("}\n")
        w("".join(lines))


if __name__ == "__main__":
    main()
