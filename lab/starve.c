/* Whether the virtual rack was starved (see starve.h). */
#include "lab/starve.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/out.h"
#include "core/readfile.h"
#include "core/util.h"

/*
 * The measure. A TCG guest's vCPU is a host thread of its QEMU process.
 * The guest's steal time cannot say it: steal is reported to a guest by
 * KVM's paravirtual steal clock (MSR_KVM_STEAL_TIME, filled from
 * current->sched_info.run_delay in record_steal_time(), Linux
 * arch/x86/kvm/x86.c), which a TCG guest does not have. The same figure is
 * read on the host: the second field of /proc/PID/task/TID/schedstat is
 * that run_delay, "time spent waiting on a runqueue" (Linux
 * Documentation/scheduler/sched-stats.rst), the first the time on a CPU.
 * wait / (cpu + wait) is the share of the time the guests wanted a CPU
 * that they waited for one: a guest that waits W of it runs at most 1 - W
 * of its quiet speed.
 *
 * The threshold: a quiet rack's pair varies about 6% run to run
 * (../shared/design/virtual-rack.md, 5 alternating perftest runs), and the
 * rack's judgments compare a pair against its rail's median. A wait of 25%
 * slows a guest by up to four times that spread, and it falls unevenly on
 * the guests (the host's scheduler does not share it out by node), so one
 * node looks slow for the host's sake. FC_STARVE_WAIT_PCT is that 25%.
 *
 * The calibration: one pair at `lab up` (1 MiB writes, 2 s, rail 0). On a
 * quiet host it runs at this host's best calibration so far; below half of
 * it (FC_STARVE_CALIB_FRAC, the design of issue 39 item 6) the guests ran
 * at half speed or less: every figure of the rack is then the host's.
 */
double fc_starve_inherent_pct(int guests, int cpus)
{
	return guests > 0 && cpus > 0 && guests > cpus ? 100.0 * (guests - cpus) / guests : 0;
}

double fc_starve_demand_pct(double runnable_s, int cpus, double wall_s)
{
	double room = cpus * wall_s;

	return runnable_s > 0 && cpus > 0 && wall_s > 0 && runnable_s > room ?
		       100.0 * (runnable_s - room) / runnable_s :
		       0;
}

double fc_starve_wait_limit(const struct fc_starve_fig *f)
{
	/* A rack of more guests than the host has CPUs waits for a CPU by its
	 * own number, host quiet or not: a quiet 3-node rack on 2 CPUs waited
	 * 26% of its calibration pair (lab calibrate, 2026-12-06); all three
	 * busy, each gets 2/3 of a CPU and waits 1/3. That share is the
	 * rack's, not the host's load, so the limit sits above it. */
	/* Nor are the guests alone, with their QEMU main loops: each QEMU runs
	 * its vCPU thread and, beside it, the main loop that moves its NICs'
	 * frames (virtio-net, tap), so a busy rack of 2 guests keeps 4 threads
	 * runnable. On the 2-CPU host over a bridged fabric (lab/fabric.sh), a
	 * 2-node calibration whose QEMU had the host's CPUs first (a cpu cgroup
	 * of the highest weight) ran its threads 15.8 s and kept them waiting
	 * 6.2 s (vCPUs 7.1 and 5.8 s, main loops 1.6 and 1.3 s; /proc/PID/task/
	 * TID/schedstat, lab calibrate, 2026-12-06): 28%, over the 25% with no
	 * other work in the way. What they ask beyond the CPUs for the window is
	 * their own wait. */
	double by_guests = fc_starve_inherent_pct(f->guests, f->cpus);
	double by_demand = fc_starve_demand_pct(f->runnable_s, f->cpus, f->wall_s);

	return FC_STARVE_WAIT_PCT + (by_demand > by_guests ? by_demand : by_guests);
}

