/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
#ifndef METAROCE_RECV_H
#define METAROCE_RECV_H

#include <linux/skbuff.h>
#include "metaroce.h"

int mroce_recv_init(void);
void mroce_recv_exit(void);
void mroce_recv(struct mroce_dev *mdev, struct sk_buff *skb);

#endif /* METAROCE_RECV_H */
