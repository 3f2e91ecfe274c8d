#!/usr/bin/env bash
# Builds each tests/fuzz/fuzz_*.c with libFuzzer, ASan and UBSan and runs it
# for a bounded time. Fails on a crash or a target that does not build.
# Sources linked: the target's "fuzz-sources: GLOB..." comment line when it
# has one; otherwise the pure core (core/*.c) plus, for every '#include
# "DIR/NAME.h"' of the target, DIR/NAME.c and DIR/NAME_*.c.
# Seeds: tests/fuzz/corpus/NAME/ and the files of the target's "fuzz-seeds:
# GLOB..." line ($SHARED is ../shared, the fixtures), copied into a scratch
# corpus under build/; a seed glob that matches nothing fails the target.
#   FUZZ_SECONDS  time per target (default 20)
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
# fuzz_one SRC: builds and runs one target; prints one line (and the crash).
fuzz_one() {
	local src=$1 name bin corpus srcs decl h c log
	name=$(basename "$src" .c)
	bin=build/fuzz/$name
	corpus=build/fuzz/$name-corpus
	mkdir -p "$corpus"
	[ -d "tests/fuzz/corpus/$name" ] && cp -n "tests/fuzz/corpus/$name"/* "$corpus"/ 2>/dev/null
	if ! seed_corpus "$src" "$corpus"; then
		return 1
	fi
	srcs=()
	decl=$(sed -n 's/.*fuzz-sources:\(.*\)/\1/p' "$src" | head -n 1)
	if [ -n "$decl" ]; then
		# shellcheck disable=SC2206
		srcs=($decl)
	else
		srcs=(core/*.c)
		for h in $(sed -n 's/^#include "\([a-z_]*\/[a-z_0-9]*\)\.h"/\1/p' "$src"); do
			for c in "$h".c "$h"_*.c; do
				[ -f "$c" ] && [[ " ${srcs[*]} " != *" $c "* ]] && srcs+=("$c")
			done
		done
	fi
	if ! "$CC" "${flags[@]}" -o "$bin" "$src" "${srcs[@]}" "${libs[@]}"; then
		echo "FAIL: $name: does not build"
		return 1
	fi
	log=build/fuzz/$name.log
	if ASAN_OPTIONS=detect_leaks=1 "$bin" -max_total_time="$secs" -max_len=65536 \
		-artifact_prefix=build/fuzz/"$name"- "$corpus" >"$log" 2>&1; then
		echo "ok: $name: $(grep -Eo '#[0-9]+' "$log" | tail -n 1 | tr -d '#') runs in ${secs}s"
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
