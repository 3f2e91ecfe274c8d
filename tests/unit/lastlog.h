/* The last error or warning logged (core/log.h's hook), for the unit tests
 * that check a message whole (test_msgfig_*.c). Included after cmocka.h;
 * lastlog_setup and lastlog_teardown are cmocka's setup and teardown. */
#ifndef FC_TEST_LASTLOG_H
#define FC_TEST_LASTLOG_H

#include <stdio.h>

#include "core/log.h"

static char last[1024];

static void lastlog_keep(enum fc_log_level lvl, const char *msg)
{
	if (lvl <= FC_LOG_WARN)
		snprintf(last, sizeof(last), "%s", msg);
}

static inline int lastlog_setup(void **state)
{
	(void)state;
	last[0] = '\0';
	fc_log_hook = lastlog_keep;
	return 0;
}

static inline int lastlog_teardown(void **state)
{
	(void)state;
	fc_log_hook = NULL;
	return 0;
}

#endif
