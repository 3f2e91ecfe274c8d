/* Private to store/: the handle's layout. */
#ifndef FC_STORE_INT_H
#define FC_STORE_INT_H

#include <sqlite3.h>

struct fc_store {
	sqlite3 *db;
	char *path;
};

#endif
