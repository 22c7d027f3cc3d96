// SPDX-License-Identifier: LGPL-2.1
/*
 * json_parse.c - the collector's one JSON reader (json.h), info.json's
 * (moved from info.c): a loop over values with an explicit stack of open
 * containers, no recursion; after each value, a ',' goes on in its
 * container and a closing bracket pops it. Keys and values go into one
 * pool as offsets while it grows, pointers at the end.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/* What the parse makes at most: keys and values, and one key path. */
#define MAX_POOL	(16U << 20)
#define MAX_PATH	1024

/* A field while the pool may still move: offsets, not pointers. */
struct field_at {
	size_t key, value;
	enum ng_json_type type;
	bool element;
};

/* An open object or array. */
struct frame {
	bool array;
	size_t count;		/* members or elements before this one */
	size_t path_len;	/* its own key path's length */
	size_t key_at;		/* an array's path in the pool: its elements' key */
};

struct parser {
	const char *s, *p, *end;
	char *pool;
	size_t pool_len, pool_cap;
	struct field_at *f;
	size_t nr, cap;
	char path[MAX_PATH];
	size_t path_len;
	struct ng_pp_bad *bad;
};

/* The error, on the line of the parser's position. */
static int bad_at(struct parser *ps, const char *why)
{
	const char *q;

	ps->bad->line = 1;
	for (q = ps->s; q < ps->p && q < ps->end; q++)
		ps->bad->line += *q == '\n';
	snprintf(ps->bad->why, sizeof(ps->bad->why), "%s", why);
	return -EBADMSG;
}

/* Append @n bytes to the pool; -EFBIG past MAX_POOL. */
static int pool_put(struct parser *ps, const void *b, size_t n)
{
	size_t cap = ps->pool_cap ? ps->pool_cap : 4096;
	char *np;

	if (ps->pool_len + n > ps->pool_cap) {
		while (cap < ps->pool_len + n)
			cap *= 2;
		if (cap > MAX_POOL)
			return -EFBIG;
		np = realloc(ps->pool, cap);
		if (!np)
			return -ENOMEM;
		ps->pool = np;
		ps->pool_cap = cap;
	}
	memcpy(ps->pool + ps->pool_len, b, n);
	ps->pool_len += n;
	return 0;
}

/* A NUL-terminated copy of @n bytes in the pool, at *@at. */
static int pool_str(struct parser *ps, const char *s, size_t n, size_t *at)
{
	*at = ps->pool_len;
	return pool_put(ps, s, n) ?: pool_put(ps, "", 1);
}

static int add_field(struct parser *ps, size_t key, size_t value,
		     enum ng_json_type type, bool element)
{
	struct field_at *nf;
	size_t cap;

	if (ps->nr == ps->cap) {
		cap = ps->cap ? 2 * ps->cap : 64;
		nf = realloc(ps->f, cap * sizeof(*nf));
		if (!nf)
			return -ENOMEM;
		ps->f = nf;
		ps->cap = cap;
	}
	ps->f[ps->nr++] = (struct field_at){ key, value, type, element };
	return 0;
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
				   *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

/* Four hex digits at @s (which has at least 4 bytes before its end). */
static bool hex4(const char *s, unsigned int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < 4; i++) {
		char c = s[i];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			*v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			*v |= c - 'A' + 10;
		else
			return false;
	}
	return true;
}

/* A code point as UTF-8 into the pool. */
static int put_utf8(struct parser *ps, unsigned int cp)
{
	unsigned char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = 0xc0 | cp >> 6;
		b[1] = 0x80 | (cp & 0x3f);
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = 0xe0 | cp >> 12;
		b[1] = 0x80 | (cp >> 6 & 0x3f);
		b[2] = 0x80 | (cp & 0x3f);
		n = 3;
	} else {
		b[0] = 0xf0 | cp >> 18;
		b[1] = 0x80 | (cp >> 12 & 0x3f);
		b[2] = 0x80 | (cp >> 6 & 0x3f);
		b[3] = 0x80 | (cp & 0x3f);
		n = 4;
	}
	return pool_put(ps, b, n);
}

/*
 * The string at ps->p (its opening quote), unescaped into the pool at
 * *@at. A \u0000 or a lone surrogate becomes U+FFFD: values are C
 * strings, and UTF-8 has no surrogates.
 */
