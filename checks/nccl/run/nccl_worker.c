/*
 * fabcheck nccl-worker: one NCCL rank of `fabcheck nccl run`. The
 * conversation: hello; setup (load CUDA and NCCL, take the GPU, allocate,
 * rank 0 makes the unique id, local rank 0 sends the node's topology);
 * init (ncclCommInitRank with the id the controller relayed); run (the
 * size series, timed); finish (ncclCommDestroy, the NCCL log sent back in
 * pieces). Any failure is one "error" message that says what to do.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks/nccl/run/ncclrt.h"
#include "core/fc.h"
#include "core/log.h"
#include "core/out.h"
#include "core/util.h"
#include "src/cmds.h"
#include "checks/nccl/run/nccl_lib.h"
#include "checks/nccl/run/nccl_wk.h"

const char usage_nccl_worker[] =
	"usage: fabcheck nccl-worker\n"
	"\n"
	"Internal: one NCCL rank of 'fabcheck nccl run', started by the controller\n"
	"through ssh (or --launcher local). It reads wire messages on stdin and answers\n"
	"on stdout.\n";

#define LOG_CHUNK (24 * 1024)
#define LOG_MAX (8u << 20)
#define CHECK_ELEMS 4096 /* float32 elements read back at each end */

struct ncw {
	struct fc_wk_io io;
	struct ncr_params p;
	struct fc_cuda cu;
	struct ncr_nccl nc;
	int have_ctx, cu_dev;
	int ran;	/* past setup: failures are the fabric's, not the node's */
	fc_custream stream;
	fc_cuptr sbuf, rbuf;
	ncr_comm comm;
	char logdir[256], logpath[300];
	char node[128], prefix[192];
};

static char log_path[300], log_dir[256]; /* for the watchdog */
static int node_fault; /* an NCCL failure that is this node's, not the fabric's */

static void remove_log(void)
{
	if (*log_path)
		unlink(log_path);
	if (*log_dir)
		rmdir(log_dir);
}

/* The last two "NCCL WARN" messages of the log, "; "-joined. */
static const char *log_warnings(char *buf, size_t len)
{
	char line[1024], keep[2][512] = { "", "" };
	FILE *f = *log_path ? fopen(log_path, "r") : NULL;

	buf[0] = '\0';
	if (!f)
		return buf;
	while (fgets(line, sizeof(line), f)) {
		char *w = strstr(line, "NCCL WARN ");

		if (!w)
			continue;
		w += 10;
		w[strcspn(w, "\r\n")] = '\0';
		memcpy(keep[0], keep[1], sizeof(keep[0]));
		snprintf(keep[1], sizeof(keep[1]), "%s", w);
	}
	fclose(f);
	if (!strcmp(keep[0], keep[1]))
		keep[0][0] = '\0';
	snprintf(buf, len, "%s%s%s", keep[0], *keep[0] ? "; " : "", keep[1]);
	return buf;
}

/* Logs "@what failed: <nccl error>[; NCCL said: ...]"; returns -EIO. */
static int nccl_fail(struct ncw *w, const char *what, int r)
{
	char warn[1024];

	log_warnings(warn, sizeof(warn));
	/* ncclUnhandledCudaError: the CUDA driver and NCCL do not get along
	 * here; ncclInvalidArgument / ncclInvalidUsage: NCCL refused this
	 * rank's own call. Faults of this node, not of the fabric (nccl.h). */
	node_fault = r == 1 || r == 4 || r == 5;
	fc_err("%s failed: %s (NCCL error %d)%s%s%s", what, w->nc.error_string(r), r,
	       *warn ? "; NCCL said: " : "", warn,
	       r == 1 ? "; a local fault of this node, not the fabric: NCCL cannot use the CUDA "
			"driver here: install a driver as new as the CUDA that NCCL was built for "
			"(see 'NCCL version ...+cudaX.Y' in its log), or an NCCL built for this driver" :
	       node_fault ? "; a local fault of this rank, not the fabric: NCCL refused its own "
			    "arguments or use (check the NCCL_* settings and the NCCL library)" : "");
	return -EIO;
}

static int cuda_fail(struct ncw *w, const char *what, fc_cures r)
{
	char buf[256];

	fc_err("%s on GPU %d failed: %s", what, w->p.gpu,
	       fc_cuda_strerror(&w->cu, r, buf, sizeof(buf)));
	return -EIO;
}

/* ---- setup ---- */

