#!/usr/bin/env bash
# Behaviour-preserving refactors: every built-in scene, run for a short duration by the binary of a
# base revision and by the working tree's, must give bit-identical frames, stats and event counts.
#
#   bash tests/same_output.sh [BASE_REV]        # default BASE_REV: HEAD (the last commit)
#
# The base revision is built in a temporary git worktree (its target directory is kept under
# target/same-output-base, so a second comparison against the same base builds nothing). Compared
# per scene: every file the run writes (frames/, particles/, stats.csv, contact.csv) byte for
# byte, and summary.json without its wall-clock fields. Exit 0 if all agree, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
base=${1:-HEAD}
work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

git worktree add --detach -q "$work/base" "$base"
# reuse the compiled dependencies of the working tree's release build
if [ ! -d "$root/target/same-output-base/release" ] && [ -d "$root/target/release/deps" ]; then
  mkdir -p "$root/target/same-output-base"
  cp -a "$root/target/release" "$root/target/same-output-base/release"
fi
echo "building base $(git rev-parse --short "$base") and the working tree (release)"
CARGO_TARGET_DIR="$root/target/same-output-base" cargo build --release -q --manifest-path "$work/base/Cargo.toml" --bin avicontact
cargo build --release -q --bin avicontact
base_bin="$root/target/same-output-base/release/avicontact"
new_bin="$root/target/release/avicontact"

# scene and the simulated seconds to run: long enough for contact to act where the scene has it
scenes=(
  "hanging-cloth 0.2" "spinning-shell 0.2" "fpu-chain 2.0" "sheet-on-block 0.3" "pogo 0.2"
  "particle-walls 1.0" "particle-box 0.3" "particle-box-gravity 0.3" "sheet-on-sphere 0.5"
  "curtain-projectile 0.02" "bar-collision 0.5" "spikes 0.05" "spikes-10k 0.005" "spikes-50k 0.001"
)

# the built-in scenes use the hash grid: two of them again on the other broad phases
mkdir -p "$work/scenes"
for variant in "sheet-on-sphere kdop" "sheet-on-sphere all-pairs" "particle-box-gravity kdop"; do
  read -r scene phase <<<"$variant"
  sed "s/^\[contact\]$/[contact]\nbroad_phase = \"$phase\"/" "scenes/$scene.toml" >"$work/scenes/$scene-$phase.toml"
  duration=$( [ "$scene" = sheet-on-sphere ] && echo 0.5 || echo 0.3 )
  scenes+=("$work/scenes/$scene-$phase.toml $duration")
done

# summary.json without what depends on the wall clock
strip_summary() {
  python3 -c '
import json, sys
def clean(o):
    if isinstance(o, dict):
        return {k: clean(v) for k, v in o.items() if "second" not in k and "wall" not in k}
    if isinstance(o, list):
        return [clean(v) for v in o]
    return o
print(json.dumps(clean(json.load(open(sys.argv[1]))), indent=1, sort_keys=True))' "$1"
}

status=0
mkdir -p "$work/base" "$work/new"
for entry in "${scenes[@]}"; do
  read -r path duration <<<"$entry"
  scene=$(basename "$path" .toml)
  for side in base new; do
    bin=${side}_bin
    rc=0
    "${!bin}" run "$path" --out "$work/$side/$scene" --duration "$duration" --quiet >"$work/$side/$scene.log" 2>&1 || rc=$?
    echo "exit $rc" >>"$work/$side/$scene.log"
    if [ -f "$work/$side/$scene/summary.json" ]; then
      strip_summary "$work/$side/$scene/summary.json" >"$work/$side/$scene/summary.stripped"
      rm "$work/$side/$scene/summary.json"
    fi
  done
  if diff -rq "$work/base/$scene" "$work/new/$scene" >/dev/null && cmp -s "$work/base/$scene.log" "$work/new/$scene.log"; then
    events=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("events", "?"))' "$work/new/$scene/summary.stripped" 2>/dev/null || echo "?")
    frames=$(find "$work/new/$scene" -name 'frame_*' | wc -l)
    printf '%-22s same (%s frame files, %s events over %s s)\n' "$scene" "$frames" "$events" "$duration"
  else
    printf '%-22s DIFFERENT\n' "$scene"
    diff -rq "$work/base/$scene" "$work/new/$scene" | head -5 || true
    diff "$work/base/$scene.log" "$work/new/$scene.log" | head -5 || true
    status=1
  fi
done
exit $status
