// SPDX-License-Identifier: GPL-2.0
/*
 * jfuzz: one deterministic mutation of the jbd2 journal of an ext4 image
 * that still needs recovery, for the journal fuzzing harness.
 */
#include "image.h"
#include "fdutil.h"
#include "cliopt.h"
#include "journal.h"
#include "mutate.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum exit_code {
	EX_MUTATED = 0,
	EX_NOTHING = 1,
	EX_USAGE = 2,
	EX_WRITE = 3,
};

static const char usage_text[] =
"usage: jfuzz [--seed N] [--class NAME] (--out FILE | --in-place) IMAGE\n"
"       jfuzz --dump IMAGE\n"
"       jfuzz --list\n"
"\n"
"IMAGE is an ext4 image file or block device whose internal journal still\n"
"needs recovery.  jfuzz maps the journal inode's blocks (extent tree or\n"
"block pointers), reads the jbd2 super block and walks the log from\n"
"s_start/s_sequence as recovery's scan does (descriptor blocks and their\n"
"tags in every csum v2/v3 and 64bit layout, revoke and commit blocks),\n"
"then applies one mutation chosen from the seed and writes the result.\n"
"The same seed and the same IMAGE give the same output, byte for byte.\n"
"\n"
"On success one line on stdout says what changed:\n"
"  seed=N class=C jblock=J tid=T field=F OLD -> NEW [csum=...]\n"
"(jblock: the journal block changed, counted from the journal's start;\n"
"tid '-' for the journal super block; csum= whether the checksums that\n"
"cover the change were left stale or recomputed).\n"
"\n"
"options:\n"
"  --seed N      mutation seed (default 0), decimal or 0x hex\n"
"  --class NAME  mutation class (default: chosen by the seed among the\n"
"                classes that apply to this journal); see --list\n"
"  --out FILE    write the mutated image to FILE (IMAGE is left alone)\n"
"  --in-place    change IMAGE itself (only the changed journal blocks)\n"
"  --dump        print the journal super block, every log block the walk\n"
"                finds, and a summary line; changes nothing\n"
"  --list        print the mutation classes\n"
"  -h, --help    this text\n"
"\n"
"exit codes:\n"
"  0  mutated (--dump, --list: done)\n"
"  1  nothing to mutate: the log is empty (clean journal) or has nothing\n"
"     the class needs (e.g. --class revoke and no revoke block)\n"
"  2  usage error, or IMAGE unreadable / not ext4 with an internal jbd2\n"
"     journal\n"
"  3  cannot write the output\n";

struct options {
	uint64_t seed;
	int cls;		/* -1: by seed */
	const char *out;
	const char *image;
	bool in_place, dump, list;
};

static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("jfuzz: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n(try 'jfuzz --help')\n", stderr);
	return EX_USAGE;
}

static int parse_seed(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return usage_error("--seed needs a number");
	*v = strtoull(s, &end, 0);
	if (errno || *end)
		return usage_error("bad value '%s' for --seed", s);
	return 0;
}

static int parse_args(int argc, char **argv, struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->cls = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if (option_value(argc, argv, &i, "--seed", &v)) {
			if (parse_seed(v, &o->seed))
				return EX_USAGE;
		} else if (option_value(argc, argv, &i, "--class", &v)) {
			if (!v)
				return usage_error("--class needs a name");
			o->cls = jf_class_by_name(v);
			if (o->cls < 0)
				return usage_error("unknown class '%s' (see --list)", v);
		} else if (option_value(argc, argv, &i, "--out", &v)) {
			if (!v || !*v)
				return usage_error("--out needs a file");
			o->out = v;
		} else if (!strcmp(a, "--in-place")) {
			o->in_place = true;
		} else if (!strcmp(a, "--dump")) {
			o->dump = true;
		} else if (!strcmp(a, "--list")) {
			o->list = true;
		} else if (a[0] == '-' && a[1]) {
			return usage_error("unknown option '%s'", a);
		} else if (o->image) {
			return usage_error("too many arguments ('%s')", a);
		} else {
			o->image = a;
		}
	}
	if (o->list)
		return o->image || o->dump || o->out || o->in_place ?
		       usage_error("--list takes nothing else") : 0;
	if (!o->image)
		return usage_error("no IMAGE given");
	if (o->dump)
		return o->out || o->in_place ?
		       usage_error("--dump changes nothing: no --out or --in-place") : 0;
	if (!o->out == !o->in_place)
		return usage_error("give exactly one of --out FILE and --in-place");
	return 0;
}

