/* CSV cells that cannot attack their reader (csv.h). */
#include "core/csv.h"

#include <string.h>

void fc_csv_cell(FILE *f, const char *s)
{
	int quote;

	if (!s)
		return;
	quote = strpbrk(s, ",\"\r\n") != NULL;
	if (quote)
		fputc('"', f);
	/* OWASP, CSV injection: a leading = + - @ TAB or CR starts a formula;
	 * the ' goes inside the quotes, or the cell would end at them */
	if (*s && strchr("=+-@\t\r", *s))
		fputc('\'', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	if (quote)
		fputc('"', f);
}
