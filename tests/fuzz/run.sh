#!/usr/bin/env bash
# Builds each tests/fuzz/fuzz_*.c with libFuzzer, ASan and UBSan and runs it
# for a bounded time. Fails on a crash or a target that does not build.
# Sources linked: the target's "fuzz-sources: GLOB..." comment line when it
# has one; otherwise the pure core (core/*.c) plus, for every '#include
# "DIR/NAME.h"' of the target, DIR/NAME.c and DIR/NAME_*.c. Each source is
# compiled once for all the targets (build/fuzz/obj/), then each target links.
# Seeds: tests/fuzz/corpus/NAME/ and the files of the target's "fuzz-seeds:
# GLOB..." line ($SHARED is ../shared, the fixtures), copied into a scratch
# corpus under build/; a seed glob that matches nothing fails the target.
#   FUZZ_SECONDS  CPU time per target (default 20)
#   FUZZ_JOBS     targets side by side (default: the CPUs, at most 4)
set -u
cd "$(dirname "$0")/../.." || exit 2
secs=${FUZZ_SECONDS:-20}
CC=${FUZZ_CC:-clang}
if ! command -v "$CC" >/dev/null; then
	echo "fuzz: $CC not found: install clang (scripts/deps.sh test)" >&2
	exit 1
fi
flags=(-std=gnu11 -g -O1 -D_GNU_SOURCE -I. -fsanitize=fuzzer,address,undefined
	-fno-sanitize-recover=all $(pkg-config --cflags jansson 2>/dev/null))
libs=($(pkg-config --libs jansson 2>/dev/null || echo -ljansson) -lm)
mkdir -p build/fuzz
pass=0 fail=0
SHARED=${FABCHECK_SHARED:-$(cd .. && pwd)/shared}

