/*
 * TEST ONLY: a stand-in for libnccl.so.2, loaded through
 * FABCHECK_LIBNCCL=path, with tests/gdr/fakecuda.c as the driver. It
 * tests fabcheck's run plumbing, not NCCL: ranks meet through files under
 * $FAKENCCL_DIR named after the unique id (so a rank given another id than
 * rank 0's never meets the others and init fails), all_reduce writes
 * nranks * input (each rank sends the same value), and the log written to
 * NCCL_DEBUG_FILE has the lines of an NCCL 2.28 run over sockets.
 *
 * FAKENCCL selects the behaviour (comma separated):
 *   initfail  ncclCommInitRank -> ncclInternalError with a WARN line
 *   hang      ncclCommInitRank never returns
 *   initusage ncclCommInitRank -> ncclInvalidUsage (a local fault)
 *   arhang    rank 1's ncclAllReduce never returns (its pid in
 *             $FAKENCCL_DIR/hung.PID first)
 *   ardie     rank 1 exits inside ncclAllReduce (a rank killed mid-run)
 *   badsum    all_reduce leaves element 0 wrong
 *   nolog     writes no log
 *   ib        the log shows IB with GPUDirect instead of sockets
 *   far       with ib: two HCAs, and the channels use the second (mlx5_1)
 *   norate    with ib: no per-device lines with speed= (as before NCCL 2.27)
 *   fused     with ib: one card of two 200G ports (mlx5_0, mlx5_1: functions
 *             .0 and .1) that NCCL 2.24+ fuses into virtual device [2]
 *             mlx5_0+mlx5_1 of 400G (net_ib/init.cc's "Made virtual device"
 *             line), which the channels use
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../fake/fake_mode.h"

#define EXPORT __attribute__((visibility("default")))

typedef struct {
	char internal[128];
} ncclUniqueId;

struct comm {
	int rank, nranks;
	char dir[512];
};

static FILE *logf_;

static int mode(const char *what)
{
	return fake_mode("FAKENCCL", what);
}

static void nlog(int dev, const char *fmt, ...)
{
	const char *path = getenv("NCCL_DEBUG_FILE");
	char host[64] = "fakehost";
	va_list ap;

	if (mode("nolog") || !path)
		return;
	if (!logf_)
		logf_ = fopen(path, "w");
	if (!logf_)
		return;
	gethostname(host, sizeof(host) - 1);
	fprintf(logf_, "%s:%d:%d [%d] NCCL ", host, (int)getpid(), (int)getpid() + 1, dev);
	va_start(ap, fmt);
	vfprintf(logf_, fmt, ap);
	va_end(ap);
	fputc('\n', logf_);
	fflush(logf_);
}

EXPORT int ncclGetVersion(int *v);
EXPORT int ncclGetVersion(int *v)
{
	const char *e = getenv("FAKENCCL_VERSION");

	*v = e ? atoi(e) : 22809; /* NCCL_VERSION_CODE */
	return 0;
}

EXPORT const char *ncclGetErrorString(int r);
EXPORT const char *ncclGetErrorString(int r)
{
	switch (r) {
	case 0: return "no error";
	case 2: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
	case 3: return "internal error - please report this issue to the NCCL developers";
	default: return "unknown result code";
	}
}

EXPORT int ncclGetUniqueId(ncclUniqueId *id);
EXPORT int ncclGetUniqueId(ncclUniqueId *id)
{
	int fd = open("/dev/urandom", O_RDONLY);

	if (fd < 0 || read(fd, id->internal, sizeof(id->internal)) != sizeof(id->internal))
		return 2;
	close(fd);
	nlog(0, "INFO Bootstrap: Using eth0:10.0.2.15<0>");
	return 0;
}

static int count_ranks(const char *dir)
{
	char p[600];
	int n = 0;

	for (int i = 0; i < 1024; i++) {
		snprintf(p, sizeof(p), "%s/rank%d", dir, i);
		n += access(p, F_OK) == 0;
	}
	return n;
}

extern char **environ;

