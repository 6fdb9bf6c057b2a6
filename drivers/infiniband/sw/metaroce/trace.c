// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Instantiates the MetaRoCE tracepoints declared in trace.h.
 */
#define CREATE_TRACE_POINTS
#include "trace.h"
