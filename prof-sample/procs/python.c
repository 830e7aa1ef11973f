#include "python.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "elf_bounded.h"
#include "elf_files.h"
#include "htab.h"
#include "mapped_files.h"
#include "python_lines.h"

/* What an interpreter's file says: its version and where _PyRuntime is. */
struct py_file {
	bool python;
	bool unknown; /* has _PyRuntime, of a version not in bpf/python.h */
	uint32_t version;
	uint64_t runtime; /* _PyRuntime's address in the file */
};

/* A function at a line: PYSYM's. */
struct py_func {
	char *name, *file;
	int32_t line, at;
};

/* A code object, as the BPF program sent it. */
struct py_code_info {
	uint32_t version;
	char *name, *file;
	uint8_t *table;
	size_t table_len;
};

struct python {
	int procs_fd;
	struct mapped_files *mf; /* opens the files a process maps */
	struct htab *checked; /* pid -> struct checked */
	struct htab *files;   /* device, inode -> struct py_file */
	struct htab *codes;   /* struct py_code_key -> struct py_code_info */
	struct htab *at_ids;  /* struct py_code_key, instr -> function id */
	struct htab *by_text; /* name NUL file NUL line -> function id */
	struct py_func *funcs;
	size_t nfuncs, funcs_cap;
	struct python_stats st;
};

#define NOT_PYTHON PY_NVERSIONS

/* What a process was found to be, for its mappings of that generation. */
struct checked {
	uint32_t version; /* enum py_version, or NOT_PYTHON */
	uint64_t generation;
};

struct python *python_new(int py_procs_fd, struct mapped_files *mf)
{
	struct python *py = xcalloc(1, sizeof(*py));

	py->procs_fd = py_procs_fd;
	py->mf = mf;
	py->checked = htab_new();
	py->files = htab_new();
	py->codes = htab_new();
	py->at_ids = htab_new();
	py->by_text = htab_new();
	/* Function 0: a frame whose code object's names never came. */
	py->funcs = xcalloc(1, sizeof(*py->funcs));
	py->funcs[0] = (struct py_func){ xstrdup("[python]"), xstrdup(""), 0, 0 };
	py->nfuncs = py->funcs_cap = 1;
	return py;
}

static void free_code(void *p)
{
	struct py_code_info *c = p;

	if (c) {
		free(c->name);
		free(c->file);
		free(c->table);
		free(c);
	}
}

void python_free(struct python *py)
{
	if (!py)
		return;
	for (size_t i = 0; i < py->nfuncs; i++) {
		free(py->funcs[i].name);
		free(py->funcs[i].file);
	}
	free(py->funcs);
	htab_free_values(py->files, free);
	htab_free_values(py->checked, free);
	htab_free_values(py->codes, free_code);
	htab_free(py->at_ids);
	htab_free(py->by_text);
	free(py);
}

/* The minor version a file's name says: python3.N or libpython3.N.so*. */
static int named_minor(const char *path)
{
	const char *base = strrchr(path, '/');
	int minor, n = 0;

	base = base ? base + 1 : path;
	if (strncmp(base, "lib", 3) == 0)
		base += 3;
	if (sscanf(base, "python3.%d%n", &minor, &n) != 1 || n == 0)
		return -1;
	/* Nothing but the version, a build's flags ("3.11d") or ".so". */
	if (base[n] && base[n] != '.' && strspn(base + n, "dmu") != strlen(base + n))
		return -1;
	return minor;
}

/* The value of the 4-byte word at address vaddr of the file. */
static bool read_word(Elf *elf, int fd, uint64_t vaddr, uint32_t *v)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    vaddr < ph.p_vaddr || vaddr + 4 > ph.p_vaddr + ph.p_filesz)
			continue;
		return pread(fd, v, 4, (off_t)(ph.p_offset + vaddr - ph.p_vaddr)) == 4;
	}
	return false;
}

/* Reads what fd's interpreter is, if it is one this profiler knows. */
static void read_file(struct py_file *pf, int fd, int minor)
{
	Elf *elf = elf_begin_bounded(fd);
	GElf_Sym sym;
	uint64_t runtime = 0, py_version = 0;
	bool has_version = false;

	if (elf && elf_dynsym_find(elf, "_PyRuntime", &sym))
		runtime = sym.st_value;
	if (elf && elf_dynsym_find(elf, "Py_Version", &sym)) {
		has_version = true;
		py_version = sym.st_value;
	}
	pf->python = false;
	pf->unknown = runtime != 0;
	if (runtime && minor >= 10 && minor <= 13) {
		uint32_t hex = 0;
		/* 3.11 and later say their version (PY_VERSION_HEX); 3.10
		 * has no Py_Version. */
		if (minor >= 11 ? has_version && read_word(elf, fd, py_version, &hex) &&
					  hex >> 16 == (0x0300u | (uint32_t)minor)
				: !has_version) {
			pf->python = true;
			pf->unknown = false;
			pf->version = PY_310 + (uint32_t)(minor - 10);
			pf->runtime = runtime;
		}
	}
	elf_end(elf);
}

