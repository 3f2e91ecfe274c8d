/*
 * ssh connection sharing: one ssh connection per node carries every
 * worker the run starts there (ControlMaster=auto, ControlPath in a folder
 * the controller makes and owns, ControlPersist), unless the user's
 * ssh_config already shares connections itself, ssh cannot say (no
 * `ssh -G`), or it is turned off (--no-ssh-mux, FABCHECK_SSH_MUX=off).
 *
 * The choice is made once by the command that drives the run and passed to
 * the fabcheck processes it starts (matrix's pairs) in FABCHECK_SSH_MUX:
 * "off", or the control folder. See doc/scale.md.
 */
#ifndef FC_CTL_SSH_MUX_H
#define FC_CTL_SSH_MUX_H

#include "ctl/chan.h"

/* How long an idle shared connection stays up after its last session. */
#define FC_SSH_PERSIST_S 30
/* The longest control folder: ssh's socket path (the folder, "/", 40
 * hex digits of %C and ssh's 17-byte temporary suffix) must fit in 104
 * bytes. */
#define FC_SSH_MUX_DIR_MAX 44

/*
 * Decides for this process and its children: nothing for a launcher other
 * than ssh; off with @off; the inherited FABCHECK_SSH_MUX when set; else
 * `ssh [-F FILE] -G NODE` says whether the user's configuration shares
 * connections already, and if not, a control folder is made
 * ($XDG_RUNTIME_DIR or /tmp, mode 0700).
 */
void fc_ssh_mux_setup(const struct fc_launch *l, const char *node, int off);
/* Removes the control folder this process made (its sockets with it). */
void fc_ssh_mux_end(void);
/* The same with system calls only, for a signal handler (and logging
 * nothing); what fc_ssh_mux_end does after it is then nothing. */
void fc_ssh_mux_remove(void);
/* The control folder of ssh's ControlPath, or NULL when sharing is off. */
const char *fc_ssh_mux_dir(void);
/* Pure: what `ssh -G` printed says: 1 the user shares connections already
 * (ControlMaster, ControlPath or ControlPersist set), 0 not, -1 cannot
 * tell (no "controlmaster" line). */
int fc_ssh_mux_user_cfg(const char *g_out);
/* Whether @dir may be a control folder: a real folder of this user's,
 * closed to others, short enough. 1 or 0. */
int fc_ssh_mux_dir_ok(const char *dir);

#endif
