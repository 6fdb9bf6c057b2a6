/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * MetaRoCE tracepoints. Enable with
 *   trace-cmd record -e metaroce ...   or
 *   echo 1 > /sys/kernel/tracing/events/metaroce/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM metaroce

#if !defined(METAROCE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define METAROCE_TRACE_H

#include <linux/tracepoint.h>

DECLARE_EVENT_CLASS(mroce_pkt_class,
	TP_PROTO(u32 qpn, u32 psn, u8 opcode, u16 flags, u32 len),
	TP_ARGS(qpn, psn, opcode, flags, len),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, psn)
		__field(u8, opcode)
		__field(u16, flags)
		__field(u32, len)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->psn = psn;
		__entry->opcode = opcode;
		__entry->flags = flags;
		__entry->len = len;
	),
	TP_printk("qp %u psn %u opcode %#x flags %#x len %u",
		  __entry->qpn, __entry->psn, __entry->opcode, __entry->flags,
		  __entry->len)
);

/* A request packet handed to the IP stack (first send or resend). */
DEFINE_EVENT(mroce_pkt_class, mroce_tx,
	TP_PROTO(u32 qpn, u32 psn, u8 opcode, u16 flags, u32 len),
	TP_ARGS(qpn, psn, opcode, flags, len));

/* A valid packet delivered to a QP. */
DEFINE_EVENT(mroce_pkt_class, mroce_rx,
	TP_PROTO(u32 qpn, u32 psn, u8 opcode, u16 flags, u32 len),
	TP_ARGS(qpn, psn, opcode, flags, len));

/* An ACK or NAK processed by the requester. */
TRACE_EVENT(mroce_ack,
	TP_PROTO(u32 qpn, u32 ack_psn, u8 syndrome, u32 una, u32 nxt,
		 u32 lost),
	TP_ARGS(qpn, ack_psn, syndrome, una, nxt, lost),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, ack_psn)
		__field(u8, syndrome)
		__field(u32, una)
		__field(u32, nxt)
		__field(u32, lost)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->ack_psn = ack_psn;
		__entry->syndrome = syndrome;
		__entry->una = una;
		__entry->nxt = nxt;
		__entry->lost = lost;
	),
	TP_printk("qp %u ack_psn %u syndrome %#x una %u next %u lost %u",
		  __entry->qpn, __entry->ack_psn, __entry->syndrome,
		  __entry->una, __entry->nxt, __entry->lost)
);

/* An ACK or NAK sent by the responder; hint ACKs echo no packet. */
TRACE_EVENT(mroce_ack_tx,
	TP_PROTO(u32 qpn, u32 dqpn, u32 ack_psn, u8 syndrome, bool echo),
	TP_ARGS(qpn, dqpn, ack_psn, syndrome, echo),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, dqpn)
		__field(u32, ack_psn)
		__field(u8, syndrome)
		__field(bool, echo)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->dqpn = dqpn;
		__entry->ack_psn = ack_psn;
		__entry->syndrome = syndrome;
		__entry->echo = echo;
	),
	TP_printk("qp %u to %u ack_psn %u syndrome %#x%s", __entry->qpn,
		  __entry->dqpn, __entry->ack_psn, __entry->syndrome,
		  __entry->echo ? "" : " hint")
);

/* A PSN resent because it was declared lost. */
TRACE_EVENT(mroce_retransmit,
	TP_PROTO(u32 qpn, u32 psn, u8 retx),
	TP_ARGS(qpn, psn, retx),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, psn)
		__field(u8, retx)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->psn = psn;
		__entry->retx = retx;
	),
	TP_printk("qp %u psn %u resend %u", __entry->qpn, __entry->psn,
		  __entry->retx)
);

/* The retransmission timer fired with PSNs outstanding. */
TRACE_EVENT(mroce_rto,
	TP_PROTO(u32 qpn, u32 una, u32 nxt, u32 retries),
	TP_ARGS(qpn, una, nxt, retries),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, una)
		__field(u32, nxt)
		__field(u32, retries)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->una = una;
		__entry->nxt = nxt;
		__entry->retries = retries;
	),
	TP_printk("qp %u una %u next %u retries %u", __entry->qpn,
		  __entry->una, __entry->nxt, __entry->retries)
);

