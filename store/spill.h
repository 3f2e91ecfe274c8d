/*
 * Records sorted on disk: added in any order, read back by a key, in memory
 * that does not grow with their number. A private temporary SQLite database
 * (an empty file name: on disk under SQLite's temporary folder, TMPDIR or
 * /var/tmp or /tmp, removed when closed) holds them, and its sorter orders
 * them, spilling past its cache to temporary files (https://sqlite.org/
 * tempfiles.html: "Transient Indices", and the "" file name of
 * sqlite3_open_v2). SQLite is the store's library already; no sort of our
 * own. Used where a report's order needs every record of a rack-scale run
 * (report --history --csv: 4.2 million links at 1,024 x 8).
 */
#ifndef FC_STORE_SPILL_H
#define FC_STORE_SPILL_H

#include <stddef.h>
#include <stdint.h>

struct fc_spill;

/* @what names the records in errors ("history links"). NULL (logged) when
 * SQLite cannot make the database. */
struct fc_spill *fc_spill_open(const char *what);
/* Adds the @len bytes at @rec under (@key, @seq). 0 or -EIO (logged). */
int fc_spill_add(struct fc_spill *sp, double key, int64_t seq, const void *rec, size_t len);
/* Calls @cb for every record, @key descending, then @seq ascending; a
 * non-zero return from @cb stops and is returned. 0 or -EIO (logged). */
int fc_spill_each(struct fc_spill *sp, int (*cb)(const void *rec, size_t len, void *arg),
		  void *arg);
void fc_spill_close(struct fc_spill *sp);

#endif
