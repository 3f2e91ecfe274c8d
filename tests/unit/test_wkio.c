/* Unit tests of the worker's side of the channel (ctl/wk_io.c): the
 * keep-alive rule shared by the pair worker and the NCCL rank worker. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/fc.h"
#include "core/util.h"
#include "core/wire.h"
#include "ctl/wk_io.h"

/* What the stand-in controller writes to the worker's stdin. */
struct feeder {
	int fd;
	int pings;	   /* pings to send, one each @gap seconds */
	double gap;
	const char *last;  /* then this message, or NULL */
	int close_after;   /* then close the channel */
};

static void feed_line(int fd, uint64_t seq, const char *type)
{
	char *line = fc_wire_format(FC_WIRE_VERSION, seq, type, NULL);

	assert_non_null(line);
	assert_int_equal(write(fd, line, strlen(line)), (ssize_t)strlen(line));
	free(line);
}

static void *feed(void *arg)
{
	struct feeder *f = arg;
	struct timespec ts = { .tv_nsec = (long)(f->gap * 1e9) };
	uint64_t seq = 0;

	for (int i = 0; i < f->pings; i++) {
		nanosleep(&ts, NULL);
		feed_line(f->fd, ++seq, "ping");
	}
	if (f->last)
		feed_line(f->fd, ++seq, f->last);
	if (f->close_after)
		close(f->fd);
	return NULL;
}

/* Runs fc_wk_recv on a pipe as stdin while @f feeds it; returns its result
 * and the seconds it took. */
static int recv_with(struct feeder *f, double idle, const char *want, json_t **msg_p,
		     double *secs_p)
{
	int p[2], saved = dup(0), err;
	struct fc_wk_io io;
	pthread_t t;
	double t0;

	assert_int_equal(pipe(p), 0);
	assert_int_equal(dup2(p[0], 0), 0);
	close(p[0]);
	f->fd = p[1];
	fc_wk_io_init(&io, idle);
	assert_int_equal(pthread_create(&t, NULL, feed, f), 0);
	t0 = fc_now();
	err = fc_wk_recv(&io, want, msg_p);
	*secs_p = fc_now() - t0;
	pthread_join(t, NULL);
	if (!f->close_after)
		close(p[1]);
	fc_wk_io_release(&io);
	dup2(saved, 0);
	close(saved);
	return err;
}

/* Pings keep the worker waiting well past its idle deadline. */
static void test_pings_keep_alive(void **state)
{
	struct feeder f = { .pings = 8, .gap = 0.1, .last = "go" };
	json_t *m = NULL;
	double secs;

	(void)state;
	assert_int_equal(recv_with(&f, 0.3, "go", &m, &secs), 0);
	assert_string_equal(fc_wire_type(m), "go");
	assert_true(secs > 0.6); /* twice the idle deadline */
	json_decref(m);
}

/* A controller that says nothing, not even a ping, is given up on. */
static void test_silence_times_out(void **state)
{
	struct feeder f = { .pings = 0 };
	json_t *m = NULL;
	double secs;

	(void)state;
	assert_int_equal(recv_with(&f, 0.3, "go", &m, &secs), -ETIMEDOUT);
	assert_true(secs >= 0.29 && secs < 5);
}

/* Pings that stop: the deadline runs from the last one. */
static void test_pings_then_silence(void **state)
{
	struct feeder f = { .pings = 3, .gap = 0.1 };
	json_t *m = NULL;
	double secs;

	(void)state;
	assert_int_equal(recv_with(&f, 0.4, NULL, &m, &secs), -ETIMEDOUT);
	assert_true(secs >= 0.65);
}

/* A closed channel ends the wait at once; another type is refused. */
static void test_eof_and_wrong_type(void **state)
{
	struct feeder eof = { .pings = 1, .gap = 0.05, .close_after = 1 };
	struct feeder wrong = { .last = "finish" };
	json_t *m = NULL;
	double secs;

	(void)state;
	assert_int_equal(recv_with(&eof, 30, "go", &m, &secs), -EPIPE);
	assert_true(secs < 5);
	assert_int_equal(recv_with(&wrong, 30, "go", &m, &secs), -EPROTO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pings_keep_alive),
		cmocka_unit_test(test_silence_times_out),
		cmocka_unit_test(test_pings_then_silence),
		cmocka_unit_test(test_eof_and_wrong_type),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
