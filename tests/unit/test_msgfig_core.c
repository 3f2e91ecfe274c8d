/* Messages with figures of core/ and diag/set.c fed known figures (issue 39
 * item 5, "true sentences"; scripts/msg_catalogue.py lists them): a
 * capture's manifest and bounds, the summary past its line budget, the wire
 * protocol's type, a name's limit, an option table's, a file's size bound,
 * a FIFO's deadline, evidence folders and sets. Each drives the function
 * that prints the message and checks the sentence whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/bundle.h"
#include "core/log.h"
#include "core/names.h"
#include "core/opts.h"
#include "core/readfile.h"
#include "core/safefile.h"
#include "core/summary.h"
#include "core/wire.h"
#include "diag/diag.h"
#include "tests/unit/memtext.h"
#include "tests/unit/tmptree.h"

/* The last message logged (any level), and how many. */
static char logged[2048];
static int nlogged;

static void keep(enum fc_log_level lvl, const char *msg)
{
	(void)lvl;
	snprintf(logged, sizeof(logged), "%s", msg);
	nlogged++;
}

static void hook_on(void)
{
	logged[0] = 0;
	nlogged = 0;
	fc_log_hook = keep;
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* A manifest that decodes but is a list: no line to name (jansson's is -1
 * once a document decodes: "another value at line -1" before); one cut on
 * its line 3: jansson's reason and that line; one of format 2. */
static void test_bundle_manifest(void **state)
{
	char *dir = tmpdir(), err[512], want[512];
	struct fc_bundle *b;

	(void)state;
	put(dir, "manifest.json", "[1, 2]\n");
	assert_null(fc_bundle_open(dir, err, sizeof(err)));
	snprintf(want, sizeof(want), "%s: manifest.json: not a JSON object (another value); "
		 "capture the node again", dir);
	assert_string_equal(err, want);
	put(dir, "manifest.json", "{\n \"capture\": 1,\n \"files\": [,]\n}\n");
	assert_null(fc_bundle_open(dir, err, sizeof(err)));
	snprintf(want, sizeof(want), "%s: manifest.json: not a JSON object (", dir);
	assert_memory_equal(err, want, strlen(want));
	assert_non_null(strstr(err, " at line 3); capture the node again"));
	assert_null(strstr(err, "line -1"));
	put(dir, "manifest.json", "{\"capture\": 2, \"files\": []}\n");
	b = fc_bundle_open(dir, err, sizeof(err));
	assert_null(b);
	snprintf(want, sizeof(want), "%s: manifest.json: not a fabcheck capture of format 1 "
		 "(\"capture\": 1 and a \"files\" list)", dir);
	assert_string_equal(err, want);
	rmtree(dir);
}

/* A writer: a command's 20 MiB output past the 16 MiB a file; then, the
 * bundle 10 bytes short of its 256 MiB, an input of 11 bytes: the bound's
 * warning once, both bounds in it, and the input noted as not read. */
static void test_bundle_bounds(void **state)
{
	char *top = tmpdir(), dir[128];
	struct fc_bundle_w w;
	size_t big = 20u << 20;
	char *buf = calloc(1, big);
	const json_t *last;

	(void)state;
	assert_non_null(buf);
	snprintf(dir, sizeof(dir), "%s/cap", top);
	assert_int_equal(fc_bw_open(&w, dir), 0);
	assert_int_equal(fc_bw_put(&w, "cmd/ethtool_-m_eth0", buf, big, "ethtool -m eth0", 0),
			 -EFBIG);
	last = json_array_get(w.not_read, json_array_size(w.not_read) - 1);
	assert_string_equal(json_string_value(json_object_get(last, "why")),
			    "its 20 MiB are more than one file's bound of 16 MiB");
	assert_string_equal(json_string_value(json_object_get(last, "input")), "ethtool -m eth0");
	w.total = FC_BUNDLE_TOTAL_MAX - 10;
	hook_on();
	assert_int_equal(fc_bw_put(&w, "sys/x", buf, 11, "/sys/x", -1), -EFBIG);
	assert_int_equal(fc_bw_put(&w, "sys/y", buf, 1, "/sys/y", -1), -EFBIG);
	fc_log_hook = NULL;
	assert_int_equal(nlogged, 1);
	assert_string_equal(logged, "capture: the bundle reached its bound (256 MiB, 200000 "
				    "files): the inputs after it are listed as not read");
	assert_int_equal(json_array_size(w.not_read), 3);
	fc_bw_abort(&w);
	free(buf);
	rmtree(top);
}

/* Nine likely parts named: six lines, then the count of the rest (3). */
static void test_summary_more(void **state)
{
	json_t *doc = json_pack("{s:s, s:[], s:[]}", "verdict", "fail", "findings", "diagnosis");
	char *s, subj[32], ev[32], next[32];
	int lines = 0;

	(void)state;
	setenv("COLUMNS", "300", 1);
	for (int i = 0; i < 9; i++) {
		snprintf(subj, sizeof(subj), "node%c mlx5_%d port 1", 'A' + i, i);
		snprintf(ev, sizeof(ev), "%d symbol errors", 100 + i);
		snprintf(next, sizeof(next), "swap the cable of node%c", 'A' + i);
		json_array_append_new(json_object_get(doc, "diagnosis"),
				      json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "rule", "phys",
						"subject", subj, "part", "cable", "confidence",
						"likely", "evidence", ev, "next", next));
	}
	s = render(fc_summary_render, doc);
	print_message("%s", s);
	assert_non_null(strstr(s, "verdict: fail, 9 problems named:\n"));
	assert_non_null(strstr(s, "\n  ... and 3 more (above, and in --json)\n"));
	for (const char *p = s; (p = strstr(p, "swap the cable")); p++)
		lines++;
	assert_int_equal(lines, 6);
	free(s);
	json_decref(doc);
	unsetenv("COLUMNS");
}