/* The bias of the file m maps: the segment holding file offset m->pgoff
 * is at m->start. */
static bool file_bias(int fd, const struct mapping *m, uint64_t *bias)
{
	Elf *elf = elf_begin_bounded(fd);
	size_t n;
	bool ok = false;

	for (size_t i = 0; elf && elf_getphdrnum(elf, &n) == 0 && i < n && !ok; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    m->pgoff >= (ph.p_offset & ~(GElf_Off)0xfff) &&
		    m->pgoff < ph.p_offset + ph.p_filesz) {
			*bias = m->start - m->pgoff - ph.p_vaddr + ph.p_offset;
			ok = true;
		}
	}
	elf_end(elf);
	return ok;
}

/* The map of Python processes is full: those gone are taken out (a host
 * that starts Python processes by the thousand fills it otherwise). */
static void sweep_gone(struct python *py)
{
	struct htab_entry *e = htab_entries(py->checked);

	for (size_t i = 0; i < htab_count(py->checked);) {
		uint32_t pid;
		char path[32];
		memcpy(&pid, e[i].key, sizeof(pid));
		snprintf(path, sizeof(path), "/proc/%u", pid);
		if (access(path, F_OK) == 0) {
			i++;
			continue;
		}
		python_forget(py, pid); /* moves the last entry to i */
		e = htab_entries(py->checked);
	}
}

/* Records what pid is, for the BPF program too. */
static void mark(struct python *py, uint32_t pid, uint64_t generation, uint32_t version,
		 uint64_t runtime)
{
	bool created;
	struct htab_entry *e = htab_upsert(py->checked, &pid, sizeof(pid), &created);
	struct checked *c = created ? (e->val.p = xcalloc(1, sizeof(struct checked))) : e->val.p;
	struct py_proc pp = { .runtime = runtime, .version = version };
	bool was = !created && c->version != NOT_PYTHON;

	if (was && version == NOT_PYTHON)
		bpf_map_delete_elem(py->procs_fd, &pid);
	c->generation = generation;
	c->version = NOT_PYTHON;
	if (version == NOT_PYTHON)
		return;
	if (bpf_map_update_elem(py->procs_fd, &pid, &pp, BPF_ANY) != 0) {
		sweep_gone(py);
		if (!htab_find(py->checked, &pid, sizeof(pid)) ||
		    bpf_map_update_elem(py->procs_fd, &pid, &pp, BPF_ANY) != 0) {
			py->st.not_marked++;
			return;
		}
	}
	c = htab_find(py->checked, &pid, sizeof(pid))->val.p;
	c->version = version;
	if (!was) {
		py->st.processes++;
		py->st.by_version[version]++;
	}
}

void python_check(struct python *py, struct processes *ps, uint32_t pid)
{
	size_t n;
	uint64_t generation;
	const struct mapping *maps = processes_maps(ps, pid, &n, &generation);
	struct htab_entry *e = htab_find(py->checked, &pid, sizeof(pid));

	/* Checked for these mappings already (an exec makes others). */
	if (!maps || !n || (e && ((struct checked *)e->val.p)->generation == generation))
		return;
	for (size_t i = 0; i < n; i++) {
		const struct mapping *m = &maps[i];
		int minor = m->inode ? named_minor(m->path) : -1;
		uint64_t key[2] = { m->dev, m->inode }, bias;
		struct py_file *pf;
		bool created;
		int fd;

		if (minor < 0)
			continue;
		fd = mapped_files_open(py->mf, pid, m, NULL);
		if (fd < 0) {
			if (errno == EINPROGRESS)
				return; /* asked again with the next sample */
			continue;
		}
		e = htab_upsert(py->files, key, sizeof(key), &created);
		if (created) {
			e->val.p = pf = xcalloc(1, sizeof(*pf));
			/* A python3.N without _PyRuntime is the executable of
			 * a shared build: its libpython is another mapping. */
			read_file(pf, fd, minor);
		}
		pf = e->val.p;
		if (pf->unknown) {
			py->st.unknown_version++;
			close(fd);
			break;
		}
		if (pf->python && file_bias(fd, m, &bias)) {
			close(fd);
			mark(py, pid, generation, pf->version, bias + pf->runtime);
			return;
		}
		close(fd);
	}
	mark(py, pid, generation, NOT_PYTHON, 0);
}