int fc_starve_judge(const struct fc_starve_fig *f, char *why, size_t len)
{
	double limit = fc_starve_wait_limit(f);
	int waited = f->wait_pct >= 0 && f->runnable_s >= FC_STARVE_MIN_RUNNABLE_S;
	int slow = f->calib_gbps > 0 && f->baseline_gbps > 0 &&
		   f->calib_gbps < FC_STARVE_CALIB_FRAC * f->baseline_gbps;

	if (f->stalled && *f->stalled) {
		snprintf(why, len,
			 "the virtual rack's emulator stalled a node's NIC (%s): results are not "
			 "about the nodes; restart the rack (fabcheck lab down; fabcheck lab up)",
			 f->stalled);
		return 1;
	}
	if (waited && f->wait_pct > limit) {
		snprintf(why, len,
			 FC_STARVE_TEXT " (its QEMU threads waited for a CPU %.1f%% of the %.1f s "
					"they were runnable, over %.0f%%%s); run it on a quiet host",
			 f->wait_pct, f->runnable_s, limit,
			 limit > FC_STARVE_WAIT_PCT ? ", above what its own threads wait on the host's CPUs" : "");
		return 1;
	}
	if (slow) {
		snprintf(why, len,
			 FC_STARVE_TEXT
			 " (its calibration pair moved %.3g Gb/s, below half of this host's best %.3g Gb/s); run it on a quiet host",
			 f->calib_gbps, f->baseline_gbps);
		return 1;
	}
	if (waited)
		snprintf(why, len, "the virtual rack was not starved: its QEMU threads waited "
				   "for a CPU %.1f%% of the %.1f s they were runnable",
			 f->wait_pct, f->runnable_s);
	else if (f->wait_pct >= 0)
		snprintf(why, len, "the virtual rack's guests were too idle (%.2f s runnable) "
				   "to tell whether the host starved them",
			 f->runnable_s);
	else
		snprintf(why, len, "the virtual rack's QEMU threads were not measured");
	if (f->calib_gbps > 0 && f->baseline_gbps > 0)
		snprintf(why + strlen(why), len - strlen(why),
			 "; its calibration pair moved %.3g Gb/s, this host's best %.3g Gb/s",
			 f->calib_gbps, f->baseline_gbps);
	return 0;
}

int fc_sched_parse(const char *text, struct fc_sched *s)
{
	char *end;
	double cpu, wait;

	errno = 0;
	cpu = strtod(text, &end);
	if (end == text || errno || cpu < 0 || (*end != ' ' && *end != '\t'))
		return -EINVAL;
	text = end;
	wait = strtod(text, &end);
	if (end == text || errno || wait < 0)
		return -EINVAL;
	s->cpu_ns += cpu;
	s->wait_ns += wait;
	s->tasks++;
	return 0;
}

int fc_starve_rack_dir(const char *name, char *buf, size_t len)
{
	const char *home = getenv("FABCHECK_LAB_HOME"), *xdg = getenv("XDG_CACHE_HOME");
	const char *user = getenv("HOME");
	size_t n = strlen(name);
	int w;

	/* lab/lib.sh check_name: a lowercase letter, then [a-z0-9-], 32 at most */
	if (n < 1 || n > 32 || name[0] < 'a' || name[0] > 'z' ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != n)
		return -EINVAL;
	if (home && *home)
		w = snprintf(buf, len, "%s/racks/%s", home, name);
	else if (xdg && *xdg)
		w = snprintf(buf, len, "%s/fabcheck/lab/racks/%s", xdg, name);
	else
		w = snprintf(buf, len, "%s/.cache/fabcheck/lab/racks/%s", user ? user : "", name);
	return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
}

/* 1 when @pid's command line under @proc is the rack's QEMU (as
 * lab/lib.sh rack_qemu_pids finds it: "-name fabcheck/NAME/node"). */
static int is_rack_qemu(const char *proc, long pid, const char *name)
{
	char path[PATH_MAX], cmd[4096], want[64];
	int n;

	snprintf(path, sizeof(path), "%s/%ld/cmdline", proc, pid);
	n = fc_read_file(path, cmd, sizeof(cmd));
	if (n <= 0)
		return 0;
	for (int i = 0; i < n; i++)
		if (!cmd[i])
			cmd[i] = ' ';
	snprintf(want, sizeof(want), "fabcheck/%s/node", name);
	return strstr(cmd, "qemu-system") && strstr(cmd, want);
}

/* Adds every thread of process @pid under @proc to @s. */
static void sample_pid(const char *proc, long pid, struct fc_sched *s)
{
	char path[PATH_MAX], text[128];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%ld/task", proc, pid);
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/%ld/task/%.32s/schedstat", proc, pid, e->d_name);
		if (fc_read_file(path, text, sizeof(text)) > 0)
			fc_sched_parse(text, s);
	}
	closedir(d);
}

