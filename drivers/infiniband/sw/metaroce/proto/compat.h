/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Minimal environment for the protocol code, so the very same sources
 * build in the kernel module, the KUnit module and host-side tools.
 */
#ifndef MROCE_PROTO_COMPAT_H
#define MROCE_PROTO_COMPAT_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/build_bug.h>
#include <linux/bitops.h>
#include <linux/limits.h>
#include <asm/byteorder.h>

#define mroce_popcount64(x)	hweight64(x)

#else /* userspace */

#include <linux/types.h>
#include <assert.h>
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;

#define be16_to_cpu(x)	((u16)be16toh(x))
#define be32_to_cpu(x)	((u32)be32toh(x))
#define be64_to_cpu(x)	((u64)be64toh(x))
#define cpu_to_be16(x)	((__be16)htobe16(x))
#define cpu_to_be32(x)	((__be32)htobe32(x))
#define cpu_to_be64(x)	((__be64)htobe64(x))

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#ifndef U32_MAX
#define U32_MAX		((u32)~0U)
#endif
#ifndef U64_MAX
#define U64_MAX		((u64)~0ULL)
#endif

#define mroce_popcount64(x)	((unsigned int)__builtin_popcountll(x))

#endif /* __KERNEL__ */

#endif /* MROCE_PROTO_COMPAT_H */
