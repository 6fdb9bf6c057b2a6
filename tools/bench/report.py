#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Turn the raw output of one `make bench` run into Documentation/.

usage: report.py RUNDIR DOCDIR

RUNDIR holds pair/b/bench.csv (two VMs: rxe and MetaRoCE) and
fabric/bench.csv plus its time series (one VM, MetaRoCE only), as
tools/bench/run.sh leaves them. Writes DOCDIR/benchmarks.md and, under
DOCDIR/bench/, one CSV per figure (the numbers plotted) and the PNGs
(gnuplot). Missing parts are reported as missing, not invented.
"""
import csv
import math
import os
import subprocess
import sys
import time
from collections import defaultdict

STACKS = ("rxe", "metaroce")


def load(*paths):
    """bench,stack,x,metric,value rows as d[bench][stack][x][metric]; a
    later file's (bench, stack, x) replaces an earlier one's."""
    d = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    for path in paths:
        if not os.path.exists(path):
            continue
        seen = set()
        with open(path) as f:
            for r in csv.DictReader(f):
                k = (r["bench"], r["stack"], r["x"])
                if k not in seen:
                    seen.add(k)
                    d[k[0]][k[1]][k[2]] = {}
                d[k[0]][k[1]][k[2]][r["metric"]] = r["value"]
    return d


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


def pair_figure(bdir, name, title, xlabel, ylabel, logx, rows, logy=False,
                xfmt=""):
    """rows: (x, rxe, metaroce). Absolute (top) and ratio (bottom)."""
    data = "%s.csv" % name
    write_csv(os.path.join(bdir, data),
              ["x", "rxe", "metaroce", "metaroce_over_rxe"],
              [(x, a, b, ratio(b, a)) for x, a, b in rows])
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
    data = "%s.csv" % name
    write_csv(os.path.join(bdir, data),
              ["what", "rxe", "metaroce", "metaroce_over_rxe"],
              [(x, a, b, ratio(b, a)) for x, a, b in rows])
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


class Report:
    def __init__(self, run, doc):
        self.run, self.doc = run, doc
        self.bdir = os.path.join(doc, "bench")
        os.makedirs(self.bdir, exist_ok=True)
        # The full run, then reruns of some parts (BENCH_PARTS) over it.
        self.pair_csvs = [os.path.join(run, "pair", "b", "bench.csv")] + sorted(
            os.path.join(run, p, "b", "bench.csv") for p in os.listdir(run)
            if p.startswith("pair-"))
        self.pair = load(*self.pair_csvs)
        self.fab = load(os.path.join(run, "fabric", "bench.csv"))
        self.md = []
        self.targets = []

    def out(self, *lines):
        self.md.extend(lines)

    def fig(self, name, alt):
        if os.path.exists(os.path.join(self.bdir, name + ".png")):
            self.out("", "![%s](bench/%s.png)" % (alt, name), "")

    def target(self, what, want, got, met):
        self.targets.append((what, want, got,
                             "n/a" if met is None else ("met" if met else "not met")))

    def runs(self, bench, stack, x):
        """Every run of a point: BENCH_REPEAT stores run r >= 2 of bench B
        as bench B-rR."""
        names = [bench] + ["%s-r%d" % (bench, r) for r in range(2, 10)]
        return [self.pair[b][stack][str(x)] for b in names
                if str(x) in self.pair.get(b, {}).get(stack, {})]

    @staticmethod
    def rate(r):
        """A run's goodput over its data phase where it was timed (runs of
        0.5 s of data and more, since data_mbps exists), else up to the
        client's exit; 0 for a run that failed."""
        return num(r.get("data_mbps"), num(r.get("goodput_mbps"), 0))

    def row(self, bench, stack, x):
        """The run of median rate() among a point's runs (the lower of
        the two middle ones for an even count), so that its counters
        belong to the figure shown; {} if none."""
        rs = sorted(self.runs(bench, stack, x), key=self.rate)
        return rs[(len(rs) - 1) // 2] if rs else {}

    def spread(self, bench, stack, x):
        """' (lo-hi, N runs)' of a repeated point's rate(), else ''."""
        g = [self.rate(r) for r in self.runs(bench, stack, x)]
        return " (%s-%s, %d runs)" % (fmt(min(g)), fmt(max(g)), len(g)) if len(g) > 1 else ""

    def data(self, bench, stack, x):
        """rate() of the median run, None if the point was not run."""
        r = self.row(bench, stack, x)
        return self.rate(r) if r else None

    def get(self, bench, stack, x, metric):
        return num(self.row(bench, stack, x).get(metric))

    # --- 1. bandwidth and latency ------------------------------------
    def bandwidth(self):
        self.out("## Bandwidth over message size", "",
                 "Goodput is application bytes over the time from the first "
                 "data on the wire (eth0 counters sampled every 0.1 s) to the "
                 "client's exit. *wall* divides by the client's whole run "
                 "(connection setup included); *tool* is perftest's own "
                 "average (`--report_gbits`; it counts from its first post, "
                 "so it runs higher). *Data phase* ends at the last 0.1 s in "
                 "which the wire moved more than 16 KiB instead of at the "
                 "client's exit: like perftest's own average it leaves out "
                 "perftest's TCP exchange at the end (timed for runs of 0.5 s "
                 "of data and more). Mbit/s; ratio = MetaRoCE / rxe. One run "
                 "per point, except ib_write_bw at 64 KiB "
                 "(the target), run BENCH_REPEAT times (3): its median run is "
                 "shown. On the shared host repeat runs of one point differed "
                 "by up to about 30%, so read single ratios near 1 as a tie.", "")
        for tool in ("ib_write_bw", "ib_read_bw", "ib_send_bw"):
            xs = xsort(set(self.pair[tool]["rxe"]) | set(self.pair[tool]["metaroce"]))
            if not xs:
                self.out("*%s: not measured in this run.*" % tool, "")
                continue
            self.out("### %s" % tool, "",
                     "| size | rxe goodput | MetaRoCE goodput | ratio | data phase rxe | data phase MetaRoCE | ratio | rxe wall | MetaRoCE wall | rxe tool | MetaRoCE tool | rc rxe/MetaRoCE |",
                     "|---|---|---|---|---|---|---|---|---|---|---|---|")
            rows = []
            for x in xs:
                a = self.get(tool, "rxe", x, "goodput_mbps")
                b = self.get(tool, "metaroce", x, "goodput_mbps")
                rows.append((x, a, b))
                da = self.get(tool, "rxe", x, "data_mbps")
                db = self.get(tool, "metaroce", x, "data_mbps")
                self.out("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s/%s |" % (
                    size_label(x), fmt(a), fmt(b), fmt(ratio(b, a)),
                    fmt(da), fmt(db), fmt(ratio(db, da)),
                    fmt(self.get(tool, "rxe", x, "wall_mbps")),
                    fmt(self.get(tool, "metaroce", x, "wall_mbps")),
                    fmt(self.get(tool, "rxe", x, "tool_mbps")),
                    fmt(self.get(tool, "metaroce", x, "tool_mbps")),
                    self.row(tool, "rxe", x).get("rc", "-"),
                    self.row(tool, "metaroce", x).get("rc", "-")))
            pair_figure(self.bdir, "bw-" + tool, tool + ": goodput, rxe vs MetaRoCE",
                        "message size", "goodput (Mbit/s)", True, rows, logy=True,
                        xfmt="%.0b %BB")
            self.fig("bw-" + tool, tool)
            if tool == "ib_write_bw":
                a, b = self.data(tool, "rxe", 65536), self.data(tool, "metaroce", 65536)
                r = ratio(b, a)
                self.target("Lossless ib_write_bw at 64 KiB", ">= 2x rdma_rxe",
                            "%s Mbit/s%s vs rxe %s%s: %sx (to the client's exit: %sx)" % (
                                fmt(b), self.spread(tool, "metaroce", 65536), fmt(a),
                                self.spread(tool, "rxe", 65536), fmt(r),
                                fmt(ratio(self.get(tool, "metaroce", 65536, "goodput_mbps"),
                                          self.get(tool, "rxe", 65536, "goodput_mbps")))),
                            None if r is None else r >= 2)

    def latency(self):
        self.out("## Latency", "",
                 "perftest's t_typical (its median) and 99% percentile, "
                 "2-byte messages, microseconds (lower is better).", "",
                 "| test | rxe p50 | MetaRoCE p50 | ratio | rxe p99 | MetaRoCE p99 | ratio |",
                 "|---|---|---|---|---|---|---|")
        rows = []
        for tool in ("ib_write_lat", "ib_send_lat"):
            v = {(s, m): self.get(tool, s, 2, m) for s in STACKS for m in ("p50_us", "p99_us")}
            self.out("| %s | %s | %s | %s | %s | %s | %s |" % (
                tool, fmt(v["rxe", "p50_us"]), fmt(v["metaroce", "p50_us"]),
                fmt(ratio(v["metaroce", "p50_us"], v["rxe", "p50_us"])),
                fmt(v["rxe", "p99_us"]), fmt(v["metaroce", "p99_us"]),
                fmt(ratio(v["metaroce", "p99_us"], v["rxe", "p99_us"]))))
            for m in ("p50", "p99"):
                rows.append(("%s %s" % (tool.replace("ib_", "").replace("_", " "), m),
                             v["rxe", m + "_us"], v["metaroce", m + "_us"]))
            a, b = v["rxe", "p50_us"], v["metaroce", "p50_us"]
            self.target("Latency p50 (%s)" % tool, "no worse than rdma_rxe",
                        "%s us vs rxe %s us" % (fmt(b), fmt(a)),
                        None if a is None or b is None else b <= a)
        if any(r[1] is not None or r[2] is not None for r in rows):
            bar_figure(self.bdir, "latency", "Latency (2 B), rxe vs MetaRoCE",
                       "microseconds", rows)
            self.fig("latency", "latency")

    # --- 2. loss ------------------------------------------------------
    def loss(self):
        xs = xsort(set(self.pair["loss"]["rxe"]) | set(self.pair["loss"]["metaroce"]))
        if not xs:
            self.out("## Goodput under random loss", "", "*Not measured in this run.*", "")
            return
        self.out("## Goodput under random loss", "",
                 "netem drops the given share of packets on the egress of both "
                 "hosts' eth0 (so each direction of the wire loses it); "
                 "ib_write_bw of 64 KiB messages. A run that did not finish "
                 "within the timeout counts as 0. Each point is run "
                 "BENCH_REPEAT times (3), the loss levels taking turns so that "
                 "the host's drift hits them alike; a point whose first run "
                 "did not finish is not repeated. Goodput is over the data "
                 "phase (as in the bandwidth tables): at 10% loss perftest's "
                 "own TCP exchange after the data took up to 2.5 s of TCP "
                 "timeouts, for either stack. The table gives the median run "
                 "(range in brackets) and that run's counters, and the "
                 "median run's goodput up to the client's exit. Fraction = "
                 "median / the same stack's lossless median in this run.", "",
                 "| loss % | rxe Mbit/s | rxe fraction | MetaRoCE Mbit/s | MetaRoCE fraction | to the exit: rxe, MetaRoCE fraction | MetaRoCE retransmitted | MetaRoCE RTOs | rc rxe/MetaRoCE |",
                 "|---|---|---|---|---|---|---|---|---|")
        base = {s: self.data("loss", s, "0") for s in STACKS}
        ebase = {s: self.get("loss", s, "0", "goodput_mbps") for s in STACKS}
        rows = []
        frac = {}
        for x in xs:
            g = {s: self.data("loss", s, x) for s in STACKS}
            f = {s: ratio(g[s], base[s]) for s in STACKS}
            fe = {s: ratio(self.get("loss", s, x, "goodput_mbps"), ebase[s]) for s in STACKS}
            frac[x] = f
            rows.append((x, f["rxe"], f["metaroce"]))
            mr = self.row("loss", "metaroce", x)
            self.out("| %s | %s%s | %s | %s%s | %s | %s, %s | %s | %s | %s/%s |" % (
                x, fmt(g["rxe"]), self.spread("loss", "rxe", x), fmt(f["rxe"]),
                fmt(g["metaroce"]), self.spread("loss", "metaroce", x),
                fmt(f["metaroce"]), fmt(fe["rxe"]), fmt(fe["metaroce"]),
                self.retx(mr), mr.get("rto_events", "n/a"),
                self.row("loss", "rxe", x).get("rc", "-"), mr.get("rc", "-")))
        pair_figure(self.bdir, "loss", "Goodput under loss, fraction of lossless",
                    "random loss (%)", "fraction of own lossless goodput", False, rows)
        self.fig("loss", "loss")
        for x, want in (("1", 0.9), ("10", 0.5)):
            f = frac.get(x, {})
            m = f.get("metaroce")
            self.target("Goodput at %s%% loss" % x, ">= %d%% of lossless" % (want * 100),
                        "%s (rxe %s)" % (fmt(m), fmt(f.get("rxe"))),
                        None if m is None else m >= want)

    @staticmethod
    def retx(r):
        """'N (P%)' of a row's tx_retransmits over tx_packets."""
        n, t = num(r.get("tx_retransmits")), num(r.get("tx_packets"))
        if n is None:
            return "n/a"
        return "%d (%s%%)" % (n, fmt(100 * n / t, 1) if t else "n/a")

    # --- 4. many QPs ---------------------------------------------------
    def qps(self):
        xs = xsort(set(self.pair["qps"]["rxe"]) | set(self.pair["qps"]["metaroce"]))
        self.out("## Many connections", "")
        if not xs:
            self.out("*Not measured in this run.*", "")
            return
        self.out("ib_write_bw -q N, 64 KiB messages, aggregate goodput. Kernel "
                 "memory is the peak rise of Slab + VmallocUsed (/proc/meminfo, "
                 "sampled every 0.2 s) on the client host during the run, "
                 "divided by N; it includes the CQs and MRs perftest creates "
                 "with the QPs. Local drops are packets the client's own "
                 "qdisc dropped (tc -s); a MetaRoCE QP waits for its share "
                 "of the netdev's queue instead (tx_local_queue_waits).", "",
                 "| QPs | rxe Mbit/s | MetaRoCE Mbit/s | ratio | rxe kB/QP | MetaRoCE kB/QP | MetaRoCE retransmitted | local drops rxe/MetaRoCE | MetaRoCE local waits | rc rxe/MetaRoCE |",
                 "|---|---|---|---|---|---|---|---|---|---|")
        rows = []
        for x in xs:
            g = {s: self.get("qps", s, x, "goodput_mbps") for s in STACKS}
            k = {s: ratio(self.get("qps", s, x, "kmem_kb"), num(x)) for s in STACKS}
            rows.append((x, g["rxe"], g["metaroce"]))
            m = self.pair["qps"]["metaroce"].get(x, {})
            self.out("| %s | %s | %s | %s | %s | %s | %s | %s/%s | %s | %s/%s |" % (
                x, fmt(g["rxe"]), fmt(g["metaroce"]), fmt(ratio(g["metaroce"], g["rxe"])),
                fmt(k["rxe"], 1), fmt(k["metaroce"], 1), self.retx(m),
                self.pair["qps"]["rxe"].get(x, {}).get("qdisc_drops", "n/a"),
                m.get("qdisc_drops", "n/a"), m.get("tx_local_queue_waits", "n/a"),
                self.pair["qps"]["rxe"][x].get("rc", "-"),
                self.pair["qps"]["metaroce"][x].get("rc", "-")))
        pair_figure(self.bdir, "qps", "Aggregate goodput over QPs", "QPs",
                    "goodput (Mbit/s)", True, rows)
        self.fig("qps", "many QPs")

    # --- 3. fabric: planes, failover, incast (MetaRoCE only) ----------
    def planes(self):
        m = self.fab["planes"]["metaroce"]
        rate = num(self.fab["info"]["metaroce"]["0"].get("plane_rate_mbps"))
        self.out("## Plane scaling (MetaRoCE)", "")
        if not m or not rate:
            self.out("*Not measured in this run.*", "")
            return
        self.out("Fabric testbed in one VM (tools/fabric): two hosts, N planes "
                 "each shaped to %s Mbit/s behind %s, one RC connection "
                 "(ib_write_bw 64 KiB) sprayed over the paths. Goodput is "
                 "application bytes over the data phase: from the first data "
                 "to the last at the receiver's link (sampled every 0.1 s); "
                 "perftest under TCG takes a further 0.2-0.3 s to exit, and the "
                 "figure up to its exit is given too. At a 1 KiB MTU a frame "
                 "carries at most 0.926 of its bytes as payload. rdma_rxe is "
                 "absent: its UDP socket lives in init_net only, so it cannot "
                 "run on the namespace hosts, and it uses one path, so it would "
                 "stay at one plane's rate whatever N is." % (fmt(rate), self.plane_queue()), "",
                 "| planes | paths | goodput Mbit/s | sum of plane rates | fraction | to perftest's exit: Mbit/s, fraction | wire bytes / app bytes | retransmitted packets | RTOs | path probes | paths failed |",
                 "|---|---|---|---|---|---|---|---|---|---|---|")
        rows = []
        for x in xsort(m):
            ge = num(m[x].get("goodput_mbps"))
            g = self.data_phase_mbps("planes%s.samples" % x, m[x].get("app_bytes"))
            f = ratio(g, rate * num(x))
            rows.append((x, g, rate * num(x), f))
            self.out("| %s | %s | %s | %s | %s | %s, %s | %s | %s | %s | %s | %s |" % (
                x, m[x].get("paths", "?"), fmt(g), fmt(rate * num(x)), fmt(f),
                fmt(ge), fmt(ratio(ge, rate * num(x))),
                fmt(ratio(m[x].get("wire_bytes"), m[x].get("app_bytes"))),
                self.retx(m[x]), m[x].get("rto_events", "n/a"),
                m[x].get("path_probes", "n/a"), m[x].get("path_failed", "n/a")))
            if num(x) >= 2:
                self.target("Plane scaling N=%s" % x, ">= 0.9 x N x plane rate",
                            "%s of N x rate (%s Mbit/s; %s to perftest's exit)" % (
                                fmt(f), fmt(g), fmt(ratio(ge, rate * num(x)))),
                            None if f is None else f >= 0.9)
        self.one_link()
        write_csv(os.path.join(self.bdir, "planes.csv"),
                  ["planes", "goodput_mbps", "sum_plane_rates_mbps", "fraction"], rows)
        gnuplot(HEAD + """set output 'planes.png'
set multiplot layout 2,1 title 'MetaRoCE plane scaling (%s Mbit/s per plane)'
set xlabel 'planes'
set ylabel 'Mbit/s'
set yrange [0:*]
plot 'planes.csv' using 1:2 skip 1 with linespoints lw 2 title 'MetaRoCE goodput', \\
     '' using 1:3 skip 1 with lines dt 2 title 'sum of plane rates'
set ylabel 'fraction of sum'
set yrange [0:1.1]
plot 'planes.csv' using 1:4 skip 1 with linespoints lw 2 lc 3 title 'fraction', 0.9 with lines dt 2 lc 0 title 'target 0.9'
unset multiplot
""" % fmt(rate), self.bdir)
        self.fig("planes", "plane scaling")

    def plane_queue(self):
        """What queues a plane's traffic (BENCH_PLANE_ECN; older runs: off)."""
        ecn = self.fab["info"]["metaroce"]["0"].get("plane_ecn", "off")
        return {"red": "a RED queue that ECN-marks from 5 ms of backlog",
                "codel": "an fq_codel queue that ECN-marks (target 5 ms)"}.get(
                    ecn, "a tail-drop queue of 100 ms, no ECN")

    def data_phase_mbps(self, name, app_bytes):
        """Application Mbit/s from the last sample before the link moved
        20 kB to the last sample that saw data (over 2500 B, more than
        ACKs) in a fabric "seconds bytes" series; None without one."""
        p = os.path.join(self.run, "fabric", name)
        b = num(app_bytes)
        if not os.path.exists(p) or not b:
            return None
        with open(p) as f:
            s = [tuple(map(float, ln.split())) for ln in f if len(ln.split()) == 2]
        t0 = next((pt for (pt, _), (t, v) in zip(s, s[1:]) if v - s[0][1] > 20000), None)
        t1 = max((t for (_, pb), (t, v) in zip(s, s[1:]) if v - pb > 2500), default=None)
        if t0 is None or t1 is None or t1 <= t0:
            return None
        return b * 8 / (t1 - t0) / 1e6

    def one_link(self):
        """The single-path baseline: one shaped link between the two VMs."""
        xs = xsort(set(self.pair["shaped"]["rxe"]) | set(self.pair["shaped"]["metaroce"]))
        if not xs:
            return
        self.out("", "The single-path baseline, in two-VM mode where rxe works: "
                 "the one link between the VMs shaped to the same rate as a "
                 "plane (tbf with 100 ms of queue on both hosts' egress), "
                 "ib_write_bw 64 KiB. Wire bytes count both directions of "
                 "the client's link (ACKs included).", "",
                 "| link Mbit/s | stack | goodput Mbit/s | fraction of the link | wire bytes / app bytes |",
                 "|---|---|---|---|---|")
        for x in xs:
            for st in STACKS:
                r = self.pair["shaped"][st][x]
                g = num(r.get("goodput_mbps"))
                self.out("| %s | %s | %s | %s | %s |" % (
                    x, st, fmt(g), fmt(ratio(g, num(x))),
                    fmt(ratio(r.get("wire_bytes"), r.get("bytes")))))
            a = self.get("shaped", "rxe", x, "goodput_mbps")
            b = self.get("shaped", "metaroce", x, "goodput_mbps")
            self.out("", "MetaRoCE / rxe on one %s Mbit/s link: %s." % (x, fmt(ratio(b, a))), "")

    def failover(self):
        m = self.fab["failover"]["metaroce"].get("4", {})
        ts = os.path.join(self.run, "fabric", "failover.ts")
        self.out("## Plane failure (MetaRoCE)", "")
        if not m or not os.path.exists(ts):
            self.out("*Not measured in this run.*", "")
            return
        pts = []
        with open(ts) as f:
            for line in f:
                t, r = line.split()
                pts.append((float(t), float(r)))
        f0, f1 = num(m["fail_start"]), num(m["fail_end"])
        fe = num(m.get("fail_effective"), f0)
        r0, r1 = num(m["restore_start"]), num(m["restore_end"])
        # Three-sample moving average: single 0.1 s samples under TCG jitter.
        sm = []
        for i in range(len(pts)):
            w = [p[1] for p in pts[max(0, i - 1):i + 2]]
            sm.append((pts[i][0], sum(w) / len(w)))
        before = [r for t, r in sm if -3 <= t < 0]
        pre = sum(before) / len(before) if before else None
        # The failure lasts until the restore or until the data ran out,
        # whichever is first: after the last data perftest only talks TCP,
        # and ECMP may have put that connection on the failed plane.
        end = r0 - fe
        if pre:
            end = min(end, max((t for t, r in pts if r > 0.05 * pre),
                               default=end))
        during = [(t, r) for t, r in sm if 0 <= t < end]
        dip = min((r for t, r in during), default=None)
        # Recovered: the first time, after goodput first fell under 70% of
        # before, that three samples in a row are back at >= 70%; 0 when it
        # never fell under 70%.
        rec = None
        if pre and during:
            ok = [r >= 0.7 * pre for t, r in during]
            low = next((i for i, v in enumerate(ok) if not v), None)
            if low is None:
                rec = 0.0
            else:
                for i in range(low, len(during)):
                    if all(ok[i:i + 3]):
                        rec = during[i][0]
                        break
        rc = m.get("rc")
        write_csv(os.path.join(self.bdir, "failover.csv"),
                  ["seconds_from_failure", "mbps", "mbps_avg3"],
                  [(p[0], p[1], s[1]) for p, s in zip(pts, sm)])
        self.out("Fabric testbed, two hosts, 4 planes of %s Mbit/s behind %s; plane 1 "
                 "is blackholed (every packet dropped, routes and carrier kept) "
                 "mid-transfer, then restored. Receiver goodput sampled every "
                 "0.1 s (3-sample moving average in the analysis). The tc "
                 "commands failing the plane took %.2f s and restoring it %.2f s "
                 "under TCG, so time 0 is when the failure took effect: the last "
                 "time plane 1 forwarded a byte (sampled every 0.1 s), %.2f s "
                 "into the command. The failure is judged until the restore or "
                 "the last data, whichever is first (here %.2f s). rdma_rxe is "
                 "absent for the reasons above." % (
                     fmt(num(self.fab["info"]["metaroce"]["0"].get("plane_rate_mbps"))),
                     self.plane_queue(), f1 - f0, r1 - r0, fe - f0, end), "",
                 "| before (Mbit/s) | lowest during failure | lowest / before | back to >= 70% after | transfer rc | goodput over the whole transfer |",
                 "|---|---|---|---|---|---|",
                 "| %s | %s | %s | %s | %s | %s |" % (
                     fmt(pre), fmt(dip), fmt(ratio(dip, pre)),
                     "n/a" if rec is None else "%.2f s" % rec, rc,
                     fmt(num(m.get("goodput_mbps")))))
        self.target("One plane of 4 fails", ">= 70% of previous goodput within 100 ms, no QP error",
                    "lowest %s of before; >= 70%% after %s; rc %s" % (
                        fmt(ratio(dip, pre)), "never" if rec is None else "%.2f s" % rec, rc),
                    None if pre is None else (rec is not None and rec <= 0.1 and rc == "0"))
        gnuplot(HEAD + """set output 'failover.png'
set title 'MetaRoCE: one of 4 planes fails and comes back'
set xlabel 'seconds from the failure'
set ylabel 'receiver goodput (Mbit/s)'
set yrange [0:*]
set arrow from 0, graph 0 to 0, graph 1 nohead lc rgb 'red'
set arrow from %f, graph 0 to %f, graph 1 nohead lc rgb 'dark-green'
set label 'fail' at 0, graph 0.95 offset 0.5,0
set label 'restore' at %f, graph 0.95 offset 0.5,0
plot 'failover.csv' using 1:2 skip 1 with lines lc rgb '#bbbbbb' title 'per 0.1 s', \\
     '' using 1:3 skip 1 with lines lw 2 title '3-sample average'
""" % (r0 - fe, r0 - fe, r0 - fe), self.bdir)
        self.fig("failover", "plane failure")

    def incast(self):
        m = self.fab["incast"]["metaroce"]
        self.out("## Incast (MetaRoCE)", "")
        if not m:
            self.out("*Not measured in this run.*", "")
            return
        self.out("Fabric testbed, N senders (hosts h2..) into h1 behind an "
                 "ECN-marking (RED) bottleneck on h1's leaf port; the "
                 "receiver's rate hint (rate_capacity_mbps) is set to 80% of the "
                 "bottleneck. Per-sender rate = bytes into the sender's leaf per "
                 "0.5 s window. Jain's index over those windows. A sender "
                 "joins when 20 kB of it reached its leaf; settle = end of the "
                 "first window (sliding by 0.1 s from the last join) with "
                 "Jain >= 0.95; mean Jain over the windows from the last join "
                 "to the first sender's end: its last data if it completed "
                 "(perftest under TCG exits seconds after that), its exit if "
                 "it failed (a stalled sender counts as 0). "
                 "A 0.5 s window is well over 100 base RTTs here, so settling "
                 "within 2 RTTs cannot be resolved by this instrument; the "
                 "verdict asks for Jain >= 0.95 in the first window after "
                 "the last join and a mean >= 0.95 while all run. "
                 "rdma_rxe is absent (namespaces; no rate hints or ECN "
                 "reaction of this kind).", "",
                 "| senders | all complete | per-sender Mbit/s while all send | sum / bottleneck | per-sender goodput over its whole run | base RTT (ms) | settle (s) | settle (RTTs) | Jain, first window after the last join | mean Jain while all run | CE marks |",
                 "|---|---|---|---|---|---|---|---|---|---|---|")
        plots = []
        for k in xsort(m):
            r = m[k]
            gps = [num(v, 0) for key, v in sorted(r.items()) if key.startswith("goodput_mbps_h")]
            res = self.incast_series(int(k))
            rtt = num(r.get("base_rtt_ms"))
            settle = res["settle"] if res else None
            rtts = None if settle is None or not rtt else settle * 1000 / rtt
            st = res["steady"] if res else []
            bott = num(self.fab["info"]["metaroce"]["0"].get("bottleneck_mbps"))
            self.out("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                k, "yes" if r.get("complete") == "1" else "no",
                " ".join(fmt(g, 1) for g in st) or "n/a",
                fmt(ratio(sum(st), bott)) if st else "n/a",
                " ".join(fmt(g, 1) for g in gps), fmt(rtt),
                "never" if settle is None else "%.1f" % settle,
                "n/a" if rtts is None else "%.0f" % rtts,
                fmt(res["first_jain"], 3) if res else "n/a",
                fmt(res["mean_jain"], 3) if res else "n/a",
                res["marks"] if res else "n/a"))
            self.target("Incast %s senders" % k,
                        "Jain >= 0.95 within 2 RTTs of the last join (judged at 0.5 s)",
                        "Jain %s in the first 0.5 s after the last join, mean %s; "
                        "settle %s (%s RTTs)" % (
                            fmt(res["first_jain"], 3) if res else "n/a",
                            fmt(res["mean_jain"], 3) if res else "n/a",
                            "never" if settle is None else "%.1f s" % settle,
                            "n/a" if rtts is None else "%.0f" % rtts),
                        None if res is None else (
                            res["first_jain"] is not None and res["first_jain"] >= 0.95 and
                            res["mean_jain"] is not None and res["mean_jain"] >= 0.95))
            if res:
                plots.append((k, res))
        for k, res in plots:
            n = int(k)
            gnuplot(HEAD + """set output 'incast%s.png'
set multiplot layout 3,1 title 'MetaRoCE incast: %s senders'
set xrange [0:%f]
set xlabel 'seconds from the first data'
set ylabel 'Mbit/s'
set key outside right
plot %s
set ylabel 'Jain index'
set yrange [0:1.05]
plot 'incast%s.csv' using 1:%d skip 1 with linespoints title 'Jain', 0.95 with lines dt 2 lc 0 title '0.95'
set ylabel 'CE marks / 0.5 s'
set yrange [0:*]
plot 'incast%s.csv' using 1:%d skip 1 with steps lw 2 title 'marks'
unset multiplot
""" % (k, k, res["tmax"], ", ".join("'incast%s.csv' using 1:%d skip 1 with lines lw 2 title 'h%d'" % (k, i + 2, i + 2)
                          for i in range(n)), k, n + 2, k, n + 3), self.bdir)
            self.fig("incast%s" % k, "incast %s" % k)

    def incast_series(self, k, win=0.5):
        d = os.path.join(self.run, "fabric")
        series = []
        for i in range(2, k + 2):
            p = os.path.join(d, "incast%d-h%d.samples" % (k, i))
            if not os.path.exists(p):
                return None
            with open(p) as f:
                series.append([tuple(map(float, ln.split())) for ln in f if len(ln.split()) == 2])
        if not all(series):
            return None
        t1 = max(s[-1][0] for s in series)

        def at(s, t):  # bytes at time t, linear between samples
            if t <= s[0][0]:
                return s[0][1]
            for (ta, ba), (tb, bb) in zip(s, s[1:]):
                if ta <= t <= tb:
                    return ba + (bb - ba) * (t - ta) / (tb - ta) if tb > ta else bb
            return s[-1][1]
        joins = []
        for s in series:
            j = next((t for t, b in s if b - s[0][1] > 20000), None)
            joins.append(j)
        if not any(joins):
            return None
        # Time 0 is the first sender's first data (starting perftest takes
        # seconds under TCG).
        t0 = min(j for j in joins if j is not None) - win
        # The comparison ends when the first sender is done: at its last
        # data if it completed (perftest under TCG exits seconds after the
        # last data, and those seconds say nothing about fairness), at its
        # exit if it failed (a stalled sender counts as 0 until then).
        ends = []
        for i, s in zip(range(2, k + 2), series):
            done = num(read1(os.path.join(d, "incast%d-%d.gp" % (k, i))), 0) > 0
            last_data = max((t for (t, b), (_, pb) in zip(s[1:], s) if b - pb > 2500),
                            default=None)
            if done and last_data:
                ends.append(last_data)
            else:
                ends.append(num(read1(os.path.join(d, "incast%d-%d.end" % (k, i)))))
        first_end = min((e for e in ends if e), default=t1) - t0
        # Plot up to the last time any sender moved data (not through a
        # stalled sender's timeout).
        last_move = max(max((t for (t, b), (_, pb) in zip(s[1:], s) if b - pb > 2500),
                            default=s[0][0]) for s in series)
        marks = []
        mp = os.path.join(d, "incast%d.marks" % k)
        if os.path.exists(mp):
            with open(mp) as f:
                marks = [tuple(map(float, ln.split())) for ln in f if len(ln.split()) == 2]
        def rates_at(t):  # Mbit/s of each sender over [t, t + win], t from t0
            return [(at(s, t0 + t + win) - at(s, t0 + t)) * 8 / win / 1e6 for s in series]

        def jain_of(rates):  # None while (almost) nothing moves
            q = sum(r * r for r in rates)
            return sum(rates) ** 2 / (len(rates) * q) if sum(rates) > 0.5 else None
        rows = []
        t = t0
        while t + win <= t1:
            rates = rates_at(t - t0)
            jain = jain_of(rates)
            mk = at(marks, t + win) - at(marks, t) if marks else None
            rows.append([round(t - t0, 2)] + [round(r, 3) for r in rates] + [jain, mk])
            t += win
        write_csv(os.path.join(self.bdir, "incast%d.csv" % k),
                  ["seconds"] + ["h%d_mbps" % i for i in range(2, k + 2)] + ["jain", "ce_marks"],
                  rows)
        def jain_at(t):
            return jain_of(rates_at(t)) or 0
        # Settle: the first window, sliding by one 0.1 s sample from the
        # last join, whose Jain is >= 0.95; the mean is over windows laid
        # from the last join to the first sender's end.
        settle = first = None
        after = []
        if all(j is not None for j in joins):
            last = max(joins) - t0
            first = jain_at(last)
            step = 0.1
            per_win = round(win / step)
            n = 0
            while last + n * step + win <= first_end + 1e-9:
                j = jain_at(last + n * step)
                if settle is None and j >= 0.95:
                    settle = n * step + win
                if n % per_win == 0:
                    after.append(j)
                n += 1
        total = (marks[-1][1] - marks[0][1]) if marks else None
        # Per-sender rate while every sender is sending.
        busy = [r[1:-2] for r in rows if min(r[1:-2]) > 0.2]
        steady = [sum(c) / len(c) for c in zip(*busy)] if busy else []
        return {"settle": settle, "first_jain": first,
                "mean_jain": sum(after) / len(after) if after else None,
                "marks": "n/a" if total is None else "%d" % total,
                "steady": steady, "tmax": last_move - t0 + 2}

    def profile(self):
        d = os.path.join(self.run, "profile")
        rep = os.path.join(d, "perf-report.txt")
        self.out("## Where MetaRoCE's CPU goes", "")
        if not os.path.exists(rep):
            self.out("*Not measured in this run.*", "")
            return
        rate = ""
        if os.path.exists(os.path.join(d, "rate.txt")):
            with open(os.path.join(d, "rate.txt")) as f:
                rate = f.read().strip()
        self.out("One VM, two namespaces on a veth pair (no wire, no "
                 "shaping), ib_write_bw of 64 KiB messages between two "
                 "MetaRoCE devices while `perf record -e cpu-clock -a -g` "
                 "samples (TCG has no PMU); %s. Share of samples by object, "
                 "then the top symbols (tools/bench/guest-profile.sh; full "
                 "call graphs in build/bench/profile/perf-callers.txt)." % rate,
                 "", "```")
        with open(os.path.join(d, "perf-dso.txt")) as f:
            self.out(*[ln.rstrip() for ln in f.readlines()[:6]])
        self.out("")
        with open(rep) as f:
            self.out(*[ln.rstrip() for ln in f.readlines()[:30]])
        self.out("```", "")
        for n in ("perf-report.txt", "perf-dso.txt"):
            with open(os.path.join(d, n)) as f, \
                    open(os.path.join(self.bdir, "profile-" + n), "w") as g:
                g.write(f.read())

    def write(self):
        md = ["# MetaRoCE benchmarks", "",
              "Generated by `make bench` (tools/bench/run.sh, tools/bench/report.py) "
              "on %s. Everything runs under QEMU TCG (no KVM on the build "
              "machine), one vCPU per VM, on a 2-core host shared with other "
              "work: absolute figures mean little, ratios measured in the same "
              "run on the same topology do. Raw numbers: [bench/](bench/) "
              "(one CSV per figure; `raw-pair.csv` and `raw-fabric.csv` hold "
              "every measured value)." % time.strftime("%Y-%m-%d"), "",
              "rdma_rxe and MetaRoCE are compared in two-VM mode "
              "(tools/vm/run-pair.sh, tests/vm/bench-pair.sh): rdma_rxe in "
              "6.12 works only in init_net. In one boot rxe0 is bound to "
              "eth0 and measured, then deleted and metaroce0 measured on the "
              "same wire. The fabric figures (tests/vm/bench-fabric.sh) are "
              "MetaRoCE only; each says why.", "",
              "The guests are booted with the host's TSC rate "
              "(`tsc_early_khz`): without it the TCG guest kernel cannot "
              "calibrate its TSC, keeps jiffies as its clock, and that clock "
              "ran 20-40% slow under load (inflating every rate), while "
              "perftest, lacking a \"cpu MHz\", printed latencies of inf and "
              "bandwidths of 0.", ""]
        body = self.md
        self.md = []
        tg = ["## Targets (issue 5)", "",
              "| target | wanted | measured | verdict |", "|---|---|---|---|"]
        for t in self.targets:
            tg.append("| %s | %s | %s | %s |" % t)
        tg.append("")
        # Hand-written analysis of a run (causes, profiles) is kept apart
        # so regenerating the numbers does not lose it.
        notes = os.path.join(self.bdir, "findings.md")
        if os.path.exists(notes):
            with open(notes) as f:
                body += ["", f.read().strip()]
        with open(os.path.join(self.doc, "benchmarks.md"), "w") as f:
            f.write("\n".join(md + tg + body) + "\n")

    def main(self):
        srcs = [(p, "raw-%s.csv" % p.split(os.sep)[-3]) for p in self.pair_csvs]
        srcs.append((os.path.join(self.run, "fabric", "bench.csv"), "raw-fabric.csv"))
        for p, dst in srcs:
            if os.path.exists(p):
                with open(p) as f, open(os.path.join(self.bdir, dst), "w") as g:
                    g.write(f.read())
        self.bandwidth()
        self.latency()
        self.loss()
        self.qps()
        self.planes()
        self.failover()
        self.incast()
        self.profile()
        self.write()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    Report(sys.argv[1], sys.argv[2]).main()
