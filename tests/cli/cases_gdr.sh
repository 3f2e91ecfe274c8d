# Cases for GPU memory (`gpu-check`; sourced by tests/cli/run.sh). This host
# has no GPU: the error paths run against a test-only stand-in for
# libcuda.so.1 (tests/gdr/fakecuda.c, loaded through FABCHECK_LIBCUDA) that
# answers with CUDA error codes, and against recorded sysfs trees.
FAKE=build/tests/libfakecuda.so
FAKE_OLD=build/tests/libfakecuda-old.so
mkdir -p build/tests
${CC:-cc} -Wall -Wextra -Werror -shared -fPIC -o "$FAKE" tests/gdr/fakecuda.c &&
	${CC:-cc} -Wall -Wextra -Werror -shared -fPIC -DFAKE_OLD -o "$FAKE_OLD" tests/gdr/fakecuda.c ||
	echo "FAIL: cannot build the fake CUDA driver library"
T2S=tests/data/gdr/two-socket
TNP=tests/data/gdr/no-peermem
# A sysfs root with nothing in it: no peermem, no PCI tree.
EMPTY=$(mktemp -d)
# fake SYSFS [VAR=VALUE...] CMD...: runs CMD on the stand-in driver and tree.
fake() { local sys=$1; shift; env FABCHECK_LIBCUDA="$FAKE" FABCHECK_SYSFS="$sys" "$@"; }

expect "gpu-check help" 0 'usage: fabcheck gpu-check' -- $FC gpu-check --help
expect "gpu-check bad gpu" 2 "--gpu: 'abc' is not a GPU" -- $FC gpu-check --gpu abc
expect "gpu-check bad bus id" 2 "--gpu: '0000:3b:00.9' is not a GPU" -- $FC gpu-check --gpu 0000:3b:00.9
expect "gpu-check bad gdr" 2 "--gdr: 'host' is not a registration method" -- $FC gpu-check --gdr host
expect "gpu-check bad size" 2 "--size: '10' is out of range" -- $FC gpu-check --size 10
expect "gpu-check extra arg" 2 "unexpected argument 'x'" -- $FC gpu-check x

# No driver at all.
expect "no libcuda" 3 'cannot load /nonexistent/libcuda.so.1 .*fix: install the NVIDIA driver, or, in a bandwidth test, drop --use-cuda' \
	-- env FABCHECK_LIBCUDA=/nonexistent/libcuda.so.1 $FC gpu-check
expect "no libcuda json" 3 '"verdict": "fail".*' \
	-- env FABCHECK_LIBCUDA=/nonexistent/libcuda.so.1 $FC gpu-check --json
expect "no libcuda json names it" 3 'cannot load /nonexistent/libcuda.so.1' \
	-- env FABCHECK_LIBCUDA=/nonexistent/libcuda.so.1 $FC gpu-check --json
# A driver library, but no usable device.
expect "toolkit stub" 3 "stub, not the driver .*CUDA_ERROR_STUB_LIBRARY.*LD_LIBRARY_PATH" \
	-- env FAKECUDA=stub FABCHECK_LIBCUDA=$FAKE $FC gpu-check
expect "no device" 3 'no CUDA device on .*CUDA_ERROR_NO_DEVICE.*nvidia-smi' \
	-- env FAKECUDA=nodev FABCHECK_LIBCUDA=$FAKE $FC gpu-check
expect "zero devices" 3 'no CUDA device on .*0 devices' \
	-- env FAKECUDA=zero FABCHECK_LIBCUDA=$FAKE $FC gpu-check
expect "cuInit fails" 3 'cuInit failed on .*CUDA_ERROR_UNKNOWN \(999\).*dmesg' \
	-- env FAKECUDA=fail FABCHECK_LIBCUDA=$FAKE $FC gpu-check
expect "cuInit 802: fabric manager" 3 'CUDA error 802.*start the fabric manager \(systemctl start nvidia-fabricmanager' \
	-- env FAKECUDA=nofm FABCHECK_LIBCUDA=$FAKE $FC gpu-check
expect "cuInit 803: driver mismatch" 3 'CUDA error 803.*libcuda.so\) and the kernel module differ' \
	-- env FAKECUDA=mismatch FABCHECK_LIBCUDA=$FAKE $FC gpu-check
