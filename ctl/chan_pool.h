/*
 * Many channels at once (ctl/chan.h): a worker per node started with at
 * most the fan-out waiting for its "hello" at a time, as pdsh -f, and all
 * of them closed together. See doc/scale.md.
 */
#ifndef FC_CTL_CHAN_POOL_H
#define FC_CTL_CHAN_POOL_H

#include <jansson.h>

#include "ctl/chan.h"

/*
 * Starts a channel per node into @ch (@chans gets their addresses), sends
 * each "hello" with {"node": NODE, "timeout": @timeout} and waits for its
 * answer, at most l->fanout (0: the default) started and not yet answered
 * at once: the next starts as the oldest answers. A channel that did not
 * answer within @timeout is dead with its ->why set. @replies (may be
 * NULL) gets each answer, NULL for none. Returns how many answered.
 */
int fc_chans_open(struct fc_chan *ch, struct fc_chan **chans, const char *const *nodes, int n,
		  const struct fc_launch *l, double timeout, json_t **replies);
/* Closes every channel's stdin first, so that the workers end together,
 * then waits up to @grace seconds for each (fc_chan_close). */
void fc_chans_close(struct fc_chan *ch, int n, double grace);

#endif
