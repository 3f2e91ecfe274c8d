# Cases for message rate, locality and write latency by immediate on the
# 2-node rack $RACK_NAME (sourced by tests/rack/run.sh). rxe has no PCI
# device, so sysfs gives its HCA no NUMA node: the locality fields are there
# with the HCA's node null and the buffer's and CPUs' nodes those of the
# guest's one node. Small iteration counts: about a minute in all.
R=("$FC" pair nodeA nodeB --ssh-config "$SSH_CFG" --no-db --timeout 15 --min-gbps 0.0001)

# ---- message rate: QPs over pinned threads, post lists, 8 B messages --------
# 400 sends of 8 B move 3,200 B: with Soft-RoCE's retries on a busy host that can
# fall under R's 0.0001 Gb/s floor, so this case asks only that bytes moved.
expect_json "rate: -q 4 --threads 2 --post-list 16, write and send of 8 B" 0 \
	"d['verdict'] in ('pass', 'warn') and [(r['test'], r['metric']) for r in d['results']] == [('write', 'bw'), ('send', 'bw')] and
	 all(r['msg_rate_mpps'] > 0 and r['qps'] == 4 and r['threads'] == 2 and r['post_list'] == 16 and r['size_bytes'] == 8 for r in d['results'])" \
	-- "${R[@]:0:9}" --min-gbps 0.000001 --test write,send --bw -s 8 -q 4 --threads 2 --post-list 16 -n 400 --json
# perftest's usual message-rate line: CQ moderation the post list's length
# (100 with 64-request lists in a window of 128 left no signalled request in
# flight: it hung until --timeout, issue 26); 640 per QP, a multiple of the list.
expect_json "rate: --perftest -q 4 --post-list 64 finishes, CQ moderation 64" 0 \
	"[(r['test'], r['metric'], r['post_list'], r['method']['cq_mod']) for r in d['results']] == [('write', 'bw', 64, 64)] and
	 d['results'][0]['msg_rate_mpps'] > 0 and d['results'][0]['posted'][0] == 4 * 640" \
	-- "${R[@]:0:9}" --min-gbps 0.000001 --perftest --test write --bw -s 8 -q 4 --post-list 64 -n 640 --json
expect "rate: the text report gives Mpps at every size" 0 \
	"write +2 B .*Mpps.*write +4 B .*Mpps.*write +8 B .*Mpps" \
	-- bash -c "$(printf '%q ' "${R[@]}") --test write --bw -a --max-size 8 --post-list 4 --cq-mod 8 -n 200 | tr '\n' ' '"

# ---- write latency by RDMA WRITE WITH IMMEDIATE on host memory --------------
expect_json "lat-mode imm: write latency on host memory, named in the report" 0 \
	"d['verdict'] in ('pass', 'warn') and len(d['results']) == 1 and
	 d['results'][0]['lat_mode'] == 'imm' and 0 < d['results'][0]['min_us'] <= d['results'][0]['p50_us'] and d['results'][0]['samples'] > 0" \
	-- "${R[@]}" --test write --lat --lat-mode imm -n 100 --json
expect "lat-mode imm: the text names the mode" 0 'write +2 B +50 +[0-9.]+ +[0-9.]+ .* imm' \
	-- "${R[@]}" --test write --lat --lat-mode imm -n 50

# ---- locality and huge pages --------------------------------------------------
expect_json "locality: per side NUMA of HCA, buffer and CPUs in JSON" 0 \
	"all(set(('hca', 'buffer', 'cpus', 'pinned')) <= set(d[s]['numa']) and d[s]['numa']['hca'] is None and
	     d[s]['numa']['buffer'] == 0 and d[s]['numa']['cpus'] == 0 and 'no NUMA node' in d[s]['numa']['note'] and
	     d[s]['relaxed_ordering'] == 'requested' and d[s]['hugepages'] is False for s in ('a', 'b'))" \
	-- "${R[@]}" --test write --bw -s 4K -n 20 --json
expect_json "hugepages: host buffers in 2 MiB pages, data moves" 0 \
	"d['verdict'] in ('pass', 'warn') and all(d[s]['hugepages'] is True and d[s]['page_bytes'] == 2097152 for s in ('a', 'b')) and
	 d['results'][0]['gbps'] > 0" \
	-- "${R[@]}" --test write --bw -s 64K -n 20 --hugepages --json
expect "hugepages: more than the guests reserved is refused, naming the fix" 3 \
	'hugepages: cannot map .*nr_hugepages' \
	-- "${R[@]}" --test write --bw -s 64M -n 2 --hugepages
