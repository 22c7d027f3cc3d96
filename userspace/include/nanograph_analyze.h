/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * nanograph_analyze.h - part of libnanograph (include nanograph.h):
 * reading a directory of push/pop files back for "nanograph report" and
 * "nanograph export".
 */
#ifndef NANOGRAPH_ANALYZE_H
#define NANOGRAPH_ANALYZE_H

#endif /* NANOGRAPH_ANALYZE_H */
