/* The data path: bandwidth and latency loops over connected QPs. */
#ifndef FC_VERBS_TEST_H
#define FC_VERBS_TEST_H

#include <stdint.h>

#include "core/bwlog.h"
#include "core/hist.h"
#include "core/vstream.h"
#include "verbs/res.h"

enum vb_op { VB_WRITE, VB_READ, VB_SEND };

#define VB_MAX_THREADS 16

/* How write latency waits for the peer's message: by polling the last byte
 * of the slot (the CPU reads the buffer), or by the receive completion of
 * an RDMA WRITE WITH IMMEDIATE (no CPU read of the buffer: GPU memory). */
enum vb_lat_mode { VB_LAT_POLL, VB_LAT_IMM };

/*
 * How a test measures. The method gives the defaults of the knobs below;
 * a knob set explicitly (an option) wins over its method.
 *   VB_METHOD_FABCHECK: an untimed warm-up, one signalled request in
 *     min(64, tx_depth / 2), inline up to the QP's limit in latency tests
 *     and none in bandwidth tests (as perftest), the buffer's
 *     slots cycled (a 4 MiB working set), every round a sample.
 *   VB_METHOD_PERFTEST: perftest's defaults: no warm-up, one signalled
 *     request in 100 (capped at tx_depth) and every one above 8 KiB, no
 *     inline in bandwidth tests, a buffer region per QP for its sends and
 *     one for its receives (sizes up to half a page step through it by
 *     cache lines, larger ones reuse one address),
 *     latency from post to post with perftest's statistics.
 */
enum vb_method { VB_METHOD_FABCHECK, VB_METHOD_PERFTEST };
enum vb_cycle { VB_CYCLE_DEFAULT, VB_CYCLE_SLOTS, VB_CYCLE_PAGE };

#define VB_KNOB_DEFAULT (-1)
#define VB_KNOB_ON (-2) /* warm-up asked for, of the fabcheck method's amount */

/*
 * --validate in the data path (verbs/val.c over core/vstream.h): message
 * m of QP q goes to slot fc_vslot(q, m, part) of the test's cycle; the
 * side data arrives at checks every message at its completion (a receive;
 * for read, the read itself) and poisons the slot's header after, so a
 * message that did not arrive cannot pass as the one before it. A write
 * is an RDMA WRITE WITH IMMEDIATE then (the receiver needs a completion
 * per message), a send a SEND WITH IMMEDIATE; the immediate carries the
 * message number. The sender writes the number into each header where the
 * CPU may write the buffer (stamp); in GPU memory the header keeps the
 * number its slot was filled with (m % part) and the immediate says which
 * message it is.
 */
struct vb_val {
	struct fc_vtally tally;
	uint32_t tag;	  /* the test's (core/vmsg.h) */
	uint32_t part;	  /* slots per QP */
	int stamp;	  /* this side writes each message's number into its header */
	int peer_stamps;  /* the sender does (the same memory kind both sides) */
	/* GPU memory: a host image of [p, p + len) of the buffer in @out,
	 * after GPUDirect writes are flushed; NULL: the CPU reads the buffer. */
	int (*read)(void *arg, const uint8_t *p, size_t len, uint8_t *out);
	/* The same copy without the flush (NULL: as read): what the copy
	 * ceiling times before any traffic, where a flush has nothing to
	 * order and a loopback READ would count as a check's. */
	int (*copy)(void *arg, const uint8_t *p, size_t len, uint8_t *out);
	/* GPU memory: writes the poison over [p, p + len); NULL: memset. */
	int (*poison)(void *arg, uint8_t *p, size_t len);
	void *arg;
	/* 64-bit: a 32-bit number would wrap onto a busy slot where the
	 * slots per QP are not a power of two (the header and immediate
	 * carry its low bits) */
	uint64_t tx_seq[VB_MAX_QPS]; /* next message to post, per QP */
	uint64_t rx_seq[VB_MAX_QPS]; /* next message due, per QP */
	uint64_t sent;	  /* messages this side posted (warm-up included) */
	/* What one core of this side checks per second (CRC32C over messages
	 * of the test's size, measured at prepare): times the threads, the
	 * validation's own ceiling on the rate it can confirm. */
	double crc_gbps;
	/* GPU memory (read set): what one core's check copies per second, the
	 * message read into host memory and its poison written back through
	 * the driver (vb_val_copy_rate at prepare); 0 where the CPU reads. */
	double copy_gbps;
};

#define VB_VAL_POISON 0xa5

