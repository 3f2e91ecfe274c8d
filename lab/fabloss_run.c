/* A command's run on a lab rack: the fabric's own losses (see fabloss.h). */
#include "lab/fabloss.h"

#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hostloss.h"
#include "core/out.h"
#include "core/rail.h"
#include "core/util.h"
#include "pair/pair.h"
#include "lab/starve.h"

static struct {
	pthread_mutex_t mu;
	int started;
	char dir[PATH_MAX], name[40];
	struct fc_fabloss start;
} run = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* Where a tap's counters are (/sys/class/net/TAP/statistics). */
static const char *const sys_root = "/sys";

int fc_fabloss_begin(const char *dir, const char *name)
{
	snprintf(run.dir, sizeof(run.dir), "%s", dir);
	snprintf(run.name, sizeof(run.name), "%s", name);
	run.started = fc_fabloss_sample(fc_starve_proc(), sys_root, dir, name, &run.start) > 0;
	return run.started;
}

/* What the host's end of port @p is, for the sentence. */
static const char *fabric_end(const struct fc_fabloss_port *p)
{
	return p->tap[0] ? "its tap's queue, tx_dropped" :
			   "QEMU's multicast socket's receive queue, /proc/net/udp";
}

double fc_fabloss_explains(const char *node, const char *ip, char *why, size_t len)
{
	struct fc_fabloss now;
	double was, is, d = 0;
	int i, r, j;

	(void)node; /* the address names the port; the node may be an ssh alias */
	pthread_mutex_lock(&run.mu);
	r = run.started ? fc_fabloss_find(&run.start, ip, &i) : -1;
	if (r >= 0 && !fc_fabloss_port_faulted(run.dir, run.start.node[i].name, r) &&
	    fc_fabloss_sample(fc_starve_proc(), sys_root, run.dir, run.name, &now) > 0 &&
	    fc_fabloss_find(&now, ip, &j) == r) {
		was = run.start.node[i].port[r].drops;
		is = now.node[j].port[r].drops;
		d = was >= 0 && is > was ? is - was : 0;
		if (d > 0)
			snprintf(why, len,
				 "the virtual rack's fabric dropped %.0f frames toward %s on rail %d "
				 "in the host during the run (%s): the emulator's loss, not the node's",
				 d, run.start.node[i].name, r, fabric_end(&now.node[j].port[r]));
	}
	pthread_mutex_unlock(&run.mu);
	return d;
}

/* Adds @list's entries to @sum ({"NODE DEVICE": frames}). */
static void gather(json_t *sum, const json_t *list)
{
	const json_t *e;
	size_t i;

	json_array_foreach(list, i, e) {
		char key[128];
		json_t *v;

		snprintf(key, sizeof(key), "%s %s", fc_jstr(e, "node", "?"), fc_jstr(e, "device", "?"));
		v = json_object_get(sum, key);
		json_object_set_new(sum, key, json_real((v ? json_real_value(v) : 0) +
							fc_jnum(e, "frames_dropped", 0)));
	}
}

/* Every port set aside in @doc: its own, and its rails' phases'. */
static json_t *set_aside(const json_t *doc)
{
	const json_t *lists[2 * FC_RAIL_MAX + 1];
	size_t n = fc_host_loss_lists(doc, lists, sizeof(lists) / sizeof(lists[0]));
	json_t *sum = json_object();

	for (size_t i = 0; i < n; i++)
		gather(sum, lists[i]);
	return sum;
}

void fc_fabloss_note(json_t *doc)
{
	json_t *sum = set_aside(doc), *lab = json_object_get(doc, "lab"), *v;
	char text[1024] = "", *note = NULL;
	const char *key;
	double all = 0;
	size_t off = 0;

	json_object_foreach(sum, key, v) {
		all += json_real_value(v);
		if (off < sizeof(text))
			off += (size_t)snprintf(text + off, sizeof(text) - off, "%s%s", off ? ", " : "",
						key);
	}
	if (off && asprintf(&note, "the virtual rack's fabric dropped %.0f frames in the host "
				   "toward %s (QEMU's queues): their retransmissions are the "
				   "emulator's loss, not the nodes' (in --json \"host_loss\")",
			       all, text) > 0) {
		/* a pair's document says it among its notes, as a limit of the
		 * run, not a problem; any other among its findings */
		if (json_object_get(doc, "a"))
			pair_qos_note(doc, "%s", note);
		else
			fc_finding(doc, FC_PASS, "%s", note);
		if (lab)
			json_object_set(lab, "fabric_drops", sum);
	}
	free(note);
	json_decref(sum);
}
