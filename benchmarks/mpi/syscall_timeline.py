#!/usr/bin/env python3
"""Reads `perf script -F tid,cpu,time,event,trace` output of raw_syscalls:sys_enter/sys_exit and
sched:sched_switch (what benchmarks/mpi/syscall-timeline.sh records) and prints, for the two threads that made the
most system calls (the ranks' callers): where each second went, what took them off their cores, and an excerpt of
both callers' system calls on one clock.

With PHASES=CTS_BYTES,ACK_BYTES in the environment (metaroce bulk: 108,80) it also splits each caller's calls at the
CTS datagram it sends and prints the median phases of a rendezvous exchange: the peer's CTS and the CRC before the
data's `sendmmsg`, that call, the tail up to the `recvmmsg` of the peer's data, that call, the checks and the sum up to
the ACK's `sendto`, that call, and the wait for the peer's ACK and the next call up to the next CTS.

usage: syscall_timeline.py EVENTS_FILE [EXCERPT_ROWS]
"""
import collections
import os
import re
import statistics
import sys

# x86-64 numbers of the calls a rank makes; others print as their number.
NAMES = {0: "read", 1: "write", 7: "poll", 24: "sched_yield", 44: "sendto", 45: "recvfrom", 46: "sendmsg",
         47: "recvmsg", 202: "futex", 230: "clock_nanosleep", 232: "epoll_wait", 271: "ppoll", 281: "epoll_pwait",
         299: "recvmmsg", 307: "sendmmsg", 441: "epoll_pwait2"}
POLLS = {"epoll_wait", "epoll_pwait", "epoll_pwait2", "poll", "ppoll"}
LINE = re.compile(r"\s*(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s+(.*)")
SWITCH = re.compile(r"prev_comm=(.+?) prev_pid=(\d+) .*prev_state=(\S+) ==> next_comm=(.+?) next_pid=(\d+)")
SYSCALL = re.compile(r"NR (\d+)(?: = (-?\d+))?")


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))] if ordered else 0.0


def read(path):
    """@return the events as (tid, time_us, kind, fields) in file order"""
    events = []
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            tid, _cpu, t, event, rest = m.groups()
            t_us = float(t) * 1e6
            if event == "sched:sched_switch":
                s = SWITCH.search(rest)
                if s:
                    events.append((tid, t_us, "switch", (s.group(2), s.group(3), s.group(4), s.group(5))))
            elif event.startswith("raw_syscalls:sys_"):
                s = SYSCALL.search(rest)
                if s:
                    kind = "enter" if event.endswith("enter") else "exit"
                    events.append((tid, t_us, kind, (int(s.group(1)), s.group(2))))
    return events


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: syscall_timeline.py EVENTS_FILE [EXCERPT_ROWS]")
    try:
        rows = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    except ValueError:
        sys.exit(f"syscall_timeline.py: EXCERPT_ROWS must be a whole number, not '{sys.argv[2]}'")
    phases_setting = os.environ.get("PHASES", "")
    phases = ()
    if phases_setting:
        try:
            phases = tuple(str(int(b)) for b in phases_setting.split(","))
        except ValueError:
            phases = ()
        if len(phases) != 2:
            sys.exit(f"syscall_timeline.py: PHASES must be CTS_BYTES,ACK_BYTES (e.g. 108,80), not '{phases_setting}'")
    try:
        events = read(sys.argv[1])
    except OSError as e:
        sys.exit(f"syscall_timeline.py: cannot read {sys.argv[1]}: {e.strerror}")
    enters = collections.Counter(tid for tid, _, kind, _ in events if kind == "enter")
    if len(enters) < 2:
        sys.exit("syscall_timeline.py: fewer than two threads made system calls; nothing to compare")
    callers = [tid for tid, _ in enters.most_common(2)]
    start, end = events[0][1], events[-1][1]
    window_s = (end - start) / 1e6

    # System calls per caller (kind -> durations), and the calls themselves for the excerpt.
    open_call, durations, calls = {}, {c: collections.defaultdict(list) for c in callers}, []
    # Off-core intervals per caller by who took the core. A switch is recorded in the context of the thread that
    # leaves, so a caller's return is seen only when a thread of these JVMs gives way to it: the interval ends
    # there or at the caller's next event of its own, whichever comes first.
    switched_out, off = {}, {c: collections.defaultdict(list) for c in callers}

    def back(tid, t):
        if tid in switched_out:
            t0, st, taker = switched_out.pop(tid)
            off[tid][("preempted by" if st.startswith("R") else "asleep, then", taker)].append(t - t0)
            calls.append((t0, tid, "off core", taker, t - t0))

    for tid, t, kind, fields in events:
        if kind == "switch":
            prev, state, next_comm, nxt = fields
            if prev in off:
                switched_out[prev] = (t, state, next_comm)
            back(nxt, t)
            continue
        back(tid, t)
        if tid in durations:
            nr, ret = fields
            if kind == "enter":
                open_call[tid] = (nr, t)
            elif tid in open_call and open_call[tid][0] == nr:
                name = NAMES.get(nr, str(nr))
                began = open_call.pop(tid)[1]
                durations[tid][name].append(t - began)
                calls.append((began, tid, name, ret, t - began))

    print(f"# {window_s:.2f} s recorded; callers (most system calls): {', '.join(callers)}; per second of it:")
    for c in callers:
        first = next(t for tid, t, _, _ in events if tid == c)
        last = next(t for tid, t, _, _ in reversed(events) if tid == c)
        wall_ms = (last - first) / 1e3
        per_s = 1e3 / wall_ms if wall_ms > 0 else 0.0
        in_calls = sum(sum(v) for v in durations[c].values()) / 1e3
        off_core = sum(sum(v) for v in off[c].values()) / 1e3
        print(f"caller {c}: system calls {in_calls * per_s:.0f} ms, off its core {off_core * per_s:.0f} ms, "
              f"user space and call entry {(wall_ms - in_calls - off_core) * per_s:.0f} ms")
        for name, v in sorted(durations[c].items(), key=lambda kv: -sum(kv[1])):
            print(f"  {name:<12} {len(v) * per_s:8.0f}/s {sum(v) / 1e3 * per_s:6.1f} ms   "
                  f"median {percentile(v, 0.5):6.1f} us  p90 {percentile(v, 0.9):6.1f}  p99 {percentile(v, 0.99):6.1f}")
        for (why, taker), v in sorted(off[c].items(), key=lambda kv: -sum(kv[1]))[:6]:
            print(f"  off: {why} {taker:<18} {len(v) * per_s:6.0f}/s {sum(v) / 1e3 * per_s:6.1f} ms   "
                  f"median {percentile(v, 0.5):6.0f} us  p90 {percentile(v, 0.9):6.0f}  max {max(v):6.0f}")
    calls.sort()   # by start time, once, for the phases and the excerpt
    if phases:
        print_phases(calls, callers, *phases)

    # Excerpt from the middle: both callers' calls, empty polls counted into the next row.
    middle = len(calls) // 2
    print("# both callers from the middle of the recording (us from its start; empty polls counted, not listed;"
          " 'off its core' where a caller was switched out):")
    print(f"{'us':>10}  {'caller ' + callers[0]:<46}caller {callers[1]}")
    empty = collections.Counter()
    shown = 0
    for began, tid, name, ret, took in calls[middle:]:
        if shown >= rows:
            break
        if name in POLLS and ret == "0":
            empty[tid] += 1
            continue
        if name == "off core":
            text = f"off its core ({took:.0f} us, {ret} ran)"
        else:
            text = f"{name} = {ret} ({took:.0f} us)" + (f" after {empty[tid]} empty polls" if empty[tid] else "")
        empty[tid] = 0
        column = "" if tid == callers[0] else " " * 46
        print(f"{began - start:10.1f}  {column}{text}")
        shown += 1