struct vb_test {
	enum vb_op op;
	int lat;	  /* 0 bandwidth, 1 latency */
	uint64_t size;
	uint64_t iters;	  /* per QP for bandwidth, in all for latency */
	double duration;  /* > 0: run this many seconds instead of iters */
	int active;	  /* bw: this side posts; lat: this side starts each round */
	int passive;	  /* bw: receives the peer's sends; lat: answers */
	double interval;  /* bandwidth sample interval, seconds */
	/* The knobs (VB_KNOB_DEFAULT: the method's; see vb_test_resolve). */
	enum vb_method method;
	int warmup;	  /* bw: untimed requests per QP first; lat: untimed rounds */
	int cq_mod;	  /* bw: one signalled request in cq_mod */
	int inline_max;	  /* largest message sent inline, bytes (0: none) */
	enum vb_cycle cycle;
	int post_list;	  /* bw: work requests chained per ibv_post_send (1: one) */
	int threads;	  /* bw: threads the QPs are spread over, each pinned (1: one) */
	enum vb_lat_mode lat_mode; /* write latency */
	/* VB_CYCLE_SLOTS: the slots of this size (fc_cycle_layout), set by
	 * vb_test_resolve; the same on both sides whatever the other sizes. */
	uint64_t cyc_stride;
	uint32_t cyc_nslots;
	struct vb_val *val; /* --validate (NULL: not validated) */
	/* VB_CYCLE_PAGE: perftest's buffer per QP (pt_region bytes each, QP q
	 * at q % pt_nregions), stepped through by pt_step, pt_nsteps times. */
	uint64_t pt_region, pt_step;
	uint32_t pt_nregions, pt_nsteps;
	int all_sizes;	  /* the run goes through every size (-a): perftest's CQ moderation */
	int cq_mod_asked; /* cq_mod as asked for (VB_KNOB_DEFAULT: the method's) */
	char note[480];	  /* what vb_test_resolve / vb_val_prepare changed ("": nothing) */
};

struct vb_result {
	double seconds;	  /* bw: first post to last completion */
	uint64_t bytes, msgs;
	uint64_t posted;  /* messages this side posted, warm-up included */
	double *samples;  /* bw: Gb/s of the first VB_KEEP_INTERVALS intervals */
	size_t nsamples, cap;
	struct fc_hist lat; /* lat: seconds per round, every round */
	struct fc_bwlog bw; /* bw (the posting side): every interval */
	int have_bw;
	double peak_gbps; /* bw, --perftest: perftest's BW peak (0: not measured) */
};

#define VB_KEEP_INTERVALS 1000

/* Parses "write", "read", "send". Returns 0 or -EINVAL. */
int vb_op_parse(const char *s, enum vb_op *op_p);
const char *vb_op_name(enum vb_op op);

/* Gets the buffers ready before the controller says go: receives posted,
 * the latency flags cleared. */
int vb_test_prepare(struct vb_res *r, const struct vb_test *t);
int vb_test_run(struct vb_res *r, const struct vb_test *t, struct vb_result *res);
/* Fills the knobs left at VB_KNOB_DEFAULT (or VB_CYCLE_DEFAULT) from the
 * method, for @r's QPs (inline is capped at what they accept), and settles
 * the post list and CQ moderation (vb_knobs_settle, what changed in
 * t->note). Returns 0, or -EINVAL (logged) for a combination that would
 * stall. */
int vb_test_resolve(const struct vb_res *r, struct vb_test *t);
/* The post list and CQ moderation of @t settled for @window requests per
 * QP (vb_knobs_settle; t->note says what changed). 0 or -EINVAL (logged). */
int vb_test_knobs(const struct vb_res *r, struct vb_test *t, int window);

/* ---- The knobs resolved together (verbs/knobs.c, pure) ---- */

struct vb_knob_in {
	enum vb_method method;
	enum vb_op op;
	uint64_t size;
	int all_sizes;	  /* -a */
	int tx_depth;
	int window;	  /* requests in flight per QP at most: tx_depth, or vb_val_window */
	int nqps;	  /* for the messages */
	int validate;
	int post_list;	  /* as asked for (1: none) */
	int cq_mod;	  /* as asked for (<= 0: the method's) */
	uint64_t iters;	  /* messages per QP, 0: by duration (perftest caps at it) */
};
struct vb_knob_out {
	int post_list, cq_mod;
	int tx_depth;	  /* the depth the method reports: perftest caps it at -n */
	char note[480];	  /* what was changed, or "" */
	char why[480];	  /* why refused */
};
/* Whether a bandwidth loop of lists of @post_list requests, one in @cq_mod
 * signalled, always has a signalled request in flight when @window is full
 * (the rule in verbs/knobs.c). */
int vb_knobs_fit(int post_list, int cq_mod, int window);
/* The method's CQ moderation for @in at @post_list (before the rule). */
int vb_cq_mod_default(const struct vb_knob_in *in, int post_list);
/* Settles post list and CQ moderation: 0 as asked, 1 changed (out->note
 * says how: a default adjusted, a list shortened to --validate's window),
 * -1 refused (out->why names the options, the rule and a fix). */
int vb_knobs_settle(const struct vb_knob_in *in, struct vb_knob_out *out);
/* What perftest itself refuses in its method (perftest_parameters.c,
 * force_dependecies, bandwidth with a post list): -n not a multiple of the
 * list, or an asked CQ moderation (capped at the tx depth first) that does
 * not divide it. 0, or -1 with perftest's words and a fix in @why. The
 * controller refuses these (pair/pair_knobs.c); the loop runs any. */
int vb_pt_refused(const struct vb_knob_in *in, char *why, size_t len);
/* The window --validate leaves a QP at @size: min(@tx_depth, its slots
 * per QP) for a buffer laid out for @max_size; 0 when too few slots. */
