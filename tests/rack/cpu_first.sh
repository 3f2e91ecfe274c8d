#!/usr/bin/env bash
# tests/rack/cpu_first.sh make|join DIR|remove DIR: a CPU cgroup in which the
# virtual rack takes the host's CPUs before anything else, so the rest of
# make check can run beside it (tests/run-all.sh).
#   make         creates the group; prints its folder, or nothing (exit 1)
#                where no CPU controller can be written (not root, no
#                cgroup v1 "cpu" mount, no cgroup v2 "cpu" controller)
#   join DIR     moves the calling shell's parent into it: run it as
#                'tests/rack/cpu_first.sh join DIR' from the shell that then
#                execs the rack (its children, QEMU included, inherit it)
#   remove DIR   removes the group once its processes are gone
#
# Why a weight, not nice: with the kernel's autogroups (sched_autogroup_enabled,
# on in Debian's kernel) nice acts only inside one session, and each test
# step is its own session. A cgroup's weight acts across them: cgroup v1
# cpu.shares 262144 (the kernel's largest, MAX_SHARES; Linux
# Documentation/scheduler/sched-design-CFS.rst, kernel/sched/core.c) against
# the 1024 of each autogroup, or cgroup v2 cpu.weight 10000 (the largest;
# Documentation/admin-guide/cgroup-v2.rst) against the default 100.
# Measured on the 2-core host (2026-12-06): the whole rack stage, run in
# such a group beside seven builds and test runs (load average 15-20), took
# 1231 s with 323 cases passed and 0 failed; alone on a quiet host it took
# 1256 s. Without the group it starves ("no progress") under far less.
set -u
V1=/sys/fs/cgroup/cpu
V2=/sys/fs/cgroup

make_group() {
	local g
	if [ -w "$V1/cgroup.procs" ] && [ -f "$V1/cpu.shares" ]; then
		g=$V1/fabcheck-rack-$$
		mkdir "$g" 2>/dev/null && echo 262144 >"$g/cpu.shares" 2>/dev/null && { echo "$g"; return 0; }
	elif [ -f "$V2/cgroup.controllers" ] && grep -qw cpu "$V2/cgroup.controllers" &&
		grep -qw cpu "$V2/cgroup.subtree_control" 2>/dev/null; then
		g=$V2/fabcheck-rack-$$
		mkdir "$g" 2>/dev/null && echo 10000 >"$g/cpu.weight" 2>/dev/null && { echo "$g"; return 0; }
	fi
	[ -n "${g:-}" ] && rmdir "$g" 2>/dev/null
	return 1
}

# A folder this script made: under one of the two mounts, named by it.
is_group() {
	[[ $1 =~ ^(/sys/fs/cgroup/cpu|/sys/fs/cgroup)/fabcheck-rack-[0-9]+$ ]] && [ -d "$1" ]
}

case ${1:-} in
make) make_group ;;
join) is_group "${2:-}" && echo "$PPID" >"$2/cgroup.procs" ;;
remove)
	is_group "${2:-}" || exit 1
	for _ in $(seq 50); do rmdir "$2" 2>/dev/null && exit 0; sleep 0.1; done
	echo "tests/rack/cpu_first.sh: $2 still has processes; left in place" >&2
	exit 1 ;;
*) echo "usage: tests/rack/cpu_first.sh make | join DIR | remove DIR" >&2; exit 2 ;;
esac
