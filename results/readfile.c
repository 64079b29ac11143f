/*
 * readfile.c: a whole file read into memory, bounded, regular files only
 * (readfile.h).
 */
#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
         : S_ISSOCK(m) ? "a socket" : "not a file";
}

int sb_open_regular(const char *path, char *err, size_t errlen)
{
    /* O_NONBLOCK: opening a FIFO without a writer must not wait for one */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd < 0) {
        snprintf(err, errlen, errno == EISDIR ? "is a directory" : "cannot read: %s", strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "cannot read: %s", strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode))
            snprintf(err, errlen, "is a directory");
        else
            snprintf(err, errlen, "not a regular file (%s)", kind_of(st.st_mode));
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

/* Checks the lines of b[from .. n-1] given that the line in progress at
 * `from` began at *line_start; 0, or -1 with err. */
static int check_lines(const char *b, size_t from, size_t n, size_t *line_start, size_t *line_no,
                       char *err, size_t errlen)
{
    for (const char *p = b + from, *end = b + n; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t stop = nl ? (size_t)(nl - b) : n;
        if (stop - *line_start > SB_READ_LINE_MAX) {
            snprintf(err, errlen, "line %zu is longer than %zu bytes, the limit for one line", *line_no,
                     SB_READ_LINE_MAX);
            return -1;
        }
        if (!nl)
            break;
        *line_start = stop + 1;
        (*line_no)++;
        p = nl + 1;
    }
    return 0;
}

char *sb_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen)
{
    int fd = sb_open_regular(path, err, errlen);
    if (fd < 0)
        return NULL;
    size_t cap = 1 << 16, n = 0, line_start = 0, line_no = 1;
    char *b = malloc(cap);
    for (;;) {
        if (b == NULL) {
            close(fd);
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        ssize_t got = read(fd, b + n, cap - 1 - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            snprintf(err, errlen, "cannot read: %s", strerror(errno));
            break;
        }
        if (check_lines(b, n, n + (size_t)got, &line_start, &line_no, err, errlen) != 0) {
            got = -1;
            break;
        }
        n += (size_t)got;
        if (got == 0) {
            close(fd);
            b[n] = 0;
            *len = n;
            return b;
        }
        if (n < cap - 1)
            continue;
        if (cap > max) {
            snprintf(err, errlen, "larger than %zu bytes", max);
            break;
        }
        char *nb = realloc(b, cap * 2);
        if (nb == NULL)
            free(b);
        b = nb;
        cap *= 2;
    }
    free(b);
    close(fd);
    return NULL;
}
