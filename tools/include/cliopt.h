/* SPDX-License-Identifier: GPL-2.0 */
/* Command-line helpers shared by the tools (tools/common/cliopt.c). */
#ifndef TOOLS_CLIOPT_H
#define TOOLS_CLIOPT_H

/*
 * An option that takes a value, as "--opt V" or "--opt=V". Returns 1 if
 * argv[*i] is @name (then *value is the value, or NULL if argv ends, and
 * *i has moved past a separate value), 0 otherwise.
 */
int option_value(int argc, char **argv, int *i, const char *name,
		 const char **value);

#endif /* TOOLS_CLIOPT_H */
