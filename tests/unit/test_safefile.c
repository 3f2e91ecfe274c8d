/* Unit tests of core/names.c and core/safefile.c: names that are data,
 * evidence folders and replaced files that no planted link redirects. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/names.h"
#include "core/out.h"
#include "core/safefile.h"
#include "tests/unit/tmptree.h"

static void test_names(void **state)
{
	char pad[300], buf[16];

	(void)state;
	assert_true(fc_name_ok(FC_NAME_DEV, "mlx5_0"));
	assert_true(fc_name_ok(FC_NAME_NETDEV, "ib0.8001"));
	assert_true(fc_name_ok(FC_NAME_BDF, "0000:17:00.0"));
	assert_true(fc_name_ok(FC_NAME_NODE, "user@gpu-01.rack3"));
	assert_false(fc_name_ok(FC_NAME_DEV, "../../etc"));
	assert_false(fc_name_ok(FC_NAME_DEV, "a/b"));
	assert_false(fc_name_ok(FC_NAME_DEV, ".."));
	assert_false(fc_name_ok(FC_NAME_NODE, ".."));
	assert_false(fc_name_ok(FC_NAME_NODE, "-oProxyCommand=x"));
	assert_false(fc_name_ok(FC_NAME_DEV, "mlx5\x1b[2J"));
	assert_false(fc_name_ok(FC_NAME_DEV, ""));
	assert_false(fc_name_ok(FC_NAME_DEV, NULL));
	assert_false(fc_name_ok(FC_NAME_BDF, "0000:zz:00.0"));
	assert_false(fc_name_ok(FC_NAME_NETDEV, "eth0eth0eth0eth0")); /* 16 > IFNAMSIZ - 1 */
	memset(pad, 'a', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = 0;
	assert_false(fc_name_ok(FC_NAME_NODE, pad));
	pad[63] = 0;
	assert_true(fc_name_ok(FC_NAME_DEV, pad));
	pad[63] = 'a';
	pad[64] = 0;
	assert_false(fc_name_ok(FC_NAME_DEV, pad));
	assert_int_equal(fc_name_check(FC_NAME_DEV, "x/y", "test"), -EINVAL);
	assert_string_equal(fc_name_or_unknown(FC_NAME_BDF, "0000:17:00.0", "t"), "0000:17:00.0");
	assert_string_equal(fc_name_or_unknown(FC_NAME_BDF, "0000:17:00.0;rm", "t"), "?");
	assert_string_equal(fc_name_or_unknown(FC_NAME_BDF, NULL, "t"), "?");
	assert_string_equal(fc_name_show("a\x1b" "b", buf, sizeof(buf)), "a\\x1bb");
	assert_string_equal(fc_name_show("0123456789abcdefgh", buf, sizeof(buf)),
			    "0123456789ab...");
	assert_string_equal(fc_name_show("0123456789abcde", buf, sizeof(buf)), "0123456789abcde");
}

static void test_evdir(void **state)
{
	char *top = tmpdir(), ev[128], victim[128], link[160], buf[8] = { 0 };
	int fd, sub, v;

	(void)state;
	snprintf(ev, sizeof(ev), "%s/a/ev", top);
	fd = fc_evdir_open(ev); /* made, with its parents, and marked */
	assert_true(fd >= 0);
	sub = fc_subdir_at(fd, "node1", ev);
	assert_true(sub >= 0);
	assert_int_equal(fc_write_new_at(sub, "f", "one", 3, ev), 0);
	assert_int_equal(fc_write_new_at(sub, "f", "two", 3, ev), 0); /* replaced */
	/* a link planted at a file's name is removed, its target untouched */
	snprintf(victim, sizeof(victim), "%s/victim", top);
	v = open(victim, O_WRONLY | O_CREAT, 0644);
	assert_int_equal(write(v, "keep", 4), 4);
	close(v);
	assert_int_equal(symlinkat(victim, sub, "g"), 0);
	assert_int_equal(fc_write_new_at(sub, "g", "evil", 4, ev), 0);
	v = open(victim, O_RDONLY);
	assert_int_equal(read(v, buf, sizeof(buf) - 1), 4);
	close(v);
	assert_string_equal(buf, "keep");
	/* a link planted at a folder's name is refused */
	assert_int_equal(symlinkat(top, sub, "d"), 0);
	assert_true(fc_subdir_at(sub, "d", ev) < 0);
	assert_true(fc_subdir_at(sub, "../x", ev) < 0);
	assert_true(fc_write_new_at(sub, "../x", "x", 1, ev) < 0);
	close(sub);
	close(fd);
	fd = fc_evdir_open(ev); /* its own folder again */
	assert_true(fd >= 0);
	close(fd);
	/* an empty folder is taken, a full one without the mark refused */
	snprintf(ev, sizeof(ev), "%s/a", top);
	assert_true(fc_evdir_open(ev) < 0);
	snprintf(ev, sizeof(ev), "%s/empty", top);
	assert_int_equal(mkdir(ev, 0755), 0);
	fd = fc_evdir_open(ev);
	assert_true(fd >= 0);
	close(fd);
	/* a link to a folder is refused */
	snprintf(link, sizeof(link), "%s/link", top);
	assert_int_equal(symlink(ev, link), 0);
	assert_true(fc_evdir_open(link) < 0);
	rmtree(top);
}

