/* Text helpers of the `nvidia-smi topo -m` parser (see nvsmi_topo_int.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "topo/nvsmi_topo_int.h"

/* Length of an SGR sequence at @s ("\033[4m", "[0m", "[1;32m"), 0 when none. */
static size_t sgr_len(const char *s)
{
	size_t n = 0, d;

	if (s[n] == '\033')
		n++;
	if (s[n] != '[')
		return 0;
	n++;
	for (d = n; isdigit((unsigned char)s[d]) || s[d] == ';'; d++)
		;
	/* "[m" only with the ESC: a bare "[m" is text. */
	if (s[d] != 'm' || (d == n && s[0] != '\033'))
		return 0;
	return d + 1;
}

void nvsmi_strip_sgr(char *line)
{
	char *w = line;

	for (const char *r = line; *r;) {
		size_t n = sgr_len(r);

		if (n) {
			r += n;
			continue;
		}
		*w++ = *r++;
	}
	*w = '\0';
}

int nvsmi_rule_word(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	if (!len)
		return 0;
	while (i < len) {
		if (p[i] && strchr("-=+|:", p[i]))
			i++;
		else if (i + 2 < len && p[i] == 0xe2 && (p[i + 1] == 0x94 || p[i + 1] == 0x95) &&
			 p[i + 2] >= 0x80 && p[i + 2] <= 0xbf)
			i += 3; /* U+2500-U+257F, UTF-8 E2 94 80 - E2 95 BF */
		else
			return 0;
	}
	return 1;
}

/* The number of at most 7 digits at @s[*i] before @len; -1 when none. */
static long num_at(const char *s, size_t len, size_t *i)
{
	long v = 0;
	size_t d = 0;

	while (*i < len && isdigit((unsigned char)s[*i]) && d < 7) {
		v = v * 10 + (s[*i] - '0');
		(*i)++;
		d++;
	}
	return d && (*i == len || !isdigit((unsigned char)s[*i])) ? v : -1;
}

/* The first @len bytes of @s are a CPU list as nvidia-smi prints it: "N" or
 * "A-B" items joined by ',', each above the last. */
static int cpu_list_ok(const char *s, size_t len)
{
	long last = -1;
	size_t i = 0;

	while (i < len) {
		long a = num_at(s, len, &i), b = a;

		if (a <= last)
			return 0;
		if (i < len && s[i] == '-') {
			i++;
			b = num_at(s, len, &i);
			if (b < a)
				return 0;
		}
		last = b;
		if (i < len && (s[i] != ',' || ++i == len))
			return 0; /* not a ',' next, or a trailing ',' */
	}
	return last >= 0;
}

int nvsmi_cpu_list(const char *s)
{
	return cpu_list_ok(s, strlen(s));
}

int nvsmi_split_fused_affinity(const char *tok, char *cpu, size_t cpu_len, char *numa,
			       size_t numa_len)
{
	size_t len = strlen(tok);

	for (size_t k = 1; k < len && k < numa_len; k++) {
		size_t cut = len - k;

		if (!isdigit((unsigned char)tok[cut]))
			break;
		if (cut >= cpu_len || !cpu_list_ok(tok, cut))
			continue;
		memcpy(cpu, tok, cut);
		cpu[cut] = '\0';
		memcpy(numa, tok + cut, k + 1);
		return 1;
	}
	return 0;
}
