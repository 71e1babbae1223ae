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

/* Parse one promise line; returns 1 for a promise, 0 for a mark, -1 bad. */
static int cw_parse_line(const char *line, struct cw_promise *p, char *mark)
{
	char kind[16];

	memset(p, 0, sizeof(*p));
	if (sscanf(line, "%15s", kind) != 1)
		return -1;
	if (!strcmp(kind, "mark"))
		return sscanf(line, "mark %127s", mark) == 1 ? 0 : -1;
	if (!strcmp(kind, "data")) {
		p->kind = CW_PROMISE_DATA;
		return sscanf(line, "data %127s %" SCNu64 " %" SCNu64 " %" SCNu64
			      " %" SCNu64, p->path, &p->fileid, &p->first,
			      &p->count, &p->gen) == 5 ? 1 : -1;
	}
	if (!strcmp(kind, "dir")) {
		p->kind = CW_PROMISE_DIR;
		return sscanf(line, "dir %127s", p->path) == 1 ? 1 : -1;
	}
	if (!strcmp(kind, "absent")) {
		p->kind = CW_PROMISE_ABSENT;
		return sscanf(line, "absent %127s", p->path) == 1 ? 1 : -1;
	}
	return -1;
}

int cw_oracle_load(struct cw_oracle *oracle, const char *file,
		   const char *upto)
{
	struct cw_oracle pending = { 0 };
	char line[512], mark[CW_PATH_MAX];
	unsigned long lineno = 0;
	bool found = upto == NULL;
	FILE *f;

	memset(oracle, 0, sizeof(*oracle));
	if (upto && !*upto)
		return 0;
	f = fopen(file, "r");
	if (!f) {
		perror(file);
		return -1;
	}
	/* Promises count only once their mark is seen: collect, then commit. */
	while (fgets(line, sizeof(line), f)) {
		struct cw_promise p;
		int ret;

		lineno++;
		ret = cw_parse_line(line, &p, mark);
		if (ret < 0) {
			fprintf(stderr, "%s:%lu: malformed oracle line\n",
				file, lineno);
			goto fail;
		}
		if (ret == 1) {
			p.seq = lineno;
			if (cw_oracle_add(&pending, &p))
				goto nomem;
			continue;
		}
		for (size_t i = 0; i < pending.nr; i++)
			if (cw_oracle_add(oracle, &pending.promises[i]))
				goto nomem;
		pending.nr = 0;
		if (upto && !strcmp(mark, upto)) {
			found = true;
			break;
		}
	}
	if (!found) {
		fprintf(stderr, "%s: no mark '%s'\n", file, upto);
		goto fail;
	}
	fclose(f);
	free(pending.promises);
	return 0;
nomem:
	fprintf(stderr, "%s: out of memory\n", file);
fail:
	fclose(f);
	free(pending.promises);
	cw_oracle_free(oracle);
	return -1;
}

void cw_oracle_free(struct cw_oracle *oracle)
{
	free(oracle->promises);
	memset(oracle, 0, sizeof(*oracle));
}
