#!/usr/bin/env bash
# Builds and runs docs/swift-tutorial.md's package (its copy, Tests/ReadmeExample) and compares what it
# prints with the page's expected output: a tutorial whose output differs is wrong.
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build --package-path Tests/ReadmeExample
expected=$(awk '/^<!-- not run: the output of `swift run`/ { found = 1; next }
                found && /^```/ { if (inside) exit; inside = 1; next }
                inside { print }' docs/swift-tutorial.md)
actual=$(swift run --skip-build --package-path Tests/ReadmeExample Todos 2>&1)
if [ "$expected" != "$actual" ]; then
    echo "docs/swift-tutorial.md shows one output, the package prints another:"
    diff <(printf '%s\n' "$expected") <(printf '%s\n' "$actual") || true
    exit 1
fi
echo "the Swift tutorial's package prints what docs/swift-tutorial.md shows"