static int valid_env_name(const char *s)
{
	if (strncmp(s, "NCCL_", 5) || strlen(s) > 64)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

/* NCCL_* settings relayed from the controller, then the log settings. */
static int set_env(struct ncw *w, const json_t *env)
{
	const char *k, *tmp;
	json_t *v;

	json_object_foreach((json_t *)env, k, v) {
		if (!valid_env_name(k) || !json_is_string(v) ||
		    !strcmp(k, "NCCL_DEBUG_FILE") || !strcmp(k, "NCCL_DEBUG"))
			continue;
		setenv(k, json_string_value(v), 1);
	}
	tmp = getenv("TMPDIR");
	if (!tmp || !*tmp || strlen(tmp) > sizeof(w->logdir) - 24)
		tmp = "/tmp";
	snprintf(w->logdir, sizeof(w->logdir), "%s/fabcheck-nccl-XXXXXX", tmp);
	if (!mkdtemp(w->logdir)) {
		fc_err("cannot create a folder for the NCCL log under %s: %s; set TMPDIR to a "
		       "writable folder", tmp, strerror(errno));
		w->logdir[0] = '\0';
		return -errno;
	}
	snprintf(w->logpath, sizeof(w->logpath), "%s/rank%d.log", w->logdir, w->p.rank);
	snprintf(log_path, sizeof(log_path), "%s", w->logpath);
	snprintf(log_dir, sizeof(log_dir), "%s", w->logdir);
	setenv("NCCL_DEBUG", "INFO", 1);
	setenv("NCCL_DEBUG_FILE", w->logpath, 1);
	{
		char subsys[256];

		ncr_debug_subsys(getenv("NCCL_DEBUG_SUBSYS"), subsys, sizeof(subsys));
		setenv("NCCL_DEBUG_SUBSYS", subsys, 1);
	}
	return 0;
}

/* Loads both libraries; one message for all that is missing. */
static int load_libs(struct ncw *w)
{
	char why_cu[700] = "", why_nc[700] = "";
	int ecu = ncr_cuda_load(&w->cu, why_cu, sizeof(why_cu));
	int enc = ncr_nccl_load(&w->nc, why_nc, sizeof(why_nc));

	if (!ecu && !enc)
		return 0;
	fc_err("%s%s%s", ecu ? why_cu : "", ecu && enc ? "; and " : "", enc ? why_nc : "");
	if (!ecu)
		fc_cuda_unload(&w->cu);
	if (!enc)
		ncr_nccl_unload(&w->nc);
	return -ENOENT;
}

static int open_gpu(struct ncw *w, json_t *rep)
{
	char name[128] = "?", bus[32] = "?", buf[256];
	int n = 0, ver = 0;
	fc_cures r;
	fc_cuctx ctx;

	r = w->cu.init(0);
	if (r && *fc_cuda_init_advice(r)) {
		fc_err("no GPU: cuInit failed: %s%s", fc_cuda_strerror(&w->cu, r, buf, sizeof(buf)),
		       fc_cuda_init_advice(r));
		return -ENODEV;
	}
	if (r) {
		fc_err("no GPU: cuInit failed: %s; check nvidia-smi on this node (driver loaded, "
		       "GPU visible, CUDA_VISIBLE_DEVICES)",
		       fc_cuda_strerror(&w->cu, r, buf, sizeof(buf)));
		return -ENODEV;
	}
	w->cu.driver_version(&ver);
	if ((r = w->cu.device_count(&n)))
		return cuda_fail(w, "cuDeviceGetCount", r);
	if (w->p.gpu >= n) {
		fc_err("GPU %d is asked for (rank %d; --gpus-per-node) but the CUDA driver sees "
		       "%d GPU%s here; lower --gpus-per-node or check CUDA_VISIBLE_DEVICES",
		       w->p.gpu, w->p.rank, n, n == 1 ? "" : "s");
		return -ENODEV;
	}
	if ((r = w->cu.device_get(&w->cu_dev, w->p.gpu)))
		return cuda_fail(w, "cuDeviceGet", r);
	w->cu.device_name(name, sizeof(name), w->cu_dev);
	w->cu.device_bus_id(bus, sizeof(bus), w->cu_dev);
	if ((r = w->cu.ctx_retain(&ctx, w->cu_dev)))
		return cuda_fail(w, "cuDevicePrimaryCtxRetain", r);
	w->have_ctx = 1;
	if ((r = w->cu.ctx_set_current(ctx)))
		return cuda_fail(w, "cuCtxSetCurrent", r);
	if ((r = w->cu.stream_create(&w->stream, 0)))
		return cuda_fail(w, "cuStreamCreate", r);
	if ((r = w->cu.mem_alloc(&w->sbuf, w->p.max_bytes)) ||
	    (r = w->cu.mem_alloc(&w->rbuf, w->p.max_bytes))) {
		fc_err("cannot allocate 2 x %llu bytes on GPU %d (%s): %s; lower --max-bytes",
		       (unsigned long long)w->p.max_bytes, w->p.gpu, bus,
		       fc_cuda_strerror(&w->cu, r, buf, sizeof(buf)));
		return -ENOMEM;
	}
	/* Every rank sends 1.0f: the sum is nranks, exact in float32. */
	if ((r = w->cu.memset_d32(w->sbuf, 0x3f800000u, w->p.max_bytes / 4)))
		return cuda_fail(w, "cuMemsetD32", r);
	json_object_set_new(rep, "cuda_driver", json_integer(ver));
	json_object_set_new(rep, "gpu", json_integer(w->p.gpu));
	json_object_set_new(rep, "gpu_name", json_string(name));
	json_object_set_new(rep, "gpu_bus_id", json_string(bus));
	return 0;
}

static int ws_setup(struct ncw *w, const json_t *m)
{
	char why[256], ver[32], hex[2 * NCR_ID_BYTES + 1];
	json_t *rep = json_object();
	ncr_unique_id id;
	int err, code = 0, r;

	if (ncr_params_from_json(m, &w->p, why, sizeof(why))) {
		fc_err("the controller's setup message is wrong: %s", why);
		w->io.in.proto_err = 1;
		err = -EPROTO;
		goto out_put;
	}
	if ((err = set_env(w, json_object_get(m, "env"))) || (err = load_libs(w)) ||
	    (err = open_gpu(w, rep)))
		goto out_put;
	w->nc.get_version(&code);
	json_object_set_new(rep, "nccl_version", json_string(ncr_version_str(code, ver, sizeof(ver))));
	json_object_set_new(rep, "nccl_version_code", json_integer(code));
	json_object_set_new(rep, "nccl_lib", json_string(w->nc.path));
	json_object_set_new(rep, "cuda_lib", json_string(w->cu.path));
	if (w->p.rank == 0) {
		ncw_guard_on(w->p.timeout, "ncclGetUniqueId");
		r = w->nc.get_unique_id(&id);
		ncw_guard_off();
		if (r) {
			err = nccl_fail(w, "ncclGetUniqueId", r);
			goto out_put;
		}
		ncr_hex_encode((const uint8_t *)id.internal, NCR_ID_BYTES, hex);
		json_object_set_new(rep, "unique_id", json_string(hex));
	}
	if (w->p.want_topo)
		json_object_set_new(rep, "topo", ncw_node_topo());
	return fc_wk_send(&w->io, "setup", rep);
out_put:
	json_decref(rep);
	return err;
}

/* ---- init and run ---- */

static int ws_init(struct ncw *w, const json_t *m)
{
	ncr_unique_id id;
	char what[96];
	int r;

	if (ncr_hex_decode(fc_jstr(m, "unique_id", ""), (uint8_t *)id.internal, NCR_ID_BYTES)) {
		fc_err("the controller's unique id is not %d hex digits", 2 * NCR_ID_BYTES);
		w->io.in.proto_err = 1;
		return -EPROTO;
	}
	snprintf(what, sizeof(what), "ncclCommInitRank (rank %d of %d)", w->p.rank, w->p.nranks);
	ncw_guard_on(w->p.timeout, what);
	r = w->nc.comm_init_rank(&w->comm, w->p.nranks, id, w->p.rank);
	ncw_guard_off();
	if (r) {
		w->comm = NULL;
		return nccl_fail(w, what, r);
	}
	return fc_wk_send(&w->io, "init", NULL);
}

/* Waits for the stream, watching NCCL's async errors, the controller and
 * the deadline; sends "progress" every second. */
static int wait_stream(struct ncw *w, double deadline, double secs, uint64_t bytes)
{
	double next = fc_now() + 1;
	unsigned spins = 0;

	for (;;) {
		fc_cures r = w->cu.stream_query(w->stream);
		int aerr = 0;

		if (r == FC_CUDA_SUCCESS)
			return 0;
		if (r != FC_CUDA_ERROR_NOT_READY)
			return cuda_fail(w, "the all_reduce stream", r);
		if (++spins % 1024)
			continue;
		sched_yield();
		if (w->nc.async_error(w->comm, &aerr) == 0 && aerr && aerr != NCR_NCCL_IN_PROGRESS)
			return nccl_fail(w, "all_reduce (asynchronous error)", aerr);
		if (fc_now() > deadline) {
			char warn[1024];

			fc_err("all_reduce of %llu bytes did not complete within %.0f s on rank %d: a "
			       "peer rank stalled or the network drops NCCL's traffic%s%s",
			       (unsigned long long)bytes, secs, w->p.rank,
			       *log_warnings(warn, sizeof(warn)) ? "; NCCL said: " : "", warn);
			return -ETIMEDOUT;
		}
		if (fc_now() > next) {
			next = fc_now() + 1;
			if (fc_wk_poll_abort(&w->io, "the run"))
				return -ECANCELED;
			fc_wk_send(&w->io, "progress", json_pack("{s:I}", "bytes", (json_int_t)bytes));
		}
	}
}

static int launch(struct ncw *w, uint64_t bytes, int n)
{
	char what[96];

	/* Since NCCL 2.22 the first collective makes the connections: it can
	 * block on a dead peer, so every call is under the watchdog. */
	snprintf(what, sizeof(what), "ncclAllReduce of %llu bytes (rank %d)",
		 (unsigned long long)bytes, w->p.rank);
	for (int i = 0; i < n; i++) {
		int r;

		ncw_guard_on(w->p.timeout, what);
		r = w->nc.all_reduce((const void *)(uintptr_t)w->sbuf, (void *)(uintptr_t)w->rbuf,
				     bytes / 4, NCR_NCCL_FLOAT32, NCR_NCCL_SUM, w->comm, w->stream);
		ncw_guard_off();
		if (r && r != NCR_NCCL_IN_PROGRESS)
			return nccl_fail(w, "ncclAllReduce", r);
	}
	return 0;
}

/* Elements at both ends of the result that are not nranks. */
static int check_result(struct ncw *w, uint64_t bytes, int64_t *wrong_p)
{
	static float buf[CHECK_ELEMS];
	uint64_t count = bytes / 4, n = count < CHECK_ELEMS ? count : CHECK_ELEMS;
	fc_cuptr at[2] = { w->rbuf, w->rbuf + (count - n) * 4 };

	*wrong_p = 0;
	for (int k = 0; k < (count > n ? 2 : 1); k++) {
		fc_cures r = w->cu.memcpy_dtoh(buf, at[k], n * 4);

		if (r)
			return cuda_fail(w, "cuMemcpyDtoH", r);
		for (uint64_t i = 0; i < n; i++)
			*wrong_p += buf[i] != (float)w->p.nranks;
	}
	return 0;
}

static int run_size(struct ncw *w, uint64_t bytes, struct ncr_rank_result *res, int i)
{
	double dl = ncr_size_deadline(w->p.timeout, bytes, w->p.iters + w->p.warmup), t0, secs;
	fc_cures r;
	int err;

	if ((r = w->cu.memset_d32(w->rbuf, 0, bytes / 4)))
		return cuda_fail(w, "cuMemsetD32", r);
	secs = dl;
	dl += fc_now();
	if ((err = launch(w, bytes, w->p.warmup)) || (err = wait_stream(w, dl, secs, bytes)))
		return err;
	t0 = fc_now();
	if ((err = launch(w, bytes, w->p.iters)) || (err = wait_stream(w, dl, secs, bytes)))
		return err;
	res->bytes[i] = bytes;
	res->time_us[i] = (fc_now() - t0) * 1e6 / w->p.iters;
	return check_result(w, bytes, &res->wrong[i]);
}

static int ws_run(struct ncw *w)
{
	static struct ncr_rank_result res;
	uint64_t sizes[NCR_MAX_SIZES];
	int n = ncr_size_series(w->p.min_bytes, w->p.max_bytes, w->p.factor, sizes,
				NCR_MAX_SIZES);

	memset(&res, 0, sizeof(res));
	for (int i = 0; i < n; i++) {
		int err = run_size(w, sizes[i], &res, i);

		if (err)
			return err;
		res.nsizes = i + 1;
		fc_wk_send(&w->io, "progress", json_pack("{s:I}", "bytes", (json_int_t)sizes[i]));
	}
	return fc_wk_send(&w->io, "result", ncr_result_json(&res));
}

/* ---- finish: the log ---- */

static int send_log(struct ncw *w)
{
	static char buf[LOG_CHUNK];
	size_t total = 0, n;
	int fd = open(w->logpath, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return fc_wk_send(&w->io, "finish", json_pack("{s:I, s:b}", "log_bytes", 0,
							    "log_truncated", 0));
	while ((n = (size_t)read(fd, buf, sizeof(buf))) > 0 && n <= sizeof(buf) && !err) {
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)buf[i] < 0x20 && buf[i] != '\n' && buf[i] != '\t')
				buf[i] = '?';
			else if ((unsigned char)buf[i] >= 0x80)
				buf[i] = '?';
		if (total + n > LOG_MAX)
			break;
		err = fc_wk_send(&w->io, "log", json_pack("{s:s%}", "data", buf, n));
		total += n;
	}
	close(fd);
	if (err)
		return err;
	return fc_wk_send(&w->io, "finish", json_pack("{s:I, s:b}", "log_bytes", (json_int_t)total,
						    "log_truncated", total >= LOG_MAX));
}

