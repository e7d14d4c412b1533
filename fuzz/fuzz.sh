#!/usr/bin/env bash
# Builds and runs the fuzz targets on the stable toolchain, without cargo-fuzz: the same
# instrumentation flags `cargo fuzz build` passes (libFuzzer's coverage counters, compare
# tracing, --cfg fuzzing, debug assertions and overflow checks), no sanitizer. docs/fuzzing.md.
#
#   fuzz/fuzz.sh build                     build all targets
#   fuzz/fuzz.sh run TARGET SECONDS [ARGS]  fuzz TARGET for SECONDS from its corpus (ARGS go to libFuzzer)
#   fuzz/fuzz.sh ci SECONDS                 build, then each target for SECONDS; exit 1 on a finding
set -euo pipefail
cd "$(dirname "$0")"
TARGETS=(scene obj tetgen)
host=$(rustc -vV | sed -n 's/^host: //p')
bin() { echo "${CARGO_TARGET_DIR:-target}/$host/release/$1"; }

build() {
    # --target keeps build scripts and proc macros out of it, as cargo-fuzz does
    FUZZ_RUSTFLAGS="-Cpasses=sancov-module \
-Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
-Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares \
-Cllvm-args=-sanitizer-coverage-stack-depth \
--cfg fuzzing -Cdebug-assertions -Coverflow-checks -Cdebuginfo=line-tables-only" \
        RUSTC_WRAPPER="$PWD/instrument.sh" cargo build --locked --release --target "$host" --bins ${FUZZ_CARGO_FLAGS:-}
}

# run TARGET SECONDS [ARGS]: new inputs go to a scratch corpus so the committed one stays small
run() {
    local target=$1 seconds=$2
    shift 2
    local scratch="target/corpus/$target"
    mkdir -p "$scratch" artifacts/"$target"
    "$(bin "$target")" "$scratch" "corpus/$target" \
        $([ "$target" = scene ] && echo -dict=scene.dict) -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
        -artifact_prefix="artifacts/$target/" -print_final_stats=1 "$@"
}

case "${1:-}" in
    build) build ;;
    run) run "$2" "$3" "${@:4}" ;;
    ci)
        build
        for t in "${TARGETS[@]}"; do run "$t" "$2"; done
        ;;
    *) sed -n '2,9p' "$0"; exit 2 ;;
esac
