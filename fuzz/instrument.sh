#!/bin/sh
# RUSTC_WRAPPER used by fuzz.sh: adds libFuzzer's instrumentation (FUZZ_RUSTFLAGS) to the crates
# under test, avicontact and the fuzz targets, and compiles every other crate as usual; faster to
# build than instrumenting the whole tree, and coverage counts only the code under test.
rustc=$1
shift
case " $* " in
*" --crate-name avicontact "* | *" --crate-name scene "* | *" --crate-name obj "* | *" --crate-name tetgen "*)
    # shellcheck disable=SC2086 # FUZZ_RUSTFLAGS is a list of flags
    exec "$rustc" "$@" $FUZZ_RUSTFLAGS
    ;;
esac
exec "$rustc" "$@"
