/* Parsing of user input with errors that name the input and the fix (see util.h). */
#include "core/util.h"
#include "core/log.h"
#include "core/safefile.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int fc_parse_u64(const char *opt, const char *text, uint64_t min, uint64_t max,
		 uint64_t *out_p)
{
	char *end;
	unsigned long long v;

	if (!text || !*text || !isdigit((unsigned char)text[0])) {
		fc_err("%s: '%s' is not a number; expected an integer from %llu to %llu",
		       opt, text ? text : "", (unsigned long long)min,
		       (unsigned long long)max);
		return -EINVAL;
	}
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || *end || v < min || v > max) {
		fc_err("%s: '%s' is out of range or not a number; expected an integer from %llu to %llu",
		       opt, text, (unsigned long long)min, (unsigned long long)max);
		return -EINVAL;
	}
	*out_p = v;
	return 0;
}

/* Reads @text whole as a number (a base-10 integer when @integer) from @min to
 * @max into *@v_p; else logs why, naming @opt and the range, and returns
 * -EINVAL. The integers fc_parse_int reads fit a double exactly. */
static int parse_number(const char *opt, const char *text, int integer, double min,
			double max, double *v_p)
{
	const char *what = integer ? "an integer" : "a number";
	const char *fmt = integer ? "%.0f" : "%g";
	char *end = NULL, lo[32], hi[32];
	double v = NAN;

	if (text && *text) {
		errno = 0;
		v = integer ? (double)strtol(text, &end, 10) : strtod(text, &end);
		if (!errno && !*end && end != text && isfinite(v) && v >= min && v <= max) {
			*v_p = v;
			return 0;
		}
	}
	snprintf(lo, sizeof(lo), fmt, min);
	snprintf(hi, sizeof(hi), fmt, max);
	if (!text || !*text)
		fc_err("%s: empty value; expected %s from %s to %s", opt, what, lo, hi);
	else
		fc_err("%s: '%s' is out of range or not a number; expected %s from %s to %s",
		       opt, text, what, lo, hi);
	return -EINVAL;
}

int fc_parse_int(const char *opt, const char *text, long min, long max, int *out_p)
{
	double v;
	int err = parse_number(opt, text, 1, (double)min, (double)max, &v);

	if (!err)
		*out_p = (int)v;
	return err;
}

int fc_parse_double(const char *opt, const char *text, double min, double max,
		    double *out_p)
{
	return parse_number(opt, text, 0, min, max, out_p);
}

int fc_parse_size(const char *opt, const char *text, uint64_t min, uint64_t max,
		  uint64_t *out_p)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 1;
	char minb[32], maxb[32];

	fc_fmt_size(min, minb, sizeof(minb));
	fc_fmt_size(max, maxb, sizeof(maxb));
	if (!text || !isdigit((unsigned char)text[0]))
		goto bad;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno)
		goto bad;
	if (*end) {
		switch (toupper((unsigned char)*end)) {
		case 'K': mult = 1ULL << 10; break;
		case 'M': mult = 1ULL << 20; break;
		case 'G': mult = 1ULL << 30; break;
		default: goto bad;
		}
		end++;
		if (toupper((unsigned char)*end) == 'I')
			end++;
		if (toupper((unsigned char)*end) == 'B')
			end++;
		if (*end)
			goto bad;
	}
	if (v > max / mult || v * mult < min || v * mult > max) {
		fc_err("%s: '%s' is out of range; expected a size from %s to %s",
		       opt, text, minb, maxb);
		return -EINVAL;
	}
	*out_p = v * mult;
	return 0;
bad:
	fc_err("%s: '%s' is not a size; expected bytes or a number with K, M or G (e.g. 64K, 1M), from %s to %s",
	       opt, text ? text : "", minb, maxb);
	return -EINVAL;
}