expect "driver too old" 3 'has no cuMemAlloc_v2: the NVIDIA driver is too old; fix: update' \
	-- env FABCHECK_LIBCUDA=$FAKE_OLD $FC gpu-check
# GPU index or bus id that is not there.
expect "gpu index not found" 3 'GPU 5 not found; this node has 2 GPUs: 0 \(0000:3B:00.0\), 1 \(0000:86:00.0\)' \
	-- fake $EMPTY $FC gpu-check --gpu 5
expect "gpu bus not found" 3 'no GPU at bus id 0000:af:00.0' -- fake $EMPTY $FC gpu-check --gpu 0000:af:00.0
expect "gpu not found json" 3 '"findings": \[' -- fake $EMPTY $FC gpu-check --gpu 5 --json
expect "gpu oom" 3 'cannot allocate .*CUDA_ERROR_OUT_OF_MEMORY.*smaller --size' \
	-- env FAKECUDA=oom FABCHECK_LIBCUDA=$FAKE $FC gpu-check -s 1M
# A size past the GPU's memory (an H200's 143771 MiB, nvidia-smi's figure)
# reaches the driver and gets its out-of-memory, not a usage error.
expect "gpu past its memory: the driver's oom" 3 'cannot allocate 158913789952 bytes on GPU 0.*CUDA_ERROR_OUT_OF_MEMORY' \
	-- env FAKECUDA_MEM_MIB=143771 FABCHECK_LIBCUDA=$FAKE $FC gpu-check -s 148G -n 1
# A size the GPU holds but whose two host copies exceed this node's RAM
# (the stand-in's device memory is lazy host memory, never touched here; the
# plain build, as ASan's allocator takes most of a minute over such a block).
HALF_RAM_G=$(awk '/^MemTotal:/{print int($2 / 2097152) + 1}' /proc/meminfo)
expect "gpu-check: the host copies past this node's RAM" 3 'stages --size twice in host memory .*use a --size of at most half the RAM' \
	-- fake $EMPTY ./fabcheck gpu-check -s "${HALF_RAM_G}G" -n 1

# The self-check end to end on the stand-in (host memory behind it).
expect "gpu-check runs" 0 'copy check +ok' -- fake $EMPTY $FC gpu-check -s 1M -n 2
expect "gpu-check validate" 0 'validate pattern +ok' -- fake $EMPTY $FC gpu-check -s 1M -n 2
expect "gpu-check export" 0 'dma-buf export +ok' -- fake $EMPTY $FC gpu-check -s 1M -n 2
expect "gpu-check rates" 0 'host -> GPU copy +[0-9]+\.[0-9]+ GB/s' -- fake $EMPTY $FC gpu-check -s 1M -n 2
expect "gpu-check json" 0 '"h2d_gbps": [0-9]' -- fake $EMPTY $FC gpu-check -s 1M -n 2 --json
expect "gpu-check by bus id" 0 'GPU 1 \(0000:86:00.0\)' -- fake $EMPTY $FC gpu-check -s 1M -n 1 --gpu 86:00.0
expect "corrupting copy" 1 'first bad byte at offset 4113 of 1048576' \
	-- env FAKECUDA=corrupt FABCHECK_LIBCUDA=$FAKE $FC gpu-check -s 1M -n 1
expect "corrupting copy validate" 1 'validate pattern +mismatch at offset 4113' \
	-- env FAKECUDA=corrupt FABCHECK_LIBCUDA=$FAKE $FC gpu-check -s 1M -n 1

# Registration: neither dma-buf nor peermem, and forced methods.
expect "no dmabuf no peermem" 1 'neither dma-buf nor peermem .*fix: modprobe nvidia-peermem, or use an NVIDIA driver and kernel with dma-buf' \
	-- fake $TNP FAKECUDA=nodmabuf $FC gpu-check -s 1M -n 1
# A GPU node without an HCA: what could be checked was, a warning, exit 0.
expect "no HCA, no dmabuf, no peermem: a warning" 0 'no RDMA device on .*: registration with an HCA not tried; GPUDirect RDMA would not work as the node is: .*neither dma-buf nor peermem' \
	-- fake $EMPTY FAKECUDA=nodmabuf $FC gpu-check -s 1M -n 1
