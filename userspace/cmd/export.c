// SPDX-License-Identifier: GPL-2.0
/* PLACEHOLDER: being written; replaced before commit. */
#include "nanograph.h"
#include "cmd.h"

const char ng_export_help[] = "";

int cmd_export(const struct ng_cmd *self, int argc, char **argv)
{
	(void)self; (void)argc; (void)argv;
	return NG_EXIT_FAIL;
}
