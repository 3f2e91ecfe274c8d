#!/usr/bin/env bash
# The layering of doc/architecture.md, checked on every build: each folder may
# include its own headers and those of the folders below it, and only the
# system headers its row allows. Prints each breach and exits 1.
#   scripts/layers.sh [FILE...]   (default: every C file of the program)
set -u
cd "$(dirname "$0")/.." || exit 2

# Rank of a folder: a folder includes only folders of a lower rank.
rank() {
	case $1 in
	core) echo 0 ;;
	store | verbs | topo) echo 1 ;;
	gdr | diag | baseline) echo 2 ;;
	ctl) echo 3 ;;
	pair) echo 4 ;;
	matrix) echo 5 ;;
	checks/nccl/env) echo 6 ;;
	checks/nccl/log) echo 7 ;;
	checks/nccl/run) echo 8 ;;
	checks/* | report | plan | tui | lab) echo 6 ;;
	src) echo 9 ;;
	*) echo "" ;;
	esac
}

# System headers a folder must not include (pattern for grep -E on the name).
banned() {
	local common='^(cuda|cuda_runtime|nccl)\.h$'
	case $1 in
	core | topo) echo "$common|^(infiniband|rdma)/|^sqlite3\.h$|curses|^numa" ;;
	store) echo "$common|^(infiniband|rdma)/|curses" ;;
	tui) echo "$common|^(infiniband|rdma)/" ;;
	*) echo "$common|^sqlite3\.h$|curses" ;;
	esac
}
allowed_sys() { # the folders that may include a banned-elsewhere header
	case $2 in
	sqlite3.h) [ "$1" = store ] ;;
	*curses*) [ "$1" = tui ] ;;
	*) return 1 ;;
	esac
}

files=("$@")
[ ${#files[@]} -gt 0 ] || mapfile -t files < <(git ls-files --cached --others \
	--exclude-standard '*.c' '*.h' | grep -Ev '^(tests|build)/')
bad=0
declare -A seen
for f in "${files[@]}"; do
	[ -f "$f" ] && [ -z "${seen[$f]:-}" ] || continue
	seen[$f]=1
	dir=$(dirname "$f")
	me=$(rank "$dir")
	if [ -z "$me" ]; then
		echo "layers: $f: folder '$dir' has no row in scripts/layers.sh (add it, and to doc/architecture.md)"
		bad=1; continue
	fi
	while IFS=: read -r ln inc; do
		idir=$(dirname "$inc")
		[ "$idir" = "$dir" ] && continue
		if [ "$inc" = src/cmds.h ]; then continue; fi # the command entry points
		if [ "$idir" = . ]; then
			echo "layers: $f:$ln: #include \"$inc\": name headers from the top (\"$dir/$inc\")"
			bad=1; continue
		fi
		r=$(rank "$idir")
		if [ -z "$r" ] || [ "$r" -ge "$me" ]; then
			echo "layers: $f:$ln: $dir/ may not include \"$inc\" ($idir/ is not below it)"
			bad=1
		fi
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
		sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2/')
	pat=$(banned "$dir")
	while IFS=: read -r ln inc; do
		[ -n "$inc" ] || continue
		if echo "$inc" | grep -Eq "$pat" && ! allowed_sys "$dir" "$inc"; then
			echo "layers: $f:$ln: $dir/ may not include <$inc>"
			bad=1
		fi
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*<' "$f" |
		sed 's/^\([0-9]*\):.*<\([^>]*\)>.*/\1:\2/')
done
exit $bad
