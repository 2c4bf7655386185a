#!/bin/sh
# cvar against PyTorch on the CPU: one Alg 3 epoch of logistic
# regression, softmax (k = 10) and the MLP (784-100-10) on MNIST, float32,
# batch 512, in cvar (cvarbench) and in PyTorch (bench/torch_epoch.py), and a
# table of their seconds per epoch, their ratio and the training CVaR each
# reaches. Run from anywhere:
#
#   bench/torch_compare.sh [MNIST_DIR]
#
# MNIST_DIR defaults to ../shared/data/mnist from the repository root.
# Environment: THREADS (default 1), EPOCHS timed per run after one untimed
# one (default 2), REPS runs of each side, alternated, the least time kept
# (default 3), MODELS (default logistic,softmax,mlp), VARIANT (torch:
# autograd, the default, or manual), PYTHON (default: the first of python3,
# /usr/bin/python3 that imports torch; Debian's is python3-torch).
# OMP_NUM_THREADS and OPENBLAS_NUM_THREADS default to THREADS, so that a
# pthread OpenBLAS under torch keeps to the same thread count.
# Debian's torch calls the system's libblas.so.3: the reference BLAS unless
# OpenBLAS is installed (libopenblas0) or on LD_LIBRARY_PATH; the table
# names the BLAS the torch runs loaded.
# CVARBENCH and TORCHCMP name prebuilt binaries of ./cmd/cvarbench and
# ./internal/bench/torchcmp (for a machine without Go); by default both are
# built here.
# CI does not need PyTorch: without it this script says so and exits 3.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
mnist=${1:-$root/../shared/data/mnist}
threads=${THREADS:-1}
epochs=${EPOCHS:-2}
reps=${REPS:-3}
models=${MODELS:-logistic,softmax,mlp}
variant=${VARIANT:-autograd}
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-$threads}"
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-$threads}"

py=${PYTHON:-}
if [ -z "$py" ]; then
	for c in python3 /usr/bin/python3; do
		if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import torch' >/dev/null 2>&1; then
			py=$c
			break
		fi
	done
fi
if [ -z "$py" ] || ! "$py" -c 'import torch' >/dev/null 2>&1; then
	echo "torch_compare: no Python with PyTorch (install python3-torch, or set PYTHON)" >&2
	exit 3
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
cvarbench=${CVARBENCH:-}
torchcmp=${TORCHCMP:-}
if [ -z "$cvarbench" ]; then
	go build -o "$tmp/cvarbench" ./cmd/cvarbench
	cvarbench=$tmp/cvarbench
fi
if [ -z "$torchcmp" ]; then
	go build -o "$tmp/torchcmp" ./internal/bench/torchcmp
	torchcmp=$tmp/torchcmp
fi
: >"$tmp/cvar.json"
: >"$tmp/torch.jsonl"
i=1
while [ "$i" -le "$reps" ]; do
	echo "torch_compare: run $i of $reps: cvar…" >&2
	"$cvarbench" -sections epochs -json -prec f32 -methods alg3 -threads "$threads" \
		-mnist "$mnist" -models "$models" -epochs "$epochs" -stream-mib 64 -time 20ms \
		2>/dev/null >>"$tmp/cvar.json"
	echo "torch_compare: run $i of $reps: torch ($py)…" >&2
	"$py" bench/torch_epoch.py --mnist "$mnist" --models "$models" --threads "$threads" \
		--epochs "$epochs" --variant "$variant" >>"$tmp/torch.jsonl"
	i=$((i + 1))
done
"$torchcmp" -cvar "$tmp/cvar.json" -torch "$tmp/torch.jsonl" -mnist "$mnist"