void python_forget(struct python *py, uint32_t pid)
{
	struct htab_entry *e = htab_find(py->checked, &pid, sizeof(pid));

	if (!e)
		return;
	if (((struct checked *)e->val.p)->version != NOT_PYTHON)
		bpf_map_delete_elem(py->procs_fd, &pid);
	free(e->val.p);
	htab_remove(py->checked, &pid, sizeof(pid));
}

/* Appends the UTF-8 of len characters of kind bytes each. */
static void utf8(char *out, size_t cap, size_t *at, const uint8_t *s, uint32_t len, uint8_t kind)
{
	for (uint32_t i = 0; i < len; i++) {
		uint32_t c = kind == 1 ? s[i] : kind == 2 ? (uint32_t)(s[2 * i] | s[2 * i + 1] << 8)
			   : (uint32_t)(s[4 * i] | s[4 * i + 1] << 8 | s[4 * i + 2] << 16 |
					(uint32_t)s[4 * i + 3] << 24);
		char b[4];
		size_t n;
		if (c < 0x20 || c == 0x7f || (c >= 0xd800 && c < 0xe000) || c > 0x10ffff)
			c = '?'; /* nothing a terminal or a folded line reads as its own */
		if (c < 0x80)
			b[0] = (char)c, n = 1;
		else if (c < 0x800)
			b[0] = (char)(0xc0 | c >> 6), b[1] = (char)(0x80 | (c & 0x3f)), n = 2;
		else if (c < 0x10000)
			b[0] = (char)(0xe0 | c >> 12), b[1] = (char)(0x80 | ((c >> 6) & 0x3f)),
			b[2] = (char)(0x80 | (c & 0x3f)), n = 3;
		else
			b[0] = (char)(0xf0 | c >> 18), b[1] = (char)(0x80 | ((c >> 12) & 0x3f)),
			b[2] = (char)(0x80 | ((c >> 6) & 0x3f)), b[3] = (char)(0x80 | (c & 0x3f)), n = 4;
		if (*at + n >= cap)
			break;
		memcpy(out + *at, b, n);
		*at += n;
	}
	out[*at] = 0;
}

static uint32_t function_id(struct python *py, const char *name, const char *file, int32_t line,
			    int32_t at)
{
	char key[4 * PY_NAME_MAX + 4 * PY_FILE_MAX + 16];
	size_t nn = strlen(name), nf = strlen(file);
	bool created;
	struct htab_entry *e;

	memcpy(key, name, nn + 1);
	memcpy(key + nn + 1, file, nf + 1);
	memcpy(key + nn + nf + 2, &line, sizeof(line));
	memcpy(key + nn + nf + 2 + sizeof(line), &at, sizeof(at));
	e = htab_upsert(py->by_text, key, nn + nf + 2 + 2 * sizeof(line), &created);
	if (created) {
		py->funcs = xreserve(py->funcs, &py->funcs_cap, py->nfuncs + 1, sizeof(*py->funcs));
		py->funcs[py->nfuncs] = (struct py_func){ xstrdup(name), xstrdup(file), line, at };
		e->val.u = py->nfuncs++;
	}
	return (uint32_t)e->val.u;
}

/* The code objects the BPF program sent with this sample. */
static void learn(struct python *py, uint32_t pid, uint32_t version, const struct py_stack *s)
{
	for (uint32_t i = 0; i < s->nnew && i < PY_MAX_NEW_CODES; i++) {
		const struct py_code *c = &s->new_codes[i];
		char name[4 * PY_NAME_MAX + 1], file[4 * PY_FILE_MAX + 1];
		size_t nn = 0, nf = 0;
		struct py_code_key k = c->key;
		struct py_code_info *info;
		struct htab_entry *e;
		bool created;

		if (k.pid != pid || !c->name_len || !c->name_kind ||
		    c->name_len * c->name_kind > PY_NAME_MAX ||
		    (c->file_kind && c->file_len * c->file_kind > PY_FILE_MAX) ||
		    c->table_len > PY_TABLE_MAX)
			continue;
		utf8(name, sizeof(name), &nn, c->name, c->name_len, c->name_kind);
		utf8(file, sizeof(file), &nf, c->file, c->file_len, c->file_kind ? c->file_kind : 1);
		e = htab_upsert(py->codes, &k, sizeof(k), &created);
		if (!created)
			free_code(e->val.p);
		e->val.p = info = xcalloc(1, sizeof(*info));
		info->version = version;
		info->name = xstrdup(name);
		info->file = xstrdup(file);
		info->table = xmalloc(c->table_len ? c->table_len : 1);
		memcpy(info->table, c->table, c->table_len);
		info->table_len = c->table_len;
	}
}

/* The function (at its line) of frame f: 0 if its code object's names
 * never came. */
