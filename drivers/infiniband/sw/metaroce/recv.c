// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE receive path: validate every packet before anything acts on it.
 *
 * Runs in softirq from the UDP socket's encap_rcv, under rcu_read_lock().
 */

#include <linux/ip.h>
#include <linux/udp.h>
#include "recv.h"
#include "proto/wire.h"

void mroce_recv(struct mroce_dev *mdev, struct sk_buff *skb)
{
	enum mroce_drop_reason why;
	struct mroce_hdr hdr;
	int hlen;

	mroce_count(mdev, MROCE_CNT_RX_PACKETS, 1);
	mroce_count(mdev, MROCE_CNT_RX_BYTES, skb->len);

	/* skb->data is at the UDP header; the codec wants flat bytes. */
	if (skb->len < sizeof(struct udphdr) || skb_linearize(skb)) {
		why = MROCE_DROP_TRUNCATED;
		goto bad;
	}
	/* The spec makes the checksum mandatory: MetaRoCE has no ICRC. */
	if (ip_hdr(skb)->version == 4 && !udp_hdr(skb)->check) {
		why = MROCE_DROP_UDP_CSUM;
		goto bad;
	}
	hlen = mroce_hdr_decode(&hdr, skb->data + sizeof(struct udphdr),
				skb->len - sizeof(struct udphdr), &why);
	if (hlen < 0)
		goto bad;

	/* No queue pair exists yet to take a valid packet. */
	mroce_count(mdev, MROCE_CNT_RX_DROP_NO_QP, 1);
	kfree_skb(skb);
	return;
bad:
	mroce_count_drop(mdev, why);
	ibdev_dbg(&mdev->ibdev, "rx drop: %s\n", mroce_drop_reason_name(why));
	kfree_skb(skb);
}
