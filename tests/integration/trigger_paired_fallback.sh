#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# trigger_paired.sh on the user-space pairing (PERFSNAPD_PAIRED_NO_BPF=1),
# the path taken where the BPF program cannot load.
PAIRED_MODE=fallback exec bash "$(dirname "$0")/trigger_paired.sh"
