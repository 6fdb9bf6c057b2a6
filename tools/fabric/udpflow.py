#!/usr/bin/python3
"""UDP traffic generator and sink for the fabric testbed.

A multipath transport's "path" is a UDP source port; this sends one flow
from many source ports and counts what arrives per source port, with the
ECN field of every datagram (IP_RECVTOS).

  udpflow.py send --dst ADDR [--port 9000] --sports 40000-40063[,40100...]
                  [--rate 4mbit] [--time 3 | --count N] [--size 1000]
                  [--ecn none|ect0|ect1|ce]
      Round-robin over the source ports (one socket bound to each), paced
      to the total rate (a sender that falls behind, e.g. on a busy TCG
      VM, does not catch up in a burst, so check rate_bps for what was
      really offered). Prints "sport S sent N rate_bps R" per port and
      "total sent N bytes B secs T rate_bps R".

  udpflow.py recv [--port 9000] [--time 30] [--idle 2] [--ready FILE]
      Counts datagrams until --idle seconds pass without one (after the
      first) or --time runs out. Prints per source port
      "sport S pkts N bytes B ce N ect0 N ect1 N notect N goodput_bps G"
      and a "total ..." line with the same keys plus "sports K".
      goodput_bps is payload bits over first-to-last arrival.
      --ready FILE is created once the socket is bound.

Every value is an integer, so shell tests can compare them directly.
"""
import argparse
import os
import socket
import struct
import sys
import time

ECN = {"none": 0, "ect1": 1, "ect0": 2, "ce": 3}
ECN_NAMES = ("notect", "ect1", "ect0", "ce")
SO_RCVBUFFORCE = getattr(socket, "SO_RCVBUFFORCE", 33)


def parse_rate(text):
    units = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}
    t = text.lower().removesuffix("bit")
    unit = t[-1] if t and t[-1] in "kmg" else ""
    return float(t[:len(t) - len(unit)]) * units[unit]


def parse_ports(text):
    ports = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        ports.extend(range(int(lo), int(hi or lo) + 1))
    return ports


def send(a):
    socks = []
    for sp in parse_ports(a.sports):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, ECN[a.ecn])
        s.bind(("", sp))
        s.connect((a.dst, a.port))
        socks.append((sp, s))
    sent = {sp: 0 for sp, _ in socks}
    interval = a.size * 8 / parse_rate(a.rate)
    total = 0
    begin = start = time.monotonic()
    deadline = start + a.time
    while True:
        for sp, s in socks:
            now = time.monotonic()
            if (a.count and total >= a.count) or (not a.count and now >= deadline):
                break
            due = start + total * interval
            if due > now:
                time.sleep(due - now)
            elif now - due > 0.005:
                # Behind (a stall of the VM): do not catch up in a burst,
                # that would congest a queue the test means to keep empty.
                start += now - due
            payload = struct.pack("!IQ", sp, sent[sp])
            try:
                s.send(payload.ljust(a.size, b"\0"))
            except OSError:
                # A full socket buffer or an ICMP error of an earlier
                # datagram: count it as sent, the network "lost" it.
                pass
            sent[sp] += 1
            total += 1
        else:
            continue
        break
    secs = time.monotonic() - begin
    for sp, _ in socks:
        print(f"sport {sp} sent {sent[sp]} rate_bps "
              f"{int(sent[sp] * a.size * 8 / max(secs, 1e-6))}")
    print(f"total sent {total} bytes {total * a.size} secs {secs:.3f} "
          f"rate_bps {int(total * a.size * 8 / max(secs, 1e-6))}")


def recv(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        # SO_RCVBUFFORCE (33; root only): above net.core.rmem_max, so a
        # slow (TCG) receiver does not drop what the fabric delivered.
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_RECVTOS, 1)
    s.bind(("", a.port))
    if a.ready:
        open(a.ready, "w").close()
    flows = {}
    start = time.monotonic()
    last = None
    while True:
        now = time.monotonic()
        left = start + a.time - now
        if last is not None:
            left = min(left, last + a.idle - now)
        if left <= 0:
            break
        s.settimeout(left)
        try:
            data, anc, _, addr = s.recvmsg(65535, socket.CMSG_SPACE(4))
        except socket.timeout:
            break
        last = time.monotonic()
        tos = 0
        for level, typ, cdata in anc:
            if level == socket.IPPROTO_IP and typ == socket.IP_TOS:
                tos = cdata[0]
        f = flows.setdefault(addr[1], {"pkts": 0, "bytes": 0, "first": last,
                                       "notect": 0, "ect1": 0, "ect0": 0, "ce": 0})
        f["pkts"] += 1
        f["bytes"] += len(data)
        f["last"] = last
        f[ECN_NAMES[tos & 3]] += 1
    keys = ("pkts", "bytes", "ce", "ect0", "ect1", "notect")
    tot = dict.fromkeys(keys, 0)

    def goodput(f):
        dt = f["last"] - f["first"]
        return int(f["bytes"] * 8 / dt) if dt > 0 else 0
    for sp in sorted(flows):
        f = flows[sp]
        print(f"sport {sp} " + " ".join(f"{k} {f[k]}" for k in keys) +
              f" goodput_bps {goodput(f)}")
        for k in keys:
            tot[k] += f[k]
    if flows:
        tot["first"] = min(f["first"] for f in flows.values())
        tot["last"] = max(f["last"] for f in flows.values())
    print("total " + " ".join(f"{k} {tot[k]}" for k in keys) +
          f" goodput_bps {goodput(tot) if flows else 0} sports {len(flows)}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    ps = sub.add_parser("send")
    ps.add_argument("--dst", required=True)
    ps.add_argument("--port", type=int, default=9000)
    ps.add_argument("--sports", required=True)
    ps.add_argument("--rate", default="4mbit")
    ps.add_argument("--time", type=float, default=3)
    ps.add_argument("--count", type=int, default=0)
    ps.add_argument("--size", type=int, default=1000)
    ps.add_argument("--ecn", choices=ECN, default="none")
    pr = sub.add_parser("recv")
    pr.add_argument("--port", type=int, default=9000)
    pr.add_argument("--time", type=float, default=30)
    pr.add_argument("--idle", type=float, default=2)
    pr.add_argument("--ready")
    a = p.parse_args()
    if a.cmd == "send" and a.size < 12:
        sys.exit("udpflow: --size must be at least 12")
    send(a) if a.cmd == "send" else recv(a)
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
