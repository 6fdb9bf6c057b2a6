// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The protocol code under test, built into this module (see Kbuild). */
#include "proto/wire.c"
#include "proto/sack.c"
#include "proto/cc.c"
#include "proto/path.c"
#include "proto/ratehint.c"
