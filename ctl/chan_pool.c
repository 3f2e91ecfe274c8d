/* Many channels at once, started within the fan-out (see chan_pool.h). */
#include "ctl/chan_pool.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ctl/scale.h"

/* Starts channel @i and sends its hello: 0, or -errno with its why set. */
static int open_one(struct fc_chan *c, const char *node, const struct fc_launch *l,
		    double timeout)
{
	json_t *h;
	int err;

	if ((err = fc_chan_start(c, node, l)))
		return err;
	h = json_pack("{s:s, s:f}", "node", node, "timeout", timeout);
	err = fc_chan_send(c, "hello", h);
	json_decref(h);
	return err;
}

/* Waits for the hello of chans[which] while reading the others: 1 when it
 * answered (*reply_p), 0 when it failed. Others that fail meanwhile are
 * left dead for their own turn. */
static int await_hello(struct fc_chan **chans, int started, int which, double timeout,
		       json_t **reply_p)
{
	json_t *m = NULL;
	int failed, err;

	while ((err = fc_chan_recv(chans, started, which, timeout, &m, &failed)) == -EPIPE &&
	       failed != which)
		;
	if (err)
		return 0;
	if (strcmp(fc_wire_type(m), "hello")) {
		snprintf(chans[which]->why, sizeof(chans[which]->why),
			 "%s: protocol error: the worker answered '%s' where 'hello' was due",
			 chans[which]->node, fc_wire_type(m));
		chans[which]->dead = 1;
		json_decref(m);
		return 0;
	}
	*reply_p = m;
	return 1;
}

int fc_chans_open(struct fc_chan *ch, struct fc_chan **chans, const char *const *nodes, int n,
		  const struct fc_launch *l, double timeout, json_t **replies)
{
	int fanout = fc_fanout_of(l->fanout), next = 0, answered = 0;

	for (int head = 0; head < n; head++) {
		json_t *m = NULL;

		for (; next < n && next - head < fanout; next++) {
			chans[next] = &ch[next];
			open_one(&ch[next], nodes[next], l, timeout);
		}
		if (!ch[head].dead && await_hello(chans, next, head, timeout, &m))
			answered++;
		if (replies)
			replies[head] = m;
		else
			json_decref(m);
	}
	return answered;
}

void fc_chans_close(struct fc_chan *ch, int n, double grace)
{
	for (int i = 0; i < n; i++) {
		if (ch[i].to_fd >= 0)
			close(ch[i].to_fd);
		ch[i].to_fd = -1;
	}
	for (int i = 0; i < n; i++)
		fc_chan_close(&ch[i], grace);
}