expect "no HCA, no dmabuf, no peermem: checks ran" 0 'validate pattern +ok' \
	-- fake $EMPTY FAKECUDA=nodmabuf $FC gpu-check -s 1M -n 1
# rdma-core older than 34 (no ibv_reg_dmabuf_mr): the binary starts (the
# symbol is looked up at run time) and peermem is still tried.
expect_none "binary does not import ibv_reg_dmabuf_mr" 0 'ibv_reg_dmabuf_mr' -- nm -D --undefined-only $FC
expect "no dmabuf, peermem" 0 'plan: peermem' \
	-- fake $T2S FAKECUDA=nodmabuf $FC gpu-check -s 1M -n 1
expect "forced peermem absent" 1 '--gdr peermem: nvidia_peermem is not loaded; fix: modprobe nvidia-peermem' \
	-- fake $TNP $FC gpu-check -s 1M -n 1 --gdr peermem
expect "forced dmabuf absent" 1 '--gdr dmabuf: dma-buf is not available: the GPU does not report' \
	-- fake $T2S FAKECUDA=nodmabuf $FC gpu-check -s 1M -n 1 --gdr dmabuf
# The PCIe mapping flag only where NCCL sets it (a C2C GPU with a PCIe NIC):
# not on this PCIe node, so a driver that takes only that flag refuses.
expect "dma-buf export without the PCIe flag" 1 'reports dma-buf support but refused to export' \
	-- fake $EMPTY FAKECUDA=pcieonly $FC gpu-check -s 1M -n 1
expect "export refused" 1 'reports dma-buf support but refused to export' \
	-- fake $EMPTY FAKECUDA=noexport $FC gpu-check -s 1M -n 1
# Grace (tests/topo/mksysfs.sh gh200: a C2C GPU at 0000:3b:00.0, mlx5_1 by it
# on PCIe, mlx5_0 on its CPU's PCIe): the PCIe flag for mlx5_1 (mode PCI),
# not for mlx5_0 (P2C, mode Default); P2C is not "worse than PXB" there.
GH200=$(mktemp -d)
tests/topo/mksysfs.sh "$GH200/t" gh200 || echo "FAIL: cannot write the gh200 tree"
expect "C2C GPU, PCIe HCA by it: the PCIe mapping flag" 0 'dma-buf export +ok \(PCIe mapping' \
	-- fake "$GH200/t" FAKECUDA=pcieonly FAKECUDA_GPUS=1 $FC gpu-check -s 1M -n 1 -d mlx5_1
expect "C2C GPU, PCIe HCA by it: loopback READ flush" 0 '"how": "loopback RDMA READ"' \
	-- fake "$GH200/t" FAKECUDA_GPUS=1 $FC gpu-check -s 1M -n 1 -d mlx5_1 --json
expect "C2C GPU at P2C: no PCIe mapping flag" 1 'reports dma-buf support but refused to export' \
	-- fake "$GH200/t" FAKECUDA=pcieonly FAKECUDA_GPUS=1 $FC gpu-check -s 1M -n 1 -d mlx5_0
expect "C2C GPU at P2C: NCCL uses GPUDirect there" 0 'is P2C from mlx5_0: over C2C to its CPU.*NCCL 2.27.3\+ uses GPUDirect RDMA' \
	-- fake "$GH200/t" FAKECUDA_GPUS=1 $FC gpu-check -s 1M -n 1 -d mlx5_0

# GPU choice by PCIe distance on a recorded two-socket tree.
expect "nearest mlx5_1 (PXB)" 0 'GPU 1 \(0000:86:00.0\)' -- fake $T2S $FC gpu-check -s 1M -n 1 -d mlx5_1
expect "nearest mlx5_0 (PIX)" 0 'GPU 0 \(0000:3B:00.0\), 1 MiB' -- fake $T2S $FC gpu-check -s 1M -n 1 -d mlx5_0
expect "nearest mlx5_0 table" 0 '^1 +Fake GPU 1 .* SYS$' -- fake $T2S $FC gpu-check -s 1M -n 1 -d mlx5_0
expect "nearest mlx5_0 json" 0 '"hca": "mlx5_0"' -- fake $T2S $FC gpu-check -s 1M -n 1 -d mlx5_0 --json
expect "nearest is PHB: warn" 0 'GPU 1 \(0000:86:00.0\) is PHB from mlx5_2, worse than PXB' \
	-- fake $T2S $FC gpu-check -s 1M -n 1 -d mlx5_2
