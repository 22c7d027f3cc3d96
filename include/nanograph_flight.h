/* SPDX-License-Identifier: (GPL-2.0 OR LGPL-2.1) */
/*
 * nanograph_flight.h - the errno names a return-value trigger
 * ("FUNC==-ENOMEM", Documentation/control-files.md) may use, for the
 * module and the collector alike, so that what the collector checks
 * before it writes the trigger file is what the module takes: the usual
 * failures (the kernel has no name-to-number table to borrow).  Include
 * it where the table is used: it is defined here.
 *
 * ENOTSUPP and ERESTARTSYS are the kernel's own (include/linux/errno.h):
 * user space gets their values here.
 */
#ifndef NANOGRAPH_FLIGHT_H
#define NANOGRAPH_FLIGHT_H

#ifdef __KERNEL__
#define NG_ENOTSUPP	ENOTSUPP
#define NG_ERESTARTSYS	ERESTARTSYS
#else
#include <errno.h>
#define NG_ENOTSUPP	524
#define NG_ERESTARTSYS	512
#endif

static const struct {
	const char *name;
	int err;
} ng_trigger_errnos[] = {
	{ "EPERM", EPERM }, { "ENOENT", ENOENT }, { "ESRCH", ESRCH },
	{ "EINTR", EINTR }, { "EIO", EIO }, { "ENXIO", ENXIO },
	{ "E2BIG", E2BIG }, { "EBADF", EBADF }, { "EAGAIN", EAGAIN },
	{ "ENOMEM", ENOMEM }, { "EACCES", EACCES }, { "EFAULT", EFAULT },
	{ "EBUSY", EBUSY }, { "EEXIST", EEXIST }, { "ENODEV", ENODEV },
	{ "ENOTDIR", ENOTDIR }, { "EISDIR", EISDIR }, { "EINVAL", EINVAL },
	{ "ENFILE", ENFILE }, { "EMFILE", EMFILE }, { "ENOSPC", ENOSPC },
	{ "ESPIPE", ESPIPE }, { "EROFS", EROFS }, { "EPIPE", EPIPE },
	{ "ERANGE", ERANGE }, { "EDEADLK", EDEADLK },
	{ "ENOTEMPTY", ENOTEMPTY }, { "ELOOP", ELOOP }, { "ENODATA", ENODATA },
	{ "EOVERFLOW", EOVERFLOW }, { "EOPNOTSUPP", EOPNOTSUPP },
	{ "ECONNREFUSED", ECONNREFUSED }, { "ETIMEDOUT", ETIMEDOUT },
	{ "ENOTSUPP", NG_ENOTSUPP }, { "ERESTARTSYS", NG_ERESTARTSYS },
};

#endif /* NANOGRAPH_FLIGHT_H */