static uint32_t frame_function(struct python *py, uint32_t pid, const struct py_frame *f)
{
	struct {
		struct py_code_key k;
		uint64_t instr;
	} key = { { .pid = pid, .firstlineno = f->firstlineno, .code = f->code,
		    .name = f->name, .file = f->file, .name_hash = f->name_hash },
		  f->instr };
	struct htab_entry *e = htab_find(py->at_ids, &key, sizeof(key)), *c;
	const struct py_code_info *info;
	bool created;
	int32_t at;

	if (e)
		return (uint32_t)e->val.u;
	if (!(c = htab_find(py->codes, &key.k, sizeof(key.k)))) {
		py->st.unnamed++;
		return 0;
	}
	info = c->val.p;
	/* 3.10 counts code units, later versions bytes. */
	at = python_line(info->version, info->table, info->table_len, f->firstlineno,
			 info->version == PY_310 ? 2 * (uint64_t)f->instr : f->instr);
	py->st.no_line += at == 0;
	e = htab_upsert(py->at_ids, &key, sizeof(key), &created);
	e->val.u = function_id(py, info->name, info->file, f->firstlineno, at);
	return (uint32_t)e->val.u;
}

/* A run of Python frames one call of the interpreter's loop ran, and the
 * address on that call's C stack frame that tells which native frame it
 * is (0: unknown). */
struct run {
	uint32_t first, n;
	uint64_t anchor;
};

/* s's frames, split into runs, leaf first. */
static uint32_t runs_of(const struct py_stack *s, uint32_t version, struct run *runs)
{
	uint32_t nruns = 0, nframes = s->nframes < PY_MAX_FRAMES ? s->nframes : PY_MAX_FRAMES;
	uint32_t nanchors = s->nanchors < PY_MAX_ANCHORS ? s->nanchors : PY_MAX_ANCHORS;
	struct run cur = { 0, 0, 0 };

	for (uint32_t i = 0; i < nframes; i++) {
		const struct py_frame *f = &s->frames[i];
		if (f->flags & PY_FRAME_SHIM) {
			/* 3.12+: the shim ends the run before it, and is its
			 * anchor. */
			if (cur.n) {
				cur.anchor = f->addr;
				runs[nruns++] = cur;
			}
			cur = (struct run){ i + 1, 0, 0 };
			continue;
		}
		cur.n++;
		/* 3.10: every frame is a run; 3.11: an entry frame ends one. */
		if (version == PY_310 || (version == PY_311 && (f->flags & PY_FRAME_ENTRY))) {
			cur.anchor = nruns < nanchors ? s->anchors[nruns] : 0;
			runs[nruns++] = cur;
			cur = (struct run){ i + 1, 0, 0 };
		}
	}
	if (cur.n)
		runs[nruns++] = cur; /* cut, or ended without its anchor */
	return nruns;
}

void python_merge(struct python *py, uint32_t pid, const struct py_stack *s, uint64_t *ips,
		  const uint64_t *sps, uint32_t *nr, uint32_t max)
{
	struct htab_entry *e = htab_find(py->checked, &pid, sizeof(pid));
	struct run runs[PY_MAX_FRAMES];
	uint64_t out[PROF_MAX_STACK];
	uint32_t nruns, n = 0, version, placed = 0;

	if (s->status == PY_NO_THREAD)
		py->st.no_thread++;
	if (s->status != PY_WALKED || !s->nframes || !e ||
	    ((struct checked *)e->val.p)->version == NOT_PYTHON)
		return;
	version = ((struct checked *)e->val.p)->version;
	learn(py, pid, version, s);
	nruns = runs_of(s, version, runs);
	py->st.cut += s->cut != 0;
	for (uint32_t i = 0; i < *nr && n < max; i++) {
		uint64_t lo = sps[i], hi = i + 1 < *nr ? sps[i + 1] : UINT64_MAX;
		struct run *r = NULL;
		for (uint32_t k = 0; k < nruns && !r; k++)
			if (runs[k].anchor && runs[k].anchor >= lo && runs[k].anchor < hi)
				r = &runs[k];
		if (!r) {
			out[n++] = ips[i];
			continue;
		}
		for (uint32_t j = 0; j < r->n && n < max; j++)
			out[n++] = PY_IP_BASE | frame_function(py, pid, &s->frames[r->first + j]);
		py->st.frames += r->n;
		placed++;
		r->anchor = 0;
	}
	py->st.unplaced += nruns - placed;
	if (placed)
		py->st.samples++;
	memcpy(ips, out, n * sizeof(*ips));
	*nr = n;
}

bool python_function(const struct python *py, uint32_t id, const char **name, const char **file,
		     int32_t *line, int32_t *at)
{
	if (id >= py->nfuncs)
		return false;
	*name = py->funcs[id].name;
	*file = py->funcs[id].file;
	*line = py->funcs[id].line;
	*at = py->funcs[id].at;
	return true;
}

const struct python_stats *python_stats(const struct python *py)
{
	return &py->st;
}
