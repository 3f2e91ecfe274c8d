/* Unit tests of what one controller needs for many workers (ctl/scale.c,
 * ctl/ssh_mux.c, fc_children_run of ctl/child.c): the open-file arithmetic,
 * the fan-out bound, ssh's connection-sharing options. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/out.h"
#include "ctl/chan.h"
#include "ctl/chan_pool.h"
#include "ctl/child.h"
#include "ctl/scale.h"
#include "ctl/ssh_mux.h"

static void test_fd_plan(void **state)
{
	struct fc_fd_plan p;

	(void)state;
	/* 1,024 workers of 3 descriptors under 1,024/4,096: raised to the need. */
	assert_int_equal(fc_fd_plan(1024, 3, 1024, 4096, &p), 0);
	assert_int_equal(p.need, 1024 * 3 + FC_FD_BASE);
	assert_int_equal(p.soft, 1024 * 3 + FC_FD_BASE);
	assert_int_equal(p.can, 1024);
	/* Enough already: the soft limit stays. */
	assert_int_equal(fc_fd_plan(10, 2, 1024, 4096, &p), 0);
	assert_int_equal(p.soft, 1024);
	/* The hard limit short: raised to it, and how many fit. */
	assert_int_equal(fc_fd_plan(1024, 2, 1024, 1024, &p), -EMFILE);
	assert_int_equal(p.soft, 1024);
	assert_int_equal(p.can, (1024 - FC_FD_BASE) / 2);
	assert_int_equal(fc_fd_plan(200, 2, 100, 100, &p), -EMFILE);
	assert_int_equal(p.can, 18);
	/* An unlimited hard limit (negative): any need fits. */
	assert_int_equal(fc_fd_plan(4096, 3, 1024, -1, &p), 0);
	assert_int_equal(p.soft, 4096 * 3 + FC_FD_BASE);
	/* A hard limit under the base itself: none fit. */
	assert_int_equal(fc_fd_plan(4, 2, 32, 32, &p), -EMFILE);
	assert_int_equal(p.can, 0);
}

static void test_fd_reserve_raises(void **state)
{
	struct rlimit old, now;

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	if (old.rlim_max != RLIM_INFINITY && old.rlim_max < 512 + FC_FD_BASE)
		return; /* too small a hard limit here to raise under it */
	now = old;
	now.rlim_cur = 256;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &now), 0);
	assert_int_equal(fc_fd_reserve("test", 256, 2, "--fanout "), 0);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &now), 0);
	assert_int_equal(now.rlim_cur, 256 * 2 + FC_FD_BASE);
	/* Past the hard limit: refused. The hard limit is lowered to the
	 * soft one where the process may (valgrind keeps the one it started
	 * with, and refuses); either way one worker more than it holds. */
	now.rlim_max = now.rlim_cur;
	if (setrlimit(RLIMIT_NOFILE, &now))
		assert_int_equal(getrlimit(RLIMIT_NOFILE, &now), 0);
	assert_true(now.rlim_max != RLIM_INFINITY);
	assert_int_equal(fc_fd_reserve("test", (int)((now.rlim_max - FC_FD_BASE) / 2) + 1, 2,
				       "--fanout "),
			 -EMFILE);
}

static void test_fanout_parse(void **state)
{
	int n = 0;

	(void)state;
	assert_int_equal(fc_fanout_parse("64", &n), 0);
	assert_int_equal(n, 64);
	assert_int_equal(fc_fanout_parse("0", &n), -EINVAL);
	assert_int_equal(fc_fanout_parse("many", &n), -EINVAL);
	assert_int_equal(fc_fanout_parse("5000", &n), -EINVAL);
	assert_int_equal(fc_fanout_of(0), FC_FANOUT_DEFAULT);
	assert_int_equal(fc_fanout_of(7), 7);
}

/* The fan-out: at each start, fewer than the bound still run. */
struct run_seen {
	int fanout, most, starts;
	int over;
};

static int start_sleep(void *arg, int i, struct fc_child *c)
{
	static const char *const argv[] = { "sh", "-c", "sleep 0.05", NULL };
	struct run_seen *s = arg;
	int running = 0;

	for (int k = 0; k < i; k++)
		running += !c[k - i].done;
	if (running >= s->fanout)
		s->over = 1;
	if (running + 1 > s->most)
		s->most = running + 1;
	s->starts++;
	snprintf(c->name, sizeof(c->name), "sleep %d", i);
	return fc_child_start(c, NULL, argv, 10);
}

static void test_children_fanout(void **state)
{
	struct fc_child kids[24];
	struct run_seen s = { .fanout = 4 };

	(void)state;
	memset(kids, 0, sizeof(kids));
	assert_int_equal(fc_children_run(kids, 24, 4, start_sleep, &s), 24);
	assert_int_equal(s.starts, 24);
	assert_false(s.over);
	assert_int_equal(s.most, 4); /* it does run four at once */
	for (int i = 0; i < 24; i++) {
		assert_true(kids[i].done);
		assert_int_equal(kids[i].status, 0);
		fc_child_release(&kids[i]);
	}
}

