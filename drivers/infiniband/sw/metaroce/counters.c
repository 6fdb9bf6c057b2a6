// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Per-port counters for "rdma statistic show".
 */

#include <rdma/ib_verbs.h>
#include "metaroce.h"

static struct rdma_stat_desc mroce_counter_descs[MROCE_NUM_COUNTERS] = {
	[MROCE_CNT_RX_PACKETS].name = "rx_packets",
	[MROCE_CNT_RX_BYTES].name = "rx_bytes",
	[MROCE_CNT_TX_PACKETS].name = "tx_packets",
	[MROCE_CNT_TX_BYTES].name = "tx_bytes",
	[MROCE_CNT_RX_DROP_NO_QP].name = "rx_drop_no_qp",
	[MROCE_CNT_TX_RETRANSMITS].name = "tx_retransmits",
	[MROCE_CNT_RTO].name = "rto_events",
	[MROCE_CNT_RX_DUPLICATES].name = "rx_duplicates",
	[MROCE_CNT_RX_OUT_OF_ORDER].name = "rx_out_of_order",
	[MROCE_CNT_RX_SACK_GAPS].name = "tx_acks_with_gaps",
	[MROCE_CNT_TX_ACK_SACK_AHEAD].name = "tx_ack_sack_ahead",
	[MROCE_CNT_TX_HINT_ACKS].name = "tx_hint_acks",
	[MROCE_CNT_TX_NAK_RNR].name = "tx_nak_rnr",
	[MROCE_CNT_TX_NAK_SEQ].name = "tx_nak_seq",
	[MROCE_CNT_TX_NAK_FATAL].name = "tx_nak_fatal",
	[MROCE_CNT_RX_NAK_RNR].name = "rx_nak_rnr",
	[MROCE_CNT_RX_NAK_SEQ].name = "rx_nak_seq",
	[MROCE_CNT_RX_NAK_FATAL].name = "rx_nak_fatal",
	[MROCE_CNT_RX_DROP_QP_TYPE].name = "rx_drop_qp_type",
	[MROCE_CNT_RX_DROP_UD_STATE].name = "rx_drop_ud_state",
	[MROCE_CNT_RX_DROP_RC_STATE].name = "rx_drop_rc_state",
	[MROCE_CNT_RX_DROP_UD_QKEY].name = "rx_drop_ud_qkey",
	[MROCE_CNT_RX_DROP_UD_NO_RECV].name = "rx_drop_ud_no_recv",
	[MROCE_CNT_PATH_LOSSES].name = "path_losses",
	[MROCE_CNT_PATH_RTO].name = "path_rto_events",
	[MROCE_CNT_PATH_FAILED].name = "path_failed",
	[MROCE_CNT_PATH_PROBES].name = "path_probes",
	[MROCE_CNT_PATH_RECOVERED].name = "path_recovered",
	[MROCE_CNT_PATH_RTO_SPURIOUS].name = "path_rto_spurious",
	[MROCE_CNT_PATH_RTO_DEFERRED].name = "path_rto_deferred",
	[MROCE_CNT_PATH_TAIL_PROBES].name = "path_tail_probes",
	[MROCE_CNT_ECN_CE_RX].name = "ecn_ce_received",
	[MROCE_CNT_ECN_ECHOED].name = "ecn_ce_echoed",
	[MROCE_CNT_TX_LOCAL_WAIT].name = "tx_local_queue_waits",
	[MROCE_CNT_TX_STALL_PSN_WINDOW].name = "tx_stall_psn_window",
	[MROCE_CNT_TX_STALL_PIPE].name = "tx_stall_pipe",
	[MROCE_CNT_TX_STALL_CWND].name = "tx_stall_cwnd",
	[MROCE_CNT_TX_STALL_PACE].name = "tx_stall_pace",
	[MROCE_CNT_TX_ZEROCOPY].name = "tx_zerocopy_packets",
	[MROCE_CNT_RX_RING_FULL].name = "rx_drop_ring_full",
};

/* "rx_drop_<reason>", from the protocol code's reason names. */
static char mroce_drop_names[MROCE_DROP_MAX][40];

void mroce_counters_init(void)
{
	int r;

	for (r = MROCE_DROP_NONE + 1; r < MROCE_DROP_MAX; r++) {
		snprintf(mroce_drop_names[r], sizeof(mroce_drop_names[r]),
			 "rx_drop_%s", mroce_drop_reason_name(r));
		mroce_counter_descs[MROCE_CNT_RX_DROP_BASE + r - 1].name =
			mroce_drop_names[r];
	}
}

struct rdma_hw_stats *mroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num)
{
	return rdma_alloc_hw_stats_struct(mroce_counter_descs,
					  ARRAY_SIZE(mroce_counter_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int mroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index)
{
	struct mroce_dev *mdev = to_mdev(ibdev);
	int i;

	for (i = 0; i < MROCE_NUM_COUNTERS; i++)
		stats->value[i] = atomic64_read(&mdev->counters[i]);
	return MROCE_NUM_COUNTERS;
}
