/* CSV cells that cannot attack their reader (csv.h). */
#include "core/csv.h"

#include <string.h>

void fc_csv_cell(FILE *f, const char *s)
{
	if (!s)
		return;
	/* OWASP, CSV injection: a leading = + - @ TAB or CR starts a formula. */
	if (*s && strchr("=+-@\t\r", *s))
		fputc('\'', f);
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}
