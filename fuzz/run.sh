#!/usr/bin/env bash
# Coverage-guided fuzzing on the stable toolchain: libFuzzer (from the
# libfuzzer-sys crate, compiled with the system C++ compiler) plus LLVM's
# SanitizerCoverage, switched on with the same -C flags cargo-fuzz passes
# (minus -Zsanitizer, which needs nightly). Usage:
#   fuzz/run.sh TARGET SECONDS      TARGET: decode_client | game_moves
set -euo pipefail
cd "$(dirname "$0")"
target=${1:?target}
secs=${2:-600}
triple=$(rustc -vV | sed -n 's/^host: //p')
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/work/target-fuzz}
# An explicit --target keeps these flags off build scripts and proc macros.
RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
-Cllvm-args=-sanitizer-coverage-pc-table -Cllvm-args=-sanitizer-coverage-trace-compares \
--cfg fuzzing -Cdebug-assertions -Coverflow-checks" \
  cargo build --release --target "$triple" --bin "$target"
mkdir -p "corpus/$target" "artifacts/$target"
"$CARGO_TARGET_DIR/$triple/release/$target" "corpus/$target" \
  -artifact_prefix="artifacts/$target/" -max_total_time="$secs" -max_len=4096 \
  -print_final_stats=1
