// SPDX-License-Identifier: GPL-2.0-only
/* ftrace_instance: see ftrace_instance.h. */
#include "ftrace_instance.h"
