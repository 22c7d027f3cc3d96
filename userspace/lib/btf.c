// SPDX-License-Identifier: LGPL-2.1
/*
 * btf.c - the types of the recorded functions, from the kernel's BTF,
 * written beside the recording as protos.tsv (trace-format.md) so that
 * replay types the registers of args.tsv and retval.tsv on any machine,
 * without that kernel's BTF.
 *
 * libbpf reads the BTF (/sys/kernel/btf/vmlinux and, for a function of
 * a module, /sys/kernel/btf/MODULE on top of it; or a BTF file given)
 * and renders each type's C name (btf_dump); what replay needs besides
 * the name is the type's class and width, written with it.  libbpf's
 * own messages are silenced while it runs: this library never prints.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "nanograph.h"
#include "lines.h"
#include "outfile.h"
#include "strmap.h"

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/* One BTF, and btf_dump rendering its type names into @name. */
struct typer {
	struct btf *btf;
	struct btf_dump *dump;
	char name[NG_TYPE_NAME_MAX];
	size_t len;
};

static void name_printf(void *ctx, const char *fmt, va_list args)
{
	struct typer *ty = ctx;
	int n;

	if (ty->len >= sizeof(ty->name) - 1)
		return;
	n = vsnprintf(ty->name + ty->len, sizeof(ty->name) - ty->len, fmt, args);
	if (n > 0)
		ty->len += (size_t)n;
	if (ty->len >= sizeof(ty->name))
		ty->len = sizeof(ty->name) - 1;
}

/* A typer of @btf (taken over), or NULL without memory or with no @btf. */
static struct typer *typer_new(struct btf *btf)
{
	struct typer *ty;

	if (!btf)
		return NULL;
	ty = calloc(1, sizeof(*ty));
	if (!ty) {
		btf__free(btf);
		return NULL;
	}
	ty->btf = btf;
	ty->dump = btf_dump__new(btf, name_printf, ty, NULL);
	if (!ty->dump) {
		btf__free(btf);
		free(ty);
		return NULL;
	}
	return ty;
}

static void typer_free(struct typer *ty)
{
	if (!ty)
		return;
	btf_dump__free(ty->dump);
	btf__free(ty->btf);
	free(ty);
}

/*
 * Type @id as "CLASS:SIZE:NAME" into @out: its class (v void, s signed,
 * u unsigned, b bool, p pointer, x anything else: a struct by value, a
 * float) and size in bytes through typedefs and qualifiers, and its C
 * name as the source writes it ("ssize_t", "struct file *").
 */
static int type_text(struct typer *ty, __u32 id, char *out, size_t size)
{
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, opts, .field_name = "");
	const struct btf_type *t;
	unsigned int bytes = 0;
	char cls = 'x';
	int rid, n;

	if (!id) {
		snprintf(out, size, "v:0:void");
		return 0;
	}
	rid = btf__resolve_type(ty->btf, id);
	t = rid > 0 ? btf__type_by_id(ty->btf, (__u32)rid) : NULL;
	if (!t)
		return -EINVAL;
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		bytes = t->size;
		cls = btf_int_encoding(t) & BTF_INT_BOOL ? 'b' :
		      btf_int_encoding(t) & BTF_INT_SIGNED ? 's' : 'u';
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		bytes = t->size;
		cls = btf_kflag(t) ? 's' : 'u';
		break;
	case BTF_KIND_PTR:
		bytes = (unsigned int)btf__pointer_size(ty->btf);
		cls = 'p';
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_FLOAT:
		bytes = t->size;
		break;
	default:
		break;
	}
	ty->len = 0;
	ty->name[0] = '\0';
	if (btf_dump__emit_type_decl(ty->dump, id, &opts))
		snprintf(ty->name, sizeof(ty->name), "?");
	/* One line, one field: no tab or newline in a name. */
	for (n = 0; ty->name[n]; n++)
		if (ty->name[n] == '\t' || ty->name[n] == '\n' || ty->name[n] == ':')
			ty->name[n] = ' ';
	n = snprintf(out, size, "%c:%u:%s", cls, bytes, ty->name);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* The BTFs in use: the kernel's (or a file's), and modules' on top. */
struct btfs {
	struct typer *base;
	struct ng_strmap *mods;		/* "module" -> struct typer * */
	bool from_file;
};

static struct typer *typer_of(struct btfs *b, const char *module)
{
	struct typer **m;
	bool added;

	if (!module)
		return b->base;
	if (b->from_file)
		return NULL;
	m = ng_strmap_get(b->mods, module, strlen(module), &added);
	if (m && added)
		*m = typer_new(btf__load_module_btf(module, b->base->btf));
	return m ? *m : NULL;
}

