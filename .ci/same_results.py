#!/usr/bin/env python3
"""Whether two `fabricsim run --json` reports give the same results: exit 1 naming the first
difference if not. The engine's own work is left out (wall time and rates over it, the event
count, the slabs' high-water marks, provenance and the `parallel` section), as the threads
test of the CLI does."""
import json
import sys


def results(v):
    if isinstance(v, dict):
        return {k: results(x) for k, x in v.items()
                if not ("wall" in k or "per_second" in k or k == "events" or k.startswith("peak_") or k in ("provenance", "parallel"))}
    if isinstance(v, list):
        return [results(x) for x in v]
    return v


def first_difference(a, b, at="report"):
    if type(a) is not type(b):
        return at
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{at}.{k}"
            d = first_difference(a[k], b[k], f"{at}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{at} (length)"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{at}[{i}]")
            if d:
                return d
        return None
    return None if a == b else at


if __name__ == "__main__":
    one, other = (results(json.load(open(p))) for p in sys.argv[1:3])
    d = first_difference(one, other)
    if d:
        print(f"{sys.argv[1]} and {sys.argv[2]} differ at {d}", file=sys.stderr)
        sys.exit(1)
    print(f"{sys.argv[1]} and {sys.argv[2]}: same results")