/* A message of the right version and sequence (7) whose type is no type. */
static void test_wire_type(void **state)
{
	const char *line = "{\"v\": 1, \"seq\": 7, \"type\": \"Hello There\"}";
	char why[256];
	json_t *msg = NULL;

	(void)state;
	assert_int_equal(fc_wire_parse(line, strlen(line), 1, 7, &msg, NULL, why, sizeof(why)),
			 -EPROTO);
	assert_null(msg);
	assert_string_equal(why, "message 7 has no valid \"type\"");
}

/* Each kind's own limit and characters: a net device of 15 characters at
 * most (IFNAMSIZ 16 with its NUL), a PCI address of 16. */
static void test_name_limits(void **state)
{
	(void)state;
	hook_on();
	assert_int_equal(fc_name_check(FC_NAME_NETDEV, "enp1s0f0/1", "worker nodeB"), -EINVAL);
	assert_string_equal(logged, "worker nodeB: 'enp1s0f0/1' is not a valid net device name "
				    "(it holds '/'): a name holds letters, digits and \"-_.\" only, "
				    "at most 15 characters, and does not begin with '-' or '.'; fix "
				    "the name where it came from");
	assert_int_equal(fc_name_check(FC_NAME_BDF, "0000:3b:00.0:0000:3b", "lspci"), -EINVAL);
	assert_string_equal(logged, "lspci: '0000:3b:00.0:0000:3b' is not a valid PCI address "
				    "name (longer than 16 characters): a name holds letters, digits "
				    "and \":.\" only, at most 16 characters, and does not begin with "
				    "'-' or '.'; fix the name where it came from");
	fc_log_hook = NULL;
}

/* A table of 81 options, one past FC_OPTS_MAX (80). */
static void test_opts_max(void **state)
{
	static char names[FC_OPTS_MAX + 1][8];
	struct fc_opt opt[FC_OPTS_MAX + 2];
	struct fc_opts spec = { .opt = opt, .cmd = "wide cmd" };
	struct fc_opts_table t;

	(void)state;
	memset(opt, 0, sizeof(opt));
	for (int i = 0; i < FC_OPTS_MAX + 1; i++) {
		snprintf(names[i], sizeof(names[i]), "o%d", i);
		opt[i] = (struct fc_opt){ .name = names[i], .kind = FC_OPT_FLAG };
	}
	hook_on();
	assert_int_equal(fc_opts_table(&spec, "", &t), -E2BIG);
	fc_log_hook = NULL;
	assert_string_equal(logged, "wide cmd: more than 80 options in one table");
	/* 80 are taken */
	opt[FC_OPTS_MAX].name = NULL;
	assert_int_equal(fc_opts_table(&spec, "", &t), 0);
}

/* A file past its reader's bound of 1 MiB (diag/diag.h DIAG_SNAP_FILE_MAX),
 * and one of 1 MiB, at it;
 * a FIFO whose reader takes nothing for 0.3 s (it said "0 s": the
 * milliseconds divided as whole seconds). */
static int fill_big(FILE *f, void *arg)
{
	(void)arg;
	for (int i = 0; i < 1 << 20; i++)
		if (fputc('x', f) == EOF)
			return -1;
	return 0;
}

