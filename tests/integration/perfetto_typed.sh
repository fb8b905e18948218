#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Typed ftrace events as Perfetto's own importer reads them
# (trace_processor_shell): irq, softirq and signal tracepoints, which have
# messages in Perfetto's schema, become irq and softirq slices on the
# CPUs' tracks and signal instants on the threads'; as generic events
# (before issue #35) they were rows of the raw table only. The decoded
# trace holds as many events of each tracepoint as perf script shows, and
# the importer reports no error or data loss. So do the shipped
# scheduler.conf (IRQ slices) and crash-oom.conf (signal instants), and
# memory-pressure.conf and profiling.conf; in each an exited child has
# its parent, also where the config records one CPU (scheduler.conf).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/perfetto_lib.sh"
require_env
find_trace_processor

# No sched events: their volume only slows the test (perfetto_import and
# snapshot_perfetto cover them).
events="irq:irq_handler_entry irq:irq_handler_exit irq:softirq_entry irq:softirq_exit
	signal:signal_generate signal:signal_deliver"
# scheduler.conf's power events where the kernel has them (a VM may not).
for e in power:cpu_frequency power:cpu_idle; do
	[ -d "/sys/kernel/tracing/events/${e%%:*}/${e#*:}" ] && events="$events
	$e"
done
FORMATS="perf.data perfetto" write_config "$WORK/p.conf" "$events" 1M "compression = none"
start_daemon "$WORK/p.conf"

# Signals: a shell that catches SIGUSR1, sent 100 of them.
start_prog "$WORK/catcher.out" bash -c 'trap "n=\$((n + 1))" USR1; echo ready; while :; do sleep 0.05 & wait; done'
catcher=$LAST_PID
wait_for_line "$WORK/catcher.out" ready || fail "the signal catcher did not start"
for _ in $(seq 1 100); do
	kill -USR1 "$catcher"
	sleep 0.002
done
# Hard IRQs from the disk (direct writes, each one completes with an
# interrupt), softirqs from those and the timers.
dd if=/dev/zero of="$WORK/disk" bs=64k count=200 oflag=direct 2>/dev/null ||
	fail "dd to $WORK/disk"
file=$(dump_and_wait)
stem=${file%.perf.data}
pf=$stem.pftrace

pftrace_decode "$pf" "$WORK/decoded.txt"
pftrace_same_counts "$file" "$WORK/decoded.txt"
tp_no_errors "$pf"
# One load of the trace for all four counts.
read -r irq softirq generate deliver <<<"$(tp_query "$pf" "select
	(select count(*) from slice s join track t on s.track_id = t.id where t.type = 'cpu_irq'),
	(select count(*) from slice s join track t on s.track_id = t.id where t.type = 'cpu_softirq'),
	(select count(*) from slice where name = 'signal_generate'),
	(select count(*) from slice where name = 'signal_deliver')" | tr ',' ' ')"
note "slices: $irq irq, $softirq softirq; instants: $generate signal_generate, $deliver signal_deliver"
[ "$irq" -gt 0 ] || fail "no irq slices"
[ "$softirq" -gt 0 ] || fail "no softirq slices"
[ "$generate" -gt 0 ] || fail "no signal_generate instants"
[ "$deliver" -gt 0 ] || fail "no signal_deliver instants"
# The typed events are not in the raw table as generic ones.
generic=$(grep -c '^ *event_name: "\(irq_handler_entry\|softirq_entry\|signal_generate\)"' "$WORK/decoded.txt" || true)
[ "$generic" = 0 ] || fail "$generic irq or signal events are still generic"
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" || fail "perfsnapd exited $? on SIGTERM"
DAEMON_PID=

