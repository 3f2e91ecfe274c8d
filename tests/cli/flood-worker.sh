#!/bin/sh
# flood-worker.sh: fabcheck's own worker ($FC_REAL, its arguments as given),
# with FLOOD_MIB MiB of "log" messages put in before its "finish": a rank
# that floods its NCCL log (issue 35). Every later message is renumbered, so
# the controller sees a well-formed stream of the worker's own messages.
"$FC_REAL" "$@" | python3 -c '
import json, sys
left = int(sys.argv[1]) * 32
off = 0
data = "A" * 32767 + "\n"
while True:
    line = sys.stdin.readline()
    if not line:
        break
    try:
        m = json.loads(line)
    except ValueError:
        sys.stdout.write(line)
        continue
    if m.get("type") == "finish" and left:
        for _ in range(left):
            sys.stdout.write(json.dumps({"v": 1, "seq": m["seq"] + off, "type": "log", "data": data}) + "\n")
            off += 1
        left = 0
    if "seq" in m:
        m["seq"] += off
    sys.stdout.write(json.dumps(m, separators=(",", ":")) + "\n")
    sys.stdout.flush()
' "${FLOOD_MIB:-9}"