/* The first field of @proc/uptime (seconds since boot, proc(5)); -1 when
 * unreadable (a recorded /proc without it: the window stays unknown). */
static double read_uptime(const char *proc)
{
	char path[PATH_MAX], text[64], *end;
	double v;

	snprintf(path, sizeof(path), "%s/uptime", proc);
	if (fc_read_file(path, text, sizeof(text)) <= 0)
		return -1;
	v = strtod(text, &end);
	return end != text && v >= 0 ? v : -1;
}

int fc_starve_sample(const char *proc, const char *dir, const char *name, struct fc_sched *s)
{
	int found = 0;

	memset(s, 0, sizeof(*s));
	s->uptime_s = read_uptime(proc);
	for (char l = 'A'; l <= FC_LAB_LAST_NODE; l++) {
		long pid = fc_starve_node_pid(proc, dir, name, l);

		if (pid <= 0)
			continue;
		sample_pid(proc, pid, s);
		found++;
	}
	return found;
}

long fc_starve_node_pid(const char *proc, const char *dir, const char *name, char letter)
{
	char path[PATH_MAX], text[32], *end;
	long pid;

	snprintf(path, sizeof(path), "%s/nodes/node%c.pid", dir, letter);
	if (fc_read_file(path, text, sizeof(text)) <= 0)
		return 0;
	pid = strtol(text, &end, 10);
	if (end == text || (*end && *end != '\n') || pid <= 1 || pid > 4194304 ||
	    !is_rack_qemu(proc, pid, name))
		return 0;
	return pid;
}

/* The last @max bytes of the regular file @path (a serial log grows for
 * the rack's life), NUL ended, their count in *@n; NULL when unreadable. */
static char *read_tail(const char *path, size_t max, size_t *n)
{
	int fd = fc_open_regular(path, FC_READ_NOFOLLOW);
	struct stat st;
	char *buf = NULL;
	ssize_t r;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (buf = malloc(max + 1))) {
		if (st.st_size > (off_t)max)
			lseek(fd, st.st_size - (off_t)max, SEEK_SET);
		r = read(fd, buf, max);
		if (r < 0) {
			free(buf);
			buf = NULL;
		} else {
			buf[r] = '\0';
			*n = (size_t)r;
		}
	}
	close(fd);
	return buf;
}

int fc_starve_stalled(const char *dir, char *buf, size_t len)
{
	static const char mark[] = "NETDEV WATCHDOG";
	char path[PATH_MAX];
	int found = -1;

	for (char l = 'A'; l <= 'H'; l++) {
		size_t n = 0;
		char *text, *hit = NULL, *p, *eol;

		snprintf(path, sizeof(path), "%s/nodes/node%c.serial.log", dir, l);
		text = read_tail(path, 1 << 20, &n);
		if (!text)
			continue;
		for (p = text; (p = memmem(p, n - (size_t)(p - text), mark, sizeof(mark) - 1)); p++)
			hit = p;
		if (hit) {
			eol = memchr(hit, '\n', n - (size_t)(hit - text));
			if (eol)
				*eol = '\0';
			for (p = hit; *p; p++)
				if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
					*p = ' ';
			snprintf(buf, len, "node%c: %s", l, hit);
			found = 0;
		}
		free(text);
	}
	return found;
}

void fc_starve_between(const struct fc_sched *a, const struct fc_sched *b,
		       struct fc_starve_fig *f)
{
	double cpu = b->cpu_ns - a->cpu_ns, wait = b->wait_ns - a->wait_ns;

	f->wait_pct = -1;
	f->runnable_s = 0;
	f->wall_s = a->uptime_s >= 0 && b->uptime_s > a->uptime_s ? b->uptime_s - a->uptime_s : 0;
	if (cpu < 0 || wait < 0)
		return; /* a process gone or restarted between the samples */
	f->wait_pct = cpu + wait > 0 ? 100.0 * wait / (cpu + wait) : 0; /* 0 s: idle */
	f->runnable_s = (cpu + wait) / 1e9;
}

const char *fc_starve_proc(void)
{
	const char *p = getenv("FABCHECK_LAB_PROC");

	return p && *p ? p : "/proc";
}
