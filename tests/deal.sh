# deal JOBS FILE...: deals the case FILEs to at most JOBS runs side by side,
# the files with the most cases first, each to the least loaded run; sets
# the array `groups` (a space-separated list of files a run). Sourced by
# tests/cli/run.sh and tests/run-valgrind.sh.
deal() {
	local jobs=$1 j best n f
	shift
	[ "$jobs" -lt 1 ] && jobs=1
	local load=()
	groups=()
	for ((j = 0; j < jobs; j++)); do groups[j]=""; load[j]=0; done
	while read -r n f; do
		best=0
		for ((j = 1; j < jobs; j++)); do [ "${load[j]}" -lt "${load[best]}" ] && best=$j; done
		groups[best]+="$f "
		load[best]=$((load[best] + n))
	done < <(for f in "$@"; do n=$(grep -c 'expect' "$f" 2>/dev/null); echo "${n:-0} $f"; done | sort -rn)
}
