/* libFuzzer target: a crafted evidence folder through diagnose's reader
 * (diag_set_read: names, links, test.json, snapshot files) and the rules
 * (diag_run, diag_cards). The input is records "PATH\nCONTENT" separated by
 * NUL bytes, written below a fresh folder; a PATH that begins with '@' makes
 * a symbolic link to CONTENT instead (the reader must not follow it).
 *   ./fuzz_evidence -max_total_time=20 "$(mktemp -d)" tests/fuzz/corpus/fuzz_evidence
 * fuzz-sources: diag/set.c diag/snap.c diag/port.c diag/rules.c diag/rules_test.c diag/run.c diag/parse.c diag/ceiling.c diag/cards.c diag/expect.c verbs/qos.c topo/pcitopo_dist.c core/[a-z]*.c
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/out.h"
#include "diag/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(p);
}

/* mkdir -p of @path's folders below @root, then the file or link. */
static void put(const char *root, const char *rec, size_t len)
{
	char path[512], *nl = memchr(rec, '\n', len), *p;
	int link = len && *rec == '@', off = link;

	if (!nl || nl - rec - off <= 0 || nl - rec - off > 200)
		return;
	snprintf(path, sizeof(path), "%s/%.*s", root, (int)(nl - rec - off), rec + off);
	if (strstr(path + strlen(root), ".."))
		return; /* the harness's own folder only */
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		mkdir(path, 0700);
		*p = '/';
	}
	if (link) {
		char target[256];

		snprintf(target, sizeof(target), "%.*s", (int)(len - (size_t)(nl + 1 - rec)), nl + 1);
		if (symlink(target, path))
			return;
	} else {
		FILE *f = fopen(path, "wx");

		if (!f)
			return;
		fwrite(nl + 1, 1, len - (size_t)(nl + 1 - rec), f);
		fclose(f);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char root[] = "/tmp/fuzz-evidence-XXXXXX";
	const char *rec = (const char *)data, *end = rec + size;
	struct diag_set s;

	fc_log_level = -1; /* quiet: bad input is expected here */
	if (!mkdtemp(root))
		return 0;
	while (rec < end) {
		const char *z = memchr(rec, 0, (size_t)(end - rec));
		size_t n = z ? (size_t)(z - rec) : (size_t)(end - rec);

		put(root, rec, n);
		rec += n + 1;
	}
	if (!diag_set_read(root, &s)) {
		json_t *doc = fc_doc_new(), *sets = json_array();

		diag_run(doc, &s);
		json_array_append(sets, doc);
		diag_cards(doc, sets);
		json_decref(sets);
		json_decref(doc);
		diag_set_release(&s);
	}
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}
