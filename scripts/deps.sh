#!/usr/bin/env bash
# The dependency edges between eboard's top-level modules, from the source:
# every `crate::X` path (in `use` lines and inline, tests included) in
# src/M.rs or src/M/** is an edge M → X. Prints one edge a line
# (`M -> X  (n uses)`), then checks them for a cycle: exit 1 and the loop
# when there is one, 0 when there is none.
#
# Usage: scripts/deps.sh [SRC_DIR]   (default: the src/ next to this script)
set -euo pipefail
src="${1:-$(dirname "$0")/../src}"
edges=$(
    for path in "$src"/*.rs "$src"/*/; do
        name=$(basename "$path" .rs)
        case "$name" in lib | main) continue ;; esac
        # `crate::x`, and each name in `crate::{x, y::z}`.
        grep -rhoE 'crate::(\{[^}]*\}|[a-z_][a-z0-9_]*)' "$path" --include='*.rs' 2>/dev/null |
            sed -E 's/^crate:://; s/[{}]//g' | tr ',' '\n' |
            sed -E 's/^[[:space:]]*//; s/::.*//; s/[[:space:]].*//' |
            grep -E '^[a-z_][a-z0-9_]*$' |
            grep -vxE "self|super|$name" |
            sed "s/^/$name /" || true
    done | sort | uniq -c | awk '{ printf "%s %s %d\n", $2, $3, $1 }'
)
printf '%s\n' "$edges" | awk 'NF { printf "%-12s -> %-12s (%d uses)\n", $1, $2, $3 }'
if ! out=$(printf '%s\n' "$edges" | awk 'NF { print $1, $2 }' | tsort 2>&1 >/dev/null); then
    echo "dependency cycle between top-level modules:" >&2
    printf '%s\n' "$out" | sed 's/^tsort: //' >&2
    exit 1
fi
if [ -n "$out" ]; then
    echo "dependency cycle between top-level modules:" >&2
    printf '%s\n' "$out" | sed 's/^tsort: //' >&2
    exit 1
fi
echo "no cycle between top-level modules"