static int ws_finish(struct ncw *w)
{
	int r;

	if (w->comm) {
		ncw_guard_on(w->p.timeout, "ncclCommDestroy");
		r = w->nc.comm_destroy(w->comm);
		ncw_guard_off();
		w->comm = NULL;
		if (r)
			return nccl_fail(w, "ncclCommDestroy", r);
	}
	return send_log(w);
}

/* ---- the conversation ---- */

static int step(struct ncw *w, const char *type, int (*fn)(struct ncw *, const json_t *))
{
	json_t *m;
	int err = fc_wk_recv(&w->io, type, &m);

	if (err)
		return err;
	err = fn(w, m);
	json_decref(m);
	return err;
}

static int ws_run_msg(struct ncw *w, const json_t *m)
{
	(void)m;
	return ws_run(w);
}

static int ws_finish_msg(struct ncw *w, const json_t *m)
{
	(void)m;
	return ws_finish(w);
}

static void release(struct ncw *w)
{
	if (w->comm && w->nc.comm_abort) {
		ncw_guard_on(w->p.timeout > 0 ? w->p.timeout : 60, "ncclCommAbort");
		w->nc.comm_abort(w->comm);
		ncw_guard_off();
	}
	if (w->sbuf)
		w->cu.mem_free(w->sbuf);
	if (w->rbuf)
		w->cu.mem_free(w->rbuf);
	if (w->stream)
		w->cu.stream_destroy(w->stream);
	if (w->have_ctx)
		w->cu.ctx_release(w->cu_dev);
	remove_log();
	/* The libraries stay loaded: NCCL may keep threads until exit. */
}