static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	return false;
}

static void list_classes(void)
{
	for (int i = 0; i < JF_NCLASSES; i++)
		printf("%-9s %s\n", jf_classes[i].name, jf_classes[i].what);
}

/* Copy @in (size @size) to a new file @path. */
static int copy_to(int in, uint64_t size, const char *path)
{
	static const size_t chunk = 1 << 20;
	char *buf = malloc(chunk);
	int out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), r = 0;

	if (!buf || out < 0) {
		fprintf(stderr, "jfuzz: cannot create %s: %s\n", path,
			out < 0 ? strerror(errno) : "out of memory");
		free(buf);
		if (out >= 0)
			close(out);
		return -1;
	}
	for (uint64_t off = 0; off < size && !r; off += chunk) {
		size_t n = size - off < chunk ? (size_t)(size - off) : chunk;

		if (pread_full(in, buf, n, off) < 0 || pwrite_full(out, buf, n, off) < 0) {
			fprintf(stderr, "jfuzz: copying to %s: %s\n", path,
				errno ? strerror(errno) : "short read");
			r = -1;
		}
	}
	if (close(out) < 0 && !r) {
		fprintf(stderr, "jfuzz: writing %s: %s\n", path, strerror(errno));
		r = -1;
	}
	free(buf);
	return r;
}

static int write_plan(const struct options *o, const struct jf_image *in,
		      const struct jf_plan *p)
{
	struct jf_image out;
	char err[JF_ERRLEN];
	int r;

	if (o->out && copy_to(in->fd, in->dev_size, o->out) < 0)
		return EX_WRITE;
	if (jf_image_open(&out, o->out ? o->out : o->image, 1, err, sizeof(err)) < 0) {
		fprintf(stderr, "jfuzz: %s\n", err);
		return EX_WRITE;
	}
	r = jf_plan_apply(p, &out);
	if (r < 0)
		fprintf(stderr, "jfuzz: writing %s: %s\n", o->out ? o->out : o->image,
			strerror(errno));
	if (!r && fsync(out.fd) < 0 && errno != EINVAL) {
		fprintf(stderr, "jfuzz: fsync: %s\n", strerror(errno));
		r = -1;
	}
	jf_image_close(&out);
	return r < 0 ? EX_WRITE : EX_MUTATED;
}

int main(int argc, char **argv)
{
	struct options o;
	struct jf_image img;
	struct jf_journal j;
	struct jf_plan p;
	char err[JF_ERRLEN] = "";
	int rc;

	if (wants_help(argc, argv)) {
		fputs(usage_text, stdout);
		return EX_MUTATED;
	}
	rc = parse_args(argc, argv, &o);
	if (rc)
		return rc;
	if (o.list) {
		list_classes();
		return EX_MUTATED;
	}
	if (jf_image_open(&img, o.image, 0, err, sizeof(err)) < 0) {
		fprintf(stderr, "jfuzz: %s\n", err);
		return EX_USAGE;
	}
	if (jf_journal_load(&j, &img, err, sizeof(err)) < 0) {
		fprintf(stderr, "jfuzz: %s: %s\n", o.image, err);
		jf_image_close(&img);
		return EX_USAGE;
	}
	if (o.dump) {
		jf_dump(&j, stdout);
		rc = EX_MUTATED;
		goto out;
	}
	rc = jf_mutate(&j, o.cls, o.seed, &p, err, sizeof(err));
	if (rc == 1) {
		fprintf(stderr, "jfuzz: nothing to mutate%s%s (%s)\n",
			o.cls >= 0 ? " for class " : "",
			o.cls >= 0 ? jf_classes[o.cls].name : "", j.end);
		rc = EX_NOTHING;
		goto out;
	}
	if (rc < 0) {
		fprintf(stderr, "jfuzz: %s: %s\n", o.image, err);
		rc = EX_USAGE;
		goto out;
	}
	rc = write_plan(&o, &img, &p);
	if (rc == EX_MUTATED)
		printf("seed=%" PRIu64 " %s\n", o.seed, p.desc);
	jf_plan_free(&p);
out:
	jf_journal_free(&j);
	jf_image_close(&img);
	return rc;
}