/* A path of a connection changed state or was probed. */
TRACE_EVENT(mroce_path,
	TP_PROTO(u32 qpn, u16 path, u8 state, u32 cwnd, u64 srtt_ns),
	TP_ARGS(qpn, path, state, cwnd, srtt_ns),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u16, path)
		__field(u8, state)
		__field(u32, cwnd)
		__field(u64, srtt_ns)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->path = path;
		__entry->state = state;
		__entry->cwnd = cwnd;
		__entry->srtt_ns = srtt_ns;
	),
	TP_printk("qp %u path %u state %s cwnd %u srtt_ns %llu", __entry->qpn,
		  __entry->path,
		  __print_symbolic(__entry->state, { 0, "active" },
				   { 1, "suspect" }, { 2, "failed" },
				   { 3, "probing" }),
		  __entry->cwnd, __entry->srtt_ns)
);

/*
 * Rate hints (protocol section 11.3). A receiving device's table took a
 * new sender, which lowers every sender's share at once; a sending QP
 * got a hint other than its last. Together they time how fast an incast
 * settles, to the RTT.
 */
DECLARE_EVENT_CLASS(mroce_rate_class,
	TP_PROTO(const char *dev, u32 qpn, u32 val),
	TP_ARGS(dev, qpn, val),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u32, qpn)
		__field(u32, val)
	),
	TP_fast_assign(
		__assign_str(dev);
		__entry->qpn = qpn;
		__entry->val = val;
	),
	TP_printk("%s qp %u active %u", __get_str(dev), __entry->qpn,
		  __entry->val)
);

/* val: the senders now active in the table. */
DEFINE_EVENT(mroce_rate_class, mroce_rate_join,
	TP_PROTO(const char *dev, u32 qpn, u32 val),
	TP_ARGS(dev, qpn, val));

/* val: the hint, kbit/s. */
DEFINE_EVENT_PRINT(mroce_rate_class, mroce_rate_hint,
	TP_PROTO(const char *dev, u32 qpn, u32 val),
	TP_ARGS(dev, qpn, val),
	TP_printk("%s qp %u hint_kbps %u", __get_str(dev), __entry->qpn,
		  __entry->val));

/* A QP state change, by modify_qp or by an error. */
TRACE_EVENT(mroce_qp_state,
	TP_PROTO(u32 qpn, int from, int to),
	TP_ARGS(qpn, from, to),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(int, from)
		__field(int, to)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->from = from;
		__entry->to = to;
	),
	TP_printk("qp %u state %d -> %d", __entry->qpn, __entry->from,
		  __entry->to)
);

/*
 * A QP on an SRQ grew its queue of bound WQEs (srq.c) to size entries,
 * or failed to (ok 0) and answered the message with an RNR NAK.
 */
TRACE_EVENT(mroce_srq_grow,
	TP_PROTO(u32 qpn, u32 size, bool ok),
	TP_ARGS(qpn, size, ok),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, size)
		__field(bool, ok)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->size = size;
		__entry->ok = ok;
	),
	TP_printk("qp %u size %u ok %d", __entry->qpn, __entry->size,
		  __entry->ok)
);

/* A received packet dropped before reaching a QP. */
TRACE_EVENT(mroce_rx_drop,
	TP_PROTO(const char *dev, const char *reason),
	TP_ARGS(dev, reason),
	TP_STRUCT__entry(
		__string(dev, dev)
		__string(reason, reason)
	),
	TP_fast_assign(
		__assign_str(dev);
		__assign_str(reason);
	),
	TP_printk("%s: %s", __get_str(dev), __get_str(reason))
);

/* A well-formed packet for a QP this device does not have (any more). */
TRACE_EVENT(mroce_rx_no_qp,
	TP_PROTO(const char *dev, u32 dqpn, u8 opcode, u32 psn),
	TP_ARGS(dev, dqpn, opcode, psn),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u32, dqpn)
		__field(u8, opcode)
		__field(u32, psn)
	),
	TP_fast_assign(
		__assign_str(dev);
		__entry->dqpn = dqpn;
		__entry->opcode = opcode;
		__entry->psn = psn;
	),
	TP_printk("%s: qp %u opcode %u psn %u", __get_str(dev),
		  __entry->dqpn, __entry->opcode, __entry->psn)
);

#endif /* METAROCE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