int cmd_nccl_worker(struct fc_ctx *ctx, int argc, char **argv)
{
	struct ncw w;
	int err;

	(void)ctx;
	memset(&w, 0, sizeof(w));
	if (fc_wk_begin(&w.io, "nccl-worker", argc, argv))
		return FC_EXIT_USAGE;
	/* A controller gone is seen as EPIPE / end of input, never a signal that
	 * would skip the cleanup. */
	signal(SIGPIPE, SIG_IGN);
	ncw_guard_set_hooks(log_warnings, remove_log);
	ncw_guard_start(&w.io);
	err = fc_wk_hello(&w.io, "fabcheck nccl-worker", w.node, sizeof(w.node), w.prefix,
			  sizeof(w.prefix));
	if (!err)
		err = step(&w, "setup", ws_setup);
	w.ran = 1;
	if (!err)
		err = step(&w, "init", ws_init);
	if (!err)
		err = step(&w, "run", ws_run_msg);
	if (!err)
		err = step(&w, "finish", ws_finish_msg);
	if (err && !w.io.in.eof)
		fc_wk_send(&w.io, "error",
			 json_pack("{s:s, s:s}", "kind",
				   w.io.in.proto_err ? "protocol" :
				   w.ran && !node_fault && (err == -EIO || err == -ETIMEDOUT) ?
				   "fail" : "cant",
				   "msg", fc_wk_last_error(strerror(-err))));
	release(&w);
	fc_wk_end(&w.io);
	return err ? FC_EXIT_CANT : FC_EXIT_PASS;
}
