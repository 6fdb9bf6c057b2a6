# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""The fabric sections of tools/bench/report.py (plane scaling, plane
failure, incast, skew): MetaRoCE alone on the one-VM testbed. A mixin of its
Report, whose out(), fig(), target(), fab and run it uses."""
import os
import subprocess

from report_util import (HEAD, fmt, gnuplot, last_data, num, ratio, read1, read_series,
                         write_csv, xsort)


class FabricSections:
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
        s = read_series(os.path.join(self.run, "fabric", name))
        b = num(app_bytes)
        if not s or not b:
            return None
        t0 = next((pt for (pt, _), (t, v) in zip(s, s[1:]) if v - s[0][1] > 20000), None)
        t1 = last_data(s)
        if t0 is None or t1 is None or t1 <= t0:
            return None
        return b * 8 / (t1 - t0) / 1e6

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
        st = self.failover_stalls(pts, sm, fe, end, pre, m)
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
                 "absent for the reasons above.%s" % (
                     fmt(num(self.fab["info"]["metaroce"]["0"].get("plane_rate_mbps"))),
                     self.plane_queue(), f1 - f0, r1 - r0, fe - f0, end, st["text"]), "",
                 "| before (Mbit/s) | lowest before the failure / before | lowest during failure | lowest / before | back to >= 70%% after | guest stalls >= %s ms during failure (longest) | lowest / before where no stall touched the samples | transfer rc | goodput over the whole transfer |" % st["min_ms"],
                 "|---|---|---|---|---|---|---|---|---|",
                 "| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                     fmt(pre), fmt(st["pre_low"]), fmt(dip), fmt(ratio(dip, pre)),
                     "n/a" if rec is None else "%.2f s" % rec, st["count"],
                     fmt(st["clear_low"]), rc, fmt(num(m.get("goodput_mbps")))))
        self.target("One plane of 4 fails", ">= 70% of previous goodput within 100 ms, no QP error",
                    "lowest %s of before%s; >= 70%% after %s; rc %s" % (
                        fmt(ratio(dip, pre)), st["note"],
                        "never" if rec is None else "%.2f s" % rec, rc),
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
     '' using 1:3 skip 1 with lines lw 2 title '3-sample average'%s
""" % (r0 - fe, r0 - fe, r0 - fe, st["plot"]), self.bdir)
        self.fig("failover", "plane failure")

    def skew(self):
        """4 planes, one slower than the others by x ms (x = 0: the
        baseline), no target of its own: what skew costs."""
        m = self.fab["skew"]["metaroce"]
        if not m:
            return
        rate = num(self.fab["info"]["metaroce"]["0"].get("plane_rate_mbps"))
        self.out("## Planes of unequal delay (MetaRoCE)", "",
                 "4 planes of %s Mbit/s as in plane scaling, plane 1 given an "
                 "extra delay both ways (netem): every packet sprayed onto it "
                 "arrives after later PSNs of the other three, which must "
                 "neither stall the connection nor be taken for lost. Goodput "
                 "over the data phase; ACKs are the receiver's packets (it "
                 "sends nothing else), per 1000 data packets." % fmt(rate), "",
                 "| extra delay (ms) | goodput Mbit/s | fraction of 4 x rate | over no skew | out-of-order arrivals | ACKs per 1000 packets | retransmitted packets | RTOs |",
                 "|---|---|---|---|---|---|---|---|")
        base = None
        for x in xsort(m):
            g = self.data_phase_mbps("skew%s.samples" % x, m[x].get("app_bytes"))
            if num(x) == 0:
                base = g
            self.out("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                x, fmt(g), fmt(ratio(g, 4 * rate)), fmt(ratio(g, base)),
                m[x].get("rx_out_of_order", "n/a"),
                fmt(ratio(1000 * num(m[x].get("acks"), 0), m[x].get("tx_packets")), 0),
                self.retx(m[x]), m[x].get("rto_events", "n/a")))
        self.out("")

    def failover_stalls(self, pts, sm, fe, end, pre, m):
        """The guest's stalls (tools/bench/stallmon.c) against the failover
        samples: how many fell in the failure (0 to end, seconds from fe)
        and the longest; the lowest 3-sample average before the failure;
        during it, the lowest of those no stall touched (sm[i] averages
        samples i-1..i+1, whose intervals span pts[i-2] to pts[i+1]).
        Older runs had no stallmon: n/a. The shortest stall logged is the
        run's stall_min_ms (runs before it was recorded: stallmon's 15)."""
        path = os.path.join(self.run, "fabric", "failover.stalls")
        ms = fmt(num(m.get("stall_min_ms"), 15.0), 0)
        # Before: averages that end before the failure (3 samples, 0.3 s).
        low = [r for t, r in sm if -3 <= t < -0.15]
        out = {"pre_low": ratio(min(low), pre) if low and pre else None,
               "count": "n/a", "clear_low": None, "note": "", "text": "", "plot": "",
               "min_ms": ms}
        if not os.path.exists(path):
            return out
        st = [(e - fe - g / 1e3, e - fe) for e, g in read_series(path)]
        inside = [(a, b) for a, b in st if b > 0 and a < end]
        clear = [r for i, (t, r) in enumerate(sm) if 0 <= t < end and not any(
            a < pts[min(len(pts) - 1, i + 1)][0] and b > pts[max(0, i - 2)][0] for a, b in st)]
        out["clear_low"] = ratio(min(clear), pre) if clear and pre else None
        out["count"] = "%d (%s ms)" % (len(inside), fmt(max((b - a) * 1e3 for a, b in inside))) \
            if inside else "0"
        out["note"] = (" (%s where no guest stall touched the samples; before the failure "
                       "the lowest was %s)" % (fmt(out["clear_low"]), fmt(out["pre_low"])))
        out["text"] = (" A realtime task in the guest (tools/bench/stallmon.c) woke every "
                       "millisecond through the transfer and logged each wait of %s ms "
                       "or more: under TCG the guest now and then leaves it waiting that "
                       "long while QEMU's vCPU thread stays busy, and the one-VM "
                       "fabric's goodput dips with it. The plot marks these stalls; the "
                       "table gives the lowest average over all samples and over those "
                       "no stall touched." % ms)
        write_csv(os.path.join(self.bdir, "failover-stalls.csv"),
                  ["seconds_from_failure", "stall_ms"], [(round(b, 3), round((b - a) * 1e3, 1)) for a, b in st])
        out["plot"] = (", \\\n     'failover-stalls.csv' using 1:(1) skip 1 with points pt 9 "
                       "ps 1.5 lc rgb 'orange' title 'guest stall >= %s ms'" % ms)
        return out

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
                 "Base RTT: the median of 10 pings from a sender's host to "
                 "h1 before the senders start (after one that resolves the "
                 "neighbour). "
                 "The rate hints are timed to the RTT from tracepoints "
                 "(`mroce_rate_join` on the receiver, `mroce_rate_hint` on "
                 "each sender, one trace clock): *hints fair* is the time "
                 "from the receiver's table taking the last sender until "
                 "every sender holds a hint, the hints' Jain index is >= "
                 "0.95 and they sum to at most 1.05 x the capacity, i.e. "
                 "every sender paces to a share of all N. It times the "
                 "control, not the goodput that follows it.", "",
                 "| senders | all complete | per-sender Mbit/s while all send | sum / bottleneck | per-sender goodput over its whole run | base RTT (ms) | settle (s) | settle (RTTs) | Jain, first window after the last join | mean Jain while all run | hints fair after the last join: ms (RTTs) | CE marks |",
                 "|---|---|---|---|---|---|---|---|---|---|---|---|")
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
            hs = self.incast_hints(int(k), num(r.get("capacity_mbps")))
            hint_txt = self.hint_settle_text(hs, rtt)
            self.out("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                k, "yes" if r.get("complete") == "1" else "no",
                " ".join(fmt(g, 1) for g in st) or "n/a",
                fmt(ratio(sum(st), bott)) if st else "n/a",
                " ".join(fmt(g, 1) for g in gps), fmt(rtt),
                "never" if settle is None else "%.1f" % settle,
                "n/a" if rtts is None else "%.0f" % rtts,
                fmt(res["first_jain"], 3) if res else "n/a",
                fmt(res["mean_jain"], 3) if res else "n/a",
                hint_txt, res["marks"] if res else "n/a"))
            self.target("Incast %s senders" % k,
                        "Jain >= 0.95 within 2 RTTs of the last join (goodput judged at 0.5 s)",
                        "Jain %s in the first 0.5 s after the last join, mean %s; "
                        "settle %s (%s RTTs); hints fair %s after the last join" % (
                            fmt(res["first_jain"], 3) if res else "n/a",
                            fmt(res["mean_jain"], 3) if res else "n/a",
                            "never" if settle is None else "%.1f s" % settle,
                            "n/a" if rtts is None else "%.0f" % rtts, hint_txt),
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

    @staticmethod
    def hint_settle_text(hs, rtt):
        if hs is None:
            return "n/a"
        if hs["settle_s"] is None:
            return "never"
        ms = hs["settle_s"] * 1000
        return "%.1f (%s)" % (ms, "%.1f" % (ms / rtt) if rtt else "n/a")

    # The judgement of hints_fair_ms in tests/vm/fabric-lib.sh, which
    # tests/vm/multipath.sh checks in the guest: one definition for both.
    FABRIC_LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                              "..", "..", "tests", "vm", "fabric-lib.sh")

    def incast_hints(self, k, capacity_mbps):
        """From incastK.trace: seconds from the receiver's table taking its
        K-th sender until the K senders' hints are fair (see incast()),
        None if they never were; None instead of a dict without a trace."""
        path = os.path.join(self.run, "fabric", "incast%d.trace" % k)
        if not os.path.exists(path) or not capacity_mbps:
            return None
        ms = subprocess.run(["bash", "-c", '. "$0" && hints_fair_ms "$@"', self.FABRIC_LIB,
                             path, str(k), str(int(capacity_mbps))],
                            check=True, capture_output=True, text=True).stdout.strip()
        return {"settle_s": None if ms == "none" else float(ms) / 1000}

    def incast_series(self, k, win=0.5):
        d = os.path.join(self.run, "fabric")
        series = [read_series(os.path.join(d, "incast%d-h%d.samples" % (k, i)))
                  for i in range(2, k + 2)]
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
        lasts = [last_data(s) for s in series]
        ends = []
        for i, last in zip(range(2, k + 2), lasts):
            done = num(read1(os.path.join(d, "incast%d-%d.gp" % (k, i))), 0) > 0
            if done and last:
                ends.append(last)
            else:
                ends.append(num(read1(os.path.join(d, "incast%d-%d.end" % (k, i)))))
        first_end = min((e for e in ends if e), default=t1) - t0
        # Plot up to the last time any sender moved data (not through a
        # stalled sender's timeout).
        last_move = max(s[0][0] if last is None else last for s, last in zip(series, lasts))
        marks = read_series(os.path.join(d, "incast%d.marks" % k))

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
