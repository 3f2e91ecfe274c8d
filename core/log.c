/* Levelled logging to stderr (see log.h). */
#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fc_log_level = FC_LOG_WARN;
const char *fc_log_prefix = "fabcheck";
void (*fc_log_hook)(enum fc_log_level lvl, const char *msg);

static const char *const level_names[] = {
	[FC_LOG_ERR] = "error",
	[FC_LOG_WARN] = "warning",
	[FC_LOG_INFO] = "info",
	[FC_LOG_DEBUG] = "debug",
};

static char kept[FC_LOG_KEEP][512];
static int nerrors;

int fc_log_errors(const char **msgs, int max)
{
	int n = __atomic_load_n(&nerrors, __ATOMIC_ACQUIRE);

	for (int i = 0; i < n && i < max && i < FC_LOG_KEEP; i++)
		msgs[i] = kept[i];
	return n;
}

void fc_put_safe(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f))
			fputc(c, f);
		else
			fprintf(f, "\\x%02x", c);
	}
}

void (*fc_log_fit)(const char *text, int hang, int lines);

/* The message through fc_log_fit, prefix and level first; 0 when it was
 * not written (no memory, or a message of several lines: as it is). */
static int fit_line(enum fc_log_level lvl, const char *msg)
{
	char *line = NULL;

	if (strchr(msg, '\n') ||
	    asprintf(&line, "%s: %s: %s", fc_log_prefix, level_names[lvl], msg) < 0)
		return 0;
	fc_log_fit(line, 2, 0);
	free(line);
	return 1;
}

void fc_log(enum fc_log_level lvl, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	int n;

	if (lvl == FC_LOG_ERR) {
		int slot = __atomic_fetch_add(&nerrors, 1, __ATOMIC_ACQ_REL);

		if (slot < FC_LOG_KEEP) {
			va_start(ap, fmt);
			vsnprintf(kept[slot], sizeof(kept[slot]), fmt, ap);
			va_end(ap);
		}
	}
	if ((int)lvl > fc_log_level)
		return;
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (!fc_log_fit || n < 0 || !fit_line(lvl, msg)) {
		fprintf(stderr, "%s: %s: ", fc_log_prefix, level_names[lvl]);
		if (n >= 0)
			fc_put_safe(stderr, msg, (size_t)n);
		fputc('\n', stderr);
	}
	free(msg);
	if (fc_log_hook) {
		char buf[1024];

		va_start(ap, fmt);
		vsnprintf(buf, sizeof(buf), fmt, ap);
		va_end(ap);
		fc_log_hook(lvl, buf);
	}
}
