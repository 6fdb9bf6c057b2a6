#!/bin/bash
# fabric.sh: command-line front end of the fabric testbed (lib.sh has the
# topology and the functions; source lib.sh to use them from a script).
# Needs root, iproute2 and tc; run it inside the test VM.
#
#   fabric.sh up [--hosts H] [--planes N] [--rate R] [--delay D] [--loss L]
#                [--ecn off|red|codel] [--ecn-bottleneck hI:RATE[:red|codel]]...
#                [--seed S]
#   fabric.sh down
#   fabric.sh plane-set P [--rate R] [--delay D] [--loss L] [--ecn MODE]
#   fabric.sh link-set hI [--rate R] [--delay D] [--loss L] [--ecn MODE]
#   fabric.sh plane-fail P [--linkdown]      fabric.sh plane-restore P
#   fabric.sh stats                          fabric.sh stat PREFIX KEY
#   fabric.sh show        (plane and link configuration)
#   fabric.sh summary     (hosts and their addresses)
#   fabric.sh addr hI     (host I's address, 10.0.I.1)
#   fabric.sh path hS hD SPORT DPORT [udp|tcp]   (plane of a 5-tuple)
#   fabric.sh paths hS hD DPORT 40000-40063[,...] ("sport S plane P" lines)
#   fabric.sh exec NS CMD...                     (= ip netns exec NS CMD...)
#
# Planes are numbered from 0, hosts from 1. Rates are tc rates (kbit,
# mbit, gbit); "none" clears a setting. Example:
#   fabric.sh up --hosts 3 --planes 4 --delay 1ms --ecn-bottleneck h1:20mbit
#   fabric.sh exec h2 ping -c1 "$(fabric.sh addr h1)"
#   fabric.sh plane-fail 2; fabric.sh stats | grep '^plane 2 '
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
	sed -n '/^#   fabric.sh up/,/^#$/s/^#   //p' "${BASH_SOURCE[0]}" >&2
	exit 2
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
up) fabric_up "$@" ;;
down) fabric_down ;;
plane-set) [ $# -ge 1 ] || usage; fabric_plane_set "$@" ;;
link-set) [ $# -ge 1 ] || usage; fabric_link_set "$@" ;;
plane-fail) [ $# -ge 1 ] || usage; fabric_plane_fail "$@" ;;
plane-restore) [ $# -eq 1 ] || usage; fabric_plane_restore "$1" ;;
stats) fabric_stats ;;
stat) [ $# -eq 2 ] || usage; fabric_stat "$1" "$2" ;;
show) fabric_show ;;
summary) fabric_summary ;;
addr) [ $# -eq 1 ] || usage; fabric_addr "$1" ;;
path) [ $# -ge 4 ] || usage; fabric_path "$@" ;;
paths) [ $# -ge 4 ] || usage; fabric_paths "$@" ;;
exec) [ $# -ge 2 ] || usage; fabric_exec "$@" ;;
-h | --help | help) usage ;;
*) fabric_err "unknown command $cmd"; usage ;;
esac
