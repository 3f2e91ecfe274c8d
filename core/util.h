/* Parsing of user input with errors that name the input and the fix. */
#ifndef FC_UTIL_H
#define FC_UTIL_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include "core/names.h" /* fc_valid_node_name */

/*
 * Each parser returns 0 and sets *out_p, or returns -EINVAL after logging
 * "OPT: 'TEXT' is not ...; expected ..." where OPT names the option.
 */
int fc_parse_u64(const char *opt, const char *text, uint64_t min, uint64_t max,
		 uint64_t *out_p);
int fc_parse_int(const char *opt, const char *text, long min, long max, int *out_p);
int fc_parse_double(const char *opt, const char *text, double min, double max,
		    double *out_p);
/* Sizes: plain bytes or with K/M/G (powers of 1024), e.g. "64K", "1M". */
int fc_parse_size(const char *opt, const char *text, uint64_t min, uint64_t max,
		  uint64_t *out_p);
/* Durations: seconds, or with ms/s/m/h suffix; result in seconds. */
int fc_parse_duration(const char *opt, const char *text, double min, double max,
		      double *out_p);

/* "s" after a count other than 1, "" after 1: "%d port%s", n, fc_s(n) says
 * "1 port", "0 ports", "2 ports". The one plural of the messages (no "(s)"). */
const char *fc_s(long long n);

/* Formats a byte count as "64 KiB", "1 MiB", "2 B" into buf. */
const char *fc_fmt_size(uint64_t bytes, char *buf, size_t len);

/* Reads a whole small file (sysfs) into buf, strips the trailing newline.
 * Returns the length or a negative errno. */
int fc_read_file(const char *path, char *buf, size_t len);

/* Reads all of @fd to its end, at most @max bytes (a power of two), NUL
 * ended, with its length in *@len_p; a non-blocking @fd (a pipe, a FIFO) is
 * waited on at most fc_fifo_idle_ms each time it has no data. NULL with
 * errno on failure (EFBIG: it holds more than @max bytes; ETIMEDOUT: its
 * writer sent nothing for that long). */
char *fc_read_fd(int fd, size_t max, size_t *len_p);

/* Monotonic time in seconds. */
double fc_now(void);

/* Each of @n nodes is a valid name and given once; else logs why, naming
 * @cmd (and @twice_hint, or "name each node once", for a repeat), and
 * returns -EINVAL. */
int fc_check_nodes(const char *cmd, char *const *nodes, int n, const char *twice_hint);

/* The root of sysfs every reader of a live node reads: $FABCHECK_SYSFS (a
 * recorded tree: the tests' way in), else $FABCHECK_PROBE_SYSFS (its older
 * name), else "/sys". A capture's root comes from ctl/nodesrc.h instead. */
const char *fc_sysfs_root(void);

/* This program's path (readlink /proc/self/exe: under valgrind the
 * program's, not the tool's), or "/proc/self/exe" when unknown. */
const char *fc_self_exe(void);

/*
 * Appends @word to the shell line in @buf (@len bytes, *off_p used, kept
 * NUL-terminated), after a blank when *off_p > 0, quoted for a POSIX shell
 * so that the shell reads it back as one word, byte for byte: plain words
 * (letters, digits, "-_./=:,@%+") as they are, others in single quotes
 * ("it's" -> 'it'\''s'). Returns 0 or -E2BIG.
 */
int fc_sh_append(char *buf, size_t len, size_t *off_p, const char *word);
/* Splits @s in place at blanks (spaces, TABs) into at most @max words.
 * Returns the count, or -E2BIG when there are more. */
int fc_split_words(char *s, const char **words, int max);

/* The top of a latency figure, in microseconds: the top of --max-lat-us
 * (1e9 us, 16 minutes a round trip, which no link takes). */
#define FC_LAT_US_MAX 1e9
/* The top of a bus bandwidth figure (nccl-tests' busbw, GB/s) over the
 * network: 32 rails (FC_RAIL_MAX, core/rail.h) at the fastest port
 * (FC_GBPS_MAX, core/fc.h: 1600 Gb/s) is 6400 GB/s a node. */
#define FC_BUSBW_GBYTES_MAX (32 * 1600.0 / 8)
/* The one bound of a figure that a worker, a rank or a store gives: the
 * top of the figure named @key, @gbps_max for Gb/s (a key ending in
 * "gbps"), FC_LAT_US_MAX for microseconds ("_us"), FC_BUSBW_GBYTES_MAX for
 * GB/s ("gbytes_s"); 0 when @key names no figure. A figure is one when
 * finite and from 0 to its top. */
double fc_figure_max(const char *key, double gbps_max);

/* Resizes the array *@arr to @n elements of @size bytes; on failure *@arr is
 * kept as it was. 0 or -ENOMEM. */
int fc_resize(void **arr, size_t n, size_t size);
/*
 * The odd ones out, as preflight and diagnose compare one reading across
 * the rack's nodes: @vals[i] (NULL: node i has no value, skipped) against
 * the value most nodes have. Returns the index of the majority value (a
 * strict majority of the nodes that have one), or -1 when there is none
 * (every value differs from some other: all are reported).
 */
int fc_majority(const char *const *vals, int n);
/* Room for element @used of the array *@arr of *@cap elements of @size
 * bytes: when it is full, doubles *@cap (16 at first). 0 or -ENOMEM. */
int fc_grow(void **arr, int *cap, int used, size_t size);

/* The k-th CPU of @set (k wraps around), or -1 when @set is empty. */
int fc_cpu_nth(const cpu_set_t *set, int k);

/* The greatest common divisor of @a and @b (@a when @b is 0). */
uint64_t fc_gcd(uint64_t a, uint64_t b);

#endif
