/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * session.h - the one seam of a recording session (session.c) for the
 * host tests: the write its undo goes through.  A fake control directory
 * of plain files never answers EBUSY, as the module does while it drains;
 * a test's write can.  Nothing else uses this.
 */
#ifndef NG_SESSION_H
#define NG_SESSION_H

#include "nanograph.h"

typedef int (*ng_session_write_fn)(const struct ng_ctl *ctl, const char *name,
				   const char *val);

/* Undo @s through @write instead of ng_ctl_write(). */
void ng_session_set_undo_write(struct ng_session *s, ng_session_write_fn write);

#endif /* NG_SESSION_H */
