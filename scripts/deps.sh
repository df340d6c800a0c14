#!/usr/bin/env bash
# The dependency edges between eboard's top-level modules, from the source:
# every `crate::X` path in code (use lines and inline paths, tests included;
# comment lines, doc links among them, are not dependencies) in src/M.rs or
# src/M/** is an edge M -> X. Prints one edge a line (`M -> X (n uses)`),
# then checks them for a cycle: exit 1 naming the modules of each loop when
# there is one. `lib.rs` and `main.rs` are the crate's roots, not modules,
# and are left out.
#
# Then the files inside each module directory src/M/ (and src/M.rs): an
# edge a -> b when a's code takes a name of b through `super::…` or
# `crate::M::…` (use lines and inline paths; a module imported by name,
# `use super::b;`, then `b::x`): nested paths are followed to the file of
# the module they name, a name re-exported (`pub use x::Y`, `pub use
# x::*`) to the file that defines it, and the re-exporting file counts
# too (the name is taken there). Left out: comments and strings; test
# code (files `tests.rs` and `*_tests.rs`, `#[cfg(test)]` items and
# modules); a `mod.rs` (or `M.rs`) using its own submodules (it declares
# and composes them; only a child using its parent is an edge); `self::`
# paths. A circle of files (a strongly connected set) is printed with the
# names each file takes from the others, and the exit is 1.
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
status=0
loops=$(printf '%s\n' "$edges" | awk 'NF { print $1, $2 }' | tsort 2>&1 >/dev/null || true)
if [ -n "$loops" ]; then
    echo "dependency cycle between top-level modules:" >&2
    printf '%s\n' "$loops" | sed 's/^tsort: -: //; s/^tsort: /  /' >&2
    status=1
else
    echo "no cycle between top-level modules"
fi
# The circles of files inside each module (python3: the use trees, the
# re-exports and the strongly connected sets are beyond awk's comfort).
if ! python3 - "$src" <<'PY'
import os
import re
import sys

src = os.path.normpath(sys.argv[1])
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def is_test(path):
    b = os.path.basename(path)
    return b == "tests.rs" or b.endswith("_tests.rs")


def blank(s):
    """`s` with everything but its newlines removed (keeps line numbers)."""
    return "\n" * s.count("\n")


TOKEN = re.compile(
    r"//[^\n]*|/\*|(?<![\w])(?:b|c)?r#*\"|(?<![\w])b?\"|"
    r"'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'\n])'"
)


def strip(text):
    """The code of `text`: comments gone, string and char literals empty
    (newlines kept, so positions stay on their lines)."""
    out, i = [], 0
    while True:
        m = TOKEN.search(text, i)
        if not m:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i : m.start()])
        tok, j = m.group(0), m.end()
        if tok.startswith("//"):
            pass
        elif tok == "/*":
            depth = 1
            while depth and j < len(text):
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(blank(text[m.start() : j]))
        elif tok.endswith('"') and "r" in tok:
            end = '"' + "#" * tok.count("#")
            k = text.find(end, j)
            j = len(text) if k < 0 else k + len(end)
            out.append('""' + blank(text[m.start() : j]))
        elif tok.endswith('"'):
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
            out.append('""' + blank(text[m.start() : j]))
        else:
            out.append("' '")
        i = j


