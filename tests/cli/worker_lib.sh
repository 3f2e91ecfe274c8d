# tests/cli/worker_lib.sh: the wire protocol's two moves for the stand-in
# workers (fake-worker.sh, rack-worker.sh), sourced by them.
# say TYPE...: the next message, numbered ("seq").
seq=0
say() { seq=$((seq + 1)); printf '{"v":1,"seq":%d,"type":%s}\n' "$seq" "$1"; }
# next TYPE: the next message other than a ping must be of TYPE; it is in
# $msg either way.
next() {
	local line
	while read -r line; do
		case $line in *'"type":"ping"'*) continue ;; esac
		msg=$line
		case $line in *"\"type\":\"$1\""*) return 0 ;; esac
		return 1
	done
	return 1
}
