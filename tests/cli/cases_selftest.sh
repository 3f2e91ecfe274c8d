# Cases for scripts/gpu-selftest (sourced by tests/cli/run.sh): the bundle
# (--bundle) run in a clean environment, on the stand-in driver
# (tests/gdr/fakecuda.c), the stand-in NCCL (tests/ncclrun/fakenccl.c) laid
# out as the nvidia-nccl wheel, and stand-in nvidia-smi and compute-sanitizer
# (tests/gdr/standin/) reporting an H200. The bundle is of the plain build
# (./fabcheck): the self-test copies gigabytes where a GPU has them.
ST=$(mktemp -d)
mkdir -p "$ST/site/nvidia/nccl/lib" "$ST/nccl"
${CC:-cc} -Wall -Wextra -Werror -shared -fPIC -o "$ST/libfakecuda.so" tests/gdr/fakecuda.c &&
	${CC:-cc} -Wall -Wextra -Werror -shared -fPIC -o "$ST/site/nvidia/nccl/lib/libnccl.so.2" tests/ncclrun/fakenccl.c ||
	echo "FAIL: cannot build the libcuda / libnccl stand-ins"

expect "selftest: unknown argument" 2 "unknown argument '--frob'" -- scripts/gpu-selftest --frob
expect "selftest: --out holds files" 2 "--out '/etc' is not an empty folder: give a new or empty one" \
	-- scripts/gpu-selftest --out /etc
expect "selftest: --max-copy not a size" 2 "--max-copy: 'lots' is not a size" \
	-- scripts/gpu-selftest --out "$ST/o0" --max-copy lots
expect "bundle: into a folder holding files" 2 "--bundle '/etc' is not an empty folder" \
	-- scripts/gpu-selftest --bundle /etc
expect "bundle: made" 0 'bundle: .* \([0-9]+ libraries, glibc 2\.[0-9]+ or newer\)' \
	-- scripts/gpu-selftest --bundle "$ST/b" --fabcheck ./fabcheck
# Every library the loader resolves for fabcheck beyond glibc is in it.
expect "bundle: every library ldd names" 0 '^all [0-9]+ bundled$' -- bash -c '
	n=0; for l in $(ldd ./fabcheck | awk "\$3 ~ /^\\// {print \$1}" | grep -Ev "^(libc|libm|libdl|libpthread|librt|ld-linux.*)\\.so"); do
		[ -f "$1/lib/$l" ] || { echo "missing $l"; exit 1; }; n=$((n + 1)); done; echo "all $n bundled"' _ "$ST/b"
expect "bundle: the dlopened libmlx5 and its needs" 0 'dlopen libmlx5.so.1: bundled from /' -- cat "$ST/b/MANIFEST"
expect "bundle: the driver and NCCL are the machine's" 0 'dlopen libnccl.so.2: the GPU machine.s own' -- cat "$ST/b/MANIFEST"

# clean SCRIPT: runs SCRIPT (sh) in a mount namespace where the system's
# rdma-core, jansson, SQLite, ncurses, libnuma and libnl libraries and its
# NCCL are empty files (libtinfo stays: bash needs it on any machine).
touch "$ST/empty"
HIDE=$(ldconfig -p | awk '$1 ~ /^lib(ibverbs|rdmacm|mlx[45]|jansson|sqlite3|ncursesw?|formw?|menuw?|panelw?|numa|nl-[a-z0-9-]+|nccl)\.so/ {print $NF}' |
	xargs -r readlink -f | sort -u)
clean() {
	unshare -m sh -c 'e=$1; s=$2; shift 2; for f; do mount --bind "$e" "$f" || exit 97; done; exec sh -c "$s"' \
		_ "$ST/empty" "$1" $HIDE
}
CLEANENV="env -i PATH=$PWD/tests/gdr/standin:/usr/bin:/bin:/usr/sbin:/sbin PYTHONPATH=$ST/site FAKENCCL_DIR=$ST/nccl FAKECUDA_GPUS=1 FAKECUDA_MEM_MIB=143771 FAKECUDA_CC=90 FABCHECK_LIBCUDA=$ST/libfakecuda.so"
expect "clean environment: the system's libraries are hidden" 127 'error while loading shared libraries: .*lib(ibverbs|rdmacm|ncursesw|sqlite3|jansson|numa|nl-[a-z-]+3)\.so[.0-9]*: file too short' \
	-- clean "$CLEANENV $ST/b/bin/fabcheck --help"
