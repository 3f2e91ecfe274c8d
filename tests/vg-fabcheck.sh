#!/usr/bin/env bash
# ./fabcheck under valgrind memcheck: exit 99 on a memory error or a
# definite leak, the program's own exit code otherwise (a signal: 128+N).
# The FC of tests/cli/run.sh for tests/run-valgrind.sh, and its runner of
# every program (VG_EXE: the program, default ./fabcheck). The processes
# it starts run under valgrind too (--trace-children), but for the system's
# programs and the scripts (stand-in ssh/srun, fake workers), whose own
# leaks are not ours; with VG_LOG_DIR each process writes its report to
# VG_LOG_DIR/vg.PID (its whole report: run-valgrind.sh's vg_errors picks the
# errors and definite leaks out of it), which run-valgrind.sh reads, since
# a child's error does not reach the exit code of the command.
here=$(cd "$(dirname "$0")/.." && pwd)
skip='/usr/*,/bin/*,/sbin/*,/lib/*,/lib64/*,/opt/*,*.sh,*.py,*/ssh,*/srun,*/sbatch,*/sh,*/bash,*/python3*'
# --fair-sched=yes: valgrind runs one thread at a time, and with its default
# lock a thread that spins on a completion (the fake HCA's two sides in
# test_ptdefaults, test_bwloop) can take the lock back over and over; one
# such run spun 9 min where it takes 8 s with a fair lock.
# With VG_LOG_DIR the reports go to files, whole (no -q): run-valgrind.sh
# reads their summaries, and needs the line that says a process was ended
# by a signal.
# --read-inline-info=no: the inlined calls' own frames are left out of a
# report's stack traces (each frame still gives the source file and line
# of the code that erred, in the function it was inlined into); the errors
# found are the same. Reading them from the DWARF of each process started
# (fabcheck's -O2 -g) was about a sixth of the CPU time of valgrind's CLI
# cases: tests/cli/cases_qos.sh, 25 processes under valgrind, 13.4-13.7 s
# of CPU against 11.4 s without (2 runs each). VG_INLINE_INFO=yes keeps them.
quiet=-q
[ -n "${VG_LOG_DIR:-}" ] && quiet=
exec valgrind $quiet --fair-sched=yes --error-exitcode=99 --leak-check=full \
	--read-inline-info="${VG_INLINE_INFO:-no}" \
	--errors-for-leak-kinds=definite --show-leak-kinds=definite \
	--trace-children=yes --trace-children-skip="$skip" \
	${VG_LOG_DIR:+--log-file="$VG_LOG_DIR/vg.%p"} "${VG_EXE:-$here/fabcheck}" "$@"
