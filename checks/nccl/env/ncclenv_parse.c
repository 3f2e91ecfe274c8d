/*
 * Reads NCCL_* assignments out of shell snippets, env files and launcher
 * command lines. A small shell word splitter (quotes, backslashes,
 * comments, continuations, ; & | as separators), then a walk over the words
 * that knows where assignments stand.
 */
#include "checks/nccl/env/ncclenv.h"
#include "core/log.h"
#include "core/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int ncclenv_vars_add(struct ncclenv_vars *vs, const char *name, const char *value,
		     int line, int dynamic)
{
	struct ncclenv_var *v;

	if (vs->n == vs->cap) {
		size_t cap = vs->cap ? vs->cap * 2 : 16;

		if (fc_resize((void **)&vs->v, cap, sizeof(*vs->v)))
			return -ENOMEM;
		vs->cap = cap;
	}
	v = &vs->v[vs->n];
	v->name = strdup(name);
	v->value = strdup(value);
	if (!v->name || !v->value) {
		free(v->name);
		free(v->value);
		return -ENOMEM;
	}
	v->line = line;
	v->dynamic = dynamic;
	vs->n++;
	return 0;
}

void ncclenv_vars_free(struct ncclenv_vars *vs)
{
	for (size_t i = 0; i < vs->n; i++) {
		free(vs->v[i].name);
		free(vs->v[i].value);
	}
	free(vs->v);
	memset(vs, 0, sizeof(*vs));
}

/* One word of a command line. A separator (; & | newline) is a word with
 * sep set so the walk knows a new command starts. */
struct word {
	char *text;
	int line;
	int dynamic; /* unquoted or double-quoted $ or backquote */
	int sep;
};

struct words {
	struct word *w;
	size_t n, cap;
};

static int words_push(struct words *ws, char *text, int line, int dynamic, int sep)
{
	if (ws->n == ws->cap) {
		size_t cap = ws->cap ? ws->cap * 2 : 64;
		struct word *w = realloc(ws->w, cap * sizeof(*w));

		if (!w) {
			free(text);
			return -ENOMEM;
		}
		ws->w = w;
		ws->cap = cap;
	}
	ws->w[ws->n++] = (struct word){ .text = text, .line = line, .dynamic = dynamic,
					.sep = sep };
	return 0;
}

static void words_free(struct words *ws)
{
	for (size_t i = 0; i < ws->n; i++)
		free(ws->w[i].text);
	free(ws->w);
}

/* Splits @text into words; returns 0 or -EINVAL (unterminated quote). */
static int split(const char *text, const char *src, struct words *ws)
{
	size_t len = strlen(text);
	char *buf = malloc(len + 1);
	size_t bl = 0;
	int line = 1, start_line = 1, in_word = 0, dynamic = 0, rc = 0;
	const char *p = text;

	if (!buf)
		return -ENOMEM;
#define END_WORD()                                                                     \
	do {                                                                           \
		if (in_word) {                                                         \
			buf[bl] = '\0';                                                \
			rc = words_push(ws, strdup(buf), start_line, dynamic, 0);      \
			if (rc)                                                        \
				goto out;                                              \
		}                                                                      \
		in_word = 0, bl = 0, dynamic = 0;                                      \
	} while (0)
#define BEGIN_WORD()                                                                   \
	do {                                                                           \
		if (!in_word)                                                          \
			in_word = 1, start_line = line;                                \
	} while (0)
	while (*p) {
		char c = *p;

		if (c == '\\' && p[1] == '\n') { /* continuation */
			p += 2;
			line++;
			continue;
		}
		if (c == '\\' && p[1] == '\r' && p[2] == '\n') {
			p += 3;
			line++;
			continue;
		}
		if (c == '\n' || c == ';' || c == '&' || c == '|') {
			END_WORD();
			rc = words_push(ws, NULL, line, 0, 1);
			if (rc)
				goto out;
			if (c == '\n')
				line++;
			p++;
			continue;
		}
		if (isspace((unsigned char)c)) {
			END_WORD();
			p++;
			continue;
		}
		if (c == '#' && !in_word) {
			while (*p && *p != '\n')
				p++;
			continue;
		}
		BEGIN_WORD();
		if (c == '\\') {
			if (p[1])
				buf[bl++] = p[1], p += 2;
			else
				p++;
		} else if (c == '\'') {
			const char *q = strchr(p + 1, '\'');

			if (!q)
				goto unterminated;
			for (p++; p < q; p++) {
				if (*p == '\n')
					line++;
				buf[bl++] = *p;
			}
			p++;
		} else if (c == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && (p[1] == '"' || p[1] == '\\' || p[1] == '$' ||
						   p[1] == '`')) {
					p++;
				} else if (*p == '$' || *p == '`') {
					dynamic = 1;
				} else if (*p == '\n') {
					line++;
				}
				buf[bl++] = *p;
			}
			if (!*p)
				goto unterminated;
			p++;
		} else {
			if (c == '$' || c == '`')
				dynamic = 1;
			buf[bl++] = c;
			p++;
		}
	}
	END_WORD();
	goto out;
