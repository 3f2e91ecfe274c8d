/* Unit tests of the CSV cell writer (core/csv.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/csv.h"

/* The cell fc_csv_cell writes for @s. */
static const char *cell(const char *s)
{
	static char out[256];
	FILE *f;

	memset(out, 0, sizeof(out));
	f = fmemopen(out, sizeof(out) - 1, "w");

	assert_non_null(f);
	fc_csv_cell(f, s);
	fclose(f);
	return out;
}

static void test_csv_plain(void **state)
{
	(void)state;
	assert_string_equal(cell("nodeA"), "nodeA");
	assert_string_equal(cell(""), "");
	assert_string_equal(cell(NULL), "");
	assert_string_equal(cell("a-b=c"), "a-b=c"); /* only a leading one */
}

/* RFC 4180: a comma, a double quote, CR or LF put the cell in quotes, a
 * quote doubled inside. */
static void test_csv_quoted(void **state)
{
	(void)state;
	assert_string_equal(cell("a,b"), "\"a,b\"");
	assert_string_equal(cell("say \"hi\""), "\"say \"\"hi\"\"\"");
	assert_string_equal(cell("two\nlines"), "\"two\nlines\"");
	assert_string_equal(cell("cr\rhere"), "\"cr\rhere\"");
}

/* OWASP: = + - @ TAB CR at the start get a ' before them, inside the
 * RFC 4180 quotes when the cell has them: a ' outside would leave the
 * quotes unopened, and "=a,=1+2,b" would split into three cells, one of
 * them the live formula =1+2. */
static void test_csv_formula(void **state)
{
	(void)state;
	assert_string_equal(cell("=HYPERLINK(\"http://x\")"), "\"'=HYPERLINK(\"\"http://x\"\")\"");
	assert_string_equal(cell("=1+2"), "'=1+2");
	assert_string_equal(cell("+1"), "'+1");
	assert_string_equal(cell("-2+3"), "'-2+3");
	assert_string_equal(cell("@SUM(A1)"), "'@SUM(A1)");
	assert_string_equal(cell("\tx"), "'\tx");
	assert_string_equal(cell("\rx"), "\"'\rx\"");
	assert_string_equal(cell("=a,b"), "\"'=a,b\"");
	assert_string_equal(cell("=a,=1+2,b"), "\"'=a,=1+2,b\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_plain),   cmocka_unit_test(test_csv_quoted),
		cmocka_unit_test(test_csv_formula),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