struct writer {
	struct btfs b;
	struct ng_strmap *done;		/* labels seen */
	struct ng_outfile out;
	size_t typed, untyped;
	int err;
};

/*
 * The prototype of @label ("func" or "func [module]") as a line of
 * protos.tsv: "FUNCTION RET PARAM..." (tab-separated), RET a type as
 * type_text() writes it, each PARAM "CLASS:SIZE:NAME:TYPE"... with the
 * parameter's name before its type: "s:8:ssize_t" and "p:8:buf:char *".
 */
static int proto_line(struct writer *w, const char *label)
{
	char func[256], module[128] = "", text[NG_TYPE_NAME_MAX + 16];
	const struct btf_type *fn, *proto;
	const struct btf_param *p;
	struct typer *ty;
	__u16 i, n;
	int id, ret;

	if (sscanf(label, "%255s [%127[^]]]", func, module) < 1)
		return 0;
	ty = typer_of(&w->b, module[0] ? module : NULL);
	id = ty ? btf__find_by_name_kind(ty->btf, func, BTF_KIND_FUNC) : -ENOENT;
	fn = id > 0 ? btf__type_by_id(ty->btf, (__u32)id) : NULL;
	proto = fn ? btf__type_by_id(ty->btf, fn->type) : NULL;
	if (!proto || !btf_is_func_proto(proto)) {
		w->untyped++;
		return 0;
	}
	ret = type_text(ty, proto->type, text, sizeof(text));
	if (!ret)
		ret = ng_outfile_printf(&w->out, "%s\t%s", label, text);
	p = btf_params(proto);
	n = btf_vlen(proto);
	for (i = 0; !ret && i < n; i++) {
		const char *name = btf__name_by_offset(ty->btf, p[i].name_off);

		/* A variadic function's last "parameter" has no type. */
		if (!p[i].type)
			break;
		ret = type_text(ty, p[i].type, text, sizeof(text));
		if (!ret) {
			char *colon = strchr(strchr(text, ':') + 1, ':');

			*colon = '\0';
			ret = ng_outfile_printf(&w->out, "\t%s:%s:%s", text,
						name && *name ? name : "_", colon + 1);
		}
	}
	if (!ret)
		ret = ng_outfile_printf(&w->out, "\n");
	if (!ret)
		w->typed++;
	return ret;
}

/* A line of args.tsv or retval.tsv: its FUNCTION (the 4th field), once. */
static int table_line(void *priv, char *line)
{
	struct writer *w = priv;
	char *f = line, *end;
	bool added;
	int i;

	for (i = 0; i < 3 && f; i++) {
		f = strchr(f, '\t');
		if (f)
			f++;
	}
	if (!f)
		return 0;
	end = strchr(f, '\t');
	if (end)
		*end = '\0';
	if (!ng_strmap_get(w->done, f, strlen(f), &added))
		return -ENOMEM;
	return added ? proto_line(w, f) : 0;
}

int ng_protos_write(const char *dir, const char *btf_file,
		    struct ng_protos_stats *st)
{
	libbpf_print_fn_t old = libbpf_set_print(quiet);
	struct writer w = { .err = 0 };
	void **mods = NULL;
	size_t i, nr = 0;
	int ret;

	memset(st, 0, sizeof(*st));
	w.b.from_file = btf_file != NULL;
	w.b.base = typer_new(btf_file ? btf__parse(btf_file, NULL) :
			     btf__load_vmlinux_btf());
	ret = w.b.base ? 0 : -ENOENT;
	if (!ret) {
		w.b.mods = ng_strmap_new(sizeof(struct typer *));
		w.done = ng_strmap_new(1);
		ret = w.b.mods && w.done ? 0 : -ENOMEM;
	}
	if (!ret)
		ret = ng_outfile_open(&w.out, dir, "protos.tsv");
	if (!ret) {
		ret = ng_outfile_printf(&w.out, "# nanograph protos 1\n");
		if (!ret)
			ret = ng_lines_each(dir, "args.tsv", NG_TSV_LINE_MAX, table_line, &w);
		if (!ret || ret == -ENOENT)
			ret = ng_lines_each(dir, "retval.tsv", NG_TSV_LINE_MAX, table_line, &w);
		if (ret == -ENOENT)
			ret = 0;
		if (!ret)
			ret = ng_outfile_commit(&w.out);
		else
			ng_outfile_abort(&w.out);
	}
	st->typed = w.typed;
	st->untyped = w.untyped;
	if (w.b.mods && !ng_strmap_values(w.b.mods, &mods, &nr))
		for (i = 0; i < nr; i++)
			typer_free(*(struct typer **)mods[i]);
	free(mods);
	ng_strmap_free(w.b.mods);
	ng_strmap_free(w.done);
	typer_free(w.b.base);
	libbpf_set_print(old);
	return ret;
}
