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
import os
import statistics
import sys
import time

from report_fabric import FabricSections
from report_util import (STACKS, bar_figure, fmt, load, num, pair_figure, ratio,
                         rep_name, size_label, xsort)


WIRES = {
    "unix": "The two VMs' eth0s are joined by a UNIX stream socket "
            "between their QEMUs (`-netdev stream`): a FIFO that neither "
            "drops nor reorders, whose speed does not depend on the host's "
            "TCP settings. All loss in the loss series is the loss the run "
            "sets.",
    "tcp": "The two VMs' eth0s are joined by a TCP connection on the "
           "host's loopback (QEMU's socket netdev). That TCP runs the "
           "host's congestion control and retransmits now and then under "
           "load; each repair stalls the wire, whatever stack is on it.",
}


class Report(FabricSections):
    def __init__(self, run, doc):
        self.run, self.doc = run, doc
        self.bdir = os.path.join(doc, "bench")
        os.makedirs(self.bdir, exist_ok=True)
        # The full run, then reruns of some parts (BENCH_PARTS) over it.
        self.pair_csvs = [os.path.join(run, "pair", "b", "bench.csv")] + sorted(
            os.path.join(run, p, "b", "bench.csv") for p in os.listdir(run)
            if p.startswith("pair-"))
        # src: which of those files each point's rows came from.
        self.src = {}
        self.pair = load(*self.pair_csvs, src=self.src)
        self.fab = load(os.path.join(run, "fabric", "bench.csv"))
        # run-pair.sh records the wire between the VMs; runs before it
        # did were all on the TCP one.
        try:
            with open(os.path.join(run, "pair", "wire")) as f:
                self.wire = f.read().strip()
        except OSError:
            self.wire = "tcp"
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
        """Every run of a point, in repeat order."""
        return list(self.runs_by_repeat(bench, stack, x).values())

    def runs_by_repeat(self, bench, stack, x):
        """{repeat: run} of a point: BENCH_REPEAT stores run r >= 2 of
        bench B as bench B-rR (repeat 1 is bench B itself)."""
        names = [(r, rep_name(bench, r)) for r in range(1, 100)]
        return {r: self.pair[b][stack][str(x)] for r, b in names
                if str(x) in self.pair.get(b, {}).get(stack, {})}

    def paired(self, bench, stack, x):
        """rate() of each repeat of point x over the same repeat's lossless
        run (seconds apart, so the host's drift cancels), sorted."""
        base = self.runs_by_repeat(bench, stack, "0")
        return sorted(ratio(self.rate(r), self.rate(base[k]))
                      for k, r in self.runs_by_repeat(bench, stack, x).items()
                      if k in base and self.rate(base[k]))

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

    def first(self, bench, stack, x, metric):
        """A setting recorded once, with a point's first run only."""
        return next((num(r[metric]) for r in self.runs(bench, stack, x)
                     if metric in r), None)

    # --- 1. bandwidth and latency ------------------------------------
    def bandwidth(self):
        n = len(self.runs("ib_write_bw", "metaroce", 65536))
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
                 "per point, except ib_write_bw (the target) and ib_read_bw "
                 "at 64 KiB, run BENCH_TARGET_REPEAT times (" + str(n) + "), the "
                 "stacks taking turns run by run after the first, in reverse "
                 "order every other round, so that the host's "
                 "drift hits them alike: their median runs are shown. A "
                 "stack's single runs over sizes come from its own part of "
                 "the run, minutes apart from the other's. On the "
                 "shared host repeat runs of one point differed by up to about "
                 "30%, so read single ratios near 1 as a tie.", "")
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
                exit_r = ratio(self.get(tool, "metaroce", 65536, "goodput_mbps"),
                               self.get(tool, "rxe", 65536, "goodput_mbps"))
                r, text = self.turns(tool, 65536,
                                     " (to the client's exit: %sx)" % fmt(exit_r))
                self.target("Lossless ib_write_bw at 64 KiB", ">= 2x rdma_rxe",
                            text, None if r is None else r >= 2)
                self.wire_ceiling()
            elif len(self.runs(tool, "metaroce", 65536)) > 1:
                self.out("At 64 KiB, in turns: %s." % self.turns(tool, 65536)[1], "")

    def turns(self, tool, x, note=""):
        """MetaRoCE / rxe of a point taken in turns, and 'B Mbit/s (spread)
        vs rxe A (spread): Rx<note>; by round...'."""
        a, b = self.data(tool, "rxe", x), self.data(tool, "metaroce", x)
        r = ratio(b, a)
        return r, "%s Mbit/s%s vs rxe %s%s: %sx%s%s" % (
            fmt(b), self.spread(tool, "metaroce", x), fmt(a),
            self.spread(tool, "rxe", x), fmt(r), note, self.rounds(tool, x))

    def wire_ceiling(self):
        """What UDP alone moved over the pair's wire (part wire), and each
        stack's 64 KiB writes as a share of it, round by round."""
        w = self.runs_by_repeat("wire", "udp", 1472)
        if not w:
            return
        g = sorted(self.rate(r) for r in w.values())
        kpps = statistics.median(num(r.get("recv_kpps"), 0) for r in w.values())
        # A round's share only where its writes and its flood are of one
        # run: a part run again alone has rounds of its own.
        src = {k: self.src.get((rep_name("wire", k), "udp", "1472")) for k in w}
        share = {}
        for s in STACKS:
            mine = self.runs_by_repeat("ib_write_bw", s, 65536)
            share[s] = [ratio(self.rate(mine[k]), self.rate(w[k]))
                        for k in sorted(mine) if k in w and self.rate(w[k]) and
                        self.src.get((rep_name("ib_write_bw", k), s, "65536")) == src[k]]
        over = sum(v > 1 for v in share["metaroce"] + share["rxe"])
        self.out("**What the wire carries.** UDP datagrams of 1472 bytes (full "
                 "1500-byte frames) from a process on one VM to one on the "
                 "other, with no transport on the wire (`tools/bench/udpflood.c`, "
                 "once per round before the stacks' turns): %s Mbit/s received, "
                 "median of %d rounds (%s-%s), %s thousand datagrams a second: "
                 "%s. Each stack's 64 KiB "
                 "writes as a share of it, round by round: MetaRoCE %s, rxe %s. "
                 "Where both are well under it, their guests' CPUs, not the "
                 "wire, set the rate. MetaRoCE carries 1408 bytes of payload "
                 "per frame, rxe 1024 (its IB MTU on a 1500-byte link)." % (
                     fmt(statistics.median(g)), len(g), fmt(g[0]), fmt(g[-1]),
                     fmt(kpps),
                     "about the most any stack moves here" if not over else
                     "not a ceiling in this run: a stack moved more than its "
                     "round's flood in %d rounds (the flood makes a system call "
                     "per datagram, and the host's speed swings between "
                     "rounds)" % over,
                     ", ".join(fmt(v) for v in share["metaroce"]) or "-",
                     ", ".join(fmt(v) for v in share["rxe"]) or "-"), "")

    def round_ratios(self, bench, x, value, first=False):
        """MetaRoCE / rxe of value(run) in every round both stacks ran:
        the runs r >= 2, which they took in turns (bench-pair.sh), and
        with first the first run of each as well."""
        names = [rep_name(bench, r) for r in range(1 if first else 2, 100)]
        rs = []
        for b in names:
            g = {s: self.pair.get(b, {}).get(s, {}).get(str(x)) for s in STACKS}
            if all(g.values()):
                rs.append(ratio(value(g["metaroce"]), value(g["rxe"])))
        return rs

    def rounds(self, bench, x):
        """'; by round (turns): R2, R3...' of rate(), else ''."""
        rs = self.round_ratios(bench, x, self.rate)
        return "; by round (turns): %s" % ", ".join(fmt(v) for v in rs) if rs else ""

    def lat(self, tool, stack, metric):
        """Median of a latency metric over a stack's runs of tool; None if
        it was not run."""
        v = [num(r.get(metric)) for r in self.runs(tool, stack, 2)]
        v = [x for x in v if x is not None]
        return statistics.median(v) if v else None

    def latency(self):
        n = max(len(self.runs(t, s, 2)) for t in ("ib_write_lat", "ib_send_lat")
                for s in STACKS)
        self.out("## Latency", "",
                 "perftest's t_typical (its median) and 99% percentile, "
                 "2-byte messages, microseconds (lower is better). Each test "
                 "runs BENCH_LAT_REPEAT times (" + str(n) + "), the stacks taking turns "
                 "in every round, seconds apart, the stacks and the two "
                 "tests in reverse order every other round; the table gives each "
                 "stack's median over its runs, and the ratio of every "
                 "round.", "",
                 "| test | rxe p50 | MetaRoCE p50 | ratio | rxe p99 | MetaRoCE p99 | ratio | p50 ratio by round |",
                 "|---|---|---|---|---|---|---|---|")
        rows = []
        for tool in ("ib_write_lat", "ib_send_lat"):
            v = {(s, m): self.lat(tool, s, m) for s in STACKS for m in ("p50_us", "p99_us")}
            rounds = self.round_ratios(tool, 2, lambda r: r.get("p50_us"), first=True)
            self.out("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                tool, fmt(v["rxe", "p50_us"]), fmt(v["metaroce", "p50_us"]),
                fmt(ratio(v["metaroce", "p50_us"], v["rxe", "p50_us"])),
                fmt(v["rxe", "p99_us"]), fmt(v["metaroce", "p99_us"]),
                fmt(ratio(v["metaroce", "p99_us"], v["rxe", "p99_us"])),
                ", ".join(fmt(x) for x in rounds)))
            for m in ("p50", "p99"):
                rows.append(("%s %s" % (tool.replace("ib_", "").replace("_", " "), m),
                             v["rxe", m + "_us"], v["metaroce", m + "_us"]))
            a, b = v["rxe", "p50_us"], v["metaroce", "p50_us"]
            self.target("Latency p50 (%s)" % tool, "no worse than rdma_rxe",
                        "%s us vs rxe %s us (median of %d runs each; by round %s)" % (
                            fmt(b), fmt(a), len(self.runs(tool, "metaroce", 2)),
                            ", ".join(fmt(x) for x in rounds)),
                        None if a is None or b is None else b <= a)
        if any(r[1] is not None or r[2] is not None for r in rows):
            bar_figure(self.bdir, "latency", "Latency (2 B), rxe vs MetaRoCE",
                       "microseconds", rows)
            self.fig("latency", "latency")

    # --- 2. loss ------------------------------------------------------
    def loss(self):
        frac = self.loss_table(
            "loss", "Goodput under random loss",
            self.loss_how() + "ib_write_bw of 64 KiB messages, %d MiB per "
            "run (the data phase is timed to the 0.1 s of the samples). The "
            "link is not shaped: both stacks run as fast as the "
            "guests' CPUs let them, so what loss costs in CPU counts too. "
            % ((self.first("loss", "metaroce", "0", "bytes") or 0) // 2**20))
        self.loss_targets("loss", frac, " (unshaped: the guests' CPUs set the rate)")

    def loss_targets(self, bench, frac, where):
        """Target rows of a loss series measured in this run."""
        if not frac:
            return
        for x, want in (("1", 0.9), ("10", 0.5)):
            f = frac.get(x, {})
            m = f.get("metaroce")
            pr = self.paired(bench, "metaroce", x)
            pm = statistics.median(pr) if pr else None
            self.target("Goodput at %s%% loss%s" % (x, where),
                        ">= %d%% of lossless" % (want * 100),
                        "%s of the lossless median; paired by repeat: median %s "
                        "(%s) (rxe %s); met if both are" % (
                            fmt(m), fmt(pm), ", ".join(fmt(v) for v in pr),
                            fmt(f.get("rxe"))),
                        None if m is None or pm is None else min(m, pm) >= want)

    def loss_shaped(self):
        frac = self.loss_table(
            "lossshaped", "Goodput under random loss on a shaped link",
            "As above, but the link, not the guests' CPUs, sets the rate: "
            "both hosts' egress is shaped (tbf, 100 ms of queue, "
            "BENCH_LOSS_SHAPE = %s Mbit/s, below what either stack moves "
            "unshaped), the loss taken as above; 16 MiB per "
            "run. The shaper's queue overflowing is a loss as well, and "
            "nothing marks ECN, so a stack that sends beyond the link pays "
            "for it in resends. " %
            self.first("lossshaped", "metaroce", "0", "shape_mbps"))
        self.loss_targets("lossshaped", frac, " (shaped link: the link, "
                          "not the CPU, sets the rate)")

    def loss_how(self):
        """How the run lost packets (bench-pair.sh, lose())."""
        if self.row("info", "both", "0").get("loss_at") == "netem":
            return ("netem drops the given share of packets on the egress "
                    "of both hosts' eth0 (so each direction of the wire "
                    "loses it); ")
        return ("A filter on the ingress of both hosts' eth0 (clsact, "
                "matchall, gact) drops the given share of the packets that "
                "arrive, 1 in N at random (so each direction of the wire "
                "loses it, and no sender's stack sees it); the same filter, "
                "dropping nothing, is in place at 0%. ")

    def loss_table(self, bench, title, what):
        """The table and figure of one loss series; {x: {stack: fraction}}."""
        xs = xsort(set(self.pair[bench]["rxe"]) | set(self.pair[bench]["metaroce"]))
        if not xs:
            self.out("## " + title, "", "*Not measured in this run.*", "")
            return {}
        self.out("## " + title, "",
                 what + "A run that did not finish "
                 "within the timeout counts as 0. Each point is run "
                 "BENCH_REPEAT times (" + str(max(
                     len(self.runs_by_repeat(bench, st, "0")) for st in STACKS)) +
                 "), the loss levels taking turns, in reverse order every "
                 "other round, so that the host's drift hits them alike; a point whose first run "
                 "did not finish is not repeated. Goodput is over the data "
                 "phase (as in the bandwidth tables): at 10% loss perftest's "
                 "own TCP exchange after the data took up to 2.5 s of TCP "
                 "timeouts, for either stack. The table gives the median run "
                 "(range in brackets) and that run's counters, and the "
                 "median run's goodput up to the client's exit. Fraction = "
                 "median / the same stack's lossless median in this run. "
                 "Paired = each repeat over the lossless run of the same "
                 "repeat, seconds apart: the median of those ratios "
                 "(lowest-highest), which the host's drift over the series "
                 "does not bias.", "",
                 "| loss % | rxe Mbit/s | rxe fraction | MetaRoCE Mbit/s | MetaRoCE fraction | paired: rxe, MetaRoCE | to the exit: rxe, MetaRoCE fraction | MetaRoCE retransmitted | MetaRoCE RTOs | rc rxe/MetaRoCE |",
                 "|---|---|---|---|---|---|---|---|---|---|")
        base = {s: self.data(bench, s, "0") for s in STACKS}
        ebase = {s: self.get(bench, s, "0", "goodput_mbps") for s in STACKS}
        rows = []
        frac = {}
        for x in xs:
            g = {s: self.data(bench, s, x) for s in STACKS}
            f = {s: ratio(g[s], base[s]) for s in STACKS}
            fe = {s: ratio(self.get(bench, s, x, "goodput_mbps"), ebase[s]) for s in STACKS}
            frac[x] = f
            rows.append((x, f["rxe"], f["metaroce"]))
            mr = self.row(bench, "metaroce", x)
            self.out("| %s | %s%s | %s | %s%s | %s | %s, %s | %s, %s | %s | %s | %s/%s |" % (
                x, fmt(g["rxe"]), self.spread(bench, "rxe", x), fmt(f["rxe"]),
                fmt(g["metaroce"]), self.spread(bench, "metaroce", x),
                fmt(f["metaroce"]), self.paired_cell(bench, "rxe", x),
                self.paired_cell(bench, "metaroce", x),
                fmt(fe["rxe"]), fmt(fe["metaroce"]),
                self.retx(mr), mr.get("rto_events", "n/a"),
                self.row(bench, "rxe", x).get("rc", "-"), mr.get("rc", "-")))
        self.wire_note(bench, xs)
        pair_figure(self.bdir, bench, title + ", fraction of lossless",
                    "random loss (%)", "fraction of own lossless goodput", False, rows)
        self.fig(bench, title[0].lower() + title[1:])
        return frac

    def wire_note(self, bench, xs):
        """How often the wire itself stalled in a series: it is a TCP
        connection on the host's loopback (tools/vm/run-pair.sh), whose
        retransmissions each run records (wire_retrans)."""
        if self.wire != "tcp":
            return
        parts = []
        for s in STACKS:
            w = [num(r["wire_retrans"], 0) for x in xs
                 for r in self.runs(bench, s, x) if "wire_retrans" in r]
            if w:
                parts.append("%s's runs, %d of %d (%d segments)" % (
                    "MetaRoCE" if s == "metaroce" else s,
                    sum(1 for v in w if v), len(w), sum(w)))
        if parts:
            self.out("", "The TCP connection under the wire retransmitted "
                     "segments during " + "; ".join(parts) + ".", "")

    def paired_cell(self, bench, stack, x):
        """'median (lo-hi)' of paired(), or the one ratio, or n/a."""
        if str(x) == "0":
            return "-"
        pr = self.paired(bench, stack, x)
        if len(pr) < 2:
            return fmt(pr[0]) if pr else "n/a"
        return "%s (%s-%s)" % (fmt(statistics.median(pr)), fmt(pr[0]), fmt(pr[-1]))

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
                self.pair["qps"]["rxe"].get(x, {}).get("rc", "-"),
                m.get("rc", "-")))
        pair_figure(self.bdir, "qps", "Aggregate goodput over QPs", "QPs",
                    "goodput (Mbit/s)", True, rows)
        self.fig("qps", "many QPs")
        self.qps_most()

    # Why the search for as many QPs as the VM holds stopped.
    QP_STOPS = {
        "failed": "the run at the count after it failed",
        "memory": "twice its memory would not fit in 80% of what the "
                  "client host had available",
        "max_qp": "twice it is over the device's max_qp",
        "cap": "BENCH_QP_MOST ends the search there",
        "none": "no search",
    }

    def qps_most(self):
        """The most QPs each stack ran with, as the search found it."""
        most = self.pair.get("qpmost", {})
        said = []
        for s, name in zip(STACKS, ("rxe", "MetaRoCE")):
            if s not in most:
                continue
            stop = list(most[s].values())[-1].get("stop", "none")
            # Over every run laid together, not the search's own row: a
            # rerun of the part may not repeat the smaller counts.
            ran = [int(x) for x, r in self.pair["qps"].get(s, {}).items()
                   if r.get("rc") == "0"]
            said.append("%s **%s** (%s)" % (
                name, max(ran) if ran else "none",
                self.QP_STOPS.get(stop, stop)))
        if said:
            self.out("As many QPs as the VM holds: after the counts above, "
                     "each stack doubles the count while the run before "
                     "finished and twice what it took of the client host's "
                     "memory (perftest's buffers included) fits in 80% of "
                     "what is available (tests/vm/bench-pair.sh, "
                     "qps_most). The most QPs that ran to the end: "
                     + "; ".join(said) + ". Their rows are in the table.", "")

    # --- 3. fabric: planes, failover, incast (MetaRoCE only) ----------
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
              WIRES.get(self.wire, "The wire between the VMs: %s." % self.wire), "",
              "The guests are booted with the host's TSC rate "
              "(`tsc_early_khz`): without it the TCG guest kernel cannot "
              "calibrate its TSC, keeps jiffies as its clock, and that clock "
              "ran 20-40% slow under load (inflating every rate), while "
              "perftest, lacking a \"cpu MHz\", printed latencies of inf and "
              "bandwidths of 0.", ""]
        reruns = [os.path.basename(os.path.dirname(os.path.dirname(c)))[5:]
                  for c in self.pair_csvs[1:] if os.path.exists(c)]
        if reruns:
            md += ["Parts run again alone after the full run, whose rows "
                   "replace the full run's: %s (BENCH_PARTS)." %
                   ", ".join("`%s`" % r.replace("-", ",") for r in reruns), ""]
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
        self.loss_shaped()
        self.qps()
        self.planes()
        self.failover()
        self.skew()
        self.incast()
        self.profile()
        self.write()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    Report(sys.argv[1], sys.argv[2]).main()
