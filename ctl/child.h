/*
 * Children with deadlines whose output is kept: the matrix's `pair` children,
 * the controller's preflight probes (one per node through the launcher), and
 * the tools the node side of preflight runs (`fabcheck topo --json`,
 * `mlnx_qos`). Many children at once, each with its own deadline, polled
 * together; at its deadline a child's process group gets SIGTERM, and
 * SIGKILL FC_CHILD_GRACE_S later.
 */
#ifndef FC_CTL_CHILD_H
#define FC_CTL_CHILD_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

/* The most of a child's stdout kept; past it the output is cut (out_cut). */
#define FC_CHILD_OUT_MAX (8u << 20)
/* The tail of stderr kept (its last lines say what went wrong). */
#define FC_CHILD_ERR_KEEP 2048
/* After SIGTERM at the deadline, how long a child has before SIGKILL. */
#define FC_CHILD_GRACE_S 5.0

struct fc_child {
	char name[160];	  /* for messages (the node, the tool, the pair) */
	pid_t pid;
	int fd[2];	  /* stdout, stderr; -1 once closed */
	char *out;	  /* NUL-terminated */
	size_t olen, ocap;
	size_t out_max;	  /* the most of stdout kept, set before the start; 0: FC_CHILD_OUT_MAX */
	int out_cut;	  /* stdout went past out_max: the rest was dropped */
	char err[FC_CHILD_ERR_KEEP + 1];
	size_t elen;
	double start, deadline; /* monotonic; deadline 0: none */
	double term_at;	  /* when it got SIGTERM at its deadline, 0 */
	int status;	  /* waitpid status once reaped */
	int timed_out;
	int done;
	int exec_failed;  /* errno of a failed start, 0 */
};

/* Starts @argv with stdin from /dev/null, in its own process group: @exe
 * (execv) when given, else argv[0] from PATH (execvp). @c->name is set by the
 * caller. Returns 0 or a negative errno (logged, naming @c->name). */
int fc_child_start(struct fc_child *c, const char *exe, const char *const *argv,
		   double timeout_s);
/* One round: waits up to @timeout_ms (at most 1 s, for the deadlines) for
 * output of the children not done, reads it, applies the deadlines and reaps
 * the children whose pipes closed. Returns how many are still running, or a
 * negative errno when poll itself failed. */
int fc_children_poll(struct fc_child *c, int n, int timeout_ms);
/* Polls until every child is done. */
void fc_children_wait(struct fc_child *c, int n);
/*
 * Starts child @i with @start (it sets c->name and calls fc_child_start; a
 * child that could not start is done) with at most @fanout (0: the
 * default, ctl/scale.h) running at once, as pdsh -f: the next starts as one
 * ends. Polls until every child is done; on fc_stop the rest never start.
 * Returns how many started.
 */
typedef int (*fc_child_start_fn)(void *arg, int i, struct fc_child *c);
int fc_children_run(struct fc_child *c, int n, int fanout, fc_child_start_fn start, void *arg);
/* Ends the children not done (SIGTERM, SIGKILL after the grace) and reaps
 * them; their output is kept. */
void fc_children_stop(struct fc_child *c, int n);
void fc_child_release(struct fc_child *c);
/* The last non-empty line of the child's stderr ("" when none). */
const char *fc_child_last_err(struct fc_child *c);

/* Runs @argv and returns its stdout (malloc'd, NUL-terminated) when it
 * ended within @timeout_s, whatever its exit code (*exit_p; -1 for a
 * signal); NULL when it could not start, was ended at the deadline or wrote
 * more than FC_CHILD_OUT_MAX. @why gets the reason, or the last line of its
 * stderr. */
char *fc_capture(const char *const *argv, double timeout_s, int *exit_p, char *why,
		 size_t whylen);

/* Set by SIGINT, SIGTERM and SIGHUP once fc_stop_on_signals() ran: the
 * long-running commands (matrix, soak, tui) then end their children and keep
 * what was measured. fc_stop_on_signals() clears it. */
extern volatile sig_atomic_t fc_stop;
/* The signal that set fc_stop (SIGINT, SIGTERM, SIGHUP). */
extern volatile sig_atomic_t fc_stop_sig;
void fc_stop_on_signals(void);

#endif
