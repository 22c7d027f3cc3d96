// SPDX-License-Identifier: GPL-2.0
/*
 * test_json.c - the collector's JSON writer and reader (lib/json.c):
 * escaping, both layouts, nesting, the sticky error, and the reader's
 * flattening and refusals.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../userspace/lib/json.h"
#include "ktap.h"

/* A writer into memory: *@buf holds the text after close_mem(). */
struct mem {
	struct ng_outfile of;
	struct ng_json_writer w;
	char *buf;
	size_t len;
};

static void open_mem(struct mem *m, enum ng_json_layout layout)
{
	memset(m, 0, sizeof(*m));
	ng_outfile_stream(&m->of, open_memstream(&m->buf, &m->len));
	ng_jw_init(&m->w, &m->of, layout);
}

static int close_mem(struct mem *m)
{
	FILE *fp = m->of.fp;
	int ret = ng_outfile_commit(&m->of);

	fclose(fp);
	return ret;
}

/* Quotes, backslashes, controls, UTF-8 kept, bytes that are not replaced. */
static void test_escape(void)
{
	static const char in[] = "a\"b\\c\n\x01\x1f" "\xc3\xa9" "\xe2\x82\xac"
				 "\xf0\x9f\x98\x80" "\xff" "\xc3" "x" "\xed\xa0\x80";
	static const char want[] = "a\\\"b\\\\c\\u000a\\u0001\\u001f"
				   "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
				   "\\ufffd\\ufffdx\\ufffd\\ufffd\\ufffd";
	char *esc = ng_json_escape(in);
	struct mem m;

	T_ASSERT(esc);
	T_EQ_STR(esc, want);
	free(esc);
	open_mem(&m, NG_JSON_COMPACT);
	ng_json_put_escaped(&m.of, in);
	T_EQ_INT(close_mem(&m), 0);
	T_EQ_STR(m.buf, want);
	free(m.buf);
	esc = ng_json_escape("plain_name");
	T_EQ_STR(esc, "plain_name");
	free(esc);
}

/* info.json's layout: a member a line, arrays inline, null for NULL. */
static void test_lines(void)
{
	struct mem m;

	open_mem(&m, NG_JSON_LINES);
	ng_jw_object(&m.w);
	ng_jw_key(&m.w, "format");
	ng_jw_u64(&m.w, 1);
	ng_jw_key(&m.w, "argv");
	ng_jw_array(&m.w);
	ng_jw_str(&m.w, "a b");
	ng_jw_str(&m.w, "q\"");
	ng_jw_end(&m.w);
	ng_jw_key(&m.w, "empty");
	ng_jw_array(&m.w);
	ng_jw_end(&m.w);
	ng_jw_key(&m.w, "clock");
	ng_jw_object(&m.w);
	ng_jw_key(&m.w, "hz");
	ng_jw_i64(&m.w, -5);
	ng_jw_key(&m.w, "name");
	ng_jw_str(&m.w, NULL);
	ng_jw_end(&m.w);
	ng_jw_key(&m.w, "cost");
	ng_jw_printf(&m.w, "%.1f", 2.25);
	ng_jw_end(&m.w);
	ng_jw_raw(&m.w, "\n");
	T_EQ_INT(close_mem(&m), 0);
	T_EQ_STR(m.buf, "{\n  \"format\": 1,\n  \"argv\": [\"a b\", \"q\\\"\"],\n"
		 "  \"empty\": [],\n  \"clock\": {\n    \"hz\": -5,\n"
		 "    \"name\": null\n  },\n  \"cost\": 2.2\n}\n");
	free(m.buf);
}

/* The Chrome events' layout: no blank, arrays of objects, nesting. */
static void test_compact(void)
{
	struct mem m;

	open_mem(&m, NG_JSON_COMPACT);
	ng_jw_object(&m.w);
	ng_jw_key(&m.w, "ev");
	ng_jw_array(&m.w);
	ng_jw_object(&m.w);
	ng_jw_key(&m.w, "k\n");
	ng_jw_u64(&m.w, UINT64_MAX);
	ng_jw_end(&m.w);
	ng_jw_object(&m.w);
	ng_jw_end(&m.w);
	ng_jw_array(&m.w);
	ng_jw_null(&m.w);
	ng_jw_null(&m.w);
	ng_jw_end(&m.w);
	ng_jw_end(&m.w);
	ng_jw_key(&m.w, "s");
	ng_jw_str(&m.w, "\xff");
	ng_jw_end(&m.w);
	T_EQ_INT(close_mem(&m), 0);
	T_EQ_STR(m.buf, "{\"ev\":[{\"k\\u000a\":18446744073709551615},{},"
		 "[null,null]],\"s\":\"\\ufffd\"}");
	free(m.buf);
}