static void test_file_bounds(void **state)
{
	char *dir = tmpdir(), path[128], want[512], *text;
	size_t len;
	FILE *f;
	int rd;

	(void)state;
	snprintf(path, sizeof(path), "%s/big", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < (1 << 20) + 1; i++)
		fputc('y', f);
	assert_int_equal(fclose(f), 0);
	hook_on();
	assert_null(fc_read_regular("evidence", path, 1u << 20, FC_READ_NOFOLLOW, &len));
	snprintf(want, sizeof(want), "evidence: cannot read '%s': "
		 "over 1 MiB, more than such a file ever holds; give a regular file", path);
	assert_string_equal(logged, want);
	/* a file of 1 MiB exactly, the bound: read whole (it was said to be
	 * "over 1 MiB") */
	assert_int_equal(truncate(path, 1 << 20), 0);
	text = fc_read_regular("evidence", path, 1u << 20, FC_READ_NOFOLLOW, &len);
	assert_non_null(text);
	free(text);
	assert_int_equal(len, 1 << 20);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	rd = open(path, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	fc_fifo_idle_ms = 300;
	assert_int_equal(fc_replace_file("--prom", path, fill_big, NULL), -1);
	fc_fifo_idle_ms = FC_FIFO_IDLE_MS;
	close(rd);
	fc_log_hook = NULL;
	snprintf(want, sizeof(want), "--prom: cannot write %s: "
		 "its reader took nothing for 0.3 s; fabcheck stopped (read the FIFO while fabcheck "
		 "writes, or give a file)", path);
	assert_string_equal(logged, want);
	rmtree(dir);
}

/* An evidence folder's path past PATH_MAX - 1 (4095) bytes: its first 64
 * shown; a folder of another user's: both users named. */
static void test_evidence_folders(void **state)
{
	char *path = malloc(PATH_MAX + 10), want[512], *dir = tmpdir(), sub[128];
	unsigned owner;
	int fd;

	(void)state;
	assert_non_null(path);
	memset(path, 'a', PATH_MAX + 9);
	path[0] = '/';
	path[PATH_MAX + 9] = 0;
	hook_on();
	assert_true(fc_evdir_open(path) < 0);
	snprintf(want, sizeof(want), "evidence: '/%.63s"
		 "...' is longer than 4095 bytes; give a shorter folder", path + 1);
	assert_string_equal(logged, want);
	free(path);
	/* as root: a folder given to user 4242; as a user: /tmp, root's */
	snprintf(sub, sizeof(sub), "%s/theirs", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	owner = geteuid() == 0 && chown(sub, 4242, 4242) == 0 ? 4242 : 0;
	fd = open(owner ? dir : "/", O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	assert_true(fc_subdir_at(fd, owner ? "theirs" : "tmp", "the folder") < 0);
	close(fd);
	fc_log_hook = NULL;
	if (owner) /* root: the figures known */
		snprintf(want, sizeof(want), "evidence: folder 'the folder/theirs' "
			 "belongs to user 4242, not to you (0); fabcheck writes evidence only into a "
			 "folder of yours: give a new folder");
	else
		snprintf(want, sizeof(want), "evidence: folder 'the folder/tmp' belongs to user 0, "
			 "not to you (%u); fabcheck writes evidence only into a folder of yours: give "
			 "a new folder", (unsigned)geteuid());
	assert_string_equal(logged, want);
	rmtree(dir);
}

/* test.json that decodes to a list: no line (it said "line -1"); one cut
 * on line 3: that line. 513 ports: one past the set's 512, said once. */
static void test_evidence_set(void **state)
{
	char *dir = tmpdir(), want[512];
	struct diag_set s;
	json_t *empty = json_object();

	(void)state;
	put(dir, "test.json", "[1, 2, 3]\n");
	hook_on();
	assert_true(diag_set_read(dir, &s) < 0);
	snprintf(want, sizeof(want), "evidence: '%s/test.json': not an object: it must be one JSON "
		 "object (a fabcheck --json document); remove it to diagnose the counters alone",
		 dir);
	assert_string_equal(logged, want);
	put(dir, "test.json", "{\n \"verdict\": \"pass\",\n \"results\": [,]\n}\n");
	assert_true(diag_set_read(dir, &s) < 0);
	snprintf(want, sizeof(want), "evidence: '%s/test.json' line 3: ", dir);
	assert_memory_equal(logged, want, strlen(want));
	assert_non_null(strstr(logged, ": it must be one JSON object"));
	memset(&s, 0, sizeof(s));
	nlogged = 0;
	for (int i = 0; i < 513; i++)
		if (!diag_set_add(&s, "nodeA", "mlx5_0", i + 1, empty, empty))
			break;
	fc_log_hook = NULL;
	assert_int_equal(s.nports, 512);
	assert_int_equal(nlogged, 1);
	assert_string_equal(logged, "evidence: more than 512 ports; the rest are left out");
	diag_set_release(&s);
	json_decref(empty);
	rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bundle_manifest), cmocka_unit_test(test_bundle_bounds),
		cmocka_unit_test(test_summary_more),	cmocka_unit_test(test_wire_type),
		cmocka_unit_test(test_name_limits),	cmocka_unit_test(test_opts_max),
		cmocka_unit_test(test_file_bounds),	cmocka_unit_test(test_evidence_folders),
		cmocka_unit_test(test_evidence_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
