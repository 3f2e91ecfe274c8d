# fabcheck build.  `make` builds ./fabcheck; `make check` builds a sanitizer
# variant and runs every test (unit, fuzz, CLI, rack).
PREFIX ?= /usr/local
CC ?= cc
PKGS := libibverbs librdmacm ncursesw sqlite3 jansson numa

WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wstrict-prototypes \
	-Wmissing-prototypes -Wno-format-nonliteral
CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) -D_GNU_SOURCE -I. -MMD -MP \
	$(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null || \
	echo -libverbs -lrdmacm -lncursesw -ltinfo -lsqlite3 -ljansson -lnuma) -ldl -lm -lpthread
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# Every C file of these folders is part of the program; src/main.c holds main().
# The order is the layering, lowest first (doc/architecture.md, scripts/layers.sh).
SRC_DIRS := core store verbs topo gdr diag baseline ctl pair matrix checks/preflight report plan tui lab \
	checks/nccl/env checks/nccl/log checks/nccl/run src
SRCS := $(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.c))
LIB_SRCS := $(filter-out src/main.c,$(SRCS))
TEST_SRCS := $(wildcard tests/unit/test_*.c)

OBJ := build/obj
SOBJ := build/san
LIB_OBJS := $(LIB_SRCS:%.c=$(OBJ)/%.o)
SLIB_OBJS := $(LIB_SRCS:%.c=$(SOBJ)/%.o)
UNIT_BINS := $(TEST_SRCS:tests/unit/%.c=build/tests/%)

.PHONY: build/vg-tests all check unit-tests cli-tests rack-tests fuzz-tests demo bench install \
	deps clean valgrind bench-loop bench-matrix bench-screen bench-history bench-tui bench-launch \
	bench-report
all: fabcheck

# `make V=1` shows the full compiler lines.
ifeq ($(V),1)
Q :=
else
Q := @
endif

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@
$(SOBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC san  $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(SAN) -c $< -o $@

# The layering of doc/architecture.md: a breach fails the build.
HDRS := $(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.h))
build/layers.ok: $(SRCS) $(HDRS) scripts/layers.sh
	@mkdir -p build
	@$(if $(Q),echo "  LAYERS  $(SRC_DIRS)")
	$(Q)scripts/layers.sh
	@touch $@

build/libfabcheck.a: $(LIB_OBJS) build/layers.ok
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $(filter %.o,$^)
build/libfabcheck-san.a: $(SLIB_OBJS) build/layers.ok
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $(filter %.o,$^)

fabcheck: $(OBJ)/src/main.o build/libfabcheck.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(LIBS)
build/fabcheck-san: $(SOBJ)/src/main.o build/libfabcheck-san.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(SAN) -o $@ $^ $(LIBS)

