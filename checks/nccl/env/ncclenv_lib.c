/*
 * Names compiled into the installed libnccl.so.2: NCCL builds each variable
 * name as one string literal ("NCCL_" "IB_HCA" in NCCL_PARAM, or
 * ncclGetEnv("NCCL_...")), so they sit whole in .rodata.
 */
#include "checks/nccl/env/ncclenv.h"
#include "core/log.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int ncclenv_lib_find(char *path, size_t len)
{
	struct link_map *lm = NULL;
	void *h;
	int rc = -ENOENT;

	/* RTLD_LAZY|RTLD_LOCAL: nothing of it is called, only its path read. */
	h = dlopen("libnccl.so.2", RTLD_LAZY | RTLD_LOCAL);
	if (!h) {
		fc_dbg("libnccl.so.2 not loadable: %s", dlerror());
		return -ENOENT;
	}
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0]) {
		if (realpath(lm->l_name, path) == NULL || strlen(path) >= len)
			snprintf(path, len, "%s", lm->l_name);
		rc = 0;
	}
	dlclose(h);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_name_char(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Appends every NCCL_[A-Z0-9_]+ of @p..@end not preceded by a name char. */
static int scan_bytes(const unsigned char *p, size_t size, char ***names, size_t *n,
		      size_t *cap)
{
	for (size_t i = 0; i + 6 <= size; i++) {
		size_t j;
		char **nn;

		if (p[i] != 'N' || memcmp(p + i, "NCCL_", 5) || !is_name_char(p[i + 5]))
			continue;
		if (i > 0 && (is_name_char(p[i - 1]) || (p[i - 1] >= 'a' && p[i - 1] <= 'z')))
			continue;
		for (j = i + 5; j < size && is_name_char(p[j]); j++)
			;
		/* Lowercase right after: part of an identifier, not a name. */
		if (j < size && p[j] >= 'a' && p[j] <= 'z') {
			i = j;
			continue;
		}
		/* "NCCL_IB_" prefixes and very short or long runs are no names. */
		if (p[j - 1] == '_' || j - i < 7 || j - i > 80) {
			i = j;
			continue;
		}
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 256;
			nn = realloc(*names, *cap * sizeof(*nn));
			if (!nn)
				return -ENOMEM;
			*names = nn;
		}
		(*names)[*n] = strndup((const char *)p + i, j - i);
		if (!(*names)[*n])
			return -ENOMEM;
		(*n)++;
		i = j;
	}
	return 0;
}

/* Finds .rodata in a 64-bit ELF image; returns 0 and its range. */
static int elf_rodata(const unsigned char *img, size_t size, size_t *off, size_t *len)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	const Elf64_Shdr *sh, *strs;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff == 0 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shstrndx >= eh->e_shnum ||
	    eh->e_shoff > size || (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum)
		return -ENOENT;
	sh = (const Elf64_Shdr *)(img + eh->e_shoff);
	strs = &sh[eh->e_shstrndx];
	if (strs->sh_offset > size || strs->sh_size > size - strs->sh_offset)
		return -ENOENT;
	for (int i = 0; i < eh->e_shnum; i++) {
		const char *nm;

		if (sh[i].sh_name >= strs->sh_size)
			continue;
		nm = (const char *)img + strs->sh_offset + sh[i].sh_name;
		if (strnlen(nm, strs->sh_size - sh[i].sh_name) == strs->sh_size - sh[i].sh_name)
			continue;
		if (strcmp(nm, ".rodata") || sh[i].sh_type == SHT_NOBITS)
			continue;
		if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset)
			return -ENOENT;
		*off = sh[i].sh_offset;
		*len = sh[i].sh_size;
		return 0;
	}
	return -ENOENT;
}

int ncclenv_lib_scan(const char *path, char ***names_p, size_t *n_p)
{
	char **names = NULL;
	size_t n = 0, cap = 0, off = 0, len, w = 0;
	struct stat st;
	void *img;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		fc_err("%s: cannot open: %s", path, strerror(errno));
		return rc;
	}
	if (fstat(fd, &st) || st.st_size == 0) {
		fc_err("%s: empty or unreadable file; expected a shared library", path);
		close(fd);
		return -EINVAL;
	}
	img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED) {
		rc = -errno;
		fc_err("%s: cannot map: %s", path, strerror(errno));
		return rc;
	}
	len = (size_t)st.st_size;
	if (elf_rodata(img, len, &off, &len))
		off = 0, len = (size_t)st.st_size;
	rc = scan_bytes((const unsigned char *)img + off, len, &names, &n, &cap);
	munmap(img, (size_t)st.st_size);
	if (rc) {
		fc_err("%s: out of memory while reading names", path);
		ncclenv_names_free(names, n);
		return rc;
	}
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) { /* drop duplicates */
		if (w && !strcmp(names[w - 1], names[i])) {
			free(names[i]);
			continue;
		}
		names[w++] = names[i];
	}
	*names_p = names;
	*n_p = w;
	return 0;
}

void ncclenv_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
