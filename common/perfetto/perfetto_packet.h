/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfetto_packet: the TracePacket field numbers and sequence flags that
 * the parts of the Perfetto writer share (from Perfetto's
 * protos/perfetto/trace/trace_packet.proto).
 */
#ifndef PERFSNAPD_PERFETTO_PACKET_H
#define PERFSNAPD_PERFETTO_PACKET_H

/* TracePacket fields */
#define PKT_FTRACE_EVENTS      1
#define PKT_PROCESS_TREE       2
#define PKT_CLOCK_SNAPSHOT     6
#define PKT_TIMESTAMP	       8
#define PKT_SEQ_ID	       10
#define PKT_INTERNED_DATA      12
#define PKT_SEQ_FLAGS	       13
#define PKT_SYSTEM_INFO	       45
#define PKT_TIMESTAMP_CLOCK_ID 58
#define PKT_DEFAULTS	       59
#define PKT_PERF_SAMPLE	       66
#define PKT_STACK_SAMPLE       135

#define SEQ_INCREMENTAL_STATE_CLEARED 1
#define SEQ_NEEDS_INCREMENTAL_STATE   2

#endif
