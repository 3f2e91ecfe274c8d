/* Port counters from sysfs: counters/ and hw_counters/ (see counters.h). */
#include "verbs/counters.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/util.h"

static void read_dir(json_t *out, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[768], val[64], *end;
		unsigned long long v;

		if (e->d_name[0] == '.' || e->d_type == DT_DIR)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (fc_read_file(path, val, sizeof(val)) <= 0)
			continue;
		v = strtoull(val, &end, 10);
		if (*end || end == val)
			continue;
		json_object_set_new(out, e->d_name, json_integer((json_int_t)v));
	}
	closedir(d);
}

json_t *vb_counters_read(const char *root, const char *dev, int port)
{
	json_t *out = json_object();
	char dir[512];

	if (!root)
		root = "/sys/class/infiniband";
	snprintf(dir, sizeof(dir), "%s/%s/ports/%d/counters", root, dev, port);
	read_dir(out, dir);
	snprintf(dir, sizeof(dir), "%s/%s/ports/%d/hw_counters", root, dev, port);
	read_dir(out, dir);
	return out;
}

void vb_netdev_counters_read(json_t *out, const char *netdev)
{
	char path[512], val[64], *end;
	unsigned long long v;

	if (!netdev || !*netdev)
		return;
	snprintf(path, sizeof(path), "/sys/class/net/%s/carrier_changes", netdev);
	if (fc_read_file(path, val, sizeof(val)) <= 0)
		return;
	v = strtoull(val, &end, 10);
	if (end != val && !*end)
		json_object_set_new(out, "netdev_carrier_changes", json_integer((json_int_t)v));
}
