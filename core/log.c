/* Levelled logging to stderr (see log.h). */
#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>

int fc_log_level = FC_LOG_WARN;
const char *fc_log_prefix = "fabcheck";
void (*fc_log_hook)(enum fc_log_level lvl, const char *msg);

static const char *const level_names[] = {
	[FC_LOG_ERR] = "error",
	[FC_LOG_WARN] = "warning",
	[FC_LOG_INFO] = "info",
	[FC_LOG_DEBUG] = "debug",
};

void fc_log(enum fc_log_level lvl, const char *fmt, ...)
{
	va_list ap;

	if ((int)lvl > fc_log_level)
		return;
	fprintf(stderr, "%s: %s: ", fc_log_prefix, level_names[lvl]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (fc_log_hook) {
		char buf[1024];

		va_start(ap, fmt);
		vsnprintf(buf, sizeof(buf), fmt, ap);
		va_end(ap);
		fc_log_hook(lvl, buf);
	}
}
