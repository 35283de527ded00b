#!/usr/bin/env bash
# A real llama.cpp `llama-server` and a tiny tool-calling model for LlamaServerProviderIT, built once
# into a cache outside the clone, offline apart from one npm download.
#
#   test-peers/llama-server.sh [--env]
#
# prints CADRE_TEST_LLAMA_SERVER=<llama-server> and CADRE_TEST_LLAMA_MODEL=<model.gguf> (with --env as
# `export` lines for eval). ./test runs it. The cache is $CADRE_TEST_LLAMA_CACHE, by default
# ~/.cache/cadre-test/llama, laid out as <cache>/llama.cpp-src/build/bin/llama-server, so a server
# built there before (by this script or the team's shared setup) is found and not built again.
#
# Where llama.cpp comes from: the npm package node-llama-cpp ships llama.cpp's source as a git bundle
# (llama/gitRelease.bundle), with gguf-py and vocabulary-only GGUF files. Its first build takes about
# 15 minutes on 2 cores (cmake + g++, only the llama-server target); later runs return at once.
# Needs npm, git, cmake, g++ and python3 with numpy; says which is missing.
#
# llama-server compiles every tool's JSON schema into a sampling grammar and answers HTTP 400
# "failed to parse grammar" for a repetition bound of 2000 or more (e.g. "maxLength": 2000): that is
# what the IT holds Cadre's model-facing schemas to.
set -euo pipefail
NODE_LLAMA_CPP=3.21.1          # its bundled llama.cpp is the server the tests were written against
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${CADRE_TEST_LLAMA_CACHE:-$HOME/.cache/cadre-test/llama}
SRC=$CACHE/llama.cpp-src
SERVER=$SRC/build/bin/llama-server
MODEL=$CACHE/cadre-toolcaller-1.gguf   # bump the number when toolcaller_gguf.py changes

say() { echo "llama-server.sh: $*" >&2; }
fail() { echo "llama-server.sh: $*" >&2; exit 1; }

missing=()
for tool in npm git cmake g++ python3; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
command -v python3 >/dev/null && ! python3 -c 'import numpy' 2>/dev/null && missing+=("numpy for python3")
[ ${#missing[@]} -eq 0 ] || fail "missing: ${missing[*]} — install them (Debian: apt-get install -y npm git cmake g++ python3-numpy)"

mkdir -p "$CACHE"
# One build at a time per cache (two ./test runs at once would both start one).
exec 9>"$CACHE/.lock"
flock 9

if [ ! -x "$SERVER" ]; then
  say "building llama-server from node-llama-cpp@$NODE_LLAMA_CPP's llama.cpp into $CACHE (about 15 min on 2 cores; log: $CACHE/build.log)"
  (
    cd "$CACHE"
    rm -rf package node-llama-cpp-*.tgz "$SRC"
    npm pack --silent "node-llama-cpp@$NODE_LLAMA_CPP" >/dev/null
    tar xzf "node-llama-cpp-$NODE_LLAMA_CPP.tgz"
    git clone -q package/llama/gitRelease.bundle "$SRC"
  ) || fail "could not fetch llama.cpp's source (npm pack node-llama-cpp@$NODE_LLAMA_CPP)"
  cmake -S "$SRC" -B "$SRC/build" -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
        -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DGGML_NATIVE=ON >"$CACHE/cmake.log" 2>&1 \
    || fail "cmake failed: see $CACHE/cmake.log"
  cmake --build "$SRC/build" --target llama-server -j"$(nproc)" >"$CACHE/build.log" 2>&1 \
    || fail "the build failed: see $CACHE/build.log"
fi
if [ ! -f "$MODEL" ]; then
  python3 "$HERE/toolcaller_gguf.py" "$SRC" "$MODEL.tmp" && mv "$MODEL.tmp" "$MODEL" \
    || fail "could not write the tool-calling model $MODEL"
fi

if [ "${1:-}" = "--env" ]; then
  echo "export CADRE_TEST_LLAMA_SERVER='$SERVER'"
  echo "export CADRE_TEST_LLAMA_MODEL='$MODEL'"
else
  echo "CADRE_TEST_LLAMA_SERVER=$SERVER"
  echo "CADRE_TEST_LLAMA_MODEL=$MODEL"
fi
