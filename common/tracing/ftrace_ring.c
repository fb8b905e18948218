// SPDX-License-Identifier: GPL-2.0-only
/* ftrace_ring: see ftrace_ring.h. */
#include "ftrace_ring.h"
