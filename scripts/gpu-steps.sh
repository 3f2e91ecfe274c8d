# shellcheck shell=bash
# The steps of scripts/gpu-selftest (sourced by it: step, say, jget, FCC,
# OUT, SIZES and the other names are its own).

# The machine's glibc against the newest the bundle's files ask for (MANIFEST).
glibc_ok() {
	local need have
	need=$(sed -n 's/^glibc //p' "$in_bundle/MANIFEST")
	have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
	[ -z "$need" ] || [ -z "$have" ] ||
		[ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1)" = "$need" ] && return 0
	say FAIL setup "this machine's glibc $have is older than the $need the bundle's files need: make the bundle on a system with glibc $have or older"
	return 1
}

# The tree parts: this machine's /sys, a recorded tree, a recorded NCCL log.
steps_no_gpu() {
	local rc
	step topo "${FCC[@]}" topo --sysfs /sys --json; rc=$?
	if [ $rc -eq 0 ]; then
		say PASS topo "/sys read: $(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
g, n = d.get("gpus") or [], d.get("nics") or []
print("%d GPUs (%s), %d NICs, verdict %s" % (len(g), " ".join(x.get("bus_id", "?") for x in g), len(n), d.get("verdict")))' "$D/stdout" 2>/dev/null)"
	elif [ $rc -eq 3 ] && grep -q 'nothing to check' "$D/stderr"; then
		say SKIP topo "no GPU or HCA in this machine's /sys"
	else
		say FAIL topo "exit $rc: $(err)"
	fi
	step topo-recorded-tree bash -c "$(printf '%q ' "$MKSYSFS") \"\$1\" h100 && $(printf '%q ' "${FCC[@]}") topo --sysfs \"\$1\" --json" \
		_ "$OUT/work/h100"
	rc=$?
	[ $rc -eq 0 ] && grep -q '"mlx5_10"' "$D/stdout" &&
		say PASS topo-recorded-tree "a DGX H100-like tree read (mksysfs.sh h100)" ||
		say FAIL topo-recorded-tree "exit $rc: $(err)"
	step check-log-fixture "${FCC[@]}" nccl check-log "${FIXLOG:-/no/fixture}"; rc=$?
	[ -n "$FIXLOG" ] && [ $rc -le 1 ] && say PASS check-log-fixture "${FIXLOG##*/} analysed (exit $rc)" ||
		say FAIL check-log-fixture "exit $rc on '${FIXLOG:-no fixture}': $(err)"
}

# nvidia-smi: -q kept whole, the GPU's name, memory and versions.
steps_gpu_info() {
	step nvidia-smi nvidia-smi -q
	cp "$D/stdout" "$OUT/nvidia-smi-q.txt" 2>/dev/null
	if ! grep -q '^Attached GPUs *: *[1-9]' "$D/stdout"; then
		say FAIL gpu "no NVIDIA GPU here (nvidia-smi -q: $(err 100)$(grep -m1 'Attached GPUs' "$D/stdout")): the GPU steps need one"
		return 1
	fi
	step versions nvidia-smi --query-gpu=name,memory.total,driver_version,pci.bus_id \
		--format=csv,noheader,nounits -i 0
	IFS=, read -r gpu_name mem_mib drv bus <"$D/stdout"
	mem_mib=${mem_mib// /}
	[[ $mem_mib =~ ^[0-9]+$ ]] || mem_mib=
	{
		echo "gpu 0: $gpu_name, $mem_mib MiB, bus $bus"
		echo "driver (nvidia-smi): $drv"
		echo "CUDA (nvidia-smi -q): $(sed -n 's/^CUDA Version *: *//p' "$OUT/nvidia-smi-q.txt")"
		echo "nvcc: $(nvcc --version 2>/dev/null | tail -1)"
		echo "compute-sanitizer: $(compute-sanitizer --version 2>/dev/null | tail -1)"
		echo "glibc: $(getconf GNU_LIBC_VERSION 2>/dev/null)"
		echo "kernel: $(uname -r)"
		echo "python3: $(python3 --version 2>&1)"
	} >"$OUT/versions.txt"
	say INFO gpu "$gpu_name,$drv driver, ${mem_mib:-?} MiB"
}

# gpu-check: driver symbols, attributes, the flush and why, dma-buf export.
steps_attrs() {
	local a v j
	if step attrs "${FCC[@]}" gpu-check --gpu 0 -s 1M -n 2 --json; then
		say PASS driver-symbols "bound from $(jget "$D/stdout" library), driver $(jget "$D/stdout" driver_version)"
	else
		say FAIL driver-symbols "gpu-check exit $(cat "$D/rc"): $(err 300)"
	fi
	j=$D/stdout
	echo "cuDriverGetVersion (gpu-check): $(jget "$j" driver_version)" >>"$OUT/versions.txt"
	for a in dma_buf gdr_rdma compute_capability flush_writes_options writes_ordering; do
		v=$(jget "$j" "gpus.0.$a")
		[ -n "$v" ] && say PASS "attr-$a" "$v" || say FAIL "attr-$a" "not in gpu-check --json"
	done
	# The attributes gdr_flush_decide reads (gdr/gpu_pick.c): writes ordering
	# (100 OWNER, 200 ALL_DEVICES: no flush), the flush options (bit 0 HOST:
	# cuFlushGPUDirectRDMAWrites), the HCA's distance for a C2C GPU.
	v=$(jget "$j" flush.how)
	a=$(jget "$j" gpu.hca)
	[ -n "$v" ] && say INFO flush "$(jget "$j" flush.why); from writes_ordering=$(jget "$j" gpus.0.writes_ordering), flush_writes_options=$(jget "$j" gpus.0.flush_writes_options), compute capability $(jget "$j" gpus.0.compute_capability), ${a:+HCA $a at $(jget "$j" gpu.distance)}${a:-no HCA}" ||
		say FAIL flush "no flush decision in gpu-check --json"
	case $(jget "$j" dmabuf_export) in
	ok) say PASS dmabuf-export "exported ($(jget "$j" dmabuf_mapping) mapping)" ;;
	unsupported) say SKIP dmabuf-export "the GPU does not report dma-buf" ;;
	*) say FAIL dmabuf-export "'$(jget "$j" dmabuf_export)'" ;;
	esac
}

