#!/usr/bin/env python3
"""Refits the announcement length estimate (src/voice/durations/) to the
installed espeak-ng (issue 29, point 6; docs/voice.md).

Input: the measurements of tests/voice_duration.rs,
    EBOARD_DURATION_CSV=/tmp/dur.tsv cargo test --test suite voice_duration::
(one line per phrase: vocabulary, set (fit or held-out), wpm, characters,
real ms, estimated ms, phrase).

Measured once with espeak-ng:
- every word of those phrases, and the numbers 0..=120, said alone at each
  of the table's speeds SPEEDS (German words of a Norwegian or English
  phrase with the German voice, as the SSML says them). The test's speeds
  120 and 300 are not among them: the estimate interpolates there, as it
  does at any speed between two columns;
- for a word not in the table (a ruling added later), per speed,
  `a + b * letters` fitted on other words: 250 words a language drawn
  (seed 29) from the system's translation catalogues
  (/usr/share/locale/LANG/LC_MESSAGES/*.mo; English: the FIDE Laws,
  ../shared/rules/fide-2023.md), less every word of the phrases. A word
  with digits is cut at its hyphens, its numbers from the table.

Then per language, by least squares on the relative error over the `fit`
rows only (never the held-out rows),

    ms = c0 + c1 * sum(word alone at wpm) + c6 * words
         + (175 / wpm) * (c2 * words + c3 * pauses + c4 * voice switches + c5)

The held-out rows' error is printed as the test computes it (their words
not met in the fit rows from their letters), and the tables are written.
Usage:
    scripts/voice-durations.py /tmp/dur.tsv src/voice/durations
"""
import collections
import gettext
import glob
import os
import random
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

GERMAN = set(
    "eins zwei drei vier fünf sechs sieben acht bauer springer läufer turm dame "
    "könig kurze lange rochade".split()
)
VOICE = {"da": "da", "nb": "nb", "nb-national": "nb", "de": "de", "en": "en"}
LANGS = ["da", "nb", "de", "en"]
# The speeds of the tables' columns, words a minute (the estimate
# interpolates between them; 120 and 300, the test's, are left out on
# purpose).
SPEEDS = [80, 100, 150, 175, 250, 350, 450]


def tokens(p):
    return [t for t in re.findall(r"[\w'-]+", p)]


def measure(lang, w, wpm):
    """The length of `w` said alone at `wpm`, ms (samples / rate)."""
    out = subprocess.run(
        ["espeak-ng", "-v", lang, "-s", str(wpm), "--stdout", w],
        capture_output=True,
        check=True,
    ).stdout
    return round((len(out) - 44) / 2 / 22.05)


cache = {}


def measure_all(jobs):
    """Fills `cache` for (lang, word, wpm) jobs, three at a time."""
    jobs = [j for j in set(jobs) if j not in cache]
    with ThreadPoolExecutor(3) as ex:
        for j, ms in zip(jobs, ex.map(lambda j: measure(*j), jobs)):
            cache[j] = ms


def german(name, w):
    # Default vocabularies of nb and en take the German words (SSML).
    return name in ("nb", "en") and w.lower() in GERMAN


def columns(wpm):
    """The two columns around `wpm` and the weight of the second (in
    1 / wpm, as the lengths go)."""
    w = min(max(wpm, SPEEDS[0]), SPEEDS[-1])
    for i in range(len(SPEEDS) - 1):
        lo, hi = SPEEDS[i], SPEEDS[i + 1]
        if lo <= w <= hi:
            f = (1 / lo - 1 / w) / (1 / lo - 1 / hi)
            return i, i + 1, f
    return 0, 0, 0.0


def interp(values, wpm):
    i, j, f = columns(wpm)
    return values[i] + (values[j] - values[i]) * f


def word_alone(v, k, wpm, known, letters):
    """A word's length alone at `wpm`: the table's, or from its letters."""
    if known is None or k in known or k.isdigit():
        return interp([cache[(v, k, s)] for s in SPEEDS], wpm)
    parts = [x for x in k.split("-") if x]
    tot = 0.0
    for x in parts:
        if x.isdigit() and (v, x, SPEEDS[0]) in cache:
            tot += interp([cache[(v, x, s)] for s in SPEEDS], wpm)
        else:
            n = sum(ch.isalpha() for ch in x)
            tot += interp([letters[(v, s)][0] + letters[(v, s)][1] * n for s in SPEEDS], wpm)
    # One word: one silence around it, not one per part.
    return tot - (len(parts) - 1) * 0.6 * interp([letters[(v, s)][0] for s in SPEEDS], wpm)


def feats(name, p, wpm, known=None, letters=None):
    s = 175.0 / wpm
    lang = VOICE[name]
    tot = n = sw = 0
    prev = None
    for w in tokens(p):
        g = german(name, w)
        tot += word_alone("de" if g else lang, w.lower(), wpm, known, letters)
        n += 1
        if prev is not None and g != prev:
            sw += 1
        prev = g
    pz = len(re.findall(r"[,.:;?]", p))
    return [1.0, tot, s * n, s * pz, s * sw, s, n]


def solve(a, b):
    n = len(a[0])
    m = [[sum(r[i] * r[j] for r in a) for j in range(n)] + [sum(r[i] * y for r, y in zip(a, b))] for i in range(n)]
    for i in range(n):
        m[i][i] += 1e-9
    for i in range(n):
        piv = max(range(i, n), key=lambda r: abs(m[r][i]))
        m[i], m[piv] = m[piv], m[i]
        for r in range(n):
            if r != i:
                f = m[r][i] / m[i][i]
                for c in range(n + 1):
                    m[r][c] -= f * m[i][c]
    return [m[i][n] / m[i][i] for i in range(n)]


