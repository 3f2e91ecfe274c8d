#!/usr/bin/env bash
# Builds each tests/fuzz/fuzz_*.c with libFuzzer, ASan and UBSan against the
# pure core (core/*.c) and runs it for a bounded time. Fails on a crash.
#   FUZZ_SECONDS  time per target (default 20)
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
for src in tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	bin=build/fuzz/$name
	corpus=build/fuzz/$name-corpus
	mkdir -p "$corpus"
	[ -d "tests/fuzz/corpus/$name" ] && cp -n "tests/fuzz/corpus/$name"/* "$corpus"/ 2>/dev/null
	if ! "$CC" "${flags[@]}" -o "$bin" "$src" core/*.c "${libs[@]}"; then
		echo "FAIL: $name: does not build"
		fail=$((fail + 1))
		continue
	fi
	log=build/fuzz/$name.log
	if ASAN_OPTIONS=detect_leaks=1 "$bin" -max_total_time="$secs" -max_len=8192 \
		-artifact_prefix=build/fuzz/"$name"- "$corpus" >"$log" 2>&1; then
		echo "ok: $name: $(grep -Eo '#[0-9]+' "$log" | tail -n 1 | tr -d '#') runs in ${secs}s"
		pass=$((pass + 1))
	else
		echo "FAIL: $name: crashed; see $log and build/fuzz/$name-crash-*"
		tail -n 30 "$log" | sed 's/^/    /'
		fail=$((fail + 1))
	fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
