/* The crafted folder of a fuzz input, shared by the targets that read a
 * folder another hand wrote (fuzz_evidence, fuzz_bundle): the input is
 * records "PATH\nCONTENT" separated by NUL bytes, each written below a
 * fresh folder; a PATH that begins with '@' makes a symbolic link to
 * CONTENT instead (the reader must not follow it out). Header-only: a
 * fuzz target is one file and its fuzz-sources. */
#ifndef FC_FUZZ_TREE_H
#define FC_FUZZ_TREE_H

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fuzz_rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(p);
}

/* mkdir -p of @path's folders below @root, then the file or link. */
static void fuzz_put(const char *root, const char *rec, size_t len)
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

/* The folder of the records in @data (@size bytes): made under /tmp into
 * @root (room for 64 bytes, "PREFIX-XXXXXX" given), 0; -1 when it could
 * not be made. */
static int fuzz_tree(char *root, const uint8_t *data, size_t size)
{
	const char *rec = (const char *)data, *end = rec + size;

	if (!mkdtemp(root))
		return -1;
	while (rec < end) {
		const char *z = memchr(rec, 0, (size_t)(end - rec));
		size_t n = z ? (size_t)(z - rec) : (size_t)(end - rec);

		fuzz_put(root, rec, n);
		rec += n + 1;
	}
	return 0;
}

static void fuzz_tree_remove(const char *root)
{
	nftw(root, fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
