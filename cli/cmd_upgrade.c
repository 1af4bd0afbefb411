// SPDX-License-Identifier: GPL-2.0-only
/* classifier upgrade */
#include <errno.h>

#include "cli/cli.h"

static int upgrade(struct cli *c, int argc, char **argv)
{
	(void)argv;
	if (cli_no_args(c, argc))
		return -EINVAL;
	if (c->maps_open) {
		cli_err(c, "cannot run inside a batch that opened the pins "
			   "already");
		return -EINVAL;
	}
	return cli_upgrade(c, false);
}

static const struct cli_cmd upgrade_cmds[] = {
	CLI_CMD(NULL, upgrade, NULL),
	{},
};

const struct cli_object cli_upgrade_obj = {
	.name = "upgrade",
	.cmds = upgrade_cmds,
	.help = "Moves pins of an older layout to this classifier's in place\n"
		"(classes, routes and counters carried over, lookup tables\n"
		"kept or rebuilt) and makes every attachment run this build's\n"
		"programs, each in one step. Run again after an interruption,\n"
		"it finishes. attach upgrades older pins by itself; other\n"
		"changes ask for this.\n",
};
