#!/usr/bin/env bash
# ./fabcheck under valgrind memcheck: exit 99 on a memory error or a
# definite leak, the program's own exit code otherwise (a signal: 128+N).
# The FC of tests/cli/run.sh for tests/run-valgrind.sh.
here=$(cd "$(dirname "$0")/.." && pwd)
exec valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	"$here/fabcheck" "$@"