static void test_user_cfg(void **state)
{
	(void)state;
	assert_int_equal(fc_ssh_mux_user_cfg("user x\ncontrolmaster false\ncontrolpersist no\n"), 0);
	assert_int_equal(fc_ssh_mux_user_cfg("controlmaster auto\ncontrolpersist no\n"), 1);
	assert_int_equal(fc_ssh_mux_user_cfg("controlmaster false\ncontrolpath /tmp/%C\n"), 1);
	assert_int_equal(fc_ssh_mux_user_cfg("controlmaster false\ncontrolpersist 600\n"), 1);
	assert_int_equal(fc_ssh_mux_user_cfg("controlmaster false\ncontrolpath none\n"), 0);
	assert_int_equal(fc_ssh_mux_user_cfg(""), -1);
	assert_int_equal(fc_ssh_mux_user_cfg("xcontrolmaster auto\n"), -1);
}

/* The index of @word in @argv, or -1. */
static int arg_at(const char *const *argv, const char *word)
{
	for (int i = 0; argv[i]; i++)
		if (!strcmp(argv[i], word))
			return i;
	return -1;
}

static void ssh_args(const char **argv, char *buf, size_t len)
{
	struct fc_launch l = { .kind = FC_LAUNCH_SSH, .connect_timeout = 7 };
	const char *sub[] = { "worker", NULL };

	assert_true(fc_launch_argv(&l, "nodeA", sub, argv, buf, len) > 0);
	assert_string_equal(argv[0], "ssh");
	assert_true(arg_at(argv, "nodeA") > arg_at(argv, "--"));
}

static void test_argv_mux(void **state)
{
	char dir[] = "/tmp/fc-mux-XXXXXX", cp[128], buf[2048];
	const char *argv[FC_LAUNCH_MAX_ARGS];
	int i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	unsetenv("FABCHECK_SSH_MUX");
	ssh_args(argv, buf, sizeof(buf));
	assert_int_equal(arg_at(argv, "ControlMaster=auto"), -1);
	/* A control folder of this user's, mode 0700: shared. */
	setenv("FABCHECK_SSH_MUX", dir, 1);
	ssh_args(argv, buf, sizeof(buf));
	i = arg_at(argv, "ControlMaster=auto");
	assert_true(i > 0);
	assert_string_equal(argv[i - 1], "-o");
	snprintf(cp, sizeof(cp), "ControlPath=%s/%%C", dir);
	assert_true(arg_at(argv, cp) > i);
	assert_true(arg_at(argv, "ControlPersist=30") > i);
	assert_true(arg_at(argv, "ConnectTimeout=7") > 0);
	assert_true(arg_at(argv, "ControlPersist=30") < arg_at(argv, "--"));
	/* Open to others, or off: not shared. */
	assert_int_equal(chmod(dir, 0755), 0);
	ssh_args(argv, buf, sizeof(buf));
	assert_int_equal(arg_at(argv, "ControlMaster=auto"), -1);
	assert_int_equal(chmod(dir, 0700), 0);
	setenv("FABCHECK_SSH_MUX", "off", 1);
	ssh_args(argv, buf, sizeof(buf));
	assert_int_equal(arg_at(argv, "ControlMaster=auto"), -1);
	/* Only ssh: local and srun have no such options. */
	setenv("FABCHECK_SSH_MUX", dir, 1);
	{
		struct fc_launch l = { .kind = FC_LAUNCH_SLURM };
		const char *sub[] = { "worker", NULL };

		assert_true(fc_launch_argv(&l, "nodeA", sub, argv, buf, sizeof(buf)) > 0);
		assert_int_equal(arg_at(argv, "ControlMaster=auto"), -1);
	}
	unsetenv("FABCHECK_SSH_MUX");
	rmdir(dir);
}

/* fc_ssh_mux_setup with a stand-in ssh on PATH whose `ssh -G` prints @g. */
static void setup_with(const char *bin, const char *g, int off)
{
	struct fc_launch l = { .kind = FC_LAUNCH_SSH };
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/ssh", bin);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\nprintf '%%s\\n' \"$@\" >%s/g-argv\nprintf '%s'\n", bin, g);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
	unsetenv("FABCHECK_SSH_MUX");
	fc_ssh_mux_setup(&l, "nodeZ", off);
}