def catalogue_words(lang):
    """Words of the system's translations (English: the FIDE Laws)."""
    c = collections.Counter()
    if lang == "en":
        here = os.path.dirname(os.path.abspath(__file__))
        texts = [open(os.path.join(here, "../../shared/rules/fide-2023.md"), encoding="utf-8").read()]
    else:
        texts = []
        for f in sorted(glob.glob(f"/usr/share/locale/{lang}/LC_MESSAGES/*.mo")):
            try:
                t = gettext.GNUTranslations(open(f, "rb"))
            except Exception:
                continue
            texts.extend(v for v in t._catalog.values() if isinstance(v, str))
    for t in texts:
        for w in re.findall(r"[^\W\d_]+", t):
            if w.islower() and 2 <= len(w) <= 16:
                c[w] += 1
    words = sorted(w for w, n in c.items() if n >= 2)
    random.Random(29).shuffle(words)
    return words


def letters_fit(exclude):
    """Per language and speed, a + b * letters on 250 other words."""
    words = {lang: [w for w in catalogue_words(lang) if w not in exclude][:250] for lang in LANGS}
    measure_all([(lang, w, s) for lang in LANGS for w in words[lang] for s in SPEEDS])
    out = {}
    for lang in LANGS:
        for s in SPEEDS:
            a = []
            for w in words[lang]:
                ms = cache[(lang, w, s)]
                a.append([1.0 / ms, sum(ch.isalpha() for ch in w) / ms])
            out[(lang, s)] = solve(a, [1.0] * len(a))
    return out


def fit(a):
    """Least squares, reweighted towards the largest errors: the bound
    that matters is the worst phrase's."""
    wt = [1.0] * len(a)
    for _ in range(30):
        aw = [[x * q for x in row] for row, q in zip(a, wt)]
        c = solve(aw, wt)
        err = [abs(sum(x * k for x, k in zip(row, c)) - 1.0) for row in a]
        mean = sum(err) / len(err)
        wt = [q * (1.0 + e / (mean + 1e-9)) ** 0.5 for q, e in zip(wt, err)]
        s = sum(wt) / len(wt)
        wt = [q / s for q in wt]
    return c


def main():
    rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1], encoding="utf-8")]
    outdir = sys.argv[2]
    phrase_words = {w.lower() for r in rows for w in tokens(r[-1])}
    # Every word of every phrase (fit and held-out: the product's table
    # has them all), every number a phrase may hold, the German words.
    jobs = []
    for n, *_, p in rows:
        for w in tokens(p):
            v = "de" if german(n, w) else VOICE[n]
            jobs.extend((v, w.lower(), s) for s in SPEEDS)
    for lang in LANGS:
        jobs.extend((lang, str(k), s) for k in range(121) for s in SPEEDS)
    jobs.extend(("de", w, s) for w in GERMAN for s in SPEEDS)
    measure_all(jobs)
    table_keys = {(l, w) for (l, w, _) in cache}
    letters = letters_fit(phrase_words)
    coef = {}
    for lang in LANGS:
        data = [(n, int(w), float(r), p) for n, st, w, c, r, e, p in rows if VOICE[n] == lang and st == "fit"]
        a = [[f / r for f in feats(n, p, w)] for n, w, r, p in data]
        c = fit(a)
        coef[lang] = c
        worst = max(abs(sum(x * k for x, k in zip(row, c)) - 1.0) for row in a)
        print(f"{lang}: {len(a)} fit phrases, worst error {100 * worst:.1f} %", file=sys.stderr)
        known = {w.lower() for n, st, *_, p in rows if VOICE[n] == lang and st == "fit" for w in tokens(p)}
        held = [(n, int(w), float(r), p) for n, st, w, c, r, e, p in rows if VOICE[n] == lang and st == "held-out"]
        errs = [sum(x * k for x, k in zip(feats(n, p, w, known, letters), c)) / r - 1.0 for n, w, r, p in held]
        print(
            f"{lang}: {len(held)} held-out phrases, error {100 * min(errs):+.1f} % .. {100 * max(errs):+.1f} %",
            file=sys.stderr,
        )
    speeds = ", ".join(str(s) for s in SPEEDS)
    for lang in LANGS:
        out = []
        out.append(f"//! The {lang} table of the announcements' length estimate (see")
        out.append("//! `super`). Generated by `scripts/voice-durations.py`; do not edit.")
        out.append("")
        out.append("use super::Fit;")
        out.append("")
        c = ", ".join(f"{x:.4f}" for x in coef[lang])
        fb = ", ".join(f"({letters[(lang, s)][0]:.1f}, {letters[(lang, s)][1]:.2f})" for s in SPEEDS)
        out.append("#[rustfmt::skip]")
        out.append(f"pub(in crate::voice) const FIT: Fit = Fit {{")
        out.append(f"    c: [{c}],")
        out.append(f"    fallback: [{fb}],")
        out.append("    words: &[")
        line = "       "
        for w in sorted(w for (l, w) in table_keys if l == lang):
            ms = ", ".join(str(cache[(lang, w, s)]) for s in SPEEDS)
            item = f' ("{w}", [{ms}]),'
            if len(line) + len(item) > 96:
                out.append(line)
                line = "       "
            line += item
        out.append(line)
        out.append("    ],")
        out.append("};")
        with open(os.path.join(outdir, f"{lang}.rs"), "w", encoding="utf-8") as f:
            f.write("\n".join(out) + "\n")
    print(f"speeds: {speeds}", file=sys.stderr)
    for lang in LANGS:
        print(lang, [round(x, 3) for x in coef[lang]], file=sys.stderr)


main()