unterminated:
	fc_err("%s:%d: quote not closed; close it or remove the stray quote", src, start_line);
	rc = -EINVAL;
out:
	free(buf);
	return rc;
#undef END_WORD
#undef BEGIN_WORD
}

static int is_ident(const char *s, size_t n)
{
	if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return 0;
	return 1;
}

/* "NAME=VALUE" with a shell identifier: returns the '=' or NULL. */
static const char *assignment(const char *w)
{
	const char *eq = strchr(w, '=');

	return eq && is_ident(w, (size_t)(eq - w)) ? eq : NULL;
}

static int take(struct ncclenv_vars *out, const char *name, size_t nlen, const char *value,
		const struct word *w)
{
	char n[256];

	if (nlen >= sizeof(n) || strncmp(name, "NCCL_", 5))
		return 0;
	memcpy(n, name, nlen);
	n[nlen] = '\0';
	return ncclenv_vars_add(out, n, value, w->line, w->dynamic);
}

static int take_assign(struct ncclenv_vars *out, const struct word *w)
{
	const char *eq = assignment(w->text);

	if (!eq)
		return 0;
	return take(out, w->text, (size_t)(eq - w->text), eq + 1, w);
}

/* Options of launchers that carry one NAME=VALUE (or NAME) next. */
static int is_env_opt(const char *s)
{
	static const char *const opts[] = { "-x", "-e", "--env", "-env", "--export" };

	for (size_t i = 0; i < FC_ARRAY_SIZE(opts); i++)
		if (!strcmp(s, opts[i]))
			return 1;
	return 0;
}

/* Options that carry NAME VALUE as two words: MPICH/Intel MPI -genv/-env. */
static int is_env_pair_opt(const char *s)
{
	return !strcmp(s, "-genv") || !strcmp(s, "setenv");
}

static int walk(const struct words *ws, struct ncclenv_vars *out)
{
	int cmd_pos = 1, exporting = 0, rc = 0;

	for (size_t i = 0; i < ws->n && !rc; i++) {
		const struct word *w = &ws->w[i];
		const char *t = w->text, *eq;

		if (w->sep) {
			cmd_pos = 1;
			exporting = 0;
			continue;
		}
		if (is_env_pair_opt(t) && i + 1 < ws->n && !ws->w[i + 1].sep) {
			const struct word *n = &ws->w[i + 1];

			if (i + 2 < ws->n && !ws->w[i + 2].sep && is_ident(n->text, strlen(n->text)))
				rc = take(out, n->text, strlen(n->text), ws->w[i + 2].text,
					  &ws->w[i + 2]);
			i += 2;
			cmd_pos = 0;
			continue;
		}
		if (is_env_opt(t) && i + 1 < ws->n && !ws->w[i + 1].sep) {
			rc = take_assign(out, &ws->w[++i]);
			continue;
		}
		/* --env=NAME=VALUE, -x=NAME=VALUE */
		if (t[0] == '-' && (eq = strchr(t, '=')) && assignment(eq + 1)) {
			size_t ol = (size_t)(eq - t);
			char opt[16];

			if (ol < sizeof(opt)) {
				memcpy(opt, t, ol);
				opt[ol] = '\0';
				if (is_env_opt(opt)) {
					struct word sub = *w;

					sub.text = (char *)eq + 1;
					rc = take_assign(out, &sub);
					continue;
				}
			}
		}
		if (cmd_pos && (!strcmp(t, "export") || !strcmp(t, "declare") ||
				!strcmp(t, "typeset") || !strcmp(t, "local") ||
				!strcmp(t, "readonly"))) {
			exporting = 1;
			continue;
		}
		if (cmd_pos && !strcmp(t, "env")) {
			continue; /* env A=B cmd: assignments follow */
		}
		if (exporting && t[0] == '-')
			continue; /* export -n, declare -x */
		if ((cmd_pos || exporting) && assignment(t)) {
			rc = take_assign(out, w);
			continue;
		}
		/* Any other word that is NCCL_X=Y (srun --export lists, wrappers). */
		if (!strncmp(t, "NCCL_", 5) && assignment(t)) {
			rc = take_assign(out, w);
			continue;
		}
		if (!exporting)
			cmd_pos = 0;
	}
	return rc;
}

int ncclenv_parse(const char *text, const char *src, struct ncclenv_vars *out)
{
	struct words ws = { 0 };
	int rc;

	rc = split(text, src, &ws);
	if (!rc)
		rc = walk(&ws, out);
	words_free(&ws);
	if (rc == -ENOMEM)
		fc_err("%s: out of memory", src);
	return rc;
}
