#!/usr/bin/env bash
# `make install PREFIX=...` puts the binary, the lab scripts, the man page and
# the bash completion in place, and the installed binary finds its lab script.
set -u
cd "$(dirname "$0")/.." || exit 2
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
pass=0 fail=0
check() { if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi; }
make -s install PREFIX="$d/usr" >/dev/null || { echo "install: 0 passed, 1 failed"; exit 1; }
check "binary" '[ -x "$d/usr/bin/fabcheck" ]'
check "version" '"$d/usr/bin/fabcheck" --version | grep -q "^fabcheck "'
check "man page" '[ -s "$d/usr/share/man/man1/fabcheck.1" ] && man -l "$d/usr/share/man/man1/fabcheck.1" 2>/dev/null | grep -q "fabcheck"'
check "completion" 'bash -c ". \"$d/usr/share/bash-completion/completions/fabcheck\" && complete -p fabcheck" >/dev/null'
check "lab script found" '! "$d/usr/bin/fabcheck" lab status --name install-test 2>&1 | grep -q "cannot find lab/rack.sh"'
check "lab script installed" '[ -s "$d/usr/lib/fabcheck/lab/rack.sh" ]'
echo "install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
