# Cases for tests/run-valgrind.sh itself (sourced by tests/cli/run.sh): it
# must fail on a crash, a memory error, a failed build and a missing case
# file, and pass a clean program.
VGT=$(mktemp -d /tmp/fabcheck-cli-vg.XXXXXX)
printf 'int main(void) { volatile int *p = 0; return *p; }\n' >"$VGT/segv.c"
printf '#include <stdlib.h>\nint main(void) { int *p = malloc(4); int v = p[1]; free(p); return v & 0; }\n' >"$VGT/oob.c"
printf 'int main(void) { return 0; }\n' >"$VGT/ok.c"
# forker: forks a child that runs oob, and exits 0 whatever the child did
printf '#include <sys/wait.h>\n#include <unistd.h>\nint main(void) { char *a[] = { "%s", 0 }; pid_t p = fork(); if (!p) { execv(a[0], a); _exit(1); } waitpid(p, 0, 0); return 0; }\n' "$VGT/oob" >"$VGT/forker.c"
# a leak, then the end by SIGTERM (as a controller stops a worker), with
# and without a memory error first; each started by a forker of its own
printf '#include <signal.h>\n#include <stdlib.h>\nvoid *keep;\nint main(int c, char **v) { keep = malloc(8); keep = 0; if (c > 1) { int *p = malloc(4); keep = (void *)(long)p[1]; } raise(SIGTERM); return 0; }\n' >"$VGT/term.c"
printf '#include <sys/wait.h>\n#include <unistd.h>\n#ifndef ARG\n#define ARG 0\n#endif\nint main(void) { char *a[] = { "%s", ARG, 0 }; pid_t p = fork(); if (!p) { execv(a[0], a); _exit(1); } waitpid(p, 0, 0); return 0; }\n' "$VGT/term" >"$VGT/termfork.c"
for p in segv oob ok forker term termfork; do ${CC:-cc} -O0 -g -o "$VGT/$p" "$VGT/$p.c"; done
${CC:-cc} -O0 -g -DARG='"oob"' -o "$VGT/termfork_oob" "$VGT/termfork.c"
expect "valgrind script: a segfault fails" 1 'FAIL: crashed \(signal 11, exit 139\)' -- \
	tests/run-valgrind.sh "$VGT/segv"
expect "valgrind script: a memory error fails" 1 'FAIL: valgrind errors in: .*/oob' -- \
	tests/run-valgrind.sh "$VGT/oob"
expect "valgrind script: a memory error in a child process fails" 1 'FAIL: valgrind errors in a process started by: .*/forker' -- \
	tests/run-valgrind.sh "$VGT/forker"
expect "valgrind script: a child's leak when SIGTERM ended it is not counted" 0 'valgrind: 1 passed, 0 failed' -- \
	tests/run-valgrind.sh "$VGT/termfork"
expect "valgrind script: a child's memory error before SIGTERM ended it fails" 1 'FAIL: valgrind errors in a process started by: .*/termfork_oob' -- \
	tests/run-valgrind.sh "$VGT/termfork_oob"
expect "valgrind script: a clean program passes" 0 'valgrind: 1 passed, 0 failed' -- \
	tests/run-valgrind.sh "$VGT/ok"
expect "valgrind script: a failed build fails" 1 'FAIL: valgrind: the build failed' -- \
	env VG_MAKE=false tests/run-valgrind.sh
expect "valgrind script: a missing case file fails" 1 'no case file tests/cli/cases_nosuch.sh' -- \
	env VG_MAKE=true VG_CASES="topo nosuch" tests/run-valgrind.sh
expect "cli runner: a missing case file fails" 1 'FAIL: no case file /nonexistent/cases_x.sh' -- \
	env CLI_CASES=/nonexistent/cases_x.sh tests/cli/run.sh
rm -rf "$VGT"
