/* Libraries loaded at run time: open by name or override, bind a table (see dl.h). */
#include "gdr/dl.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The name of the first required entry point @h lacks, or NULL. */
static const char *bind(void *h, void *api, const struct fc_dl_sym *syms, size_t n)
{
	const char *missing = NULL;

	for (size_t i = 0; i < n; i++) {
		void *fn = NULL;

		for (int k = 0; !fn && syms[i].names[k]; k++)
			fn = dlsym(h, syms[i].names[k]);
		if (!fn && syms[i].required && !missing)
			missing = syms[i].names[0];
		memcpy((char *)api + syms[i].off, &fn, sizeof(fn));
	}
	return missing;
}

int fc_dl_load(void **h, const char **path, const char *env, const char *dflt, void *api,
	       const struct fc_dl_sym *syms, size_t n, char *err, size_t len)
{
	const char *over = getenv(env), *miss;

	*path = over && *over ? over : dflt;
	dlerror();
	*h = dlopen(*path, RTLD_NOW | RTLD_LOCAL);
	if (!*h) {
		const char *e = dlerror();

		snprintf(err, len, "%s", e ? e : "dlopen failed");
		return -ENOENT;
	}
	miss = bind(*h, api, syms, n);
	if (miss) {
		snprintf(err, len, "%s", miss);
		dlclose(*h);
		*h = NULL;
		return -ENOSYS;
	}
	return 0;
}