int fc_parse_duration(const char *opt, const char *text, double min, double max,
		      double *out_p)
{
	char *end;
	double v, mult = 1;

	if (!text || !*text)
		goto bad;
	errno = 0;
	v = strtod(text, &end);
	if (errno || end == text || !isfinite(v))
		goto bad;
	if (!strcmp(end, "ms"))
		mult = 1e-3;
	else if (!strcmp(end, "m"))
		mult = 60;
	else if (!strcmp(end, "h"))
		mult = 3600;
	else if (*end && strcmp(end, "s"))
		goto bad;
	v *= mult;
	if (v < min || v > max) {
		fc_err("%s: '%s' is out of range; expected from %gs to %gs", opt, text,
		       min, max);
		return -EINVAL;
	}
	*out_p = v;
	return 0;
bad:
	fc_err("%s: '%s' is not a duration; expected seconds, or a number with ms, s, m or h (e.g. 30s, 5m)",
	       opt, text ? text : "");
	return -EINVAL;
}

const char *fc_s(long long n)
{
	return n == 1 ? "" : "s";
}

const char *fc_fmt_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned u = 0;

	while (u + 1 < sizeof(units) / sizeof(units[0]) && bytes >= 1024 && bytes % 1024 == 0) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, len, "%llu %s", (unsigned long long)bytes, units[u]);
	return buf;
}

int fc_read_file(const char *path, char *buf, size_t len)
{
	int fd, n, err;

	if (len == 0)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = (int)read(fd, buf, len - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return n;
}

/* Waits for @fd (a non-blocking pipe or FIFO) to have data, at most
 * fc_fifo_idle_ms (safefile.h, the deadline of the writer's waits too).
 * 0, or -1 with errno (ETIMEDOUT: its writer sent nothing for that long). */
static int read_wait(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int rc = poll(&p, 1, fc_fifo_idle_ms);

	if (rc == 0)
		errno = ETIMEDOUT;
	return rc > 0 || (rc < 0 && errno == EINTR) ? 0 : -1;
}

char *fc_read_fd(int fd, size_t max, size_t *len_p)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap + 1);

	while (buf) {
		ssize_t n;

		if (len == cap && cap < max) {
			char *nb = realloc(buf, cap * 2 + 1);

			if (!nb) {
				free(buf);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
		/* at the bound, one byte more tells whether the input ends there
		 * (a file of @max bytes is read whole; buf has that byte's room:
		 * its NUL's) */
		n = read(fd, buf + len, len < cap ? cap - len : 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN && read_wait(fd) == 0)
			continue;
		if (n < 0)
			break;
		if (n == 0) {
			buf[len] = '\0';
			*len_p = len;
			return buf;
		}
		if (len == cap) { /* a byte past @max */
			free(buf);
			errno = EFBIG;
			return NULL;
		}
		len += (size_t)n;
	}
	if (buf) {
		int e = errno;

		free(buf);
		errno = e;
	} else {
		errno = ENOMEM;
	}
	return NULL;
}

double fc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *fc_self_exe(void)
{
	static char path[4096];
	ssize_t n;

	if (path[0])
		return path;
	n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n <= 0 || (size_t)n >= sizeof(path) - 1) {
		path[0] = 0;
		return "/proc/self/exe";
	}
	path[n] = 0;
	return path;
}

static int sh_plain(const char *w)
{
	if (!*w)
		return 0;
	for (; *w; w++)
		if (!isalnum((unsigned char)*w) && !strchr("-_./=:,@%+", *w))
			return 0;
	return 1;
}

static int sh_put(char *buf, size_t len, size_t *off_p, const char *s, size_t n)
{
	if (*off_p + n + 1 > len)
		return -E2BIG;
	memcpy(buf + *off_p, s, n);
	*off_p += n;
	buf[*off_p] = 0;
	return 0;
}

int fc_sh_append(char *buf, size_t len, size_t *off_p, const char *word)
{
	int rc = 0;

	if (*off_p > 0)
		rc = sh_put(buf, len, off_p, " ", 1);
	if (!rc && sh_plain(word))
		return sh_put(buf, len, off_p, word, strlen(word));
	if (!rc)
		rc = sh_put(buf, len, off_p, "'", 1);
	for (const char *p = word; !rc && *p; p++)
		rc = *p == '\'' ? sh_put(buf, len, off_p, "'\\''", 4) : sh_put(buf, len, off_p, p, 1);
	return rc ? rc : sh_put(buf, len, off_p, "'", 1);
}