static void log_init(int rank, int nranks)
{
	if (rank == 0)
		nlog(0, "INFO NCCL version 2.28.9+cuda13.0");
	/* NCCL echoes the settings it reads: integer parameters with a full
	 * stop, strings (NCCL_ALGO, NCCL_SOCKET_IFNAME) without. */
	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');

		if (!strncmp(*e, "NCCL_", 5) && strncmp(*e, "NCCL_DEBUG", 10) && eq)
			nlog(0, "INFO %.*s set by environment to %s%s", (int)(eq - *e), *e, eq + 1,
			     eq[1 + strspn(eq + 1, "-0123456789")] ? "" : ".");
	}
	nlog(0, "INFO cudaDriverVersion 12040");
	if (mode("ib")) {
		int two = mode("far") || mode("fused");

		nlog(0, "INFO NET/IB : Using [0]mlx5_0:1/IB %s[RO]; OOB eth0:10.0.2.15<0>",
		     two ? "[1]mlx5_1:1/IB " : "");
		for (int d = 0; !mode("norate") && d < (two ? 2 : 1); d++) {
			char pci[64];

			snprintf(pci, sizeof(pci), mode("fused") ? "0000:00:03.0/0000:10:00.%d" :
				 "0000:00:0%d.0", mode("fused") ? d : d + 3);
			nlog(0, "INFO NET/IB: [%d] mlx5_%d:uverbs%d:1/IB provider=Mlx5 speed=%d "
			     "context=0x55d0c1a0%d pciPath=/sys/devices/pci0000:00/%s ar=0",
			     d, d, d, mode("fused") ? 200000 : 400000, d, pci);
		}
		if (mode("fused"))
			nlog(0, "INFO NET/IB : Made virtual device [2] name=mlx5_0+mlx5_1 speed=400000 "
			     "ndevs=2 rail=-1 plane=-1");
		nlog(0, "INFO Using network IB");
	} else {
		nlog(0, "INFO NET/IB : No device found.");
		nlog(0, "INFO NET/Socket : Using [0]eth0:10.0.2.15<0>");
		nlog(0, "INFO Using network Socket");
	}
	nlog(0, "INFO comm 0x5600000%d rank %d nranks %d cudaDev 0 nvmlDev 0 busId 3b000 "
	     "commId 0x1234 - Init START", rank, rank, nranks);
	for (int c = 0; c < 2 && nranks > 1; c++) {
		int next = (rank + 1) % nranks, prev = (rank + nranks - 1) % nranks;
		const char *via = !mode("ib") ? "NET/Socket/0" :
				  mode("fused") ? "NET/IB/2/GDRDMA" :
				  mode("far") ? "NET/IB/1/GDRDMA" : "NET/IB/0/GDRDMA";

		nlog(0, "INFO Channel %02d/0 : %d[0] -> %d[0] [send] via %s", c, rank, next, via);
		nlog(0, "INFO Channel %02d/0 : %d[0] -> %d[0] [receive] via %s", c, prev, rank, via);
	}
	nlog(0, "INFO comm 0x5600000%d rank %d nranks %d cudaDev 0 nvmlDev 0 busId 3b000 "
	     "commId 0x1234 - Init COMPLETE", rank, rank, nranks);
}

EXPORT int ncclCommInitRank(void **comm, int nranks, ncclUniqueId id, int rank);
EXPORT int ncclCommInitRank(void **comm, int nranks, ncclUniqueId id, int rank)
{
	const char *base = getenv("FAKENCCL_DIR");
	struct comm *c = calloc(1, sizeof(*c));
	char p[600];
	int fd;

	if (!c || !base)
		return 2;
	if (mode("initfail")) {
		nlog(0, "WARN fake: bootstrap could not reach rank 0 (connection refused)");
		free(c);
		return 3;
	}
	while (mode("hang"))
		sleep(1);
	if (mode("initusage")) {
		nlog(0, "WARN fake: invalid usage");
		free(c);
		return 5;
	}
	snprintf(c->dir, sizeof(c->dir), "%s/", base);
	for (int i = 0; i < 8; i++)
		snprintf(c->dir + strlen(c->dir), sizeof(c->dir) - strlen(c->dir), "%02x",
			 (unsigned char)id.internal[i]);
	mkdir(c->dir, 0700);
	snprintf(p, sizeof(p), "%s/rank%d", c->dir, rank);
	fd = open(p, O_CREAT | O_WRONLY, 0600);
	if (fd >= 0)
		close(fd);
	for (int t = 0; count_ranks(c->dir) < nranks; t++) {
		struct timespec ts = { .tv_nsec = 10 * 1000 * 1000 };

		if (t > 2000) {
			nlog(0, "WARN fake: rank %d saw %d of %d ranks", rank, count_ranks(c->dir),
			     nranks);
			free(c);
			return 2;
		}
		nanosleep(&ts, NULL);
	}
	c->rank = rank;
	c->nranks = nranks;
	log_init(rank, nranks);
	*comm = c;
	return 0;
}

EXPORT int ncclAllReduce(const void *s, void *r, size_t count, int type, int op, void *comm,
			 void *stream);
EXPORT int ncclAllReduce(const void *s, void *r, size_t count, int type, int op, void *comm,
			 void *stream)
{
	struct comm *c = comm;
	const float *in = s;
	float *out = r;

	(void)stream;
	if (type != 7 || op != 0)
		return 4;
	if (c->rank == 1 && mode("ardie"))
		_exit(9);
	if (c->rank == 1 && mode("arhang")) {
		char p[600];
		int fd;

		snprintf(p, sizeof(p), "%s/hung.%d", getenv("FAKENCCL_DIR"), (int)getpid());
		fd = open(p, O_CREAT | O_WRONLY, 0600);
		if (fd >= 0)
			close(fd);
		for (;;)
			sleep(1);
	}
	for (size_t i = 0; i < count; i++)
		out[i] = in[i] * (float)c->nranks;
	if (mode("badsum") && count)
		out[0] = 0;
	return 0;
}

EXPORT int ncclCommGetAsyncError(void *comm, int *err);
EXPORT int ncclCommGetAsyncError(void *comm, int *err)
{
	(void)comm;
	*err = 0;
	return 0;
}

EXPORT int ncclCommDestroy(void *comm);
EXPORT int ncclCommDestroy(void *comm)
{
	struct comm *c = comm;
	char p[600];

	snprintf(p, sizeof(p), "%s/rank%d", c->dir, c->rank);
	nlog(0, "INFO comm 0x5600000%d rank %d nranks %d cudaDev 0 busId 3b000 - Destroy COMPLETE",
	     c->rank, c->rank, c->nranks);
	unlink(p);
	rmdir(c->dir);
	free(c);
	return 0;
}

EXPORT int ncclCommAbort(void *comm);
EXPORT int ncclCommAbort(void *comm)
{
	return ncclCommDestroy(comm);
}
