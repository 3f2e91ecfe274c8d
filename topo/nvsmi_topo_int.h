/* Text helpers of the `nvidia-smi topo -m` parser (nvsmi_topo_text.c). */
#ifndef FC_NVSMI_TOPO_INT_H
#define FC_NVSMI_TOPO_INT_H

#include <stddef.h>

/* Removes the terminal's SGR sequences from @line in place: ESC[4m, ESC[0m,
 * ESC[1;32m, and the same without the ESC as a paste shows them ("[4m"). */
void nvsmi_strip_sgr(char *line);
/* True when the @len bytes at @s are only a rule or a column bar a person drew:
 * '-', '=', '+', '|', ':' and the box-drawing characters (U+2500-U+257F). */
int nvsmi_rule_word(const char *s, size_t len);
/* 1 when @s is a whole CPU list as nvidia-smi prints it ("0-47,96-143"). */
int nvsmi_cpu_list(const char *s);
/*
 * A CPU affinity that lost the blank before the NUMA affinity: "0-45,92-1370"
 * is "0-45,92-137" and node "0". Splits off the shortest digit tail that leaves
 * a well-formed CPU list (ranges a-b with a <= b, rising); 1 when split.
 */
int nvsmi_split_fused_affinity(const char *tok, char *cpu, size_t cpu_len, char *numa,
			       size_t numa_len);

#endif
