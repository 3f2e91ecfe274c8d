/* Option-table entries for the launch options (see launch_opts.h). */
#include "ctl/launch_opts.h"

#include <errno.h>

#include "ctl/chan.h"
#include "ctl/scale.h"

int fc_launcher_opt(void *dst, const char *arg, const struct fc_opt *o)
{
	enum fc_launcher scratch;

	return fc_launcher_parse(arg, o->flags & FC_OPT_CHECK ? &scratch :
				 FC_OPT_AT(dst, o, enum fc_launcher)) ? -EINVAL : 0;
}

int fc_fanout_opt(void *dst, const char *arg, const struct fc_opt *o)
{
	return fc_fanout_parse(arg, FC_OPT_AT(dst, o, int)) ? -EINVAL : 0;
}