# gpu-check from 64 KiB to 4 GiB (where the GPU and --max-copy allow), its
# error paths: no such GPU, a size past the GPU's memory (the driver's OOM).
steps_sizes() {
	local s b need rc big
	for s in $SIZES; do
		b=$(numfmt --from=iec "$s") need=$((b / 1048576 * 2 + 1024))
		if [ -n "${max_b:-}" ] && [ "$b" -gt "$max_b" ]; then
			nostep; say SKIP "gpu-check-$s" "above --max-copy $max_copy"; continue
		elif [ -n "$mem_mib" ] && [ "$mem_mib" -lt "$need" ]; then
			nostep; say SKIP "gpu-check-$s" "the GPU has $mem_mib MiB"; continue
		fi
		if step "gpu-check-$s" "${FCC[@]}" gpu-check --gpu 0 -s "$s" -n 3 --json; then
			say PASS "gpu-check-$s" "copy $(jget "$D/stdout" copy_check), validate $(jget "$D/stdout" validate), h2d $(jget "$D/stdout" h2d_gbps) GB/s, d2h $(jget "$D/stdout" d2h_gbps) GB/s"
		else
			say FAIL "gpu-check-$s" "exit $(cat "$D/rc"): $(err)"
		fi
	done
	step gpu-check-no-such-gpu "${FCC[@]}" gpu-check --gpu 99; rc=$?
	[ $rc -eq 3 ] && say PASS gpu-check-no-such-gpu "exit 3, $(grep -ho 'GPU 99 not found[^;]*' "$D/stderr" "$D/stdout" | head -1)" ||
		say FAIL gpu-check-no-such-gpu "exit $rc, want 3: $(err)"
	if [ -z "$mem_mib" ]; then
		nostep; say FAIL gpu-check-oom "nvidia-smi gave no memory.total"; return
	fi
	big=$((mem_mib / 1024 + 8))G
	step gpu-check-oom "${FCC[@]}" gpu-check --gpu 0 -s "$big" -n 1; rc=$?
	[ $rc -eq 3 ] && grep -q 'OUT_OF_MEMORY' "$D/stderr" &&
		say PASS gpu-check-oom "$big past the GPU's $mem_mib MiB: exit 3, CUDA_ERROR_OUT_OF_MEMORY" ||
		say FAIL gpu-check-oom "$big past the GPU's $mem_mib MiB: exit $rc, want 3 and the driver's out-of-memory: $(err)"
}

