// SPDX-License-Identifier: GPL-2.0
#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *xrealloc(void *p, size_t len)
{
	p = realloc(p, len);
	if (!p)
		abort();
	return p;
}

char *tu_tmpdir(void)
{
	const char *root = getenv("TMPDIR");
	char *path = xrealloc(NULL, 4096);

	snprintf(path, 4096, "%s/tooltest-XXXXXX", root && *root ? root : "/tmp");
	if (!mkdtemp(path)) {
		perror("mkdtemp");
		abort();
	}
	return path;
}

char *tu_path(const char *dir, const char *name)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *p = xrealloc(NULL, len);

	snprintf(p, len, "%s/%s", dir, name);
	return p;
}

int tu_write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	int r = 0;

	if (!f)
		return -1;
	if (len && fwrite(buf, 1, len, f) != len)
		r = -1;
	if (fclose(f))
		r = -1;
	return r;
}

unsigned char *tu_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (n == cap)
			buf = xrealloc(buf, (cap = cap ? cap * 2 : 65536) + 1);
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

void tu_rmdir(const char *dir)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", dir);
}

static char *slurp_fd(int fd)
{
	char *buf = NULL;
	size_t n = 0, cap = 0;
	ssize_t got;

	lseek(fd, 0, SEEK_SET);
	do {
		if (n == cap)
			buf = xrealloc(buf, (cap = cap ? cap * 2 : 4096) + 1);
		got = read(fd, buf + n, cap - n);
		if (got > 0)
			n += (size_t)got;
	} while (got > 0);
	buf[n] = '\0';
	return buf;
}

/* An open, already unlinked file for a child's output. */
static int tmp_fd(void)
{
	char *dir = tu_tmpdir();
	char *path = tu_path(dir, "out");
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
	return fd;
}

int tu_run(struct tu_cmd *r, char *const argv[])
{
	int out = tmp_fd(), err = tmp_fd(), status;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(out, STDOUT_FILENO);
		dup2(err, STDERR_FILENO);
		execv(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	r->status = WIFEXITED(status) ? WEXITSTATUS(status)
				      : 128 + WTERMSIG(status);
	r->out = slurp_fd(out);
	r->err = slurp_fd(err);
	close(out);
	close(err);
	return r->status;
}

int tu_toolv(struct tu_cmd *r, const char *tool, va_list ap)
{
	const char *bin_dir = getenv("TOOLS_BIN");
	char *argv[64], bin[4096];
	int argc = 0;

	snprintf(bin, sizeof(bin), "%s/%s", bin_dir ? bin_dir : ".", tool);
	argv[argc++] = bin;
	while (argc < 63 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	argv[argc] = NULL;
	return tu_run(r, argv);
}

int tu_sh(struct tu_cmd *r, const char *cmd)
{
	char *argv[] = { "/bin/sh", "-c", (char *)cmd, NULL };

	return tu_run(r, argv);
}

void tu_cmd_free(struct tu_cmd *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}
