/* SPDX-License-Identifier: MIT */
/* openfile.c - a file another program names, opened without trusting it (openfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "openfile.h"

int hcb_open_regular(const char *path)
{
	struct stat st;
	int fd;

	/* O_NONBLOCK: a FIFO planted at the path must not hang the open */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}
