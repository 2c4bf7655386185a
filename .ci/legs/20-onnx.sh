#!/usr/bin/env bash
# The ONNX export: the generated protobuf code is current, protoc decodes an
# exported model, and every model kind, exported, predicts as cvar predict
# does in ONNX Runtime and in ONNX's reference evaluator (onnx/check).
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v protoc >/dev/null 2>&1; then
  echo "installing protobuf-compiler (protoc)"
  export DEBIAN_FRONTEND=noninteractive
  (apt-get update -qq && apt-get install -y -qq protobuf-compiler >/dev/null) ||
    (sudo apt-get update -qq && sudo apt-get install -y -qq protobuf-compiler >/dev/null)
fi

# onnx.pb.go is written by a protoc plugin in onnx/_gen, a module of its
# own: regenerate it and fail if the committed file differs.
echo "--- go generate ./onnx/internal/onnxpb (the generated code is current)"
(cd onnx/_gen && go mod download && go vet ./...)
go generate ./onnx/internal/onnxpb
git diff --exit-code -- onnx/internal/onnxpb
untracked=$(git ls-files --others --exclude-standard -- onnx/internal/onnxpb)
if [ -n "$untracked" ]; then
  echo "go generate ./onnx/internal/onnxpb wrote files that are not committed:"; echo "$untracked"; exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/cvar" ./cmd/cvar

# An independent parser: protoc decodes an exported model as onnx.ModelProto.
echo "--- protoc --decode of an exported model"
"$work/cvar" train -model mlp -hidden 4 -n 300 -o "$work/m.cvar" >/dev/null
"$work/cvar" export -in "$work/m.cvar" -o "$work/m.onnx" >/dev/null
protoc --decode=onnx.ModelProto -I onnx/internal/onnxpb onnx/internal/onnxpb/onnx.proto <"$work/m.onnx" >"$work/m.txt"
grep -q 'op_type: "Gemm"' "$work/m.txt"
grep -q 'key: "cvar.kind"' "$work/m.txt"

# The runtimes, pinned, from PyPI (pip caches the wheels).
echo "--- onnx/check/check.py (onnx.checker, ONNX Runtime, the reference evaluator)"
export PIP_CACHE_DIR="${PIP_CACHE_DIR:-$HOME/.cache/pip}" PIP_DISABLE_PIP_VERSION_CHECK=1
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q -r onnx/check/requirements.txt
mkdir "$work/data"
"$work/venv/bin/python" onnx/check/check.py -cvar "$work/cvar" -dir "$work/data"
