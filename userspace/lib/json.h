/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * json.h - library-internal: the collector's one JSON writer and reader.
 *
 * The writer streams into an ng_outfile, whose sticky error is the
 * writer's: calls after a failure write nothing, and the caller checks
 * once, at ng_outfile_commit(). Two layouts: info.json's, one member a
 * line indented by two with arrays on one line, and the compact one of
 * the Chrome export's events. Strings are escaped as every JSON file of
 * the collector escapes them: '"', '\\' and control characters as
 * escapes, bytes that are not UTF-8 as \ufffd (a comm or a function name
 * is whatever bytes a file held).
 *
 * The reader takes one JSON object and flattens it into "key path:
 * value" fields (struct ng_info_field), for info.json, which may have
 * been edited by hand. It does not recurse: nesting is an explicit stack
 * of NG_JSON_MAX_DEPTH frames, and what it makes is bounded.
 */
#ifndef NG_JSON_H
#define NG_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nanograph.h"
#include "outfile.h"

/* Containers open at once, in the writer and in the reader. */
#define NG_JSON_MAX_DEPTH	NG_INFO_MAX_DEPTH

enum ng_json_layout {
	NG_JSON_LINES,		/* a member a line, indented; arrays inline */
	NG_JSON_COMPACT,	/* no blank anywhere */
};

struct ng_json_writer {
	struct ng_outfile *of;	/* of->err is the writer's error, sticky */
	enum ng_json_layout layout;
	unsigned int depth;	/* containers open */
	uint32_t arrays;	/* bit d set: the container at depth d + 1 is an array */
	bool first;		/* nothing yet in the innermost container */
};

void ng_jw_init(struct ng_json_writer *w, struct ng_outfile *of,
		enum ng_json_layout layout);
/* A member's key in the innermost object, with the separator before it. */
void ng_jw_key(struct ng_json_writer *w, const char *key);
/* Open an object or an array as the next value; ng_jw_end() closes it. */
void ng_jw_object(struct ng_json_writer *w);
void ng_jw_array(struct ng_json_writer *w);
void ng_jw_end(struct ng_json_writer *w);
/* Values: after a key, as an array's element, or the whole document. */
void ng_jw_null(struct ng_json_writer *w);
/* A string, escaped; NULL is null. */
void ng_jw_str(struct ng_json_writer *w, const char *s);
void ng_jw_u64(struct ng_json_writer *w, uint64_t v);
void ng_jw_i64(struct ng_json_writer *w, int64_t v);
/* A value as @fmt prints it: a number rounded as the caller wants. */
void ng_jw_printf(struct ng_json_writer *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Bytes as they are, outside the structure (a newline after a document). */
void ng_jw_raw(struct ng_json_writer *w, const char *s);
/* The first error, 0 if none. */
int ng_jw_err(const struct ng_json_writer *w);

/* @s escaped, without its quotes, into @of: a string's body. */
void ng_json_put_escaped(struct ng_outfile *of, const char *s);
/*
 * @s as the body of a JSON string, malloc'd (NULL without memory), the
 * same bytes as ng_json_put_escaped(): for a label escaped once and
 * written many times (export.c).
 */
char *ng_json_escape(const char *s);
/*
 * Length of the valid UTF-8 sequence at @s that starts with a byte of
 * 0x80 or more, or 0 if it is not one: the exports write names as UTF-8
 * and replace what is not.
 */
size_t ng_utf8_len(const unsigned char *s);

/* A JSON object, flattened (ng_json_flatten()). */
struct ng_json_doc {
	struct ng_info_field *fields;	/* in the order of the text */
	size_t nr;
	char *pool;			/* their keys and values */
};

/*
 * Parse @text (@len bytes) as one JSON object into @doc: each value a
 * field whose key is its path ("counts.lost"), an array of values one
 * field per element under the array's key, "key[i]" for an array's
 * containers, an empty container a field of its own. -EBADMSG when it is
 * not a JSON object (@bad's line and why), -EFBIG past 16 MiB of keys
 * and values, -ENOMEM.
 */
int ng_json_flatten(const char *text, size_t len, struct ng_json_doc *doc,
		    struct ng_pp_bad *bad);
void ng_json_doc_free(struct ng_json_doc *doc);

#endif /* NG_JSON_H */
