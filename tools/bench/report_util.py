# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Helpers of tools/bench/report.py: loading the raw CSVs, number
formatting, CSV and gnuplot output."""
import csv
import math
import os
import subprocess
import sys
from collections import defaultdict

STACKS = ("rxe", "metaroce")


def load(*paths, src=None):
    """bench,stack,x,metric,value rows as d[bench][stack][x][metric]; a
    later file's (bench, stack, x) replaces an earlier one's. With src, a
    dict, src[bench, stack, x] is set to the index in paths of the file
    the point's rows came from."""
    d = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    for i, path in enumerate(paths):
        if not os.path.exists(path):
            continue
        seen = set()
        with open(path) as f:
            for r in csv.DictReader(f):
                k = (r["bench"], r["stack"], r["x"])
                if k not in seen:
                    seen.add(k)
                    d[k[0]][k[1]][k[2]] = {}
                    if src is not None:
                        src[k] = i
                d[k[0]][k[1]][k[2]][r["metric"]] = r["value"]
    return d


def rep_name(bench, r):
    """The bench name run r of bench is stored under: bench itself for
    the first run, bench-rR after it (bench-pair.sh)."""
    return bench if r == 1 else "%s-r%d" % (bench, r)


def num(v, default=None):
    try:
        x = float(v)
    except (TypeError, ValueError):
        return default
    return x if math.isfinite(x) else default


def read1(path):
    """The stripped text of a small file, or None if it is missing."""
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def read_series(path):
    """A "seconds value" file as (t, v) pairs; [] if it is missing."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [tuple(map(float, ln.split())) for ln in f if len(ln.split()) == 2]


def last_data(s, default=None):
    """The last sample time in a "seconds bytes" series whose interval
    moved more than 2500 bytes (more than ACKs and perftest's TCP)."""
    return max((t for (pt, pb), (t, b) in zip(s, s[1:]) if b - pb > 2500), default=default)


def ratio(a, b):
    a, b = num(a), num(b)
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt(v, nd=2):
    if v is None:
        return "n/a"
    if abs(v) >= 100:
        return "%.0f" % v
    return ("%%.%df" % nd) % v


def size_label(s):
    s = int(s)
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if s >= div and s % div == 0:
            return "%d %s" % (s // div, unit)
    return "%d B" % s


def xsort(xs):
    return sorted(xs, key=lambda x: num(x, 0))


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for r in rows:
            w.writerow(["" if v is None else v for v in r])


def gnuplot(script, cwd):
    try:
        subprocess.run(["gnuplot"], input=script, text=True, cwd=cwd,
                       check=True, capture_output=True)
        return True
    except (OSError, subprocess.CalledProcessError) as e:
        err = getattr(e, "stderr", "") or str(e)
        sys.stderr.write("report: gnuplot failed: %s\n" % err)
        return False


HEAD = """set terminal pngcairo size 900,640 font ',10' noenhanced
set datafile separator ','
set datafile missing ''
set key top left
set grid
"""


def ratio_csv(bdir, name, xcol, rows):
    """Write rows (x, rxe, metaroce) and their ratio as NAME.csv, the data
    of a figure; returns the file's name."""
    data = "%s.csv" % name
    write_csv(os.path.join(bdir, data),
              [xcol, "rxe", "metaroce", "metaroce_over_rxe"],
              [(x, a, b, ratio(b, a)) for x, a, b in rows])
    return data


def pair_figure(bdir, name, title, xlabel, ylabel, logx, rows, logy=False,
                xfmt=""):
    """rows: (x, rxe, metaroce). Absolute (top) and ratio (bottom)."""
    data = ratio_csv(bdir, name, "x", rows)
    s = HEAD + """set output '%s.png'
set multiplot layout 2,1 title '%s'
%s
%s
set xlabel '%s'
set ylabel '%s'
%s
set xrange [*:*] writeback
plot '%s' using 1:2 skip 1 with linespoints lw 2 title 'rdma_rxe', \\
     '' using 1:3 skip 1 with linespoints lw 2 title 'MetaRoCE'
set xrange restore
unset logscale y
set ylabel 'MetaRoCE / rxe'
set yrange [0:*]
plot '%s' using 1:4 skip 1 with linespoints lw 2 lc 3 title 'ratio', \\
     1 with lines dt 2 lc 0 notitle
unset multiplot
""" % (name, title, "set logscale x 2" if logx else "",
       "set format x '%s'" % xfmt if xfmt else "", xlabel, ylabel,
       "set logscale y" if logy else "", data, data)
    return gnuplot(s, bdir)


def bar_figure(bdir, name, title, ylabel, rows):
    """rows: (label, rxe, metaroce) as clustered bars, plus the ratio."""
    data = ratio_csv(bdir, name, "what", rows)
    s = HEAD + """set output '%s.png'
set multiplot layout 2,1 title '%s'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set yrange [0:*]
set ylabel '%s'
plot '%s' using 2:xtic(1) skip 1 title 'rdma_rxe', '' using 3 skip 1 title 'MetaRoCE'
set ylabel 'MetaRoCE / rxe'
set key top right
plot '%s' using 4:xtic(1) skip 1 lc 3 title 'ratio (lower is better)'
unset multiplot
""" % (name, title, ylabel, data, data)
    return gnuplot(s, bdir)
