/* The TUI's trend line: the cursor link against its own past (tui.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/out.h"
#include "core/util.h"
#include "matrix/mx_history.h"
#include "tui/view_int.h"

/* A figure per run, oldest left, as a level of 0 (half the highest of the
 * series and the median, or less) to 7 (the highest): a step of 25% is
 * three levels; '?' where the run has none. */
static void sparkline(const struct tui_trend *tr, char *buf, size_t len)
{
	static const char ramp[] = "_.:-=+*#";
	double hi = isfinite(tr->median) ? tr->median : 0;
	size_t off = 0;

	for (int i = 0; i < tr->npoints; i++)
		if (isfinite(tr->series[i]) && tr->series[i] > hi)
			hi = tr->series[i];
	for (int i = tr->npoints - 1; i >= 0 && off + 1 < len; i--) {
		double v = tr->series[i];
		long lv = isfinite(v) && hi > 0 ? lround((v / hi - 0.5) * 14) : -1;

		buf[off++] = !isfinite(v) ? '?' : ramp[lv < 0 ? 0 : lv > 7 ? 7 : lv];
	}
	buf[off] = 0;
}

/* "rail 1 (rxe1, its worst) [spark] FLAGGED: 30% below its median 0.168,
 * now 0.118 Gb/s": what matters first, for a narrow terminal. */
void tui_trend_text(const struct tui_trend *tr, const struct mx_model *m, char *buf, size_t len)
{
	char rail[128] = "", name[96], spark[FC_HIST_K_MAX + 2], now[32], med[32];

	if (tr->state < 0) {
		snprintf(buf, len, "cannot read this link's past runs from the store");
		return;
	}
	if (tr->state == 0) {
		snprintf(buf, len, "none yet: no figure of this link in the run");
		return;
	}
	if (m->nrails) {
		mx_history_rail(m, tr->rail, name, sizeof(name));
		/* "its worst" only of a judged drop (mx_history.c orders the
		 * rails by it): with too few past runs to judge, the first
		 * rail was called the worst of a pair bad on another */
		if (tr->of_rails > 1 && name[strlen(name) - 1] == ')' && isfinite(tr->median))
			snprintf(rail, sizeof(rail), "rail %.*s, its worst) ",
				 (int)strlen(name) - 1, name);
		else if (tr->of_rails > 1 && name[strlen(name) - 1] == ')')
			snprintf(rail, sizeof(rail), "rail %.*s, first of %d rails) ",
				 (int)strlen(name) - 1, name, tr->of_rails);
		else
			snprintf(rail, sizeof(rail), "rail %s ", name);
	}
	sparkline(tr, spark, sizeof(spark));
	fc_fmt_figure(tr->now, "%.3g", "Gb/s", now, sizeof(now));
	if (!isfinite(tr->median)) {
		snprintf(buf, len, "%s[%s] now %s: %d earlier run%s, %d needed to judge it", rail,
			 spark, now, tr->runs, fc_s(tr->runs), tr->min_runs);
		return;
	}
	fc_fmt_figure(tr->median, "%.3g", NULL, med, sizeof(med));
	snprintf(buf, len, "%s[%s] %s: %.0f%% %s its median %s, now %s", rail, spark,
		 tr->flagged ? "FLAGGED" : "ok", fabs(tr->drop_pct),
		 tr->drop_pct >= 0 ? "below" : "above", med, now);
}
