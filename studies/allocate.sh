#!/bin/sh
# Allocation policies compared on a job stream (issue 32): 300 jobs (Poisson arrivals 1 s apart on
# average, runtimes exponential of mean 60 s, boxes of 1 to 128 or 96 nodes) scheduled first come,
# first served with backfilling on an 8x8x8 torus and on a Tofu-shaped 4x3x4x2x3x2 (576 nodes),
# with the exact shape, rotation, and rotation with padding (boxes of up to 1.25 times the nodes).
# Usage: studies/allocate.sh [fabricsim binary]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../target/release/fabricsim}
mkdir -p "$here/results"
"$bin" allocate --set topology.shape=[8,8,8] --generate 300 --mean-gap 1 --mean-runtime 60 --max-nodes 128 \
    | tee "$here/results/allocate-8x8x8.txt"
"$bin" allocate --set topology.shape=[4,3,4,2,3,2] --set topology.wrap=[true,false,true,false,true,false] \
    --generate 300 --mean-gap 1 --mean-runtime 60 --max-nodes 96 | tee "$here/results/allocate-tofu576.txt"