expect "clean environment: the bundle runs every step" 0 'selftest: 0 failed in [0-9]+ s \(deadline 480 s\)' \
	-- clean "$CLEANENV $ST/b/run --out $ST/out --max-copy 1M"
expect "clean environment: NCCL from the wheel's folder" 0 "INFO nccl: $ST/site/nvidia/nccl/lib/libnccl.so.2 \(the nvidia-nccl wheel\)" \
	-- cat "$ST/out/selftest.log"
expect "clean environment: the OOM step past an H200's memory" 0 '^PASS gpu-check-oom: 148G past the GPU.s 143771 MiB: exit 3, CUDA_ERROR_OUT_OF_MEMORY' \
	-- cat "$ST/out/selftest.log"
expect "clean environment: the flush with its attributes" 0 '^INFO flush: .*from writes_ordering=0, flush_writes_options=1, compute capability 90, no HCA' \
	-- cat "$ST/out/selftest.log"
expect "clean environment: nccl run's sums and its own log" 0 'PASS nccl-run-1rank: sums right at 17 sizes.*PASS check-log-own' \
	-- bash -c "tr '\n' ' ' <$ST/out/selftest.log"
expect "clean environment: copies planned from 64K to 4G" 0 '^64K 1M 256M 1G 4G$' \
	-- bash -c "awk -F'\t' '\$2 ~ /^gpu-check-[0-9]/ {sub(/gpu-check-/, \"\", \$2); printf \"%s%s\", s, \$2; s=\" \"} END {print \"\"}' $ST/out/summary.tsv"
# Each step within its share, every share within the deadline, no failure.
expect "clean environment: each step within its share" 0 '^[1-9][0-9]* steps timed, 0 past their share, 0 failed$' \
	-- bash -c "awk -F'\t' '\$4 ~ /^[0-9]+$/ {n++; if (\$4 > \$5) late++} \$1 == \"FAIL\" {bad++} END {printf \"%d steps timed, %d past their share, %d failed\n\", n, late, bad}' $ST/out/summary.tsv"
expect "clean environment: --out filled" 0 '^ok$' -- bash -c '
	o=$1; for f in summary.txt summary.tsv selftest.log nvidia-smi-q.txt versions.txt compute-sanitizer.txt; do
		[ -s "$o/$f" ] || { echo "no $f"; exit 1; }; done
	ls "$o"/nccl-logs/*.log >/dev/null || exit 1
	for d in "$o"/steps/*/; do for f in cmd rc stdout stderr seconds; do
		[ -f "$d$f" ] || { echo "no $d$f"; exit 1; }; done; done
	[ -s "$o"/steps/06-attrs/out.json ] && grep -q "CUDA Version *: 12.8" "$o/nvidia-smi-q.txt" &&
		grep -q "^cuDriverGetVersion (gpu-check): 12.4" "$o/versions.txt" && echo ok' _ "$ST/out"
# No GPU: the tree steps run, the GPU steps are not tried, exit 1; a
# relative --out is the caller's.
expect "selftest: no GPU" 1 'FAIL gpu: no NVIDIA GPU here .*selftest: 1 failed' \
	-- bash -c "cd $ST && env PATH=$PWD/tests/gdr/standin:/usr/bin:/bin STANDIN_SMI=nogpu $PWD/scripts/gpu-selftest --out nogpu >log; rc=\$?; tr '\n' ' ' <log; test -s nogpu/summary.txt -a -s nogpu/steps/04-nvidia-smi/stderr && exit \$rc"
rm -rf "$ST"
