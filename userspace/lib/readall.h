/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * readall.h - library-internal: read a file whole, for the files whose
 * size says nothing (sysfs and tracefs report 4096 or 0) and the small
 * ones read at once (info.json); and write a recorder's spill file.
 */
#ifndef NG_READALL_H
#define NG_READALL_H

#include <stddef.h>

/*
 * Read @fd until EOF into a NUL-terminated buffer (*@bufp, the caller
 * frees it; its length in *@lenp unless NULL). 0, -EFBIG once more than
 * @max bytes came, -ENOMEM or -errno of read().
 */
int ng_read_all(int fd, size_t max, char **bufp, size_t *lenp);

/*
 * Write @n bytes of @buf to spill file @fd in one write: 0, -errno of
 * write(), or -ENOSPC for a short write (a full disk: errno then still
 * holds an older error).
 */
int ng_spill_write(int fd, const void *buf, size_t n);

#endif /* NG_READALL_H */