# example NAME: conf/examples/NAME.conf as shipped, with a Perfetto trace in
# this test's directory; a dump after the signals and the disk IRQs; sets PF.
example() {
	sed -e "s|^directory *=.*|directory = $WORK/out|" \
		-e "s|^formats *=.*|formats = perf.data perfetto|" \
		-e "s|^compression *=.*|compression = none|" "$SOURCE_DIR/conf/examples/$1.conf" >"$WORK/$1.conf"
	printf '[control]\nsocket = %s\n' "$WORK/control.sock" >>"$WORK/$1.conf"
	start_daemon "$WORK/$1.conf"
	IRQS0=$(cpu0_device_irqs)
	for _ in $(seq 1 20); do
		kill -USR1 "$catcher"
		sleep 0.01
	done
	dd if=/dev/zero of="$WORK/disk" bs=64k count=100 oflag=direct 2>/dev/null
	forked_and_exited
	IRQS0=$(($(cpu0_device_irqs) - IRQS0))
	PF=$(dump_and_wait)
	PF=${PF%.perf.data}.pftrace
	kill -TERM "$DAEMON_PID"
	wait "$DAEMON_PID" || fail "perfsnapd exited $? on SIGTERM"
	DAEMON_PID=
	tp_no_errors "$PF"
	has_parent "$1"
}
# cpu0_device_irqs: device interrupts cpu0 has taken (they go through
# irq_handler_entry; a device's interrupt may go to another CPU alone).
cpu0_device_irqs() {
	awk 'NR > 1 && $1 ~ /^[0-9]+:$/ { n += $2 } END { print n + 0 }' /proc/interrupts
}
# forked_and_exited: a shell on the last CPU forks a child that runs and
# exits on cpu0, then exits itself, all before the dump: where a config
# records cpu0 alone, the child's FORK is not on record, its EXIT is
# (issue 55: its process had no parent in trace processor).
forked_and_exited() {
	local last=$(($(nproc) - 1))
	taskset -c "$last" sh -c 'echo $$ >"$1"; taskset -c 0 sh -c "echo \$\$ >\"$2\"; exec sleep 0.05"; exit 0' \
		sh "$WORK/shell.pid" "$WORK/child.pid" || fail "the forking shell failed"
}
# has_parent NAME: the child's process has the shell for parent in $PF.
has_parent() {
	local child shell got
	child=$(cat "$WORK/child.pid") shell=$(cat "$WORK/shell.pid")
	got=$(tp_query "$PF" "select pp.pid from process p join process pp
		on p.parent_upid = pp.upid where p.pid = $child")
	[ "$got" = "$shell" ] || fail "$1.conf: process $child's parent is '$got', not the shell $shell"
	note "$1.conf: an exited child's parent is on record"
}
# scheduler.conf records on cpu0 only: its IRQ slices, where cpu0 took a
# device's interrupt while it recorded (the disk's may all go to another).
example scheduler
read -r irq softirq <<<"$(tp_query "$PF" "select
	(select count(*) from slice s join track t on s.track_id = t.id where t.type = 'cpu_irq'),
	(select count(*) from slice s join track t on s.track_id = t.id where t.type = 'cpu_softirq')" | tr ',' ' ')"
[ "$softirq" -gt 0 ] || fail "scheduler.conf: no softirq slices"
[ "$irq" -gt 0 ] || [ "$IRQS0" = 0 ] ||
	fail "scheduler.conf: no irq slices, though cpu0 took $IRQS0 device interrupts"
note "scheduler.conf: $irq irq and $softirq softirq slices; cpu0 took $IRQS0 device interrupts"
# crash-oom.conf's crash trigger watches the machine: a neighbouring test's
# crasher fires it, and the system calls made while that dump had the
# rings paused are lost, which the next snapshot says (data_loss), truly.
PFTRACE_LOSS_OK=1
example crash-oom
deliver=$(tp_query "$PF" "select count(*) from slice where name = 'signal_deliver'")
[ "$deliver" -gt 0 ] || fail "crash-oom.conf: no signal_deliver instants"
note "crash-oom.conf: $deliver signal_deliver instants"
# The other examples: no error or loss, and the exited child's parent.
PFTRACE_LOSS_OK=
example memory-pressure
example profiling
echo "PASS: irq, softirq and signal tracepoints are typed: slices and instants in trace processor, for the example configurations too, each with an exited child's parent"
