/*
 * Line assembly and prefix parsing. A raw line may carry prefixes added
 * outside NCCL (log viewers "  | <time> | ", OpenMPI "[1,N]<stdout>:", torchrun
 * "[defaultN]:" and "[rankN]:", srun "N: ", a "[rank] " launcher tag, framework
 * text) and may hold several NCCL
 * records when ranks wrote over each other. Each record is anchored on its
 * "NCCL INFO|WARN|TRACE" marker and read backwards: [src:line] [dev] host:pid:tid.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "checks/nccl/log/nccllog_int.h"

/* Replaces control bytes and invalid UTF-8 with '?' so that every string
 * taken from the line is valid JSON text. */
static void sanitize(char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t need = c < 0x80 ? 0 : c >= 0xc2 && c < 0xe0 ? 1 :
					   c >= 0xe0 && c < 0xf0   ? 2 :
					   c >= 0xf0 && c < 0xf5   ? 3 : 9;

		if (c < 0x80) {
			if (c < 0x20 && c != '\t')
				s[i] = ' ';
			else if (c == 0x7f)
				s[i] = ' ';
			i++;
			continue;
		}
		if (need == 9 || i + need >= n) {
			s[i++] = '?';
			continue;
		}
		size_t k;

		for (k = 1; k <= need; k++)
			if (((unsigned char)s[i + k] & 0xc0) != 0x80)
				break;
		/* overlong 3-byte forms and surrogates are invalid too */
		if (k <= need || (c == 0xe0 && (unsigned char)s[i + 1] < 0xa0) ||
		    (c == 0xed && (unsigned char)s[i + 1] >= 0xa0) ||
		    (c == 0xf0 && (unsigned char)s[i + 1] < 0x90) ||
		    (c == 0xf4 && (unsigned char)s[i + 1] >= 0x90)) {
			s[i++] = '?';
			continue;
		}
		i += need + 1;
	}
}

static void flush_line(struct ncl_log *lg)
{
	if (!lg->cur_len && !lg->cur_cut)
		return;
	lg->cur[lg->cur_len] = '\0';
	sanitize(lg->cur, lg->cur_len);
	ncl_line(lg, lg->cur);
	lg->cur_len = 0;
	lg->cur_cut = 0;
}

static int cur_reserve(struct ncl_log *lg, size_t n)
{
	size_t cap;
	char *p;

	if (lg->cur_len + n + 1 <= lg->cur_cap)
		return 0;
	cap = lg->cur_cap ? lg->cur_cap : 4096;
	while (cap < lg->cur_len + n + 1)
		cap *= 2;
	if (cap > NCL_MAX_LINE + 1)
		cap = NCL_MAX_LINE + 1;
	p = realloc(lg->cur, cap);
	if (!p)
		return -1;
	lg->cur = p;
	lg->cur_cap = cap;
	return 0;
}

void ncl_log_feed(struct ncl_log *lg, const char *buf, size_t len)
{
	while (len) {
		const char *nl = memchr(buf, '\n', len);
		const char *cr = memchr(buf, '\r', nl ? (size_t)(nl - buf) : len);
		const char *end = cr ? cr : nl;
		size_t n = end ? (size_t)(end - buf) : len;
		size_t room = NCL_MAX_LINE - lg->cur_len;

		if (n > room) {
			lg->cur_cut = 1;
			n = room;
		}
		if (n && !cur_reserve(lg, n)) {
			memcpy(lg->cur + lg->cur_len, buf, n);
			lg->cur_len += n;
		}
		if (!cur_reserve(lg, 0) && end)
			flush_line(lg);
		if (!end)
			return;
		len -= (size_t)(end - buf) + 1;
		buf = end + 1;
	}
}