steps_sanitizer() {
	if ! command -v compute-sanitizer >/dev/null; then
		nostep; say SKIP compute-sanitizer "not installed"; return
	fi
	# The bundle's library path for fabcheck, the sanitizer's target.
	if step compute-sanitizer "${FCC[@]:0:${#FCC[@]}-1}" compute-sanitizer --error-exitcode 9 \
		"$FC" gpu-check --gpu 0 -s 1M -n 2; then
		say PASS compute-sanitizer "$(grep -m1 'ERROR SUMMARY' "$D/stdout")"
	else
		say FAIL compute-sanitizer "exit $(cat "$D/rc"): $(grep -m1 -i error "$D/stdout")"
	fi
	cp "$D/stdout" "$OUT/compute-sanitizer.txt"
}

# NCCL where the image has it: --nccl (or FABCHECK_LIBNCCL) as given, else
# the loader's path (the caller's LD_LIBRARY_PATH, then ld.so.cache), else
# the nvidia-nccl wheel's folder in python3's site-packages.
find_nccl() {
	local d p
	for p in "$nccl_opt" "${FABCHECK_LIBNCCL:-}"; do
		[ -n "$p" ] || continue
		is_elf "$p" && { echo "$p (given)"; return 0; }
		echo "'$p' is not a library" >&2; return 1
	done
	IFS=: read -ra dirs <<<"${LD_LIBRARY_PATH:-}"
	for d in "${dirs[@]}"; do
		is_elf "$d/libnccl.so.2" && { echo "$d/libnccl.so.2 (LD_LIBRARY_PATH)"; return 0; }
	done
	p=$(ldconfig -p 2>/dev/null | awk '$1 == "libnccl.so.2" {print $NF; exit}')
	is_elf "$p" && { echo "$p (ld.so.cache)"; return 0; }
	p=$(python3 -c 'import os, sys
for d in sys.path:
    f = os.path.join(d or ".", "nvidia", "nccl", "lib", "libnccl.so.2")
    if os.path.isfile(f):
        print(os.path.abspath(f)); break' 2>/dev/null)
	is_elf "$p" && { echo "$p (the nvidia-nccl wheel)"; return 0; }
	echo "no libnccl.so.2 on the loader's path nor in python3's site-packages (nvidia/nccl/lib): give --nccl PATH" >&2
	return 1
}

steps_nccl() {
	local nccl rc
	export -f find_nccl is_elf
	export nccl_opt
	if step nccl-find bash -c find_nccl; then
		nccl=$(sed 's/ ([^)]*)$//' "$D/stdout")
		say INFO nccl "$(cat "$D/stdout")"
	else
		say FAIL nccl-run-1rank "$(err 300)"
		return
	fi
	echo "nccl: $(cat "$D/stdout")" >>"$OUT/versions.txt"
	step nccl-run-1rank env "FABCHECK_LIBNCCL=$nccl" "${FCC[@]}" nccl run localhost --launcher local \
		-g 1 -e 64M -n 5 --timeout 40 --log-dir "$OUT/nccl-logs" --json
	rc=$?
	local sizes wrong
	sizes=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["results"]))' "$D/stdout" 2>/dev/null)
	wrong=$(python3 -c 'import json, sys; print(sum(r["wrong"] for r in json.load(open(sys.argv[1]))["results"]))' "$D/stdout" 2>/dev/null)
	if [ $rc -eq 0 ] && [ "${sizes:-0}" -gt 0 ] && [ "$wrong" = 0 ]; then
		say PASS nccl-run-1rank "sums right at $sizes sizes, NCCL $(jget "$D/stdout" nccl_version)"
		echo "NCCL (ncclGetVersion): $(jget "$D/stdout" nccl_version)" >>"$OUT/versions.txt"
	else
		say FAIL nccl-run-1rank "exit $rc, ${sizes:-no} sizes, ${wrong:-?} wrong: $(err 300)"
	fi
	if ls "$OUT"/nccl-logs/*.log >/dev/null 2>&1; then
		step check-log-own "${FCC[@]}" nccl check-log "$OUT"/nccl-logs/*.log; rc=$?
		[ $rc -le 1 ] && say PASS check-log-own "its log analysed (exit $rc): $(grep -m1 verdict "$D/stdout")" ||
			say FAIL check-log-own "exit $rc: $(err)"
	else
		nostep; say FAIL check-log-own "nccl run kept no log in $OUT/nccl-logs"
	fi
}

run_steps() {
	nostep
	[ -z "$in_bundle" ] || glibc_ok || finish
	steps_no_gpu
	steps_gpu_info || finish
	steps_attrs
	steps_sizes
	steps_sanitizer
	steps_nccl
}
