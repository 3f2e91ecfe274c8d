/* File descriptors and fan-out for many workers at once (see scale.h). */
#include "ctl/scale.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/resource.h>

#include "core/log.h"
#include "core/util.h"

int fc_fd_plan(int workers, int per, long soft, long hard, struct fc_fd_plan *p)
{
	if (hard < 0)
		hard = LONG_MAX;
	if (soft < 0 || soft > hard)
		soft = hard;
	if (workers < 0)
		workers = 0;
	if (per < 1)
		per = 1;
	p->need = (long)workers * per + FC_FD_BASE;
	p->soft = p->need > soft ? (p->need < hard ? p->need : hard) : soft;
	p->can = p->soft > FC_FD_BASE ? (int)((p->soft - FC_FD_BASE) / per) : 0;
	if (p->can > workers)
		p->can = workers;
	return p->need <= p->soft ? 0 : -EMFILE;
}

static long lim(rlim_t v)
{
	return v == RLIM_INFINITY || v > (rlim_t)LONG_MAX ? -1 : (long)v;
}

int fc_fd_reserve(const char *cmd, int workers, int per, const char *hint)
{
	struct rlimit rl;
	struct fc_fd_plan p;
	char lower[64] = "";
	int rc;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0; /* nothing known: the first failed pipe says why */
	rc = fc_fd_plan(workers, per, lim(rl.rlim_cur), lim(rl.rlim_max), &p);
	if (p.soft > lim(rl.rlim_cur) && lim(rl.rlim_cur) >= 0) {
		struct rlimit want = { .rlim_cur = (rlim_t)p.soft, .rlim_max = rl.rlim_max };

		if (setrlimit(RLIMIT_NOFILE, &want)) {
			/* The kernel's nr_open can sit below the hard limit. */
			rc = fc_fd_plan(workers, per, lim(rl.rlim_cur), lim(rl.rlim_cur), &p);
		} else {
			fc_info("%s: raised the open-file limit (RLIMIT_NOFILE) from %ld to %ld for %d workers",
				cmd, lim(rl.rlim_cur), p.soft, workers);
		}
	}
	if (!rc)
		return 0;
	/* "give --fanout N or less, or" only when N would be one that runs */
	if (hint && p.can >= 1)
		snprintf(lower, sizeof(lower), "give %s%d or less, or ", hint, p.can);
	fc_err("%s: %d workers at once need %ld open files (%d each and %d for itself), but the "
	       "open-file limit (RLIMIT_NOFILE) stops at %ld: this controller can drive %d at once; "
	       "%sraise the %s (%sulimit -Hn, 'nofile' in /etc/security/limits.conf, "
	       "LimitNOFILE= of a systemd unit)",
	       cmd, workers, p.need, per, FC_FD_BASE, p.soft, p.can, lower,
	       p.can < 1 ? "limit" : "hard limit", p.can < 1 ? "ulimit -n, " : "");
	return -EMFILE;
}

int fc_fanout_parse(const char *arg, int *out_p)
{
	return fc_parse_int("--fanout", arg, 1, FC_FANOUT_MAX, out_p) ? -EINVAL : 0;
}

int fc_fanout_of(int fanout)
{
	return fanout > 0 ? fanout : FC_FANOUT_DEFAULT;
}
