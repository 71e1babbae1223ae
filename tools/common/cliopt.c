// SPDX-License-Identifier: GPL-2.0
#include "cliopt.h"

#include <string.h>

int option_value(int argc, char **argv, int *i, const char *name,
		 const char **value)
{
	size_t len = strlen(name);
	const char *a = argv[*i];

	if (strncmp(a, name, len))
		return 0;
	if (a[len] == '=') {
		*value = a + len + 1;
		return 1;
	}
	if (a[len] != '\0')
		return 0;
	*value = *i + 1 < argc ? argv[++*i] : NULL;
	return 1;
}
