/*
 * What one controller needs to drive many workers at once: file
 * descriptors (RLIMIT_NOFILE), and the fan-out, the most workers started
 * and not yet done at a time (as pdsh -f). See doc/scale.md.
 */
#ifndef FC_CTL_SCALE_H
#define FC_CTL_SCALE_H

/* The default --fanout: workers (ssh sessions, srun steps or local
 * children) running at once. */
#define FC_FANOUT_DEFAULT 256
#define FC_FANOUT_MAX 4096
/* Descriptors the controller keeps for itself beside its workers' pipes:
 * stdio, the store and its journal, logs, `ssh -G`, the libraries. */
#define FC_FD_BASE 64

/* The descriptors @workers workers need at @per each, beside FC_FD_BASE. */
struct fc_fd_plan {
	long need;   /* descriptors wanted */
	long soft;   /* the soft limit to set (>= the old one, <= hard) */
	int can;     /* workers that fit under the hard limit */
};

/* Pure: the plan for @workers at @per descriptors each under the limits
 * @soft and @hard (RLIM_INFINITY as a negative number or LONG_MAX).
 * Returns 0 when they fit, -EMFILE when only p->can do. */
int fc_fd_plan(int workers, int per, long soft, long hard, struct fc_fd_plan *p);

/*
 * Raises RLIMIT_NOFILE's soft limit to what @workers workers at @per
 * descriptors each need (at most the hard limit). When that is short,
 * logs an error naming @cmd, the limit and the fix (@hint: the option
 * that lowers the count, "--fanout ", or NULL) and returns -EMFILE; else 0.
 */
int fc_fd_reserve(const char *cmd, int workers, int per, const char *hint);

/* Parses --fanout N (1..FC_FANOUT_MAX); logs why not (-EINVAL). */
int fc_fanout_parse(const char *arg, int *out_p);
/* @fanout, or the default for 0. */
int fc_fanout_of(int fanout);

#endif
