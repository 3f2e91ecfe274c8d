/* ssh connection sharing through a control folder (see ssh_mux.h). */
#include "ctl/ssh_mux.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/log.h"
#include "ctl/child.h"

#define MUX_ENV "FABCHECK_SSH_MUX"

static char mux_dir[FC_SSH_MUX_DIR_MAX + 1];
static int mux_decided, mux_removed;
static volatile sig_atomic_t mux_owned;

int fc_ssh_mux_dir_ok(const char *dir)
{
	struct stat st;

	return dir[0] == '/' && strlen(dir) <= FC_SSH_MUX_DIR_MAX && !lstat(dir, &st) &&
	       S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 077);
}

/* The value of @key in `ssh -G` output, NULL when absent; in @buf. */
static const char *g_value(const char *g, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);

	for (const char *l = g; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t vl;

		if (strncmp(l, key, kl) || l[kl] != ' ')
			continue;
		l += kl + 1;
		vl = strcspn(l, "\r\n");
		snprintf(buf, len, "%.*s", (int)vl, l);
		return buf;
	}
	return NULL;
}

int fc_ssh_mux_user_cfg(const char *g_out)
{
	char m[64], p[64], k[64];
	const char *master = g_value(g_out, "controlmaster", m, sizeof(m));
	const char *path = g_value(g_out, "controlpath", p, sizeof(p));
	const char *persist = g_value(g_out, "controlpersist", k, sizeof(k));

	if (!master)
		return -1;
	return strcmp(master, "false") || (path && strcmp(path, "none")) ||
	       (persist && strcmp(persist, "no"));
}

static void decide(const char *dir)
{
	mux_decided = 1;
	snprintf(mux_dir, sizeof(mux_dir), "%s", dir ? dir : "");
	setenv(MUX_ENV, dir ? dir : "off", 1);
}

/* 1 when sharing may be added for @node: ssh -G shows none of the user's. */
static int user_allows(const struct fc_launch *l, const char *node)
{
	const char *argv[8];
	char why[512];
	int n = 0, code, u;
	char *out;

	argv[n++] = "ssh";
	if (l->ssh_config) {
		argv[n++] = "-F";
		argv[n++] = l->ssh_config;
	}
	argv[n++] = "-G";
	argv[n++] = "--";
	argv[n++] = node;
	argv[n] = NULL;
	out = fc_capture(argv, 10, &code, why, sizeof(why));
	u = out && code == 0 ? fc_ssh_mux_user_cfg(out) : -1;
	free(out);
	if (u < 0)
		fc_info("ssh -G %s printed no configuration (%s): ssh connections are not shared",
			node, *why ? why : "an ssh older than OpenSSH 6.8?");
	else if (u)
		fc_info("ssh: the ssh configuration shares connections itself (ControlMaster/ControlPath/ControlPersist): left to it");
	return u == 0;
}

/* $XDG_RUNTIME_DIR only when it is a folder (not a link) of this user's
 * closed to others (mode 0700), as the XDG Base Directory spec requires;
 * another user's could hold or swap the sockets. */
static int runtime_dir_ok(const char *rt)
{
	struct stat st;

	return rt && rt[0] == '/' && !lstat(rt, &st) && S_ISDIR(st.st_mode) &&
	       st.st_uid == geteuid() && !(st.st_mode & 077);
}

/* A fresh control folder (mkdtemp: mode 0700) under $XDG_RUNTIME_DIR when it
 * is the user's own, else under /tmp. */
static int make_dir(char *dir, size_t len)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	const char *bases[] = { runtime_dir_ok(rt) ? rt : "/tmp", "/tmp" };

	if (rt && *rt && !runtime_dir_ok(rt))
		fc_info("ssh: $XDG_RUNTIME_DIR %s is not a folder of this user's with mode 0700: "
			"the control folder goes under /tmp", rt);
	for (size_t i = 0; i < 2; i++) {
		if ((size_t)snprintf(dir, len, "%s/fabcheck-ssh-XXXXXX", bases[i]) >= len)
			continue;
		if (mkdtemp(dir))
			return 0;
	}
	return -errno;
}

void fc_ssh_mux_setup(const struct fc_launch *l, const char *node, int off)
{
	const char *env = getenv(MUX_ENV);
	char dir[FC_SSH_MUX_DIR_MAX + 1];

	if (l->kind != FC_LAUNCH_SSH || mux_decided)
		return;
	if (off || (env && !strcmp(env, "off"))) {
		decide(NULL);
		return;
	}
	if (env && *env) {
		if (strlen(env) > FC_SSH_MUX_DIR_MAX)
			fc_warn("%s=%s: %zu bytes, over the %d a control folder may have (ssh's socket path in it must fit in 104): ssh connections are not shared",
				MUX_ENV, env, strlen(env), FC_SSH_MUX_DIR_MAX);
		else if (!fc_ssh_mux_dir_ok(env))
			fc_warn("%s=%s: not a folder of this user's closed to others (mode 0700), nor 'off': ssh connections are not shared",
				MUX_ENV, env);
		decide(fc_ssh_mux_dir_ok(env) ? env : NULL);
		return;
	}
	if (!user_allows(l, node)) {
		decide(NULL);
		return;
	}
	if (make_dir(dir, sizeof(dir))) {
		fc_warn("cannot make a control folder for ssh under $XDG_RUNTIME_DIR or /tmp: %s; "
			"ssh connections are not shared", strerror(errno));
		decide(NULL);
		return;
	}
	mux_owned = 1;
	decide(dir);
	fc_info("ssh: sharing each node's connection through %s (--no-ssh-mux to turn off)", dir);
}

void fc_ssh_mux_remove(void)
{
	char buf[4096];
	int fd;
	long n;

	if (!mux_owned)
		return;
	mux_owned = 0;
	/* The masters end on their own FC_SSH_PERSIST_S after their last
	 * session; without its socket none takes a new one. Only system calls
	 * here (getdents64, not readdir): a signal handler runs this. */
	fd = open(mux_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	while (fd >= 0 && (n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < n;) {
			struct linux_dirent64 {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *e = (void *)(buf + off);

			if (strcmp(e->name, ".") && strcmp(e->name, ".."))
				unlinkat(fd, e->name, 0);
			off += e->reclen;
		}
	if (fd >= 0)
		close(fd);
	mux_removed = !rmdir(mux_dir) ? 1 : -errno;
}

void fc_ssh_mux_end(void)
{
	int owned = mux_owned;

	mux_decided = 0;
	if (owned) {
		unsetenv(MUX_ENV);
		fc_ssh_mux_remove();
		if (mux_removed < 0)
			fc_warn("cannot remove the ssh control folder %s: %s", mux_dir,
				strerror(-mux_removed));
	}
	mux_dir[0] = 0;
}

const char *fc_ssh_mux_dir(void)
{
	const char *env;

	if (mux_decided)
		return mux_dir[0] ? mux_dir : NULL;
	/* Not decided here: what the command that started this one chose. */
	env = getenv(MUX_ENV);
	return env && strcmp(env, "off") && fc_ssh_mux_dir_ok(env) ? env : NULL;
}
