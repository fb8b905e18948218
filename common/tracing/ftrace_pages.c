// SPDX-License-Identifier: GPL-2.0-only
/* ftrace_pages: see ftrace_pages.h. */
#include "ftrace_pages.h"
