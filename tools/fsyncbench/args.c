// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

static const char *const names[] = {
	[FB_APPEND] = "append", [FB_META] = "meta",
	[FB_FDATASYNC] = "fdatasync", [FB_OSYNC] = "osync",
	[FB_CREATE] = "create", [FB_UNPACK] = "unpack",
};

const char *fb_workload_name(enum fb_workload w)
{
	return names[w];
}

static int bad(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* A positive integer with an optional k/m/g suffix (powers of 1024). */
static int parse_size(const char *s, unsigned long max, unsigned long *out)
{
	unsigned long long v, mul = 1;
	char *end;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': mul = 1ull << 10; end++; break;
	case 'm': case 'M': mul = 1ull << 20; end++; break;
	case 'g': case 'G': mul = 1ull << 30; end++; break;
	}
	if (*end || v == 0 || v > max / mul)
		return -1;
	*out = (unsigned long)(v * mul);
	return 0;
}

int fb_parse_args(int argc, char **argv, struct fb_opts *o, char *err, size_t errlen)
{
	bool have_workload = false;

	*o = (struct fb_opts){ .threads = 1, .bs = 4096, .file_size = 1ul << 20,
			       .files = 16 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		char key[32];
		const char *eq;

		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return 1;
		if (!strcmp(a, "--prepare-only")) {
			o->prepare_only = true;
			continue;
		}
		if (strncmp(a, "--", 2))
			return bad(err, errlen, "unexpected argument '%s'", a);
		eq = strchr(a, '=');
		if (eq) {
			snprintf(key, sizeof(key), "%.*s", (int)(eq - a), a);
			v = eq + 1;
		} else {
			snprintf(key, sizeof(key), "%s", a);
			if (i + 1 >= argc)
				return bad(err, errlen, "%s needs a value", a);
			v = argv[++i];
		}
		if (!strcmp(key, "--workload")) {
			unsigned int w;

			for (w = 0; w < sizeof(names) / sizeof(names[0]); w++)
				if (!strcmp(v, names[w]))
					break;
			if (w == sizeof(names) / sizeof(names[0]))
				return bad(err, errlen, "unknown workload '%s'", v);
			o->workload = (enum fb_workload)w;
			have_workload = true;
		} else if (!strcmp(key, "--dir")) {
			if (!*v)
				return bad(err, errlen, "--dir is empty");
			o->dir = v;
		} else if (!strcmp(key, "--threads")) {
			unsigned long n;

			if (parse_size(v, FB_MAX_THREADS, &n) || strpbrk(v, "kKmMgG"))
				return bad(err, errlen, "bad --threads '%s' (1..%d)", v, FB_MAX_THREADS);
			o->threads = (unsigned int)n;
		} else if (!strcmp(key, "--duration")) {
			char *end;

			errno = 0;
			o->duration = strtod(v, &end);
			if (errno || end == v || *end || !(o->duration > 0) || o->duration > 86400)
				return bad(err, errlen, "bad --duration '%s' (seconds, > 0)", v);
		} else if (!strcmp(key, "--ops")) {
			if (parse_size(v, 1ul << 40, &o->ops) || strpbrk(v, "kKmMgG"))
				return bad(err, errlen, "bad --ops '%s'", v);
		} else if (!strcmp(key, "--bs")) {
			if (parse_size(v, 64ul << 20, &o->bs))
				return bad(err, errlen, "bad --bs '%s' (1..64M)", v);
		} else if (!strcmp(key, "--file-size")) {
			if (parse_size(v, 1ul << 34, &o->file_size))
				return bad(err, errlen, "bad --file-size '%s'", v);
		} else if (!strcmp(key, "--files")) {
			unsigned long n;

			if (parse_size(v, FB_MAX_FILES, &n) || strpbrk(v, "kKmMgG"))
				return bad(err, errlen, "bad --files '%s' (1..%d)", v, FB_MAX_FILES);
			o->files = (unsigned int)n;
		} else if (!strcmp(key, "--think-us")) {
			char *end;

			errno = 0;
			o->think_us = strtoul(v, &end, 10);
			if (errno || end == v || *end || *v == '-' || o->think_us > FB_MAX_THINK_US)
				return bad(err, errlen, "bad --think-us '%s' (0..%d)", v, FB_MAX_THINK_US);
		} else if (!strcmp(key, "--tag")) {
			if (strpbrk(v, " \t\n="))
				return bad(err, errlen, "--tag must not contain blanks or '='");
			o->tag = v;
		} else {
			return bad(err, errlen, "unknown option '%s'", key);
		}
	}
	if (!have_workload)
		return bad(err, errlen, "--workload is required");
	if (!o->dir)
		return bad(err, errlen, "--dir is required");
	if (o->prepare_only && !o->duration && !o->ops)
		o->ops = 1;	/* nothing runs: no stop condition needed */
	if ((o->duration > 0) == (o->ops > 0))
		return bad(err, errlen, "give exactly one of --duration and --ops");
	if (o->workload == FB_FDATASYNC && o->file_size < o->bs)
		return bad(err, errlen, "--file-size must be at least --bs");
	return 0;
}