static int parse_string(struct parser *ps, size_t *at)
{
	unsigned int cp, lo;
	int ret = 0;
	char c;

	*at = ps->pool_len;
	ps->p++;
	while (!ret) {
		if (ps->p >= ps->end)
			return bad_at(ps, "unterminated string");
		c = *ps->p;
		if (c == '"') {
			ps->p++;
			break;
		}
		if ((unsigned char)c < 0x20)
			return bad_at(ps, "control character in a string");
		if (c != '\\') {
			ret = pool_put(ps, &c, 1);
			ps->p++;
			continue;
		}
		if (ps->end - ps->p < 2)
			return bad_at(ps, "unterminated string");
		c = ps->p[1];
		ps->p += 2;
		switch (c) {
		case '"': case '\\': case '/':
			break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case 'u':
			if (ps->end - ps->p < 4 || !hex4(ps->p, &cp))
				return bad_at(ps, "\\u is not followed by 4 hex digits");
			ps->p += 4;
			if (cp >= 0xd800 && cp <= 0xdbff && ps->end - ps->p >= 6 &&
			    ps->p[0] == '\\' && ps->p[1] == 'u' &&
			    hex4(ps->p + 2, &lo) && lo >= 0xdc00 && lo <= 0xdfff) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				ps->p += 6;
			} else if ((cp >= 0xd800 && cp <= 0xdfff) || !cp) {
				cp = 0xfffd;
			}
			ret = put_utf8(ps, cp);
			continue;
		default:
			ps->p--;
			return bad_at(ps, "unknown escape in a string");
		}
		ret = pool_put(ps, &c, 1);
	}
	return ret ?: pool_put(ps, "", 1);
}

/* A number as JSON spells it, copied as written. */
static int parse_number(struct parser *ps, size_t *at)
{
	const char *q = ps->p, *start = ps->p;
	bool digits;

#define DIGITS() do {							\
	digits = false;							\
	while (q < ps->end && *q >= '0' && *q <= '9') {			\
		q++;							\
		digits = true;						\
	}								\
} while (0)
	if (q < ps->end && *q == '-')
		q++;
	if (q < ps->end && *q == '0' && q + 1 < ps->end && q[1] >= '0' && q[1] <= '9')
		return bad_at(ps, "a number with a leading zero");
	DIGITS();
	if (!digits)
		return bad_at(ps, "expected a value");
	if (q < ps->end && *q == '.') {
		q++;
		DIGITS();
		if (!digits)
			return bad_at(ps, "no digit after a decimal point");
	}
	if (q < ps->end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < ps->end && (*q == '+' || *q == '-'))
			q++;
		DIGITS();
		if (!digits)
			return bad_at(ps, "no digit in an exponent");
	}
#undef DIGITS
	ps->p = q;
	return pool_str(ps, start, q - start, at);
}

/* A value that is not an object or array, into the pool. */
static int parse_scalar(struct parser *ps, size_t *at, enum ng_json_type *type)
{
	static const struct {
		const char *word;
		enum ng_json_type type;
	} words[] = {
		{ "true", NG_JSON_BOOL }, { "false", NG_JSON_BOOL },
		{ "null", NG_JSON_NULL },
	};
	size_t i, n;

	if (ps->p < ps->end && *ps->p == '"') {
		*type = NG_JSON_STRING;
		return parse_string(ps, at);
	}
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		n = strlen(words[i].word);
		if ((size_t)(ps->end - ps->p) >= n && !memcmp(ps->p, words[i].word, n)) {
			ps->p += n;
			*type = words[i].type;
			return pool_str(ps, words[i].word, n, at);
		}
	}
	*type = NG_JSON_NUMBER;
	return parse_number(ps, at);
}

/* Set the path to @len bytes (a container's own path). */
static void path_cut(struct parser *ps, size_t len)
{
	ps->path_len = len;
	ps->path[len] = '\0';
}

/* Append to the path; refused past MAX_PATH. */
static int path_add(struct parser *ps, const char *s, size_t n)
{
	if (ps->path_len + n >= MAX_PATH)
		return bad_at(ps, "key path longer than 1023 bytes");
	memcpy(ps->path + ps->path_len, s, n);
	path_cut(ps, ps->path_len + n);
	return 0;
}

/* An object's "key": of @f, making the path of the value that follows. */
static int parse_key(struct parser *ps, const struct frame *f)
{
	size_t at, mark = ps->pool_len;
	int ret;

	skip_ws(ps);
	if (ps->p >= ps->end || *ps->p != '"')
		return bad_at(ps, "expected a key in quotes");
	ret = parse_string(ps, &at);
	if (!ret && f->path_len)
		ret = path_add(ps, ".", 1);
	if (!ret)
		ret = path_add(ps, ps->pool + at, strlen(ps->pool + at));
	ps->pool_len = mark;		/* the key lives on in the path only */
	if (ret)
		return ret;
	skip_ws(ps);
	if (ps->p >= ps->end || *ps->p != ':')
		return bad_at(ps, "expected ':' after a key");
	ps->p++;
	return 0;
}

/*
 * A '{' or '[' at ps->p: a frame on the stack (an array's element gets
 * "[i]" on the path first). 1 when a member or element follows, 0 when
 * it was empty and is closed again (a field of its own, but the
 * document's), or the error.
 */
