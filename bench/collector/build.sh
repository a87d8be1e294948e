#!/usr/bin/env bash
# Build the OpenTelemetry Collector of bench/collector/manifest.yaml with ocb
# (go.opentelemetry.io/collector/cmd/builder) from Go modules, for bench.collector and the optional
# Collector tests (the Collector path of the evaluation events, Collector → Kafka); .ci/test runs it
# (about 3 minutes of both cores on a fresh machine, nothing once built).
#   bench/collector/build.sh          build once into $OTELCOL_DIR, print the binary's path
#   bench/collector/build.sh path     print where the binary is (or would be), build nothing
# $OTELCOL_DIR defaults to ~/.cache/agent-monitor/otelcol-<version> (outside git). A second run with
# the same manifest does nothing. The build runs niced with one package at a time (-p=1), so other
# work on the machine goes on. Needs Go (ocb v0.165 and its modules require Go 1.26).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
MANIFEST="$HERE/manifest.yaml"
VERSION="$(sed -n 's/^  version: *//p' "$MANIFEST")"
BUILDER_VERSION="v$VERSION"  # ocb is released with the core modules
DIR="${OTELCOL_DIR:-$HOME/.cache/agent-monitor/otelcol-$VERSION}"
BIN="$DIR/otelcol"

if [ "${1:-}" = "path" ]; then
  echo "$BIN"
  exit 0
fi

digest="$(sha256sum "$MANIFEST" | cut -d' ' -f1)"
if [ -x "$BIN" ] && [ "$(cat "$DIR/manifest.sha256" 2>/dev/null)" = "$digest" ]; then
  echo "$BIN"
  exit 0
fi
if ! command -v go >/dev/null; then
  echo "go not found: install Go 1.26+ to build the Collector (bench/collector/build.sh)" >&2
  exit 3
fi

mkdir -p "$DIR/bin"
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-p=1"
if [ ! -x "$DIR/bin/builder" ] || [ "$("$DIR/bin/builder" version 2>&1 | grep -o 'v[0-9][0-9.]*')" != "$BUILDER_VERSION" ]; then
  echo "installing ocb $BUILDER_VERSION into $DIR/bin" >&2
  GOBIN="$DIR/bin" nice -n 10 go install "go.opentelemetry.io/collector/cmd/builder@$BUILDER_VERSION"
fi
# the committed manifest names no output folder: the copy used here points it into the cache
sed "s|^dist:$|dist:\n  output_path: $DIR/src|" "$MANIFEST" > "$DIR/manifest.yaml"
echo "building otelcol $VERSION into $DIR (a few minutes)" >&2
nice -n 10 "$DIR/bin/builder" --config "$DIR/manifest.yaml" >"$DIR/build.log" 2>&1 || {
  echo "ocb failed; the last lines of $DIR/build.log:" >&2
  tail -20 "$DIR/build.log" >&2
  exit 1
}
cp "$DIR/src/otelcol" "$BIN.tmp" && mv "$BIN.tmp" "$BIN"
echo "$digest" > "$DIR/manifest.sha256"
"$BIN" --version >&2
echo "$BIN"