int fc_split_words(char *s, const char **words, int max)
{
	int n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			return n;
		if (n == max)
			return -E2BIG;
		words[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = 0;
	}
}

/* Orders node indices by name (in @names), then by index. */
static int by_name_index(const void *a, const void *b, void *names)
{
	char *const *nm = names;
	int i = *(const int *)a, j = *(const int *)b, c = strcmp(nm[i], nm[j]);

	return c ? c : (i > j) - (i < j);
}

/* The index of the first node named a second time (its second naming), or
 * @n when none: by sorting, n log n, so that a hostfile of 200,000 names is
 * checked at once. -1 when out of memory. */
static int first_twice(char *const *nodes, int n)
{
	int *ix = malloc((size_t)(n > 0 ? n : 1) * sizeof(*ix)), first = n;

	if (!ix)
		return -1;
	for (int i = 0; i < n; i++)
		ix[i] = i;
	qsort_r(ix, (size_t)n, sizeof(*ix), by_name_index, (void *)nodes);
	for (int i = 1; i < n; i++)
		if (!strcmp(nodes[ix[i]], nodes[ix[i - 1]]) && ix[i] < first &&
		    (i < 2 || strcmp(nodes[ix[i]], nodes[ix[i - 2]])))
			first = ix[i];
	free(ix);
	return first;
}

int fc_check_nodes(const char *cmd, char *const *nodes, int n, const char *twice_hint)
{
	int bad = n, twice;

	for (int i = 0; i < n && bad == n; i++)
		if (!fc_valid_node_name(nodes[i]))
			bad = i;
	if (bad < n) { /* the names before it were all valid: safe to compare */
		fc_err("%s: '%s' is not a node name; use a host name or address (letters, digits, '-', '_', '.', '@', ':')",
		       cmd, nodes[bad] ? nodes[bad] : "");
		return -EINVAL;
	}
	twice = first_twice(nodes, n);
	if (twice < 0) {
		fc_err("%s: out of memory checking %d node names", cmd, n);
		return -ENOMEM;
	}
	if (twice < n) {
		fc_err("%s: node '%s' is given twice; %s", cmd, nodes[twice],
		       twice_hint ? twice_hint : "name each node once");
		return -EINVAL;
	}
	return 0;
}

static int ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), k = strlen(end);

	return n >= k && !strcmp(s + n - k, end);
}

double fc_figure_max(const char *key, double gbps_max)
{
	return ends_with(key, "gbps") ? gbps_max : ends_with(key, "_us") ? FC_LAT_US_MAX :
	       ends_with(key, "gbytes_s") ? FC_BUSBW_GBYTES_MAX : 0;
}

int fc_resize(void **arr, size_t n, size_t size)
{
	void *p = realloc(*arr, n * size);

	if (!p)
		return -ENOMEM;
	*arr = p;
	return 0;
}

int fc_grow(void **arr, int *cap, int used, size_t size)
{
	int ncap = *cap ? *cap * 2 : 16;

	if (used < *cap)
		return 0;
	if (fc_resize(arr, (size_t)ncap, size))
		return -ENOMEM;
	*cap = ncap;
	return 0;
}

uint64_t fc_gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

int fc_cpu_nth(const cpu_set_t *set, int k)
{
	int n = CPU_COUNT(set);

	if (!n)
		return -1;
	k %= n;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, set) && k-- == 0)
			return c;
	return -1;
}

const char *fc_sysfs_root(void)
{
	const char *r = getenv("FABCHECK_SYSFS");

	if (!r || !*r)
		r = getenv("FABCHECK_PROBE_SYSFS");
	return r && *r ? r : "/sys";
}

int fc_majority(const char *const *vals, int n)
{
	int have = 0, best = -1, best_cnt = 0;

	for (int i = 0; i < n; i++) {
		int cnt = 0;

		if (!vals[i])
			continue;
		have++;
		for (int j = 0; j < n; j++)
			if (vals[j] && !strcmp(vals[i], vals[j]))
				cnt++;
		if (cnt > best_cnt) {
			best_cnt = cnt;
			best = i;
		}
	}
	return have && best_cnt * 2 > have ? best : -1;
}