static int fill(FILE *f, void *arg)
{
	return fputs(arg, f) < 0 ? -1 : 0;
}

static void test_replace(void **state)
{
	char *top = tmpdir(), path[128], link[128], buf[16] = { 0 };
	struct stat st;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/out.html", top);
	assert_int_equal(fc_replace_file("--html", path, fill, "one"), 0);
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(fc_replace_file("--html", path, fill, "two"), 0);
	fd = open(path, O_RDONLY);
	assert_int_equal(read(fd, buf, sizeof(buf) - 1), 3);
	close(fd);
	assert_string_equal(buf, "two");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640); /* the file's mode is kept */
	/* a link at the target is refused and its target kept */
	snprintf(link, sizeof(link), "%s/link.html", top);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(fc_replace_file("--html", link, fill, "evil"), -1);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	fd = open(path, O_RDONLY);
	assert_int_equal(read(fd, buf, sizeof(buf) - 1), 3);
	close(fd);
	assert_string_equal(buf, "two");
	/* a character device is written in place, never replaced */
	assert_int_equal(fc_replace_file("--html", "/dev/null", fill, "x"), 0);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	/* a FIFO nobody reads fails at once */
	snprintf(path, sizeof(path), "%s/fifo", top);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(fc_replace_file("--html", path, fill, "x"), -1);
	rmtree(top);
}

/* A fill that a signal interrupts half way. */
static int fill_then_term(FILE *f, void *arg)
{
	(void)arg;
	fputs("half", f);
	fflush(f);
	raise(SIGTERM);
	return 0;
}

/* A signal while fc_replace_file fills its hidden temporary: the last
 * words (fc_out_on_signals) remove it, the process ends by the signal and
 * neither the target nor a ".out.html.XXXXXX" is left. */
static void test_replace_signal(void **state)
{
	char *top = tmpdir(), path[128], cmd[256];
	struct fc_ctx ctx = { .prog = "fabcheck" };
	int status;
	pid_t pid;
	FILE *ls;

	(void)state;
	snprintf(path, sizeof(path), "%s/out.html", top);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		freopen("/dev/null", "w", stderr);
		fc_out_on_signals(&ctx, NULL);
		fc_replace_file("--html", path, fill_then_term, NULL);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", top);
	ls = popen(cmd, "r");
	assert_non_null(ls);
	assert_int_equal(fscanf(ls, "%d", &status), 1);
	pclose(ls);
	assert_int_equal(status, 0); /* nothing left in the folder */
	rmtree(top);
}

static int fill_big(FILE *f, void *arg)
{
	(void)arg;
	for (int i = 0; i < 1 << 20; i++) /* 1 MiB: more than a pipe holds */
		if (fputc('x', f) == EOF)
			return -1;
	return 0;
}

/* A FIFO whose reader opened it and reads nothing: the write has a
 * deadline, it fails, it does not wait for ever; one that reads gets all. */
static void test_fifo_deadline(void **state)
{
	char *top = tmpdir(), path[128], buf[65536];
	struct timespec t0, t1;
	size_t got = 0;
	ssize_t n;
	int rd;
	pid_t pid;

	(void)state;
	snprintf(path, sizeof(path), "%s/fifo", top);
	assert_int_equal(mkfifo(path, 0600), 0);
	rd = open(path, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	fc_fifo_idle_ms = 300;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(fc_replace_file("--prom", path, fill_big, NULL), -1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(t1.tv_sec - t0.tv_sec < 5);
	close(rd);
	/* a reader that reads: the whole MiB arrives */
	rd = open(path, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	fc_fifo_idle_ms = 10000;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		_exit(fc_replace_file("--prom", path, fill_big, NULL) ? 1 : 0);
	/* 0 (no writer yet) and EAGAIN: the child has not written yet */
	for (int tries = 0; got < 1 << 20 && tries < 20000; tries++) {
		n = read(rd, buf, sizeof(buf));
		if (n > 0)
			got += (size_t)n;
		else
			usleep(1000);
	}
	close(rd);
	assert_int_equal(got, 1 << 20);
	{
		int st;

		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	fc_fifo_idle_ms = FC_FIFO_IDLE_MS;
	rmtree(top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_evdir),
		cmocka_unit_test(test_replace),
		cmocka_unit_test(test_replace_signal),
		cmocka_unit_test(test_fifo_deadline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
