// SPDX-License-Identifier: GPL-2.0
/* Reading the oracle: see oracle.h for the format. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"

static int cw_oracle_add(struct cw_oracle *oracle, const struct cw_promise *p)
{
	if (oracle->nr == oracle->alloc) {
		size_t alloc = oracle->alloc ? oracle->alloc * 2 : 256;
		struct cw_promise *grown;

		grown = realloc(oracle->promises, alloc * sizeof(*grown));
		if (!grown)
			return -1;
		oracle->promises = grown;
		oracle->alloc = alloc;
	}
	oracle->promises[oracle->nr++] = *p;
	return 0;
}

enum cw_line {
	CW_LINE_BAD = -1,
	CW_LINE_MARK,
	CW_LINE_PROMISE,
	CW_LINE_FAILED,
};

/* Parse one oracle line into @p (a promise) or @mark (a mark's name). */
static enum cw_line cw_parse_line(const char *line, struct cw_promise *p,
				  char *mark)
{
	char kind[16], extra[2];

	memset(p, 0, sizeof(*p));
	if (sscanf(line, "%15s", kind) != 1)
		return CW_LINE_BAD;
	if (!strcmp(kind, "mark"))
		return sscanf(line, "mark %127s", mark) == 1 ?
		       CW_LINE_MARK : CW_LINE_BAD;
	if (!strcmp(kind, "failed"))
		return sscanf(line, "failed %1s", extra) == 1 ?
		       CW_LINE_BAD : CW_LINE_FAILED;
	if (!strcmp(kind, "data")) {
		p->kind = CW_PROMISE_DATA;
		return sscanf(line, "data %127s %" SCNu64 " %" SCNu64 " %" SCNu64
			      " %" SCNu64, p->path, &p->fileid, &p->first,
			      &p->count, &p->gen) == 5 ?
		       CW_LINE_PROMISE : CW_LINE_BAD;
	}
	if (!strcmp(kind, "dir")) {
		p->kind = CW_PROMISE_DIR;
		return sscanf(line, "dir %127s", p->path) == 1 ?
		       CW_LINE_PROMISE : CW_LINE_BAD;
	}
	if (!strcmp(kind, "absent")) {
		p->kind = CW_PROMISE_ABSENT;
		return sscanf(line, "absent %127s", p->path) == 1 ?
		       CW_LINE_PROMISE : CW_LINE_BAD;
	}
	return CW_LINE_BAD;
}

int cw_oracle_load(struct cw_oracle *oracle, const char *file,
		   const char *upto)
{
	char line[512], mark[CW_PATH_MAX];
	bool due = !upto || *upto, found = !upto || !*upto;
	unsigned long lineno = 0;
	size_t closed = 0;
	FILE *f;

	memset(oracle, 0, sizeof(*oracle));
	f = fopen(file, "r");
	if (!f) {
		perror(file);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		struct cw_promise p;
		enum cw_line ret;

		lineno++;
		ret = cw_parse_line(line, &p, mark);
		if (ret == CW_LINE_BAD) {
			fprintf(stderr, "%s:%lu: malformed oracle line\n",
				file, lineno);
			goto fail;
		}
		if (ret == CW_LINE_PROMISE) {
			p.seq = lineno;
			if (cw_oracle_add(oracle, &p))
				goto nomem;
			continue;
		}
		/* A failed operation: never due, whatever mark comes next. */
		if (ret == CW_LINE_FAILED) {
			for (; closed < oracle->nr; closed++)
				oracle->promises[closed].due = false;
			continue;
		}
		/* A mark makes the promises before it due, up to @upto's. */
		for (; closed < oracle->nr; closed++)
			oracle->promises[closed].due = due;
		if (upto && !strcmp(mark, upto)) {
			found = true;
			due = false;
		}
	}
	/* Promises no mark closed were never acknowledged. */
	for (; closed < oracle->nr; closed++)
		oracle->promises[closed].due = false;
	if (!found) {
		fprintf(stderr, "%s: no mark '%s'\n", file, upto);
		goto fail;
	}
	fclose(f);
	return 0;
nomem:
	fprintf(stderr, "%s: out of memory\n", file);
fail:
	fclose(f);
	cw_oracle_free(oracle);
	return -1;
}

size_t cw_oracle_due(const struct cw_oracle *oracle)
{
	size_t n = 0;

	for (size_t i = 0; i < oracle->nr; i++)
		n += oracle->promises[i].due;
	return n;
}

void cw_oracle_free(struct cw_oracle *oracle)
{
	free(oracle->promises);
	memset(oracle, 0, sizeof(*oracle));
}
