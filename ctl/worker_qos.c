/* The worker's port and QoS counters around a pair run (see worker_qos.h). */
#include "ctl/worker_qos.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verbs/qos.h"
#include "core/ctrcheck.h"
#include "core/log.h"
#include "core/pairv.h"
#include "core/util.h"
#include "verbs/counters.h"

#define ETHTOOL_OUT_MAX (1u << 20)

int wk_find_tool(const char *tool, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char env_name[64], dirs[4096], *save = NULL, *d, *env;

	/* $FABCHECK_ETHTOOL, $FABCHECK_PERFQUERY...: a tool at another path */
	snprintf(env_name, sizeof(env_name), "FABCHECK_%s", tool);
	for (char *c = env_name; *c; c++)
		*c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
	env = getenv(env_name);
	if (env && *env) {
		snprintf(out, len, "%s", env);
		return access(out, X_OK) ? -ENOENT : 0;
	}
	snprintf(dirs, sizeof(dirs), "%s:/usr/sbin:/sbin", path ? path : "/usr/bin:/bin");
	for (d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save))
		if (*d && (size_t)snprintf(out, len, "%s/%s", d, tool) < len &&
		    access(out, X_OK) == 0)
			return 0;
	return -ENOENT;
}

/* Reads the child's output until end of file or the deadline: 0, or
 * -ETIMEDOUT / -E2BIG. */
static int read_until(int fd, double end, char **buf_p, size_t *len_p)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);

	if (!buf)
		return -ENOMEM;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int left = (int)((end - fc_now()) * 1000);
		ssize_t n;

		if (left <= 0 || poll(&p, 1, left) <= 0) {
			free(buf);
			return -ETIMEDOUT;
		}
		if (cap - len < 4096) {
			char *nb = cap < ETHTOOL_OUT_MAX ? realloc(buf, cap * 2) : NULL;

			if (!nb) {
				free(buf);
				return -E2BIG;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*buf_p = buf;
	*len_p = len;
	return 0;
}

/* First line of @text, for a reason. */
static void first_line(const char *text, char *out, size_t len)
{
	size_t n = strcspn(text, "\n");

	snprintf(out, len, "%.*s", (int)(n < 200 ? n : 200), text);
}

json_t *wk_ethtool_stats(const char *netdev, char *why, size_t len)
{
	char exe[4096], *text = NULL, line[256];
	double end = fc_now() + WK_ETHTOOL_DEADLINE_S;
	size_t n = 0;
	int pfd[2], status = 0, err;
	json_t *stats;
	pid_t pid;

	if (!netdev[0] || netdev[0] == '-' || strchr(netdev, '/')) {
		snprintf(why, len, "the port has no network interface");
		return NULL;
	}
	if (wk_find_tool("ethtool", exe, sizeof(exe))) {
		snprintf(why, len, "ethtool is not installed (looked in $PATH, /usr/sbin, /sbin)");
		return NULL;
	}
	if (pipe2(pfd, O_CLOEXEC)) {
		snprintf(why, len, "cannot run ethtool: %s", strerror(errno));
		return NULL;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(why, len, "cannot run ethtool: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return NULL;
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);

		/* Never the worker's channel: stdin from /dev/null, output to us. */
		if (nul >= 0)
			dup2(nul, 0);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		execl(exe, "ethtool", "-S", netdev, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	err = read_until(pfd[0], end, &text, &n);
	close(pfd[0]);
	if (err)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (err) {
		snprintf(why, len, "'%s -S %s' %s", exe, netdev,
			 err == -ETIMEDOUT ? "gave no answer in 5 s" : "failed to run");
		return NULL;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		first_line(text, line, sizeof(line));
		snprintf(why, len, "'ethtool -S %s' failed (exit %d%s%s)", netdev,
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1, line[0] ? ": " : "", line);
		free(text);
		return NULL;
	}
	stats = qos_parse_ethtool_s(text);
	free(text);
	if (!stats)
		snprintf(why, len, "'ethtool -S %s' shows no counters", netdev);
	return stats;
}

/* The kept netdev counters of a full `ethtool -S` object. */
static json_t *keep_netdev(json_t *stats)
{
	json_t *kept = json_object(), *v;
	const char *k;

	json_object_foreach(stats, k, v)
		if (qos_is_netdev_counter(k))
			json_object_set(kept, k, v);
	json_decref(stats);
	return kept;
}

static void note(struct wk_qos *q, const char *fmt, const char *a, const char *b)
{
	char msg[600];

	snprintf(msg, sizeof(msg), fmt, a, b);
	json_array_append_new(q->notes, json_string(msg));
}

void wk_qos_before(struct wk_qos *q, const struct vb_res *r)
{
	char why[400];
	json_t *stats;

	q->notes = json_array();
	q->hw_before = vb_counters_read(getenv("FABCHECK_SYSFS_IB"), r->pi->dev, r->pi->port);
	vb_netdev_counters_read(q->hw_before, r->pi->netdev);
	snprintf(q->netdev, sizeof(q->netdev), "%s", r->pi->netdev);
	if (!r->pi->is_ethernet)
		return; /* InfiniBand: no Ethernet pause counters */
	stats = wk_ethtool_stats(q->netdev, why, sizeof(why));
	if (!stats) {
		note(q, "netdev counters not read: %s%s", why, "");
		return;
	}
	q->eth_before = keep_netdev(stats);
	if (!json_object_size(q->eth_before))
		note(q, "netdev %s exposes no pause, priority or discard counters in 'ethtool -S'%s (a virtual NIC, or a driver without them): PFC and NIC drops are not seen",
		     q->netdev, "");
}

json_t *wk_qos_after(struct wk_qos *q, const struct vb_res *r, json_t **notes_p)
{
	json_t *after = vb_counters_read(getenv("FABCHECK_SYSFS_IB"), r->pi->dev, r->pi->port);
	json_t *out;
	char why[400];

	vb_netdev_counters_read(after, r->pi->netdev);
	out = fc_counters_delta(q->hw_before, after);
	json_t *cc = qos_delta_keep(q->hw_before, after, qos_is_cc_counter);
	/* The traffic counters even at zero, for the pair's counters check. */
	json_t *traffic = qos_delta_keep(q->hw_before, after, fc_is_traffic_counter);

	json_object_update_missing(out, cc);
	json_object_update_missing(out, traffic);
	json_decref(cc);
	json_decref(traffic);
	json_decref(after);
	if (q->eth_before && json_object_size(q->eth_before)) {
		json_t *stats = wk_ethtool_stats(q->netdev, why, sizeof(why));

		if (stats) {
			json_t *kept = keep_netdev(stats);

			json_object_set_new(out, "netdev",
					    qos_delta_keep(q->eth_before, kept, NULL));
			json_decref(kept);
		} else {
			note(q, "netdev counters not read after the test: %s%s", why, "");
		}
	}
	*notes_p = json_incref(q->notes);
	return out;
}

void wk_qos_release(struct wk_qos *q)
{
	json_decref(q->hw_before);
	json_decref(q->eth_before);
	json_decref(q->notes);
	memset(q, 0, sizeof(*q));
}