int vb_val_window(int tx_depth, uint64_t size, uint64_t max_size, int nqps);
/* perftest's -D margin, cut at each end of a run of @duration s. */
double vb_pt_margin(double duration);
/* perftest's -D window of a run from @start: [start + margin, start +
 * duration - margin]; what completes in it counts, over its length
 * (bandwidth and message rate), or its rounds (latency). */
void vb_pt_window(double start, double duration, double *lo_p, double *hi_p);
/* perftest's BW peak (verbs/peak.c): the least seconds per message from
 * @tposted[i] (a list's post, i its first request over all QPs) to
 * @tcompleted[j] (the completion that brought the count to j + 1), @n
 * requests in all, @whole the run's seconds (the answer without a better
 * stretch). A stamp of 0 was never taken. */
#define VB_PT_PEAK_MAX 20000 /* force_dependecies: iters above it, no peak */
double vb_pt_peak_delta(const double *tposted, const double *tcompleted, uint64_t n,
			int post_list, int cq_mod, double whole);
/* Parses "fabcheck", "perftest". Returns 0 or -EINVAL. */
int vb_method_parse(const char *s, enum vb_method *m_p);
const char *vb_method_name(enum vb_method m);
/* Where message @i of QP @q starts within a buffer half (both sides lay
 * theirs out alike): the slots cycled, or perftest's buffer of the QP.
 * Cheap when @i is below the slots (the loops keep it so). */
static inline uint64_t vb_test_offset(const struct vb_test *t, int q, uint64_t i)
{
	if (t->cycle == VB_CYCLE_PAGE)
		return (uint64_t)((uint32_t)q % t->pt_nregions) * t->pt_region +
		       (t->pt_nsteps > 1 ? (i % t->pt_nsteps) * t->pt_step : 0);
	return (i < t->cyc_nslots ? i : i % t->cyc_nslots) * t->cyc_stride;
}
/* Where message @i of the test (of QP 0) starts in @r's tx or rx half, or
 * in the peer's. */
uint8_t *vb_test_local(const struct vb_res *r, const struct vb_test *t, int rx, uint64_t i);
uint64_t vb_test_remote(const struct vb_res *r, const struct vb_test *t, int rx, uint64_t i);
void vb_result_release(struct vb_result *res);

/* ---- --validate in the data path (verbs/val.c) ---- */

/* Slot of message @seq of QP @q (validated tests). */
static inline uint32_t vb_val_slot(const struct vb_test *t, int q, uint64_t seq)
{
	return fc_vslot(q, seq, t->val->part);
}
/* Next message of QP @q: its slot, its number in the header of its tx slot
 * (where this side stamps) and its immediate value; counts it as sent. */
uint32_t vb_val_next(const struct vb_res *r, const struct vb_test *t, int q, int last,
		     uint32_t *imm_p);
/* The receive @wc of QP @q (its buffer: receive slot @rslot for a send)
 * carries the message due on @q: checks it, poisons its header. Problems
 * go to the tally; -errno only when the memory could not be read. */
int vb_val_recv(struct vb_res *r, const struct vb_test *t, int q, const struct ibv_wc *wc,
		uint32_t rslot, uint8_t *scratch);
/* @n more reads of QP @q completed (the last one's completion @wc). */
int vb_val_reads(struct vb_res *r, const struct vb_test *t, int q, uint64_t n,
		 const struct ibv_wc *wc, uint8_t *scratch);
/* Receives a validated run keeps posted per QP (0: rx_depth), so that a
 * slot is never rewritten before its message was checked. */
int vb_val_rx_cap(const struct vb_res *r, uint64_t max_size);
/* CRC32C Gb/s of one core over @size-byte messages (about 20 ms). */
double vb_val_crc_rate(uint64_t size);
/* Gb/s of @v's read and poison of a @size-byte message at @at (in the
 * buffer; @scratch: its host image), about 20 ms; -1 when one failed. */
double vb_val_copy_rate(const struct vb_val *v, uint8_t *at, uint64_t size, uint8_t *scratch);
/* The rate one core confirms: the copy (0: none) and the CRC one after
 * the other, 1 / (1 / @crc + 1 / @copy). */
double vb_val_ceiling(double crc, double copy);
/* Refuses a test --validate cannot check (too few slots per QP). */
int vb_val_prepare(struct vb_res *r, struct vb_test *t);

/* Shared by the loops (verbs/bw.c, verbs/lat.c). */
struct vb_clock {
	double last_progress, next_cb, next_abort;
	uint64_t done;
	const char *what;
	int quiet;	  /* a helper thread: no controller or progress callbacks */
};
void vb_clock_start(struct vb_clock *c, const char *what);
/* Deadline, controller and progress checks; 0 or -ETIMEDOUT/-ECANCELED. */
int vb_clock_tick(struct vb_res *r, struct vb_clock *c, double now);
int vb_result_push(struct vb_result *res, double v);
int vb_bw_run(struct vb_res *r, const struct vb_test *t, struct vb_result *res);
int vb_lat_run(struct vb_res *r, const struct vb_test *t, struct vb_result *res);

#endif