expect "other socket: a finding of its own" 0 'GPU 0 \(0000:3B:00.0\) is SYS from mlx5_1: they sit on different sockets, so every GPUDirect byte crosses the inter-socket link' \
	-- fake $T2S $FC gpu-check -s 1M -n 1 -d mlx5_1 --gpu 0
expect "hca nearest the gpu" 0 '"hca": "mlx5_1"' -- fake $T2S $FC gpu-check -s 1M -n 1 --gpu 1 --json
# The flush a check needs, as the device attributes say (JSON flush.how).
expect "flush: cuFlush where supported" 0 '"how": "cuFlushGPUDirectRDMAWrites"' \
	-- fake $EMPTY $FC gpu-check -s 1M -n 1 --json
expect "flush: loopback where unsupported" 0 '"how": "loopback RDMA READ"' \
	-- fake $EMPTY FAKECUDA_FLUSHOPTS=0 $FC gpu-check -s 1M -n 1 --json
expect "flush: none where ordered" 0 '"how": "none".*' \
	-- fake $EMPTY FAKECUDA_ORDER=100 $FC gpu-check -s 1M -n 1 --json
expect "flush: the attributes in the GPU list" 0 '"writes_ordering": 200' \
	-- fake $EMPTY FAKECUDA_ORDER=200 $FC gpu-check -s 1M -n 1 --json

# Issue 39 item 5: each gpu-check message with figures fed known, distinct
# ones (GPU 1 of 3, a 3 MiB buffer, a size off the page grid) by the stand-in
# driver's failure modes, and the figures checked where they are printed.
GHOST=$(hostname)
# gpu3 MODE ARG...: one pass of gpu-check on the stand-in driver's 3 GPUs failing
# as MODE, with no sysfs tree.
gpu3() { local m=$1; shift; fake $EMPTY FAKECUDA="$m" FAKECUDA_GPUS=3 $FC gpu-check -n 1 "$@"; }
expect "figures: the GPU the driver cannot query is the last of 3" 3 \
	"cannot query GPU 2 on $GHOST: CUDA_ERROR_INVALID_DEVICE \(101\)" \
	-- gpu3 querybad -s 3M
expect "figures: a context refused on the GPU asked for" 3 \
	"cannot create a context on GPU 1 \(0000:86:00.0\) on $GHOST: CUDA_ERROR_DEVICES_UNAVAILABLE \(46\): CUDA-capable device\(s\) is/are busy or unavailable; fix: check nvidia-smi" \
	-- gpu3 ctxfail -s 3M --gpu 1
expect "figures: a context that cannot be made current" 3 \
	"cannot use the context of GPU 1 on $GHOST: CUDA_ERROR_INVALID_CONTEXT \(201\)" \
	-- gpu3 setctxfail -s 3M --gpu 1
expect "figures: a failed copy to the GPU: its bytes and GPU" 1 \
	'copy of 3145728 bytes to GPU 1 failed: CUDA_ERROR_ILLEGAL_ADDRESS \(700\)' \
	-- gpu3 htodfail -s 3M --gpu 1
expect "figures: a failed copy: the finding names the GPU" 1 \
	'copies to or from GPU 1 failed \(see the error above\)' \
	-- gpu3 htodfail -s 3M --gpu 1
expect "figures: a failed copy from the GPU: its bytes and GPU" 1 \
	'copy of 3145728 bytes from GPU 1 failed: CUDA_ERROR_ILLEGAL_ADDRESS \(700\)' \
	-- gpu3 dtohfail -s 3M --gpu 1
expect "figures: a failed synchronize names the GPU" 1 \
	"GPU 1 on $GHOST: cuCtxSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS \(700\)" \
	-- gpu3 syncfail -s 3M --gpu 1
# 1000000 bytes: the export asks for whole host pages, 245 of 4096 bytes.
expect "figures: a refused export: the buffer's bytes in the finding" 1 \
	'GPU 1 reports dma-buf support but refused to export 1000000 bytes: update the NVIDIA driver' \
	-- gpu3 noexport -s 1000000 --gpu 1
