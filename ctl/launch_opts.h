/* Option-table entries (core/opts.h) for the launch options the commands share. */
#ifndef FC_LAUNCH_OPTS_H
#define FC_LAUNCH_OPTS_H

#include "core/opts.h"

/* --launcher ssh|slurm|local into the enum fc_launcher at the entry's field. */
int fc_launcher_opt(void *dst, const char *arg, const struct fc_opt *o);
/* --fanout N (ctl/scale.h) into the int at the entry's field. */
int fc_fanout_opt(void *dst, const char *arg, const struct fc_opt *o);

/* --launcher, --ssh-config and --worker-cmd into the struct fc_launch @l of
 * FC_OPT_T (core/opts.h). */
#define FC_LAUNCH_OPTS(l)                                                         \
	FCO_CALL_AT("launcher", 0, fc_launcher_opt, l.kind, enum fc_launcher),     \
		FCO_STR("ssh-config", 0, l.ssh_config), FCO_STR("worker-cmd", 0, l.worker_cmd)

#endif