static int open_value(struct parser *ps, struct frame *st, size_t *depth)
{
	struct frame *f;
	size_t key, at;
	char idx[32];
	int ret;

	if (*depth == NG_JSON_MAX_DEPTH)
		return bad_at(ps, "nested deeper than 32");
	if (*depth && st[*depth - 1].array) {
		snprintf(idx, sizeof(idx), "[%zu]", st[*depth - 1].count);
		ret = path_add(ps, idx, strlen(idx));
		if (ret)
			return ret;
	}
	f = &st[(*depth)++];
	*f = (struct frame){ .array = *ps->p == '[', .path_len = ps->path_len };
	if (f->array && (ret = pool_str(ps, ps->path, ps->path_len, &f->key_at)))
		return ret;
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == (f->array ? ']' : '}')) {
		ps->p++;
		ret = *depth == 1 ? 0 :
		      pool_str(ps, ps->path, ps->path_len, &key) ?:
		      pool_str(ps, "", 0, &at) ?:
		      add_field(ps, key, at, f->array ? NG_JSON_EMPTY_ARRAY :
				NG_JSON_EMPTY_OBJECT, false);
		(*depth)--;
		return ret;
	}
	if (!f->array && (ret = parse_key(ps, f)))
		return ret;
	return 1;
}

/* A scalar in the innermost container: a field under the path. */
static int scalar_value(struct parser *ps, struct frame *st, size_t depth)
{
	const struct frame *f;
	enum ng_json_type type;
	size_t at, key = 0;
	int ret;

	if (!depth)
		return bad_at(ps, "expected a value");
	f = &st[depth - 1];
	ret = parse_scalar(ps, &at, &type);
	if (!ret && !f->array)
		ret = pool_str(ps, ps->path, ps->path_len, &key);
	if (!ret)
		ret = add_field(ps, f->array ? f->key_at : key, at, type, f->array);
	return ret;
}

/*
 * After a value: a ',' goes on in its container (0: a value follows), a
 * closing bracket pops it and looks again in the one around it; 1 at the
 * end of the document.
 */
static int after_value(struct parser *ps, struct frame *st, size_t *depth)
{
	struct frame *f;
	int ret;

	for (;;) {
		if (!*depth) {
			skip_ws(ps);
			return ps->p < ps->end ?
			       bad_at(ps, "text after the object") : 1;
		}
		f = &st[*depth - 1];
		f->count++;
		path_cut(ps, f->path_len);
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			if (!f->array && (ret = parse_key(ps, f)))
				return ret;
			return 0;
		}
		if (ps->p < ps->end && *ps->p == (f->array ? ']' : '}')) {
			ps->p++;
			(*depth)--;
			continue;
		}
		return bad_at(ps, f->array ? "expected ',' or ']'" :
			      "expected ',' or '}'");
	}
}

/* The document: an object, its values flattened into fields. */
static int parse(struct parser *ps)
{
	struct frame st[NG_JSON_MAX_DEPTH];
	size_t depth = 0;
	int ret;

	skip_ws(ps);
	if (ps->p >= ps->end || *ps->p != '{')
		return bad_at(ps, "not a JSON object");
	for (;;) {
		/* a value: the path is its key (an array's, for an element) */
		skip_ws(ps);
		if (ps->p < ps->end && (*ps->p == '{' || *ps->p == '[')) {
			ret = open_value(ps, st, &depth);
			if (ret > 0)
				continue;
		} else {
			ret = scalar_value(ps, st, depth);
		}
		if (!ret)
			ret = after_value(ps, st, &depth);
		if (ret)
			return ret < 0 ? ret : 0;
	}
}

int ng_json_flatten(const char *text, size_t len, struct ng_json_doc *doc,
		    struct ng_pp_bad *bad)
{
	struct parser ps = { .s = text, .p = text, .end = text + len, .bad = bad };
	struct ng_pp_bad ignored;
	size_t i;
	int ret;

	if (!bad)
		ps.bad = &ignored;
	memset(ps.bad, 0, sizeof(*ps.bad));
	memset(doc, 0, sizeof(*doc));
	ret = parse(&ps);
	if (!ret) {
		doc->fields = calloc(ps.nr ? ps.nr : 1, sizeof(*doc->fields));
		if (!doc->fields)
			ret = -ENOMEM;
	}
	if (ret) {
		free(ps.pool);
		free(ps.f);
		return ret;
	}
	/* the pool stays where it is now: offsets become pointers */
	doc->pool = ps.pool;
	for (i = 0; i < ps.nr; i++)
		doc->fields[i] = (struct ng_info_field){
			.key = ps.pool + ps.f[i].key,
			.value = ps.pool + ps.f[i].value,
			.type = ps.f[i].type,
			.element = ps.f[i].element,
		};
	doc->nr = ps.nr;
	free(ps.f);
	return 0;
}

void ng_json_doc_free(struct ng_json_doc *doc)
{
	free(doc->fields);
	free(doc->pool);
	memset(doc, 0, sizeof(*doc));
}