[ "$(getconf PAGESIZE)" = 4096 ] &&
	expect "figures: a refused export: the page-rounded range asked for" 1 \
		'cuMemGetHandleForAddressRange on GPU 1 \(1003520 bytes\): CUDA_ERROR_NOT_SUPPORTED \(801\)' \
		-- gpu3 noexport -s 1000000 --gpu 1
expect "figures: no dma-buf on the GPU asked for" 0 \
	'GPU 1 cannot export dma-buf \(the GPU does not report support\): GPUDirect RDMA needs nvidia_peermem here' \
	-- gpu3 nodmabuf -s 3M --gpu 1
expect "figures: a corrupting GPU: --validate's offset and GPU" 1 \
	'--validate pattern on GPU 1: first bad byte at offset 4113; the GPU or its PCIe path corrupts data' \
	-- gpu3 corrupt -s 3M --gpu 1
expect "figures: a corrupting GPU: the copy check's offset of the size" 1 \
	'GPU 1 returned different data than was written: first bad byte at offset 4113 of 3145728;' \
	-- gpu3 corrupt -s 3M --gpu 1
expect "figures: no device: the count the driver gave" 3 \
	"no CUDA device on $GHOST \(cuDeviceGetCount: ok, 0 devices\); fix: check nvidia-smi, or, in a bandwidth test, drop --use-cuda" \
	-- fake $EMPTY FAKECUDA=zero $FC gpu-check
expect "figures: the buffer's GPU, bus id and size" 0 \
	'^GPU 1 \(0000:86:00.0\), 3 MiB buffer:$' \
	-- fake $EMPTY FAKECUDA_GPUS=3 $FC gpu-check -s 3M -n 2 --gpu 1
# The copy rates in GB/s and Gb/s are one figure in two units: 8 bits a
# byte, within the rounding of %.2f and %.1f (0.04 + 0.05).
gpu_rates_agree() {
	"$@" 2>&1 | awk '/ copy +[0-9.]+ GB\/s \([0-9.]+ Gb\/s\)/ {
		n++; gb = $5; b = $7; sub(/^\(/, "", b)
		d = gb * 8 - b; if (d < 0) d = -d
		if (gb <= 0 || d > 0.1) { print "disagree: " $0; bad = 1 } }
		END { if (n == 2 && !bad) print "GB/s x 8 = Gb/s on both copies"; else print n " copy lines" }'
}
expect "figures: copy rates: GB/s and Gb/s the same figure" 0 '^GB/s x 8 = Gb/s on both copies$' \
	-- gpu_rates_agree fake $EMPTY $FC gpu-check -s 3M -n 4
# The host copies past RAM: the size and RAM as bytes (sysconf's pages are
# /proc/meminfo's MemTotal; --size's G is 2^30).
RAM_B=$(awk '/^MemTotal:/{printf "%.0f", $2 * 1024}' /proc/meminfo)
expect "figures: the host copies past RAM: size and RAM in bytes" 3 \
	"stages --size twice in host memory \(2 x $((HALF_RAM_G * 1073741824)) bytes\), more than this node's $RAM_B bytes of RAM" \
	-- fake $EMPTY ./fabcheck gpu-check -s "${HALF_RAM_G}G" -n 1
rm -rf "$EMPTY" "$GH200"

# pair: the memory options are checked before any node is contacted.
expect "pair --gdr without --use-cuda" 2 '--gdr chooses how GPU memory is registered; add --use-cuda' \
	-- $FC pair nodeA nodeB --gdr dmabuf
expect "pair bad --use-cuda" 2 "--use-cuda: 'gpu0' is not a GPU" -- $FC pair nodeA nodeB --use-cuda=gpu0
expect "pair bad --gdr" 2 "--gdr: 'host' is not a registration method" -- $FC pair nodeA nodeB --use-cuda --gdr host
expect "pair write latency by polling on GPU" 2 'lat-mode poll reads memory with the CPU.*--lat-mode imm' \
	-- $FC pair nodeA nodeB --use-cuda --test write --lat --lat-mode poll
expect "pair --validate with write latency by polling" 2 \
	'--validate checks each message at its receive completion, which write latency by polling \(--lat-mode poll\) has none of; use --lat-mode imm' \
	-- $FC pair nodeA nodeB --validate --test write --lat --lat-mode poll
expect "pair usage names --use-cuda" 0 '--use-cuda\[=N\|BUS_ID\]' -- $FC pair --help
