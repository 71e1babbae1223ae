/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CRASHWORK_CHECK_H
#define CRASHWORK_CHECK_H

#include "oracle.h"

struct cw_check {
	int dirfd;			/* the recovered filesystem's work dir */
	unsigned long max_report;	/* problems printed, the rest counted */
	unsigned long reported;
	unsigned long records;		/* promised records checked */
	unsigned long lost;		/* broken promises */
	unsigned long exposed;		/* records no write put there */
};

int cw_check_promises(struct cw_check *check, const struct cw_oracle *oracle);
int cw_scan_files(struct cw_check *check, const char *dir);

#endif