# Copies the files of SRC's "fuzz-seeds:" globs into CORPUS (names prefixed
# by their folder, so that fixtures of two folders do not collide).
seed_corpus() {
	local src=$1 corpus=$2 g f n=0
	for g in $(sed -n 's/.*fuzz-seeds:\(.*\)/\1/p' "$src" | head -n 1); do
		g=${g//\$SHARED/$SHARED}
		local hit=0
		for f in $g; do
			[ -f "$f" ] || continue
			hit=1
			n=$((n + 1))
			cp -n "$f" "$corpus/seed-$(basename "$(dirname "$f")")-$(basename "$f")"
		done
		if [ "$hit" = 0 ]; then
			echo "FAIL: $(basename "$src" .c): seed glob '$g' matches no file"
			return 1
		fi
	done
	[ "$n" -gt 0 ] && echo "   $(basename "$src" .c): $n seed files"
	return 0
}
# target_srcs SRC: the sources linked into target SRC, one a line: its
# "fuzz-sources:" line when it has one; otherwise the pure core (core/*.c)
# plus, for every '#include "DIR/NAME.h"' of the target, DIR/NAME.c and
# DIR/NAME_*.c.
target_srcs() {
	local src=$1 decl h c
	decl=$(sed -n 's/.*fuzz-sources:\(.*\)/\1/p' "$src" | head -n 1)
	if [ -n "$decl" ]; then
		# shellcheck disable=SC2086
		printf '%s\n' $decl
		return
	fi
	printf '%s\n' core/*.c
	for h in $(sed -n 's/^#include "\([a-z_]*\/[a-z_0-9]*\)\.h"/\1/p' "$src"); do
		for c in "$h".c "$h"_*.c; do
			[ -f "$c" ] && echo "$c"
		done
	done
}
# obj_of SOURCE: the object SOURCE is built into (one flag set for every
# target, so one object serves every target that links SOURCE).
obj_of() { local o=${1%.c}.o; echo "build/fuzz/obj/${o//\//+}"; }
# build_obj SOURCE: compiles one source; its errors in the object's .err.
build_obj() {
	local o
	o=$(obj_of "$1")
	"$CC" "${flags[@]}" -c -o "$o" "$1" >"$o.err" 2>&1 || rm -f "$o"
}
# cpu_budget SECS LOG FUZZER ARGS...: runs the fuzzer (output to LOG) until
# it has had SECS seconds of CPU time, then asks it to stop (SIGUSR1:
# libFuzzer ends the run it is in, prints its final stats, exits 0); its
# exit code, and the CPU seconds it had in CPU_USED. A budget of CPU time,
# not wall time: a target fuzzes as much beside other work (make check
# runs this step beside valgrind, tests/run-all.sh) as on an idle core.
# Its -max_total_time (wall) only bounds a run that gets no CPU.
cpu_budget() {
	local secs=$1 log=$2 pid tck st ticks=0
	shift 2
	"$@" >"$log" 2>&1 &
	pid=$!
	tck=$(getconf CLK_TCK 2>/dev/null || echo 100)
	# /proc/PID/stat after "PID (comm) ": state, then utime and stime at 12, 13
	while read -r st 2>/dev/null <"/proc/$pid/stat"; do
		read -ra st <<<"${st##*) }"
		[ "${st[0]}" = Z ] && break
		ticks=$((st[11] + st[12]))
		if [ "$ticks" -ge $((secs * tck)) ]; then
			kill -USR1 "$pid" 2>/dev/null
			break
		fi
		sleep 0.5
	done
	CPU_USED=$((ticks / tck))
	wait "$pid"
}
# fuzz_one SRC: links and runs one target; prints one line (and the crash).
fuzz_one() {
	local src=$1 name bin corpus c o objs=() missing=() log
	name=$(basename "$src" .c)
	bin=build/fuzz/$name
	corpus=build/fuzz/$name-corpus
	mkdir -p "$corpus"
	[ -d "tests/fuzz/corpus/$name" ] && cp -n "tests/fuzz/corpus/$name"/* "$corpus"/ 2>/dev/null
	if ! seed_corpus "$src" "$corpus"; then
		return 1
	fi
	for c in $(target_srcs "$src" | awk '!seen[$0]++'); do
		o=$(obj_of "$c")
		if [ -f "$o" ]; then objs+=("$o"); else missing+=("$c"); fi
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "FAIL: $name: does not build: ${missing[*]} did not compile"
		for c in "${missing[@]}"; do head -n 20 "$(obj_of "$c").err" 2>/dev/null | sed 's/^/    /'; done
		return 1
	fi
	if ! "$CC" "${flags[@]}" -o "$bin" "$src" "${objs[@]}" "${libs[@]}"; then
		echo "FAIL: $name: does not build"
		return 1
	fi
	log=build/fuzz/$name.log
	if ASAN_OPTIONS=detect_leaks=1 cpu_budget "$secs" "$log" "$bin" -max_total_time=$((secs * 30)) \
		-print_final_stats=1 -max_len=65536 -artifact_prefix=build/fuzz/"$name"- "$corpus"; then
		echo "ok: $name: $(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1) runs in $CPU_USED s of CPU"
	else
		echo "FAIL: $name: crashed; see $log and build/fuzz/$name-crash-*"
		tail -n 30 "$log" | sed 's/^/    /'
		return 1
	fi
}

# The targets run side by side, FUZZ_JOBS at a time (default: the CPUs, at
# most 4; libFuzzer runs one thread), each for its own FUZZ_SECONDS; their
# lines are printed in the targets' order.
njobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$njobs" -gt 4 ] && njobs=4
[ "$njobs" -lt 1 ] && njobs=1
# Every target's sources, each compiled once, FUZZ_JOBS at a time: the
# targets share most of them (core/ in six of eight), and compiling each
# target's list whole compiled core/ six times over.
rm -rf build/fuzz/obj && mkdir -p build/fuzz/obj
export CC
export -f obj_of build_obj
for src in tests/fuzz/fuzz_*.c; do target_srcs "$src"; done | sort -u |
	FLAGS="${flags[*]}" xargs -r -P "$njobs" -n 1 bash -c 'flags=($FLAGS); build_obj "$1"' _
outs=()
for src in tests/fuzz/fuzz_*.c; do
	while [ "$(jobs -rp | wc -l)" -ge "$njobs" ]; do wait -n; done
	out=build/fuzz/$(basename "$src" .c).out
	rm -f "$out.rc"
	{ fuzz_one "$src"; echo $? >"$out.rc"; } >"$out" 2>&1 &
	outs+=("$out")
done
wait
for out in "${outs[@]}"; do
	cat "$out"
	if [ "$(cat "$out.rc" 2>/dev/null)" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
	rm -f "$out" "$out.rc"
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
