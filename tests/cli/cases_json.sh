# --json on every exit: one JSON document on stdout (stdout only, parsed
# whole, so a second document or stray text fails), with "verdict",
# "findings" and "error" (null on exit 0 and a judged fail, else an object
# with code, exit_code, message and the input it names). Sourced by
# tests/cli/run.sh.
JT=$(mktemp -d /tmp/fc-json-XXXXXX)
printf 'not a database, not even close\n%.0s' $(seq 200) >"$JT/corrupt.db"
mkdir "$JT/dir"

# expect_doc NAME RC CODE INPUT -- CMD...: CMD exits RC and its stdout is one
# document whose error code is CODE ("null": no error object) and whose
# error input is INPUT ("-": null).
expect_doc() {
	local name=$1 want=$2 code=$3 input=$4 out rc why
	shift 5
	out=$("$@" 2>/dev/null </dev/null)
	rc=$?
	why=$(python3 -c '
import json, sys
code, inp = sys.argv[1], sys.argv[2]
d = json.loads(sys.stdin.read())
assert isinstance(d, dict), "not an object"
assert d.get("verdict") in ("pass", "warn", "fail", "error"), "verdict %r" % d.get("verdict")
assert isinstance(d.get("findings"), list), "no findings list"
assert "error" in d, "no error key"
e = d["error"]
if code == "null":
    assert e is None, "error %r" % e
else:
    assert isinstance(e, dict) and e["code"] == code, "error %r" % e
    assert e["exit_code"] == int(sys.argv[3]) and e["message"], "error %r" % e
    assert e["input"] == (None if inp == "-" else inp), "input %r" % e["input"]
    assert d["findings"], "an error with no finding"
' "$code" "$input" "$want" <<<"$out" 2>&1)
	if [ "$rc" -eq "$want" ] && [ -z "$why" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $name: exit $rc (want $want): ${why:-}"
		sed 's/^/    /' <<<"$out" | head -20
	fi
}

# ---- files: missing, a directory, unreadable content ---------------------------
expect_doc "json: check-log missing file" 3 cant_run "$JT/none.log" -- \
	$FC nccl check-log "$JT/none.log" --json
expect_doc "json: check-log a directory" 3 cant_run "$JT/dir" -- \
	$FC nccl check-log "$JT/dir" --json
expect_doc "json: env --file missing" 2 usage "$JT/none.sh" -- \
	$FC nccl env --file "$JT/none.sh" --json
expect_doc "json: topo --nvidia-smi-topo missing" 3 cant_run "$JT/none.txt" -- \
	$FC topo --nvidia-smi-topo "$JT/none.txt" --json
expect_doc "json: topo --nvidia-smi-topo a directory" 3 cant_run "$JT/dir" -- \
	$FC topo --nvidia-smi-topo "$JT/dir" --json
expect_doc "json: a corrupt store" 3 cant_run "$JT/corrupt.db" -- \
	$FC matrix --resume 1 --db "$JT/corrupt.db" --json
expect_doc "json: matrix --hostfile missing" 2 usage "$JT/none.txt" -- \
	$FC matrix --hostfile "$JT/none.txt" --json

# ---- usage errors, before and after the command reads its options -------------
expect_doc "json: bad --topo (no such option)" 2 usage --topo -- $FC topo --topo x --json
expect_doc "json: no command" 2 usage - -- $FC --json
expect_doc "json: unknown command" 2 usage bogus -- $FC bogus --json
expect_doc "json: unknown global option" 2 usage --frob -- $FC --frob --json
expect_doc "json: option without its value" 2 usage --tclass -- $FC pair a b --json --tclass
expect_doc "json: a flag given a value" 2 usage --bw -- $FC pair a b --bw=1 --json
expect_doc "json: a bad number" 2 usage 70X -- $FC plan --params 70X --gpus 8 --json
expect_doc "json: pair with one node" 2 usage - -- $FC pair a --json
expect_doc "json: bad node name" 2 usage 'a;b' -- $FC pair 'a;b' c --json
for cmd in devices gpu-check pair matrix preflight soak tui report topo plan \
	"nccl check-log" "nccl env" "nccl run" version worker; do
	# shellcheck disable=SC2086
	expect_doc "json: $cmd --frob" 2 usage --frob -- $FC $cmd --frob --json
done
expect_doc "json: nccl without a subcommand" 2 usage - -- $FC nccl --json

# ---- exits without an error: help, version, a judged result --------------------
expect_doc "json: help" 0 null - -- $FC help --json
expect_doc "json: CMD --help" 0 null - -- $FC pair --help --json
expect_doc "json: version" 0 null - -- $FC version --json
expect_doc "json: plan passes" 0 null - -- $FC plan --params 7B --gpus 8 --json
expect_doc "json: devices without RDMA: judged, and could not run" 3 cant_run - -- \
	$FC devices --json
expect "json: help's document holds the usage" 0 '"usage": "usage: fabcheck pair' -- \
	$FC pair --help --json
expect "json: text mode names the unknown option" 2 "pair: unknown option '--frob'" -- \
	$FC pair --frob
expect "json: text mode names the option without a value" 2 \
	"pair: option '--tclass' requires an argument" -- $FC pair a b --tclass
rm -rf "$JT"
