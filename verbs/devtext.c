/*
 * The RDMA devices and ports from the text of `ibv_devinfo [-v]` or
 * `ibstat`, as `devices --json` lists them (verbs/dev.c vb_port_json) for
 * what those tools print. Pure.
 *
 * ibv_devinfo (rdma-core libibverbs/examples/devinfo.c print_hca_cap):
 *   "hca_id:\t%s", "\tfw_ver:\t\t\t\t%s", "\t\tport:\t%d",
 *   "\t\t\tstate:\t\t\t%s (%d)" (port_state_str: PORT_DOWN, PORT_INIT,
 *   PORT_ARMED, PORT_ACTIVE, PORT_ACTIVE_DEFER), "max_mtu:\t\t%s (%d)",
 *   "active_mtu:\t\t%s (%d)" (mtu_str: 256..4096), "port_lid:\t\t%d",
 *   "link_layer:\t\t%s"; with -v "active_width:\t\t%sX (%d)",
 *   "active_speed:\t\t%s (%d)" (speed_str: "2.5 Gbps" .. "200.0 Gbps"),
 *   "phys_state:\t\t%s (%d)".
 * ibstat (infiniband-diags src/ibstat.c ca_dump/port_dump):
 *   "CA '%s'", "\tFirmware version: %s", "\tPort %d:", "\t\tState: %s"
 *   (Down, Initializing, Armed, Active), "\t\tPhysical state: %s",
 *   "\t\tRate: %d" (umad's rate, from sysfs "rate": the port's Gb/s),
 *   "\t\tBase lid: %d", "\t\tLink layer: %s".
 * Neither prints the netdev or the GID fabcheck would choose: those stay
 * empty (null), and "gid_unknown" says the GID was not recorded (preflight
 * then makes no GID finding).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verbs/devtext.h"

/* The word after "KEY:" (whitespace skipped) on line @p, or NULL. */
static const char *after(const char *p, const char *key)
{
	size_t n = strlen(key);

	if (strncmp(p, key, n))
		return NULL;
	p += n;
	return p + strspn(p, " \t");
}

/* PORT_ACTIVE / Active -> ACTIVE, as vb_port_state_name names them. */
static const char *state_name(const char *v)
{
	static const char *const map[][2] = {
		{ "PORT_ACTIVE_DEFER", "ACTIVE_DEFER" }, { "PORT_ACTIVE", "ACTIVE" },
		{ "PORT_DOWN", "DOWN" }, { "PORT_INIT", "INIT" }, { "PORT_ARMED", "ARMED" },
		{ "Active", "ACTIVE" }, { "Down", "DOWN" }, { "Initializing", "INIT" },
		{ "Armed", "ARMED" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strncmp(v, map[i][0], strlen(map[i][0])) &&
		    !isalnum((unsigned char)v[strlen(map[i][0])]) && v[strlen(map[i][0])] != '_')
			return map[i][1];
	return "NOP";
}

static json_t *new_port(const char *dev, int port)
{
	return json_pack("{s:s, s:i, s:s, s:s, s:i, s:i, s:s, s:s, s:f, s:i, s:s, s:[], s:s, s:n, "
			 "s:b}",
			 "device", dev, "port", port, "state", "NOP", "link_layer", "InfiniBand",
			 "active_mtu", 0, "max_mtu", 0, "width", "", "speed", "", "rate_gbps", 0.0,
			 "lid", 0, "netdev", "", "gids", "subnet", "", "gid_index", "gid_unknown", 1);
}

/* One line's fact of the current port @p. */
static void port_line(json_t *p, const char *line, int *lanes, double *lane_gbps)
{
	const char *v;

	if ((v = after(line, "state:")) || (v = after(line, "State:")))
		json_object_set_new(p, "state", json_string(state_name(v)));
	else if ((v = after(line, "phys_state:")) || (v = after(line, "Physical state:")))
		json_object_set_new(p, "phys_state", json_stringn(v, strcspn(v, " \t\r(")));
	else if ((v = after(line, "link_layer:")) || (v = after(line, "Link layer:")))
		json_object_set_new(p, "link_layer",
				    json_string(!strncmp(v, "Ethernet", 8) ? "Ethernet" : "InfiniBand"));
	else if ((v = after(line, "active_mtu:")))
		json_object_set_new(p, "active_mtu", json_integer(atoi(v)));
	else if ((v = after(line, "max_mtu:")))
		json_object_set_new(p, "max_mtu", json_integer(atoi(v)));
	else if ((v = after(line, "port_lid:")) || (v = after(line, "Base lid:")))
		json_object_set_new(p, "lid", json_integer(atoi(v)));
	else if ((v = after(line, "Rate:")))
		json_object_set_new(p, "rate_gbps", json_real(strtod(v, NULL)));
	else if ((v = after(line, "active_width:")) && isdigit((unsigned char)*v))
		*lanes = atoi(v);
	else if ((v = after(line, "active_speed:")) && isdigit((unsigned char)*v))
		*lane_gbps = strtod(v, NULL);
}

/* ibv_devinfo -v gives width and per-lane speed, not the rate. */
static void port_done(json_t *p, int lanes, double lane_gbps)
{
	if (p && lanes > 0 && lane_gbps > 0 && json_number_value(json_object_get(p, "rate_gbps")) <= 0)
		json_object_set_new(p, "rate_gbps", json_real(lanes * lane_gbps));
}

json_t *vb_devices_from_text(const char *text)
{
	json_t *devs = json_array(), *dev = NULL, *port = NULL;
	const char *line = text ? text : "";
	int lanes = 0;
	double lane_gbps = 0;

	while (*line) {
		size_t n = strcspn(line, "\n");
		char buf[512];
		const char *p, *v;

		snprintf(buf, sizeof(buf), "%.*s", (int)(n < sizeof(buf) - 1 ? n : sizeof(buf) - 1),
			 line);
		line += n + (line[n] == '\n');
		buf[strcspn(buf, "\r")] = 0;
		p = buf + strspn(buf, " \t");
		if ((v = after(p, "hca_id:")) || (!strncmp(p, "CA '", 4) && (v = p + 4))) {
			port_done(port, lanes, lane_gbps);
			port = NULL;
			dev = json_pack("{s:s%, s:s, s:s, s:[]}", "name", v, strcspn(v, "' \t"),
					"fw_ver", "", "transport", "IB", "ports");
			json_array_append_new(devs, dev);
		} else if (dev && ((v = after(p, "fw_ver:")) || (v = after(p, "Firmware version:")))) {
			json_object_set_new(dev, "fw_ver", json_stringn(v, strcspn(v, " \t")));
		} else if (dev && (((v = after(p, "port:")) && isdigit((unsigned char)*v)) ||
				   (!strncmp(p, "Port ", 5) && isdigit((unsigned char)p[5]) &&
				    p[5 + strspn(p + 5, "0123456789")] == ':' && (v = p + 5)))) {
			port_done(port, lanes, lane_gbps);
			lanes = 0, lane_gbps = 0;
			port = new_port(json_string_value(json_object_get(dev, "name")), atoi(v));
			json_array_append_new(json_object_get(dev, "ports"), port);
		} else if (port) {
			port_line(port, p, &lanes, &lane_gbps);
		}
	}
	port_done(port, lanes, lane_gbps);
	if (!json_array_size(devs)) {
		json_decref(devs);
		return NULL;
	}
	return devs;
}