# The fake HCA (tests/fake/): an archive, linked where a test uses it.
FAKE_SRCS := $(wildcard tests/fake/*.c)
build/libfake-san.a: $(FAKE_SRCS:%.c=$(SOBJ)/%.o)
	$(Q)rm -f $@ && ar rcs $@ $^
build/libfake.a: $(FAKE_SRCS:%.c=$(OBJ)/%.o)
	$(Q)rm -f $@ && ar rcs $@ $^

build/tests/%: tests/unit/%.c build/libfabcheck-san.a build/libfake-san.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(SAN) -I. -o $@ $< build/libfake-san.a build/libfabcheck-san.a $(LIBS) -lcmocka

# The stand-in CUDA driver (tests/gdr/fakecuda.c) for the unit tests that
# load it through FABCHECK_LIBCUDA (test_msgfig_cuda.c); the CLI cases build
# their own copies.
build/tests/libfakecuda-unit.so: tests/gdr/fakecuda.c tests/fake/fake_mode.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC so   $@")
	$(Q)$(CC) -Wall -Wextra -Werror -shared -fPIC -o $@ $<
build/tests/test_msgfig_cuda build/vg/test_msgfig_cuda: build/tests/libfakecuda-unit.so

# Unit tests without sanitizers, for valgrind.
VG_BINS := $(TEST_SRCS:tests/unit/%.c=build/vg/%)
build/vg/%: tests/unit/%.c build/libfabcheck.a build/libfake.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST vg $@")
	$(Q)$(CC) $(ALL_CFLAGS) -I. -o $@ $< build/libfake.a build/libfabcheck.a $(LIBS) -lcmocka
build/vg-tests: $(VG_BINS)

deps:
	@scripts/deps.sh test

# The whole suite: unit tests under ASan+UBSan, the CLI tests, the fuzzers
# for a bounded time, and the rack tests on real Soft-RoCE in QEMU guests.
check: deps
	@$(MAKE) -j$(shell nproc 2>/dev/null || echo 2) --no-print-directory fabcheck build/fabcheck-san $(UNIT_BINS) build/vg-tests
	@tests/run-all.sh

unit-tests: $(UNIT_BINS)
	@tests/run-unit.sh $(UNIT_BINS)

cli-tests: fabcheck build/fabcheck-san
	@tests/cli/run.sh

rack-tests: fabcheck
	@tests/rack/run.sh

valgrind: fabcheck $(UNIT_BINS)
	@tests/run-valgrind.sh

demo:
	@scripts/deps.sh demo
	@$(MAKE) --no-print-directory fabcheck
	@scripts/demo.sh

bench:
	@scripts/deps.sh demo
	@$(MAKE) --no-print-directory fabcheck
	@scripts/bench.sh

# The bandwidth loop against perftest's on the fake HCA: ratios, and its own
# instructions per work request by callgrind (issues 26, 40).
build/bench_loop: tests/bench/bench_loop.c build/libfake.a build/libfabcheck.a
	@$(if $(Q),echo "  BENCH   $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< build/libfake.a build/libfabcheck.a $(LIBS)
bench-loop: build/bench_loop
	@rc=0; build/bench_loop || rc=1; scripts/bench_loop_count.sh build/bench_loop || rc=1; exit $$rc

# The matrix's schedule and analysis at 512 nodes (issue 6).
build/bench_matrix: tests/bench/bench_matrix.c build/libfabcheck.a
	@$(if $(Q),echo "  TEST vg $@")
	$(Q)$(CC) $(ALL_CFLAGS) -I. -o $@ $< build/libfabcheck.a $(LIBS)
bench-matrix: build/bench_matrix
	@build/bench_matrix 512
	@build/bench_matrix 512 both

# The screen on simulated racks of 64 to 4,096 nodes x 8 rails (issue 18).
build/bench_screen: tests/bench/bench_screen.c tests/bench/screen_sim.c build/libfabcheck.a
	@$(if $(Q),echo "  BENCH   $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ tests/bench/bench_screen.c tests/bench/screen_sim.c \
		build/libfabcheck.a $(LIBS)
bench-screen: build/bench_screen
	@build/bench_screen

# The defaults of the history flag from simulated nights (issue 18).
build/bench_history: tests/bench/bench_history.c build/libfabcheck.a
	@$(if $(Q),echo "  BENCH   $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< build/libfabcheck.a $(LIBS)
bench-history: build/bench_history
	@build/bench_history

# Starting 64, 256 and 1,024 local workers from one controller (issue 18).
build/bench_launch: tests/bench/bench_launch.c build/libfabcheck.a
	@$(if $(Q),echo "  BENCH   $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< build/libfabcheck.a $(LIBS)
bench-launch: fabcheck build/bench_launch
	@build/bench_launch

# The TUI on a generated store of 1,024 nodes x 8 rails (issue 18): the
# store's load, the analysis and each view's redraw, timed apart; the full
# matrix writes some gigabytes under TMPDIR (removed at the end).
build/bench_tui: tests/bench/bench_tui.c tests/bench/gen_store.c tests/bench/gen_store.h \
		build/libfabcheck.a
	@$(if $(Q),echo "  BENCH   $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ tests/bench/bench_tui.c tests/bench/gen_store.c \
		build/libfabcheck.a $(LIBS)
bench-tui: build/bench_tui
	@build/bench_tui 1024 8 200x60 0 none
	@build/bench_tui 1024 8 200x60 12 none

# fabcheck report's peak memory, time and output on a generated store of
# 1,024 nodes x 8 rails, every pair (issue 18).
build/bench_report: tests/bench/bench_report.c tests/bench/gen_store.c tests/bench/gen_store.h \
		build/libfabcheck.a
	@$(if $(Q),echo "  BENCH   $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ tests/bench/bench_report.c tests/bench/gen_store.c \
		build/libfabcheck.a $(LIBS)
bench-report: fabcheck build/bench_report
	@build/bench_report 1024 8

install: fabcheck
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/fabcheck/lab \
		$(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 755 fabcheck $(DESTDIR)$(PREFIX)/bin/fabcheck
	install -m 644 lab/*.sh $(DESTDIR)$(PREFIX)/lib/fabcheck/lab/
	install -m 644 doc/fabcheck.1 $(DESTDIR)$(PREFIX)/share/man/man1/fabcheck.1
	install -m 644 doc/fabcheck.bash-completion \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/fabcheck

clean:
	rm -rf build fabcheck

-include $(shell find build -name '*.d' 2>/dev/null)
