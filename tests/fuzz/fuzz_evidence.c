/* libFuzzer target: a crafted evidence folder through diagnose's reader
 * (diag_set_read: names, links, test.json, snapshot files) and the rules
 * (diag_run, diag_cards). The input is records "PATH\nCONTENT" separated by
 * NUL bytes, written below a fresh folder; a PATH that begins with '@' makes
 * a symbolic link to CONTENT instead (the reader must not follow it).
 *   ./fuzz_evidence -max_total_time=20 "$(mktemp -d)" tests/fuzz/corpus/fuzz_evidence
 * fuzz-sources: diag/set.c diag/snap.c diag/snapcap.c diag/port.c diag/rules.c diag/rules_test.c diag/rules_rails.c diag/run.c diag/notes.c diag/parse.c diag/parse_module.c diag/ceiling.c diag/cards.c diag/expect.c diag/linkmodes.c diag/devlink.c diag/modlimits.c diag/modpeers.c diag/peerport.c diag/modlanes.c verbs/qos.c topo/pcitopo_dist.c core/[a-z]*.c
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "core/log.h"
#include "core/out.h"
#include "diag/diag.h"
#include "tests/fuzz/fuzz_tree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char root[] = "/tmp/fuzz-evidence-XXXXXX";
	struct diag_set s;

	fc_log_level = -1; /* quiet: bad input is expected here */
	if (fuzz_tree(root, data, size))
		return 0;
	if (!diag_set_read(root, &s)) {
		json_t *doc = fc_doc_new(), *sets = json_array();

		diag_run(doc, &s);
		json_array_append(sets, doc);
		diag_cards(doc, sets);
		json_decref(sets);
		json_decref(doc);
		diag_set_release(&s);
	}
	fuzz_tree_remove(root);
	return 0;
}
