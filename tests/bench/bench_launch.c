/*
 * `make bench-launch`: the time to start N workers from one controller
 * with --launcher local on this host, N = 64, 256, 1,024 (or the counts
 * given). Two ways, neither needing an RDMA device:
 *   channels:  N `fabcheck worker` channels (ctl/chan_pool.c), each
 *              started, sent "hello" and answered, at most --fanout
 *              waiting at once; all N then live together, are pinged once
 *              through one poll over every channel, and closed;
 *   preflight: `fabcheck preflight --launcher local --json` of N nodes
 *              (N probes, --fanout at once), until its document.
 * Prints the seconds, how many answered and the controller's peak memory.
 * A benchmark, not a test: figures vary with the host and its load.
 */
#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/util.h"
#include "ctl/chan_pool.h"
#include "ctl/child.h"
#include "ctl/scale.h"

static char exe[PATH_MAX];

static char **node_names(int n)
{
	char **v = calloc((size_t)n + 1, sizeof(*v));

	for (int i = 0; v && i < n; i++)
		if (asprintf(&v[i], "n%04d", i + 1) < 0)
			exit(1);
	return v;
}

static void free_names(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static double peak_mib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024.0;
}

/* Every live channel answers one ping round: how many are alive. */
static int ping_round(struct fc_chan **chans, int n)
{
	int alive = 0;

	for (int i = 0; i < n; i++)
		alive += !chans[i]->dead && !fc_chan_send(chans[i], "ping", NULL);
	return alive;
}

static void bench_channels(int n, int fanout)
{
	struct fc_chan *ch = calloc((size_t)n, sizeof(*ch));
	struct fc_chan **chans = calloc((size_t)n, sizeof(*chans));
	char **nodes = node_names(n);
	struct fc_launch l = { .kind = FC_LAUNCH_LOCAL, .worker_cmd = exe, .fanout = fanout };
	double t0, t1, t2;
	int answered, alive;

	if (!ch || !chans || !nodes || fc_fd_reserve("bench-launch", n, 3, NULL))
		exit(1);
	t0 = fc_now();
	answered = fc_chans_open(ch, chans, (const char *const *)nodes, n, &l, 60, NULL);
	t1 = fc_now();
	alive = ping_round(chans, n);
	fc_chans_close(ch, n, 10);
	t2 = fc_now();
	printf("channels   N=%-5d fanout=%-5d start+hello %7.3f s  (%5.2f ms a worker)  answered %d/%d  alive together %d  close %6.3f s\n",
	       n, fc_fanout_of(fanout), t1 - t0, (t1 - t0) * 1000 / n, answered, n, alive, t2 - t1);
	free(ch);
	free(chans);
	free_names(nodes, n);
}

static void bench_preflight(int n, int fanout)
{
	const char **argv = calloc((size_t)n + 10, sizeof(*argv));
	char **nodes = node_names(n), fan[16], why[512];
	int k = 0, code, ok = 0;
	double t0, t1;
	char *out;

	if (!argv || !nodes)
		exit(1);
	snprintf(fan, sizeof(fan), "%d", fc_fanout_of(fanout));
	argv[k++] = exe;
	argv[k++] = "preflight";
	argv[k++] = "--launcher";
	argv[k++] = "local";
	argv[k++] = "--fanout";
	argv[k++] = fan;
	argv[k++] = "--json";
	for (int i = 0; i < n; i++)
		argv[k++] = nodes[i];
	argv[k] = NULL;
	t0 = fc_now();
	out = fc_capture(argv, 600, &code, why, sizeof(why));
	t1 = fc_now();
	for (const char *s = out; s && (s = strstr(s, "\"status\": \"ok\"")); s++)
		ok++;
	printf("preflight  N=%-5d fanout=%-5s probes      %7.3f s  (%5.2f ms a worker)  answered %d/%d%s%s\n",
	       n, fan, t1 - t0, (t1 - t0) * 1000 / n, ok, n, out ? "" : "  failed: ", out ? "" : why);
	free(out);
	free(argv);
	free_names(nodes, n);
}

int main(int argc, char **argv)
{
	int counts[16] = { 64, 256, 1024 }, nc = 3;

	signal(SIGPIPE, SIG_IGN);
	if (!realpath("fabcheck", exe)) {
		fprintf(stderr, "bench-launch: no ./fabcheck here (run 'make bench-launch' from the tree): %s\n",
			strerror(errno));
		return 1;
	}
	if (argc > 1)
		nc = 0;
	for (int i = 1; i < argc && nc < 16; i++)
		if (fc_parse_int("N", argv[i], 2, FC_FANOUT_MAX, &counts[nc++]))
			return 2;
	printf("bench-launch: %ld CPUs; workers started with --launcher local (%s)\n",
	       sysconf(_SC_NPROCESSORS_ONLN), exe);
	for (int i = 0; i < nc; i++)
		bench_channels(counts[i], 0);
	bench_channels(counts[nc - 1], counts[nc - 1]); /* no fan-out bound */
	for (int i = 0; i < nc; i++)
		bench_preflight(counts[i], 0);
	bench_preflight(counts[nc - 1], counts[nc - 1]);
	printf("controller peak memory %.1f MiB\n", peak_mib());
	return 0;
}