/* Past NG_JSON_MAX_DEPTH the error sticks and nothing more is written. */
static void test_sticky_error(void)
{
	struct mem m;
	size_t before;
	int i;

	open_mem(&m, NG_JSON_COMPACT);
	for (i = 0; i < NG_JSON_MAX_DEPTH; i++)
		ng_jw_array(&m.w);
	T_EQ_INT(ng_jw_err(&m.w), 0);
	fflush(m.of.fp);
	before = m.len;
	ng_jw_array(&m.w);
	T_EQ_INT(ng_jw_err(&m.w), -E2BIG);
	ng_jw_str(&m.w, "more");
	ng_jw_u64(&m.w, 7);
	fflush(m.of.fp);
	T_EQ_INT(m.len, before);
	T_EQ_INT(close_mem(&m), -E2BIG);
	free(m.buf);
}

/* What the writer writes, the reader reads back: the fields and values. */
static void test_flatten(void)
{
	static const char text[] =
		" {\"a\": 1, \"o\": {\"s\": \"x\\u00e9\\n\\ud83d\\ude00\", \"n\": null},"
		" \"l\": [1, \"two\", true], \"e\": [], \"eo\": {},"
		" \"ao\": [{\"k\": -2.5e3}, []]}\n";
	static const struct {
		const char *key, *value;
		enum ng_json_type type;
		bool element;
	} want[] = {
		{ "a", "1", NG_JSON_NUMBER, false },
		{ "o.s", "x\xc3\xa9\n\xf0\x9f\x98\x80", NG_JSON_STRING, false },
		{ "o.n", "null", NG_JSON_NULL, false },
		{ "l", "1", NG_JSON_NUMBER, true },
		{ "l", "two", NG_JSON_STRING, true },
		{ "l", "true", NG_JSON_BOOL, true },
		{ "e", "", NG_JSON_EMPTY_ARRAY, false },
		{ "eo", "", NG_JSON_EMPTY_OBJECT, false },
		{ "ao[0].k", "-2.5e3", NG_JSON_NUMBER, false },
		{ "ao[1]", "", NG_JSON_EMPTY_ARRAY, false },
	};
	struct ng_json_doc doc;
	size_t i;

	T_EQ_INT(ng_json_flatten(text, strlen(text), &doc, NULL), 0);
	T_EQ_INT(doc.nr, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < doc.nr; i++) {
		T_EQ_STR(doc.fields[i].key, want[i].key);
		T_EQ_STR(doc.fields[i].value, want[i].value);
		T_EQ_INT(doc.fields[i].type, want[i].type);
		T_EQ_INT(doc.fields[i].element, want[i].element);
	}
	ng_json_doc_free(&doc);
}

/* Not JSON, or too deep: -EBADMSG with the line and why. */
static void test_refused(void)
{
	static const struct {
		const char *text, *why;
		unsigned int line;
	} bad[] = {
		{ "[1]", "not a JSON object", 1 },
		{ "{\"a\":\n01}", "a number with a leading zero", 2 },
		{ "{\"a\": \"\\q\"}", "unknown escape in a string", 1 },
		{ "{\"a\": 1,\n\n}", "expected a key in quotes", 3 },
		{ "{\"a\": 1} x", "text after the object", 1 },
		{ "{\"a\": [1 2]}", "expected ',' or ']'", 1 },
		{ "{\"a\": \"open", "unterminated string", 1 },
	};
	struct ng_json_doc doc;
	struct ng_pp_bad why;
	char deep[200];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		T_EQ_INT(ng_json_flatten(bad[i].text, strlen(bad[i].text), &doc,
					 &why), -EBADMSG);
		T_EQ_STR(why.why, bad[i].why);
		T_EQ_INT(why.line, bad[i].line);
	}
	/* 32 containers are taken, 33 are not */
	memset(deep, 0, sizeof(deep));
	deep[0] = '{';
	for (i = 1; i < 33; i++)
		memcpy(deep + 1 + 5 * (i - 1), "\"a\":{", 5);
	T_EQ_INT(ng_json_flatten(deep, strlen(deep), &doc, &why), -EBADMSG);
	T_EQ_STR(why.why, "nested deeper than 32");
	memset(deep, 0, sizeof(deep));
	deep[0] = '{';
	for (i = 1; i < 32; i++)
		memcpy(deep + 1 + 5 * (i - 1), "\"a\":{", 5);
	memset(deep + strlen(deep), '}', 32);
	T_EQ_INT(ng_json_flatten(deep, strlen(deep), &doc, &why), 0);
	T_EQ_INT(doc.nr, 1);
	T_EQ_INT(doc.fields[0].type, NG_JSON_EMPTY_OBJECT);
	T_EQ_INT(strlen(doc.fields[0].key), 31 + 30);
	ng_json_doc_free(&doc);
}

static const struct t_case cases[] = {
	{ "escape", test_escape },
	{ "lines", test_lines },
	{ "compact", test_compact },
	{ "sticky_error", test_sticky_error },
	{ "flatten", test_flatten },
	{ "refused", test_refused },
};

T_SUITE(json, cases);