def item_end(code, i):
    """The end of the item starting at `i`: its `;` or its closing brace."""
    depth, n = 0, len(code)
    while i < n:
        c = code[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0 and c == "}":
                return i + 1
        elif c == ";" and depth == 0:
            return i + 1
        i += 1
    return n


def drop_tests(code):
    """`code` without its `#[cfg(test)]` items (test modules, test helpers)."""
    attr = re.compile(r"#\[cfg\(test\)\]")
    while True:
        m = attr.search(code)
        if not m:
            return code
        i = m.end()
        # Further attributes of the same item.
        while True:
            a = re.compile(r"\s*#\[").match(code, i)
            if not a:
                break
            i = item_end(code, a.end() - 1)
        j = item_end(code, i)
        code = code[: m.start()] + blank(code[m.start() : j]) + code[j:]


def split_tree(tree):
    """The paths of a use tree `a::{b, c::{d as e}, f::*}`: [(segments,
    the name they are taken under)]."""
    toks = re.findall(r"::|[{},*]|" + IDENT, tree)
    out = []

    def parse(k, prefix):
        """One tree from token k; returns the token after it."""
        segs = list(prefix)
        while k < len(toks):
            t = toks[k]
            if t == "{":
                k += 1
                while k < len(toks) and toks[k] != "}":
                    k = parse(k, segs)
                    if k < len(toks) and toks[k] == ",":
                        k += 1
                return k + 1
            if t == "*":
                out.append((segs + ["*"], None))
                return k + 1
            if t == "::":
                k += 1
                continue
            if t in (",", "}"):
                break
            segs.append(t)
            k += 1
            if k + 1 < len(toks) and toks[k] == "as":
                alias = toks[k + 1]
                k += 2
                if segs[-1] == "self":
                    segs.pop()
                out.append((segs, alias))
                return k
        named_self = bool(segs) and segs[-1] == "self"
        if named_self:
            segs.pop()
        if segs and (len(segs) > len(prefix) or named_self):
            out.append((segs, segs[-1]))
        return k

    parse(0, [])
    return out


USE = re.compile(r"\buse\s+([^;]*);")
PUB_IN = re.compile(r"\bpub\s*\(\s*in\s+[^)]*\)")
INLINE_MOD = re.compile(r"\bmod\s+(" + IDENT + r")\s*\{")
DEF = r"\b(?:fn|struct|enum|union|const|static|type|trait|mod)\s+{}\b|\bmacro_rules!\s*{}\b"


class File:
    def __init__(self, path, modpath):
        self.path = path
        self.mod = modpath
        with open(path, encoding="utf-8") as f:
            code = strip(f.read())
        code = PUB_IN.sub("pub", drop_tests(code))
        self.code = code
        # Inline modules: (start, end) of their bodies.
        self.inline = []
        for m in INLINE_MOD.finditer(code):
            self.inline.append((m.end(), item_end(code, m.end() - 1)))
        self.uses = []  # (position, segments, alias)
        rest = code
        for m in USE.finditer(code):
            tree = m.group(1).strip()
            for segs, alias in split_tree(tree):
                self.uses.append((m.start(), segs, alias))
            rest = rest[: m.start()] + " " * (m.end() - m.start()) + rest[m.end() :]
        self.rest = rest  # the code without its use declarations

    def depth(self, pos):
        return sum(1 for a, b in self.inline if a <= pos < b)

    def defines(self, name):
        n = re.escape(name)
        return re.search(DEF.format(n, n), self.code) is not None


def module_of(rel):
    """Module path of a file below src/: app/daemon.rs -> (app, daemon)."""
    parts = rel[: -len(".rs")].split(os.sep)
    if parts[-1] == "mod":
        parts = parts[:-1]
    return tuple(parts)


def graph(top):
    """The files of top-level module `top` and the edges between them."""
    files = {}
    root = os.path.join(src, top + ".rs")
    paths = [root] if os.path.isfile(root) else []
    for d, _, names in os.walk(os.path.join(src, top)):
        paths += [os.path.join(d, x) for x in names if x.endswith(".rs")]
    for p in sorted(paths):
        if is_test(p):
            continue
        f = File(p, module_of(os.path.relpath(p, src)))
        files[f.mod] = f

    def resolve(segs, here, pos, seen=()):
        """The file of this module that path `segs` (written in `here` at
        `pos`) names, the name taken and whether it names a whole module;
        None outside this module."""
        segs = list(segs)
        if len(segs) >= 2 and segs[0] == "crate" and segs[1] == top:
            return walk((top,), segs[2:], seen)
        if segs and segs[0] == "super":
            ups = 0
            while segs and segs[0] == "super":
                ups, segs = ups + 1, segs[1:]
            ups -= here.depth(pos)
            if ups <= 0:
                return None  # within the file itself
            mod = here.mod[:-ups]
            return walk(mod, segs, seen) if mod else None
        return None

    def walk(mod, segs, seen):
        """Path `segs` from module `mod`: (the file defining the name, the
        name, whether it is a whole module, the files it was re-exported
        through on the way)."""
        while segs and segs[0] != "*" and mod + (segs[0],) in files:
            mod, segs = mod + (segs[0],), segs[1:]
        if mod not in files:
            return None
        f = files[mod]
        if not segs or segs[0] == "*":
            return f, mod[-1] if not segs else "*", not segs, ()
        name = segs[0]
        if (mod, name) in seen or f.defines(name):
            return f, name, False, ()
        seen = seen + ((mod, name),)
        # A name imported into that file (a re-export): where it is defined.
        for pos, useg, alias in f.uses:
            if alias == name and useg and useg[-1] != "*":
                if useg[0] in ("crate", "super", "self"):
                    r = resolve(useg, f, pos, seen)
                    if r is None:
                        # From another module: taken from this file.
                        return f, name, False, ()
                else:
                    r = walk(mod, useg, seen)  # `use child::X`
                if r is not None:
                    return r[0], name, False, r[3] + (f,)
        # A glob re-export (`pub use child::*`) of a file defining it.
        for pos, useg, alias in f.uses:
            if useg and useg[-1] == "*":
                base = useg[:-1]
                if base and base[0] in ("crate", "super"):
                    r = resolve(base + [name], f, pos, seen)
                else:
                    r = walk(mod, base + [name], seen)
                if r is not None and r[0] is not f and r[0].defines(name):
                    return r[0], name, False, r[3] + (f,)
        return f, name, False, ()

    edges = {}
    for f in files.values():
        found = []
        aliases = {}
        for pos, segs, alias in f.uses:
            r = resolve(segs, f, pos)
            if r is None:
                continue
            if r[2] and segs[-1] != "*":
                aliases[alias] = r  # a module imported by its name
            else:
                found.append(r)
        path = r"(?<![\w:$])((?:super::)+|crate::)(" + IDENT + r"(?:::" + IDENT + r")*)"
        for m in re.finditer(path, f.rest):
            segs = m.group(1).split("::")[:-1] + m.group(2).split("::")
            r = resolve(segs, f, m.start())
            if r is not None:
                found.append(r)
        for alias, (t, name, _, via) in aliases.items():
            used = False
            inner = r"(?<![\w:$])" + re.escape(alias) + r"::(" + IDENT + r"(?:::" + IDENT + r")*)"
            for m in re.finditer(inner, f.rest):
                r = walk(t.mod, m.group(1).split("::"), ())
                if r is not None:
                    found.append(r[:3] + (r[3] + via,))
                    used = True
            if not used:
                found.append((t, name, True, via))
        for t, name, _, via in found:
            # The file that defines the name, and every file whose
            # re-export the path goes through (its name is taken there).
            for u in (t,) + via:
                if u.mod[: len(f.mod)] == f.mod:
                    continue  # the file itself, or a module using its own children
                edges.setdefault((f, u), set()).add(name)
    return files, edges


def circles(files, edges):
    """The strongly connected components of more than one file (Tarjan)."""
    succ = {}
    for a, b in edges:
        succ.setdefault(a.mod, []).append(b.mod)
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(succ.get(v, [])):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(files):
        if v not in index:
            visit(v)
    return sorted(out)


found = 0
for top in sorted(os.listdir(src)):
    if not os.path.isdir(os.path.join(src, top)):
        continue
    files, edges = graph(top)
    here = os.path.join(src, top)
    for comp in circles(files, edges):
        found += 1
        members = set(comp)
        name = {m: os.path.relpath(files[m].path, here) for m in comp}
        print(f"circle of files in src/{top}/: " + ", ".join(name[m] for m in comp), file=sys.stderr)
        for (a, b), names in sorted(edges.items(), key=lambda e: (e[0][0].mod, e[0][1].mod)):
            if a.mod in members and b.mod in members:
                print(f"  {name[a.mod]} -> {name[b.mod]}: {', '.join(sorted(names))}", file=sys.stderr)
if found:
    sys.exit(f"{found} circle(s) of files inside a module")
print("no circle of files inside a module")
PY
then
    status=1
fi
exit "$status"