void ncl_log_end_file(struct ncl_log *lg, const char *name)
{
	struct ncl_item *f;

	if (lg->cur && !cur_reserve(lg, 0))
		flush_line(lg);
	if (lg->nfiles < NCL_MAX_FILES) {
		f = &lg->files[lg->nfiles++];
		memset(f, 0, sizeof(*f));
		ncl_copy(f->text, sizeof(f->text), name ? name : "-",
			 strlen(name ? name : "-"));
		f->count = (long)lg->file_nccl_lines;
	} else {
		lg->cut_files++; /* read, but not listed */
	}
	lg->file_nccl_lines = 0;
}

/* ---- prefixes ---- */

/* Strips prefixes that launchers and viewers put before a whole line. */
static char *strip_outer(char *s)
{
	for (;;) {
		char *p = s;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '|') { /* "  | 2025-02-11T14:52:06.207Z | " */
			char *q = strchr(p + 1, '|');

			if (q && q - p < 64) {
				s = q + 1;
				while (*s == ' ')
					s++;
				continue;
			}
		}
		if (*p == '[') { /* OpenMPI "[1,0]<stdout>:", torchrun "[default3]:", "[rank3]:" */
			char *q = p + 1;

			while (isalnum((unsigned char)*q) || *q == '_' || *q == '-')
				q++;
			if (*q == ']' && q[1] == ':' && q > p + 1 && q - p < 40) {
				s = q + 2;
				continue;
			}
			q = p + 1;
			while (isdigit((unsigned char)*q) || *q == ',')
				q++;
			if (*q == ']' && q[1] == '<') {
				char *gt = strchr(q, '>');

				if (gt && gt[1] == ':' && gt - q < 12) {
					s = gt + 2;
					continue;
				}
			}
		}
		if (isdigit((unsigned char)*p)) { /* srun -l "12: " */
			char *q = p;

			while (isdigit((unsigned char)*q))
				q++;
			if (q[0] == ':' && q[1] == ' ' && q - p < 7) {
				s = q + 2;
				continue;
			}
		}
		return s;
	}
}

/* Finds the next "NCCL INFO|WARN|TRACE" marker at or after @s. */
static char *find_marker(char *s, enum ncl_level *lvl)
{
	static const struct {
		const char *w;
		enum ncl_level l;
	} words[] = { { "INFO", NCL_INFO }, { "WARN", NCL_WARN }, { "TRACE", NCL_TRACE } };
	char *p = s;

	while ((p = strstr(p, "NCCL "))) {
		if (p == s || p[-1] == ' ' || p[-1] == '\t' || p[-1] == ']') {
			for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
				size_t n = strlen(words[i].w);

				if (!strncmp(p + 5, words[i].w, n) &&
				    (p[5 + n] == ' ' || p[5 + n] == '\0')) {
					*lvl = words[i].l;
					return p;
				}
			}
		}
		p += 5;
	}
	return NULL;
}

