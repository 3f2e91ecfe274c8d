/*
 * The controller's channel to one worker: `ssh NODE fabcheck worker` (or a
 * local child) with its stdin and stdout as pipes carrying wire messages.
 * The worker's stderr is never parsed: shown with -v, else its last lines
 * are kept to explain a worker that died.
 */
#ifndef FC_CTL_CHAN_H
#define FC_CTL_CHAN_H

#include <jansson.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/wire.h"

/*
 * ssh: `ssh NODE fabcheck worker`; local: this binary as a child;
 * slurm: `srun --nodelist=NODE -N1 -n1 --quiet fabcheck worker` (a job step
 * inside the allocation, or a one-node job outside one; SLURM_* of the
 * environment pass through to srun).
 */
enum fc_launcher { FC_LAUNCH_SSH, FC_LAUNCH_LOCAL, FC_LAUNCH_SLURM };

struct fc_launch {
	enum fc_launcher kind;
	const char *ssh_config; /* -F FILE, or NULL */
	/* The command that runs fabcheck there, default "fabcheck" (local:
	 * this program): words split at blanks, never read by a shell as
	 * more than these words (ssh quotes each one for the node's shell,
	 * srun and local run them as they are). */
	const char *worker_cmd;
	const char *worker_sub; /* its subcommand, default "worker" */
	int verbose;
	int connect_timeout;	/* seconds, ssh ConnectTimeout */
	int fanout;		/* workers started at once (ctl/scale.h); 0: the default */
};

struct fc_chan {
	char node[128];
	enum fc_launcher kind;
	pid_t pid;
	int to_fd, from_fd, err_fd;
	struct fc_linebuf lb;
	uint64_t tx_seq, rx_seq;
	char err_tail[2048];
	size_t err_len;
	int verbose;
	int dead;
	int expect_eof; /* its worker is told to finish: its exit is no failure */
	double until;	/* fc_now() after which fc_chan_recv gives -ETIME; 0: never */
	/* The own deadline of the test under way (fc_now() time; 0: none): a
	 * "progress" message extends a wait up to it, never past it, and a
	 * wait that progress made last until it gives -ETIME. With none, progress extends nothing. */
	double test_until;
	double progress_done, progress_at; /* the last "progress" count, when it came */
	int progress_grew; /* the last "progress" count was above the one before */
	json_t *held;	/* a message fc_chan_progress read ahead */
	char why[1024]; /* what went wrong, naming the node */
};

/* Parses --launcher: "ssh", "local" or "slurm"; logs why not (-EINVAL). */
int fc_launcher_parse(const char *s, enum fc_launcher *out_p);
const char *fc_launcher_name(enum fc_launcher k);

#define FC_LAUNCH_MAX_ARGS 64
/*
 * The command line that runs `fabcheck SUBCMD ARGS...` on @node through @l
 * into @argv (room for FC_LAUNCH_MAX_ARGS, NULL-terminated), using @buf for
 * the strings it composes. @sub is NULL-terminated: {"worker", NULL}.
 * For ssh, the remote command is one shell line with every word quoted, and
 * the connection is shared when fc_ssh_mux_dir() names a control folder.
 * Returns the argument count, -E2BIG, or -EINVAL for an empty command.
 */
int fc_launch_argv(const struct fc_launch *l, const char *node, const char *const *sub,
		   const char **argv, char *buf, size_t buflen);

int fc_chan_start(struct fc_chan *c, const char *node, const struct fc_launch *l);
/* Sends a message (body not consumed; NULL for none). 0 or -errno (why set). */
int fc_chan_send(struct fc_chan *c, const char *type, const json_t *body);
/*
 * Waits for the next message of chans[which] other than "progress", at most
 * @timeout seconds without any message from it, while reading the others'
 * output and pinging every channel now and then so that idle workers keep
 * waiting. Returns 0 with *msg_p, or -errno with chans[which]->why set, or
 * -EPIPE when another channel's worker went away first (*failed_p says
 * which; its buffered messages, an "error" perhaps, can still be read), or
 * -ETIME once chans[which]->until has passed, however busy the worker, or
 * once its test_until has passed in a wait in which it sent "progress", or
 * once twice @timeout has passed since its count of messages done last
 * grew while it sent only "progress" that did not (a worker itself gives
 * up, and says so, when no completion comes for --timeout: verbs/test.c
 * vb_clock_tick).
 */
int fc_chan_recv(struct fc_chan **chans, int n, int which, double timeout, json_t **msg_p,
		 int *failed_p);
/* fc_chan_recv waiting @timeout (the --timeout the worker was given) and
 * @grace seconds more, in which a worker that gives up at its --timeout
 * says why first; the messages name both ("5 s (--timeout 3 s, then 2 s
 * for the worker's own report)"), not 5 s as --timeout. */
int fc_chan_recv_grace(struct fc_chan **chans, int n, int which, double timeout, double grace,
		       json_t **msg_p, int *failed_p);
/* Takes the "progress" messages @c has sent so far, without waiting, into
 * c->progress_done ("done", else "bytes") and c->progress_at; a message of
 * another type is kept for the next fc_chan_recv. */
void fc_chan_progress(struct fc_chan *c);
/* Closes the worker's stdin, waits up to @grace seconds, then kills it. */
void fc_chan_close(struct fc_chan *c, double grace);

#endif
