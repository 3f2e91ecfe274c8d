/* The TUI's part line: the cursor pair's diagnosis on the rail shown (tui.h). */
#include <stdio.h>

#include "core/out.h"
#include "matrix/mx_diag.h"
#include "tui/view_int.h"

/* The rail whose entry is shown: the rail shown, else (every rail
 * together) the first rail on which the cursor pair is bad; -1 none. */
static int shown_rail(const struct tui_view *v, const struct mx_model *m)
{
	const struct fc_mx_cell *c;
	int mirrored;

	if (m->nrails && v->rail >= 1 && v->rail <= m->nrails)
		return m->rails[v->rail - 1].index;
	for (int r = 0; r < m->nrails; r++)
		if ((c = mx_model_show_in(m, &m->ran.rails[r], v->cur_a, v->cur_b, &mirrored)) &&
		    c->bad)
			return m->rails[r].index;
	return -1;
}

void tui_diag_text(const struct tui_view *v, const struct mx_model *m, char *buf, size_t len)
{
	/* The same entry a matrix's suspect carries (matrix/mx_diag.h). */
	const json_t *e = mx_diag_pick(v->detail, shown_rail(v, m));

	if (!e) {
		snprintf(buf, len, "%s", v->detail ? "no diagnosis in this pair's result" :
						       "no result read");
		return;
	}
	snprintf(buf, len, "%s %s (%s): %s; next: %s", fc_jstr(e, "confidence", "?"),
		 fc_jstr(e, "part", "?"), fc_jstr(e, "subject", "?"), fc_jstr(e, "evidence", ""),
		 fc_jstr(e, "next", ""));
}
