/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CRASHWORK_DMMARK_H
#define CRASHWORK_DMMARK_H

/* The device-mapper control node that cw_dm_mark() talks to. */
#define CW_DM_CONTROL "/dev/mapper/control"

int cw_dm_message_format(void *buf, size_t size, const char *target,
			 const char *message);
int cw_dm_mark(const char *control, const char *target, const char *name);

#endif