def print_phases(calls, callers, cts, ack):
    """The median phases of calls that each send one CTS, one bulk sendmmsg, one ACK and read the peer's data once
    (calls sorted by start time)."""
    names = ["the peer's CTS, CRC", "sendmmsg (data)", "tail, poll", "recvmmsg (peer's data)", "checks, sum",
             "sendto (ACK)", "peer's ACK, next call", "whole call"]
    print(f"# phases of calls split at the {cts}-byte CTS each caller sends (medians and p90, us):")
    for c in callers:
        mine = [(b, n, r, took) for b, tid, n, r, took in calls if tid == c and n != "off core"]
        starts = [i for i, (_, n, r, _) in enumerate(mine) if n == "sendto" and r == cts]
        rows = []
        for a, b in zip(starts, starts[1:]):
            seg = mine[a:b + 1]
            data = [x for x in seg if x[1] == "sendmmsg" and x[2] not in ("0", "1")]
            rx = [x for x in seg if x[1] == "recvmmsg" and int(x[2]) >= int(data[0][2]) - 1] if data else []
            acks = [x for x in seg if x[1] == "sendto" and x[2] == ack]
            if len(data) != 1 or len(rx) != 1 or len(acks) != 1 or not data[0][0] < rx[0][0] < acks[0][0]:
                continue   # not the plain exchange (a retransmission, a split read): left out
            t0, (d0, _, _, dt), (r0, _, _, rt), (a0, _, _, at) = seg[0][0], data[0], rx[0], acks[0]
            rows.append((d0 - t0, dt, r0 - d0 - dt, rt, a0 - r0 - rt, at, seg[-1][0] - a0 - at, seg[-1][0] - t0))
        if not rows:
            print(f"  caller {c}: no call of that shape")
            continue
        print(f"  caller {c}, {len(rows)} calls:")
        for k, name in enumerate(names):
            v = [r[k] for r in rows]
            print(f"    {name:<24} {statistics.median(v):7.1f}  p90 {percentile(v, 0.9):7.1f}")


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:   # the reader stopped early (| head): nothing more to say
        sys.stderr.close()
