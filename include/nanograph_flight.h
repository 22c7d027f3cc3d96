/* SPDX-License-Identifier: (GPL-2.0 OR LGPL-2.1) */
/*
 * nanograph_flight.h - the errno names a return-value trigger
 * ("FUNC==-ENOMEM", Documentation/control-files.md) may use, for the
 * module and the collector alike, so that what the collector checks
 * before it writes the trigger file is what the module takes: the usual
 * failures (the kernel has no name-to-number table to borrow).
 *
 * NG_TRIGGER_ERRNOS(X) calls X(NAME) for each; NAME is an errno macro.
 * ENOTSUPP and ERESTARTSYS are the kernel's own (include/linux/errno.h):
 * user space gets their values here.
 */
#ifndef NANOGRAPH_FLIGHT_H
#define NANOGRAPH_FLIGHT_H

#ifndef __KERNEL__
#define NG_ERESTARTSYS	512
#define NG_ENOTSUPP	524
#else
#define NG_ERESTARTSYS	ERESTARTSYS
#define NG_ENOTSUPP	ENOTSUPP
#endif

#define NG_TRIGGER_ERRNOS(X)						\
	X(EPERM) X(ENOENT) X(ESRCH) X(EINTR) X(EIO) X(ENXIO) X(E2BIG)	\
	X(EBADF) X(EAGAIN) X(ENOMEM) X(EACCES) X(EFAULT) X(EBUSY)	\
	X(EEXIST) X(ENODEV) X(ENOTDIR) X(EISDIR) X(EINVAL) X(ENFILE)	\
	X(EMFILE) X(ENOSPC) X(ESPIPE) X(EROFS) X(EPIPE) X(ERANGE)	\
	X(EDEADLK) X(ENOTEMPTY) X(ELOOP) X(ENODATA) X(EOVERFLOW)	\
	X(EOPNOTSUPP) X(ECONNREFUSED) X(ETIMEDOUT) X(NG_ENOTSUPP)	\
	X(NG_ERESTARTSYS)

#endif /* NANOGRAPH_FLIGHT_H */
