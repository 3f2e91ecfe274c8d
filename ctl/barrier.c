/* One start signal for children's tests (see barrier.h). */
#include "ctl/barrier.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/log.h"
#include "core/util.h"

int fc_barrier_init(struct fc_barrier *b, int n, double max_wait, int up)
{
	*b = (struct fc_barrier){ .n = n, .max_wait = max_wait, .up = up };
	b->fd = malloc((size_t)(n ? n : 1) * sizeof(*b->fd));
	b->since = calloc((size_t)(n ? n : 1), sizeof(*b->since));
	if (!b->fd || !b->since) {
		fc_barrier_release(b);
		return -ENOMEM;
	}
	for (int k = 0; k < n; k++)
		b->fd[k] = -1;
	if (up >= 0) /* ours: not the children's */
		fcntl(up, F_SETFD, FD_CLOEXEC);
	return 0;
}

int fc_barrier_pair(struct fc_barrier *b, int k, int *child_end)
{
	int sv[2];

	*child_end = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return -errno;
	fcntl(sv[0], F_SETFD, FD_CLOEXEC);
	b->fd[k] = sv[0];
	*child_end = sv[1];
	return 0;
}

static void leave(struct fc_barrier *b, int k)
{
	close(b->fd[k]);
	b->fd[k] = -1;
	b->since[k] = 0;
}

/* Reads the children's "ready" bytes. */
static void read_ready(struct fc_barrier *b, const struct fc_child *kids, struct pollfd *pfd)
{
	double now = fc_now();

	for (int k = 0; k < b->n; k++) {
		if (b->fd[k] >= 0 && kids[k].done)
			leave(b, k);
		pfd[k] = (struct pollfd){ .fd = b->fd[k], .events = POLLIN };
	}
	if (poll(pfd, (nfds_t)b->n, 0) <= 0)
		return;
	for (int k = 0; k < b->n; k++) {
		char c;

		if (!pfd[k].revents)
			continue;
		if (read(b->fd[k], &c, 1) != 1)
			leave(b, k);
		else if (!b->since[k])
			b->since[k] = now;
	}
}

/* With a parent: 1 once its go came (or it is gone), 0 while waiting. */
static int up_go(struct fc_barrier *b)
{
	struct pollfd p = { .fd = b->up, .events = POLLIN };
	char c = 'r';

	if (b->up < 0)
		return 1;
	if (!b->up_asked) {
		if (write(b->up, &c, 1) != 1)
			goto out_gone;
		b->up_asked = 1;
	}
	if (poll(&p, 1, 0) <= 0)
		return 0;
	b->up_asked = 0;
	if (read(b->up, &c, 1) == 1)
		return 1;
out_gone:
	close(b->up);
	b->up = -1;
	return 1;
}

void fc_barrier_step(struct fc_barrier *b, const struct fc_child *kids)
{
	struct pollfd *pfd = calloc((size_t)(b->n ? b->n : 1), sizeof(*pfd));
	int live = 0, waiting = 0, overdue = 0;
	double now = fc_now();

	if (!pfd)
		return;
	read_ready(b, kids, pfd);
	free(pfd);
	for (int k = 0; k < b->n; k++) {
		if (b->fd[k] < 0)
			continue;
		live++;
		waiting += b->since[k] > 0;
		overdue |= b->since[k] > 0 && now - b->since[k] > b->max_wait;
	}
	if (!waiting || (waiting < live && !overdue) || !up_go(b))
		return;
	if (waiting < live)
		fc_warn("%d of %d tests waited %.0f s for the others to start; they go on without them",
			waiting, live, b->max_wait);
	for (int k = 0; k < b->n; k++) {
		if (b->fd[k] < 0 || !b->since[k])
			continue;
		b->since[k] = 0;
		if (write(b->fd[k], "g", 1) != 1)
			leave(b, k);
	}
}

void fc_barrier_release(struct fc_barrier *b)
{
	for (int k = 0; b->fd && k < b->n; k++)
		if (b->fd[k] >= 0)
			close(b->fd[k]);
	free(b->fd);
	free(b->since);
	b->fd = NULL;
	b->since = NULL;
	b->n = 0;
}
