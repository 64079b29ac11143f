/*
 * sysbench's fileio test, its file objects (see builtin.h): a test file
 * written and read block by block with pwrite/pread from one aligned buffer
 * that holds a fixed pattern (not zeros: no file system may compress them
 * away), optionally O_DIRECT/O_SYNC/O_DSYNC, with fsync, its size, its
 * cached pages dropped, and the free space of a directory.  The workload
 * (workloads/fileio.lua) drives them through sbench.builtin
 * (lua/l_builtin.c).  Nothing here allocates on the measured path: the
 * buffer is made when the file is opened.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "builtin.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define ALIGN 4096

/* The pattern's byte at position i of a block. */
static inline char pattern(size_t i)
{
    return (char)('a' + (i * 7 + i / 4096) % 26);
}

int sb_file_open(struct sb_file *f, const char *path, size_t block, const char *flags)
{
    f->fd = -1;
    f->block = block;
    f->buf = aligned_alloc(ALIGN, (block + ALIGN - 1) / ALIGN * ALIGN);
    if (f->buf == NULL)
        return ENOMEM;
    for (size_t i = 0; i < block; i++)
        f->buf[i] = pattern(i);
    int of = strchr(flags, 'r') ? O_RDONLY : O_RDWR;
    if (strchr(flags, 'c'))
        of |= O_CREAT | O_TRUNC;
    if (strchr(flags, 'd'))
        of |= O_DIRECT;
    if (strchr(flags, 's'))
        of |= O_SYNC;
    if (strchr(flags, 'y'))
        of |= O_DSYNC;
    f->fd = open(path, of | O_CLOEXEC, 0600);
    return f->fd < 0 ? errno : 0;
}

void sb_file_close(struct sb_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    free(f->buf);
    f->buf = NULL;
}

int sb_file_write(struct sb_file *f, int64_t off, size_t *done)
{
    *done = 0;
    while (*done < f->block) {
        ssize_t n = pwrite(f->fd, f->buf + *done, f->block - *done, (off_t)off + (off_t)*done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : -1;
        *done += (size_t)n;
    }
    return 0;
}

int sb_file_read(struct sb_file *f, int64_t off, size_t *done)
{
    *done = 0;
    while (*done < f->block) {
        ssize_t n = pread(f->fd, f->buf + *done, f->block - *done, (off_t)off + (off_t)*done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            break;
        *done += (size_t)n;
    }
    return 0;
}

int sb_file_verify(const struct sb_file *f)
{
    for (size_t i = 0; i < f->block; i++)
        if (f->buf[i] != pattern(i))
            return 0;
    return 1;
}

int sb_file_sync(struct sb_file *f, int data_only)
{
    return (data_only ? fdatasync(f->fd) : fsync(f->fd)) != 0 ? errno : 0;
}

int sb_file_size(const struct sb_file *f, int64_t *size)
{
    struct stat st;
    if (fstat(f->fd, &st) != 0)
        return errno;
    *size = (int64_t)st.st_size;
    return 0;
}

int sb_file_drop_cache(struct sb_file *f)
{
    return posix_fadvise(f->fd, 0, 0, POSIX_FADV_DONTNEED);
}

int sb_file_unlink(const char *path)
{
    return unlink(path) != 0 && errno != ENOENT ? errno : 0;
}

int sb_free_bytes(const char *dir, uint64_t *bytes)
{
    struct statvfs v;
    if (statvfs(dir, &v) != 0)
        return errno;
    *bytes = (uint64_t)v.f_bavail * v.f_frsize;
    return 0;
}