static int all_digits(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* Start of the last whitespace-delimited token in [s, e). */
static char *last_token(char *s, char *e)
{
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	while (e > s && e[-1] != ' ' && e[-1] != '\t')
		e--;
	return e;
}

/* True when [t, e) looks like "file.cc:123" or "function:626". */
static int is_src(const char *t, const char *e)
{
	const char *c = e;

	while (c > t && isdigit((unsigned char)c[-1]))
		c--;
	return c > t + 1 && c < e && c[-1] == ':';
}

/*
 * Reads the prefix of the record whose marker is at @m, going backwards from
 * @m to @s: fills @r and returns where the prefix starts (where the text of
 * the previous record ends).
 */
/*
 * Where the host starts in [t, e) when the token is glued to text of another
 * record ("...GDRDMAnodeA"): a known host that ends the token, else after the
 * last character that no host name has.
 */
static char *host_start(const struct ncl_log *lg, char *t, char *e)
{
	char *p;

	for (int i = 0; i < lg->nhosts; i++) {
		size_t n = strlen(lg->hosts[i].name);

		if (n && (size_t)(e - t) > n && !strncmp(e - n, lg->hosts[i].name, n))
			return e - n;
	}
	for (p = e; p > t; p--)
		if (strchr("/()=,;'\"", p[-1]))
			return p;
	return t;
}

static char *parse_prefix(const struct ncl_log *lg, char *s, char *m, struct ncl_rec *r,
			  int write)
{
	char *e = m, *t, *c1, *c2;

	r->host = "";
	r->pid = r->tid = -1;
	r->dev = -1;
	r->src = "";
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	t = last_token(s, e);
	if (r->level != NCL_INFO && is_src(t, e)) {
		r->src = t;
		if (write)
			t[e - t] = '\0'; /* a blank before the marker */
		e = t;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		t = last_token(s, e);
		if (r->level == NCL_TRACE && t < e && (isdigit((unsigned char)*t)))
			e = t; /* TRACE time stamp */
	}
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if (e > s && e[-1] == ']') {
		char *o = e - 1;

		while (o > s && o[-1] != '[' && e - o < 8)
			o--;
		if (o > s && o[-1] == '[' && all_digits(o, (size_t)(e - 1 - o))) {
			r->dev = atoi(o);
			e = o - 1;
		} else {
			return e;
		}
	} else {
		return e;
	}
	t = last_token(s, e);
	while (e > t && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	/* host:pid:tid: split on the last two colons */
	for (c2 = e - 1; c2 > t && *c2 != ':'; c2--)
		;
	for (c1 = c2 - 1; c1 > t && *c1 != ':'; c1--)
		;
	if (c2 <= t || c1 <= t || !all_digits(c1 + 1, (size_t)(c2 - c1 - 1)) ||
	    !all_digits(c2 + 1, (size_t)(e - c2 - 1)))
		return t < e ? e : t;
	r->pid = strtol(c1 + 1, NULL, 10);
	r->tid = strtol(c2 + 1, NULL, 10);
	t = host_start(lg, t, c1);
	if (!write)
		return t;
	*c1 = '\0';
	/* a tag glued to the host: "[1,0]<stdout>:wn31" */
	for (char *g = strstr(t, ">:"); g; g = strstr(t, ">:"))
		t = g + 2;
	r->host = t;
	return t;
}

static void record(struct ncl_log *lg, char *s, char *m, enum ncl_level lvl)
{
	struct ncl_rec r = { .level = lvl };
	char *msg = m + (lvl == NCL_TRACE ? 10 : 9);

	while (*msg == ' ')
		msg++;
	r.msg = msg;
	parse_prefix(lg, s, m, &r, 1);
	lg->nccl_lines++;
	lg->file_nccl_lines++;
	ncl_dispatch(lg, &r);
}

void ncl_line(struct ncl_log *lg, char *s)
{
	enum ncl_level lvl, next_lvl;
	char *m, *next, *cut;
	struct ncl_rec tmp;

	lg->lines++;
	s = strip_outer(s);
	while (*s == ' ' || *s == '\t')
		s++;
	if (ncl_starts(s, "NCCL version ")) {
		lg->nccl_lines++;
		lg->file_nccl_lines++;
		ncl_bare_version(lg, s + 13);
		return;
	}
	if (*s == '#') {
		ncl_tests_line(lg, s + 1);
		ncl_tests_comment(lg, s + 1);
		return;
	}
	if (ncl_tests_row(lg, s))
		return;
	m = find_marker(s, &lvl);
	while (m) {
		next = find_marker(m + 9, &next_lvl);
		if (next) {
			/* another record starts on this line: cut before its prefix */
			tmp.level = next_lvl;
			cut = parse_prefix(lg, m + 9, next, &tmp, 0);
			if (cut > m + 9) {
				char save = *cut;

				*cut = '\0';
				record(lg, s, m, lvl);
				*cut = save;
				s = cut;
			} else {
				record(lg, s, m, lvl);
				s = next;
			}
			m = find_marker(s, &lvl);
			continue;
		}
		record(lg, s, m, lvl);
		break;
	}
}
