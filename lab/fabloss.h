/*
 * Frames the virtual rack's own fabric lost in the host. A lab rack's
 * fabric is QEMU's: a multicast UDP socket per rail (or a tap on a host
 * bridge, lab/fabric.sh). What the host drops there (a socket's full
 * receive queue, a tap's full queue) never reaches the guest's NIC, and
 * the guests' RDMA devices (rxe) see it as loss and retransmit. Those
 * retransmissions are the emulator's, not the nodes': with
 * FABCHECK_LAB_RACK set (the explicit signal, lab/starve.h), a port's
 * error counters are set aside when the host dropped frames toward both
 * ports of the pair during the run and no lab fault is set on either port
 * (an injected fault's loss is the nodes' to show, at its peers too). Real
 * nodes are never judged by it.
 */
#ifndef FC_LAB_FABLOSS_H
#define FC_LAB_FABLOSS_H

#include <stddef.h>

#define FC_FABLOSS_NODES 8 /* lab/lib.sh LAB_NODE_LETTERS */
#define FC_FABLOSS_RAILS 4 /* lab/lib.sh LAB_RAILS_MAX */

struct fc_fabloss_port {
	char ip[16];     /* its fabric address (QEMU's "fc.ip=", "fc.ipR=") */
	char udp[16];    /* mcast: the group "G:P" as /proc/net/udp prints it */
	char tap[16];    /* bridge: the tap's name */
	double drops;    /* frames the host dropped toward it so far; -1 unknown */
};

struct fc_fabloss_node {
	char name[16];
	long pid;
	struct fc_fabloss_port port[FC_FABLOSS_RAILS];
};

struct fc_fabloss {
	int nnodes;
	struct fc_fabloss_node node[FC_FABLOSS_NODES];
};

/* Pure: a QEMU command line (@n bytes, arguments NUL separated, as
 * /proc/PID/cmdline) into @nd: its node's name, each rail's address and its
 * fabric end (the socket's group or the tap). 0, or -EINVAL when it names
 * no node. */
int fc_fabloss_parse_cmdline(const char *cmd, size_t n, struct fc_fabloss_node *nd);

/* Pure: the drops column of the /proc/net/udp row (@text) whose local
 * address is @udp and whose inode is one of @inodes[@ninodes]; -1 when no
 * row is. */
double fc_fabloss_udp_drops(const char *text, const char *udp, const unsigned long *inodes,
			    int ninodes);

/* Reads every node of rack @name (@dir, its folder) under @proc (and
 * @sys for taps): ports and drops so far. Returns the nodes read. */
int fc_fabloss_sample(const char *proc, const char *sys, const char *dir, const char *name,
		      struct fc_fabloss *s);

/* Pure: the node and rail of the port at @ip in @s (-1 when none has it). */
int fc_fabloss_find(const struct fc_fabloss *s, const char *ip, int *node);

/* 1 when a lab fault is set on rail @rail of @node of the rack in @dir (its
 * nodes/NODE.faults or NODE.railR.faults, lab/ops.sh faults_file). */
int fc_fabloss_port_faulted(const char *dir, const char *node, int rail);

/* The command's hooks (lab/starve_run.c, with FABCHECK_LAB_RACK):
 * fc_fabloss_begin samples at the start; fc_fabloss_explains is core's
 * fc_host_loss (core/hostloss.h); fc_fabloss_note adds to a judged
 * document the one note that says which ports' counters were set aside
 * (its own "host_loss" and its rails' phases', pair/pair_rails.c) and why:
 * a pair's among its "notes", another's among its findings; the frames
 * per port in "lab": {"fabric_drops"}. */
int fc_fabloss_begin(const char *dir, const char *name);
double fc_fabloss_explains(const char *node, const char *ip, char *why, size_t len);
struct json_t;
void fc_fabloss_note(struct json_t *doc);

#endif