static void test_mux_setup(void **state)
{
	char bin[] = "/tmp/fc-ssh-XXXXXX", path[4200], argvf[256], *old = getenv("PATH");
	char saved[4096], dir[FC_SSH_MUX_DIR_MAX + 1];
	struct stat st;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(bin));
	snprintf(saved, sizeof(saved), "%s", old ? old : "/usr/bin:/bin");
	snprintf(path, sizeof(path), "%s:%s", bin, saved);
	setenv("PATH", path, 1);
	unsetenv("XDG_RUNTIME_DIR");
	/* No sharing of the user's: a control folder, closed to others. */
	setup_with(bin, "controlmaster false\\ncontrolpersist no\\n", 0);
	assert_non_null(fc_ssh_mux_dir());
	snprintf(dir, sizeof(dir), "%s", fc_ssh_mux_dir());
	assert_int_equal(strncmp(dir, "/tmp/fabcheck-ssh-", 18), 0);
	assert_int_equal(lstat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_string_equal(getenv("FABCHECK_SSH_MUX"), dir);
	snprintf(argvf, sizeof(argvf), "%s/g-argv", bin);
	f = fopen(argvf, "r");
	assert_non_null(f);
	assert_non_null(fgets(path, sizeof(path), f));
	assert_string_equal(path, "-G\n");
	fclose(f);
	fc_ssh_mux_end();
	assert_int_not_equal(lstat(dir, &st), 0); /* removed */
	assert_null(fc_ssh_mux_dir());
	/* The user's own ControlMaster: left to it, and off for the children. */
	setup_with(bin, "controlmaster auto\\ncontrolpath /x/%%C\\n", 0);
	assert_null(fc_ssh_mux_dir());
	assert_string_equal(getenv("FABCHECK_SSH_MUX"), "off");
	fc_ssh_mux_end();
	/* ssh without -G: cannot tell, so not shared. */
	setup_with(bin, "", 0);
	assert_null(fc_ssh_mux_dir());
	fc_ssh_mux_end();
	/* Turned off: ssh is not even asked. */
	unlink(argvf);
	setup_with(bin, "controlmaster false\\n", 1);
	assert_null(fc_ssh_mux_dir());
	assert_int_not_equal(access(argvf, F_OK), 0);
	fc_ssh_mux_end();
	unsetenv("FABCHECK_SSH_MUX");
	setenv("PATH", saved, 1);
	snprintf(path, sizeof(path), "%s/ssh", bin);
	unlink(path);
	unlink(argvf);
	rmdir(bin);
}

/* 64 local workers (tests/cli/mx-worker.sh answers "hello"), 8 starting
 * at a time: every one answers and they are alive together. */
static void test_chans_open_64(void **state)
{
	struct fc_chan ch[64], *chans[64];
	char names[64][8], cmd[PATH_MAX + 32];
	const char *nodes[64];
	json_t *rep[64];
	struct fc_launch l = { .kind = FC_LAUNCH_LOCAL, .fanout = 8 };
	int alive = 0;

	(void)state;
	assert_non_null(realpath("tests/cli/mx-worker.sh", cmd));
	l.worker_cmd = cmd;
	for (int i = 0; i < 64; i++) {
		snprintf(names[i], sizeof(names[i]), "w%02d", i);
		nodes[i] = names[i];
	}
	assert_int_equal(fc_chans_open(ch, chans, nodes, 64, &l, 30, rep), 64);
	for (int i = 0; i < 64; i++) {
		assert_non_null(rep[i]);
		assert_string_equal(fc_jstr(rep[i], "type", ""), "hello");
		json_decref(rep[i]);
		alive += !ch[i].dead && ch[i].pid > 0;
	}
	assert_int_equal(alive, 64);
	fc_chans_close(ch, 64, 5);
	for (int i = 0; i < 64; i++)
		assert_int_equal(ch[i].pid, 0);
}

/* A worker that is not there: named, and the others still answer. */
static void test_chans_open_missing(void **state)
{
	struct fc_chan ch[3], *chans[3];
	const char *nodes[] = { "a", "b", "c" };
	struct fc_launch l = { .kind = FC_LAUNCH_LOCAL, .fanout = 2,
			       .worker_cmd = "/nonexistent/fabcheck" };

	(void)state;
	assert_int_equal(fc_chans_open(ch, chans, nodes, 3, &l, 10, NULL), 0);
	for (int i = 0; i < 3; i++) {
		assert_true(ch[i].dead);
		assert_non_null(strstr(ch[i].why, "not installed"));
	}
	fc_chans_close(ch, 3, 1);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN); /* a worker that is gone: EPIPE, as in the commands */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fd_plan),
		cmocka_unit_test(test_fanout_parse),
		cmocka_unit_test(test_children_fanout),
		cmocka_unit_test(test_user_cfg),
		cmocka_unit_test(test_argv_mux),
		cmocka_unit_test(test_mux_setup),
		cmocka_unit_test(test_chans_open_64),
		cmocka_unit_test(test_chans_open_missing),
		cmocka_unit_test(test_fd_reserve_raises), /* last: it lowers the hard limit */
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
