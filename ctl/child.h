/*
 * Running a child with a deadline and keeping its stdout: the node side of
 * preflight runs `fabcheck topo --json` and `mlnx_qos`, the controller runs
 * one probe per node through the launcher. Many children at once, each with
 * its own deadline, polled together.
 */
#ifndef FC_PF_EXEC_H
#define FC_PF_EXEC_H

#include <stddef.h>
#include <sys/types.h>

struct pf_child {
	const char *name; /* for messages (the node, the tool) */
	pid_t pid;
	int fd[2];	  /* stdout, stderr; -1 once closed */
	char *out;
	size_t olen, ocap;
	char err[1024];	  /* the tail of stderr */
	size_t elen;
	double deadline;  /* monotonic */
	int status;	  /* waitpid status once reaped */
	int timed_out;
	int done;
	int exec_failed;  /* errno of a failed start, 0 */
};

/* Starts @argv (execvp) with stdin from /dev/null; @c->name set by the
 * caller. Returns 0 or a negative errno (logged, naming @c->name). */
int pf_child_start(struct pf_child *c, const char *const *argv, double timeout_s);
/* Reads from every running child until all are done or killed at their
 * deadline. */
void pf_children_wait(struct pf_child *c, int n);
void pf_child_release(struct pf_child *c);
/* The last non-empty line of the child's stderr ("" when none). */
const char *pf_child_last_err(struct pf_child *c);

/* Runs @argv and returns its stdout (malloc'd, NUL-terminated) when it
 * ended within @timeout_s, whatever its exit code (*exit_p; -1 for a
 * signal); NULL when it could not start or was killed at the deadline. @why
 * gets the reason, or the last line of its stderr. */
char *pf_capture(const char *const *argv, double timeout_s, int *exit_p, char *why,
		 size_t whylen);

#endif
