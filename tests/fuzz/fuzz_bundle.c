/* libFuzzer target: a crafted capture bundle (doc/capture.md) through the
 * reader that preflight --from and topo --from open it with
 * (core/bundle.c fc_bundle_open: the manifest, every link inside the
 * bundle, every file a plain file within the bounds, sizes and CRC32C),
 * then each file its manifest names read back (fc_bundle_read), as the
 * judges read them. The input is the records of tests/fuzz/fuzz_tree.h
 * ("PATH\nCONTENT", NUL between, '@PATH' a link). A .tar.gz bundle is
 * unpacked by the tar command first (ctl/nodesrc.c), which is not fuzzed
 * here; its listing is checked before, and the folder is this one's.
 *   ./fuzz_bundle -max_total_time=20 "$(mktemp -d)" tests/fuzz/corpus/fuzz_bundle
 * fuzz-sources: core/[a-z]*.c
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "core/bundle.h"
#include "core/log.h"
#include "core/out.h"
#include "tests/fuzz/fuzz_tree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads @rel from @b as a judge would, and drops it. */
static void read_one(const struct fc_bundle *b, const char *rel)
{
	char why[256];
	size_t len = 0;
	int code = 0;
	char *t = fc_bundle_read(b, rel, &len, &code, why, sizeof(why));

	if (t && strlen(t) > len) /* NUL-ended at its length, or holding a NUL */
		abort();
	free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char root[] = "/tmp/fuzz-bundle-XXXXXX", err[512];
	struct fc_bundle *b;

	fc_log_level = -1; /* quiet: bad input is expected here */
	if (fuzz_tree(root, data, size))
		return 0;
	b = fc_bundle_open(root, err, sizeof(err));
	if (b) {
		const json_t *f, *files = json_object_get(b->man, "files");
		size_t i;

		json_array_foreach(files, i, f)
			read_one(b, fc_jstr(f, "path", ""));
		read_one(b, "cmd/ip_-j_addr");
		read_one(b, "../manifest.json");
		read_one(b, "sys/class/infiniband");
		(void)fc_bundle_str(b, "host", "?");
		fc_bundle_close(b);
	} else if (!*err) {
		abort(); /* a refusal always says what is wrong */
	}
	fuzz_tree_remove(root);
	return 0;
}
