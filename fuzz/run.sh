#!/usr/bin/env bash
# Fuzz the reader-input path (parser, validator, trace_input) for SECONDS (default 60).
# Usage: fuzz/run.sh [SECONDS]. Needs the nightly toolchain; installs cargo-fuzz if missing.
# New corpus entries go to fuzz/corpus/ and crashes to fuzz/artifacts/ (both ignored by git).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
export PATH="$HOME/.cargo/bin:$PATH"

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "fuzzing needs the nightly toolchain (rustup toolchain install nightly)" >&2
  exit 1
fi
if ! command -v cargo-fuzz >/dev/null; then
  echo "installing cargo-fuzz (a few minutes, once)"
  cargo install cargo-fuzz --locked
fi

mkdir -p fuzz/corpus/trace_input
# max_len 8192 (grown to quickly): room for deep nesting and long items; 64 KiB is unit-tested.
cargo +nightly fuzz run trace_input fuzz/corpus/trace_input fuzz/seeds/trace_input -- \
  -max_total_time="$seconds" -max_len=8192 -len_control=20 -dict=fuzz/input.dict -print_final_stats=1
