#!/usr/bin/env bash
# The dependency edges between eboard's top-level modules, from the source:
# every `crate::X` path in code (use lines and inline paths, tests included;
# comment lines, doc links among them, are not dependencies) in src/M.rs or
# src/M/** is an edge M -> X. Prints one edge a line (`M -> X (n uses)`),
# then checks them for a cycle: exit 1 naming the modules of each loop when
# there is one, 0 when there is none. `lib.rs` and `main.rs` are the crate's
# roots, not modules, and are left out.
#
# Usage: scripts/deps.sh [SRC_DIR]   (default: the src/ beside this script)
set -euo pipefail
src="${1:-$(dirname "$0")/../src}"
edges=$(
    for path in "$src"/*.rs "$src"/*/; do
        name=$(basename "$path" .rs)
        case "$name" in lib | main) continue ;; esac
        # Code lines only; then each `crate::x` and each name of `crate::{x, y::z}`.
        grep -rhE 'crate::' "$path" --include='*.rs' 2>/dev/null |
            grep -vE '^[[:space:]]*//' |
            grep -oE 'crate::(\{[^}]*\}|[a-z_][a-z0-9_]*)' |
            sed -E 's/^crate:://; s/[{}]//g' | tr ',' '\n' |
            sed -E 's/^[[:space:]]*//; s/::.*//; s/[[:space:]].*//' |
            grep -E '^[a-z_][a-z0-9_]*$' |
            grep -vxE "self|super|$name" |
            sed "s/^/$name /" || true
    done | sort | uniq -c | awk '{ printf "%s %s %d\n", $2, $3, $1 }'
)
printf '%s\n' "$edges" | awk 'NF { printf "%-12s -> %-12s (%d uses)\n", $1, $2, $3 }'
# tsort names the modules of every loop on standard error.
loops=$(printf '%s\n' "$edges" | awk 'NF { print $1, $2 }' | tsort 2>&1 >/dev/null || true)
if [ -n "$loops" ]; then
    echo "dependency cycle between top-level modules:" >&2
    printf '%s\n' "$loops" | sed 's/^tsort: -: //; s/^tsort: /  /' >&2
    exit 1
fi
echo "no cycle between top-level modules"
