/*
 * info.c: NclInfo, the JSON description of the running library, built by
 * the INFO hook chain into an NclInfoWriter; the writer's public functions
 * (NclInfoAddJson, NclInfoAddString); and ncl_default_info, the chain's
 * tail, which adds version, ABI, CPU features, kernel variant, allocator,
 * threads, topology and the installed hooks.
 *
 * The writer is plain malloc'd text (it is not array data, so it does not go
 * through the NEP 49 handler). Every member is checked before it is added,
 * so whatever the hooks add, the result is one valid JSON object in UTF-8.
 * CPU features (cpuid + xgetbv) and the hwloc topology are read once, on
 * the first NclInfo; a topology that cannot be read is reported as null.
 */
#define _POSIX_C_SOURCE 200809L

#include <hwloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "defaults/ncl_defaults.h"
#include "hooks/hook_chain.h"
#include "runtime/cpu.h"
#include "runtime/pool.h"

/* ---- a growable string ------------------------------------------------------ */

typedef struct strbuf {
    char *p;
    size_t len, cap;
    int oom;  /* an append failed: the text is incomplete */
} strbuf;

static int sb_reserve(strbuf *b, size_t extra)
{
    if (b->oom) return -1;
    if (extra <= b->cap - b->len) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < extra) {
        if (cap > SIZE_MAX / 2) { b->oom = 1; return -1; }
        cap *= 2;
    }
    char *p = realloc(b->p, cap);
    if (p == NULL) { b->oom = 1; return -1; }
    b->p = p;
    b->cap = cap;
    return 0;
}

static void sb_put(strbuf *b, const char *s, size_t n)
{
    if (sb_reserve(b, n + 1) != 0) return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_puts(strbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

static void sb_putf(strbuf *b, const char *fmt, ...) NCL_PRINTF(2, 3);
static void sb_putf(strbuf *b, const char *fmt, ...)
{
    char small[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) { b->oom = 1; return; }
    if ((size_t)n < sizeof small) { sb_put(b, small, (size_t)n); return; }
    if (sb_reserve(b, (size_t)n + 1) != 0) return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* Length of the valid UTF-8 sequence at s (1..4), 0 if it is not one
   (overlong forms, surrogates and code points above U+10FFFF included). */
static int utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) return (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
        return (s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80) ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
        return (s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80 && (s[3] & 0xC0) == 0x80) ? 4 : 0;
    }
    return 0;
}

/* text as a JSON string: quotes, backslashes and control characters
   escaped; bytes that are not UTF-8 become U+FFFD. */
static void sb_json_string(strbuf *b, const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    sb_put(b, "\"", 1);
    while (*s) {
        const unsigned char *run = s;
        int n;
        /* Copy runs that need no escaping in one go. */
        while (*s >= 0x20 && *s != '"' && *s != '\\' && (n = utf8_len(s)) != 0) s += n;
        if (s != run) sb_put(b, (const char *)run, (size_t)(s - run));
        if (*s == '\0') break;
        switch (*s) {
        case '"': sb_puts(b, "\\\""); break;
        case '\\': sb_puts(b, "\\\\"); break;
        case '\n': sb_puts(b, "\\n"); break;
        case '\r': sb_puts(b, "\\r"); break;
        case '\t': sb_puts(b, "\\t"); break;
        case '\b': sb_puts(b, "\\b"); break;
        case '\f': sb_puts(b, "\\f"); break;
        default:
            if (*s < 0x20) sb_putf(b, "\\u%04x", (unsigned)*s);
            else sb_puts(b, "\\ufffd");
            break;
        }
        s++;
    }
    sb_put(b, "\"", 1);
}

/* ---- a JSON checker (RFC 8259 grammar, nesting at most 64 deep) --------------- */

typedef struct jparse {
    const unsigned char *s;
    int depth;
} jparse;

static void j_ws(jparse *p)
{
    while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r') p->s++;
}

static int j_hex(unsigned c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int j_digits(jparse *p)
{
    const unsigned char *start = p->s;
    while (*p->s >= '0' && *p->s <= '9') p->s++;
    return p->s != start;
}

static int j_string(jparse *p)
{
    if (*p->s != '"') return 0;
    p->s++;
    for (;;) {
        unsigned c = *p->s;
        if (c == '"') { p->s++; return 1; }
        if (c < 0x20) return 0;  /* control characters, and the end of the text */
        if (c == '\\') {
            c = *++p->s;
            if (c == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!j_hex(p->s[i])) return 0;
                p->s += 5;
            } else if (strchr("\"\\/bfnrt", (int)c) != NULL && c != '\0') {
                p->s++;
            } else {
                return 0;
            }
        } else {
            int n = utf8_len(p->s);
            if (n == 0) return 0;
            p->s += n;
        }
    }
}

static int j_number(jparse *p)
{
    if (*p->s == '-') p->s++;
    if (*p->s == '0') p->s++;
    else if (!j_digits(p)) return 0;
    if (*p->s == '.') {
        p->s++;
        if (!j_digits(p)) return 0;
    }
    if (*p->s == 'e' || *p->s == 'E') {
        p->s++;
        if (*p->s == '+' || *p->s == '-') p->s++;
        if (!j_digits(p)) return 0;
    }
    return 1;
}

static int j_literal(jparse *p, const char *word)
{
    size_t n = strlen(word);
    if (strncmp((const char *)p->s, word, n) != 0) return 0;
    p->s += n;
    return 1;
}

static int j_value(jparse *p);

/* The members of an object or the elements of an array, after the opening
   bracket. */
static int j_container(jparse *p, unsigned char close, int object)
{
    if (++p->depth > 64) return 0;
    j_ws(p);
    if (*p->s == close) { p->s++; p->depth--; return 1; }
    for (;;) {
        if (object) {
            if (!j_string(p)) return 0;
            j_ws(p);
            if (*p->s++ != ':') return 0;
        }
        if (!j_value(p)) return 0;
        j_ws(p);
        if (*p->s == ',') { p->s++; j_ws(p); continue; }
        if (*p->s != close) return 0;
        p->s++;
        p->depth--;
        return 1;
    }
}

static int j_value(jparse *p)
{
    j_ws(p);
    switch (*p->s) {
    case '{': p->s++; return j_container(p, '}', 1);
    case '[': p->s++; return j_container(p, ']', 0);
    case '"': return j_string(p);
    case 't': return j_literal(p, "true");
    case 'f': return j_literal(p, "false");
    case 'n': return j_literal(p, "null");
    default: return j_number(p);
    }
}

/* Whether text is exactly one JSON value (surrounding whitespace allowed). */
static int json_valid(const char *text)
{
    jparse p = { (const unsigned char *)text, 0 };
    if (!j_value(&p)) return 0;
    j_ws(&p);
    return *p.s == '\0';
}

/* ---- the writer ----------------------------------------------------------------- */

struct NclInfoWriter {
    strbuf text;   /* "{" and the members so far */
    int members;
};

/* Appends "key": value, where put_value writes the value; all or nothing. */
static NclStatus add_member(NclInfoWriter *w, const char *who, const char *key, const char *value,
                            int raw)
{
    size_t mark = w->text.len;
    if (w->members) sb_put(&w->text, ",", 1);
    sb_json_string(&w->text, key);
    sb_put(&w->text, ":", 1);
    if (raw) sb_puts(&w->text, value);
    else sb_json_string(&w->text, value);
    if (w->text.oom) {
        /* Drop the partial member; the writer stays usable. */
        w->text.oom = 0;
        w->text.len = mark;
        if (w->text.p) w->text.p[mark] = '\0';
        return ncl_error(NCL_ERR_NO_MEMORY, "%s(\"%s\"): out of memory", who, key);
    }
    w->members++;
    return NCL_OK;
}

NclStatus NclInfoAddJson(NclInfoWriter *w, const char *key, const char *json_value)
{
    static const char who[] = "NclInfoAddJson";
    if (w == NULL) return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: the writer is NULL", who);
    if (key == NULL) return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: key is NULL", who);
    if (json_value == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s(\"%s\"): json_value is NULL", who, key);
    if (!json_valid(json_value))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "%s(\"%s\"): json_value is not one valid JSON value (object, array, "
                         "quoted string, number, true, false or null, in UTF-8)",
                         who, key);
    return add_member(w, who, key, json_value, 1);
}

NclStatus NclInfoAddString(NclInfoWriter *w, const char *key, const char *text)
{
    static const char who[] = "NclInfoAddString";
    if (w == NULL) return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: the writer is NULL", who);
    if (key == NULL) return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: key is NULL", who);
    if (text == NULL) return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s(\"%s\"): text is NULL", who, key);
    return add_member(w, who, key, text, 0);
}

NclStatus NclInfo(char *buf, size_t cap, size_t *needed)
{
    if (buf == NULL && cap != 0)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "NclInfo: buf is NULL but cap is %zu", cap);
    NclInfoWriter w = { { NULL, 0, 0, 0 }, 0 };
    sb_put(&w.text, "{", 1);
    if (w.text.oom) {
        if (buf != NULL && cap != 0) buf[0] = '\0';
        return ncl_error(NCL_ERR_NO_MEMORY, "NclInfo: out of memory");
    }

    ncl_call_enter();
    NclHook *h = ncl_chain_first(NCL_SUBSYSTEM_INFO);
    NclStatus st = h->fn.info(h, &w);
    st = ncl_call_leave(st, NCL_SUBSYSTEM_INFO, 0);

    if (st == NCL_OK) {
        sb_put(&w.text, "}", 1);
        if (w.text.oom) st = ncl_error(NCL_ERR_NO_MEMORY, "NclInfo: out of memory");
    }
    if (st == NCL_OK) {
        size_t total = w.text.len + 1;
        if (needed) *needed = total;
        if (cap < total) {
            st = ncl_error(NCL_ERR_INVALID_ARGUMENT,
                           "NclInfo: the buffer holds %zu bytes; the description needs %zu "
                           "(including the NUL)",
                           cap, total);
        } else {
            memcpy(buf, w.text.p, total);
        }
    }
    /* A buffer the caller gave is always a string, empty on failure. */
    if (st != NCL_OK && buf != NULL && cap != 0) buf[0] = '\0';
    free(w.text.p);
    return st;
}

/* ---- what the machine is: read once ---------------------------------------------- */

typedef struct sysinfo {
    int topo_ok;
    int packages, cores, pus, numa_nodes;
} sysinfo;

static sysinfo machine;
static pthread_once_t machine_once = PTHREAD_ONCE_INIT;

static void detect_topology(sysinfo *m)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0) return;
#if HWLOC_API_VERSION >= 0x00020100
    /* Counts come from the OS; hwloc's own cpuid pass is slower and writes
       to stderr when it cannot run (under Valgrind, say). */
    hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
#endif
    if (hwloc_topology_load(topo) == 0) {
        m->packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
        m->cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        m->pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
        m->numa_nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
        m->topo_ok = m->pus > 0;
    }
    /* Only the counts are kept: nothing stays allocated. */
    hwloc_topology_destroy(topo);
}

static void detect_machine(void) { detect_topology(&machine); }

static const char *arch_name(void)
{
#if defined(__x86_64__)
    return "x86_64";
#elif defined(__i386__)
    return "x86";
#elif defined(__aarch64__)
    return "aarch64";
#elif defined(__arm__)
    return "arm";
#elif defined(__powerpc64__)
    return "ppc64";
#elif defined(__riscv)
    return "riscv";
#elif defined(__s390x__)
    return "s390x";
#else
    return "unknown";
#endif
}

/* ---- the default: the tail of the INFO chain -------------------------------------- */

/* "name", "name", ... of a level-1 chain, front to back (read side). */
static void put_chain_names(strbuf *b, const NclListHead *head)
{
    sb_put(b, "[", 1);
    int first = 1;
    for (const NclListHead *n = __atomic_load_n(&head->next, __ATOMIC_ACQUIRE); n != head;
         n = __atomic_load_n(&n->next, __ATOMIC_ACQUIRE)) {
        if (ncl_is_threader(n)) continue; /* reported under "threads" */
        if (!first) sb_put(b, ",", 1);
        first = 0;
        sb_json_string(b, ncl_hook_name(NCL_CONTAINER_OF(n, const NclHook, list)->name));
    }
    sb_put(b, "]", 1);
}

static int put_kernel_chain(NclSubsystem s, int op, const NclDType *sig, int nargs,
                            const NclListHead *head, void *user)
{
    strbuf *b = user;
    if (b->len && b->p[b->len - 1] != '[') sb_put(b, ",", 1);
    sb_puts(b, "{\"subsystem\":");
    sb_json_string(b, ncl_subsystem_name(s));
    sb_puts(b, ",\"op\":");
    sb_json_string(b, ncl_op_name(s, op));
    sb_puts(b, ",\"signature\":[");
    for (int i = 0; i < nargs; i++) {
        if (i) sb_put(b, ",", 1);
        sb_json_string(b, NclDTypeName(sig[i]));
    }
    sb_puts(b, "],\"nodes\":[");
    int first = 1;
    for (const NclListHead *n = __atomic_load_n(&head->next, __ATOMIC_ACQUIRE); n != head;
         n = __atomic_load_n(&n->next, __ATOMIC_ACQUIRE)) {
        if (ncl_is_threader(n)) continue; /* reported under "threads" */
        if (!first) sb_put(b, ",", 1);
        first = 0;
        sb_json_string(b, ncl_hook_name(NCL_CONTAINER_OF(n, const NclKernelNode, list)->name));
    }
    sb_puts(b, "]}");
    return 0;
}

/* Adds the text of b (built by the caller) as one member; frees b. */
static NclStatus add_built(NclInfoWriter *w, const char *key, strbuf *b)
{
    NclStatus st;
    if (b->oom) st = ncl_error(NCL_ERR_NO_MEMORY, "NclInfo: out of memory describing \"%s\"", key);
    else st = NclInfoAddJson(w, key, b->p ? b->p : "null");
    free(b->p);
    *b = (strbuf){ NULL, 0, 0, 0 };
    return st;
}

NclStatus ncl_default_info(NclHook *self, NclInfoWriter *w)
{
    (void)self;
    pthread_once(&machine_once, detect_machine);
    const sysinfo *m = &machine;
    NclStatus st;
    strbuf b = { NULL, 0, 0, 0 };

    if ((st = NclInfoAddString(w, "version", NCL_VERSION_STRING)) != NCL_OK) return st;
    sb_putf(&b, "%d", NCL_ABI_VERSION);
    if ((st = add_built(w, "abi", &b)) != NCL_OK) return st;

    sb_puts(&b, "{\"arch\":");
    sb_json_string(&b, arch_name());
    sb_puts(&b, ",\"features\":{");
    const uint32_t have = ncl_cpu_features();
    int i = 0;
#define NCL_X_(f) \
    sb_putf(&b, "%s\"" #f "\":%s", i++ ? "," : "", have & NCL_CPU_BIT(f) ? "true" : "false");
    NCL_CPU_FEATURE_LIST(NCL_X_)
#undef NCL_X_
    /* The kernel variants: which are built, which this CPU could run, which
       runs (after NCL_DISABLE_CPU_FEATURES). */
    sb_puts(&b, "},\"variants\":[");
    for (int l = 0, n = 0; l < NCL_ISA_COUNT; l++) {
        if (!ncl_isa_built((ncl_isa)l)) continue;
        sb_putf(&b, "%s{\"name\":\"%s\",\"supported\":%s}", n++ ? "," : "",
                ncl_isa_name((ncl_isa)l), ncl_isa_cpu_supports((ncl_isa)l) ? "true" : "false");
    }
    sb_puts(&b, "],\"used\":");
    sb_json_string(&b, ncl_isa_name(ncl_isa_selected()));
    sb_puts(&b, ",\"disabled\":");
    sb_json_string(&b, ncl_isa_disabled_text());
    sb_puts(&b, ",\"ignored\":");
    sb_json_string(&b, ncl_isa_ignored_names());
    sb_puts(&b, "}");
    if ((st = add_built(w, "cpu", &b)) != NCL_OK) return st;
    if ((st = NclInfoAddString(w, "isa", ncl_isa_name(ncl_isa_selected()))) != NCL_OK) return st;

    const NclMemHandler *mh = NclDataMem_GetHandler();
    if (mh != NULL) {
        char name[sizeof mh->name + 1];
        size_t n = strnlen(mh->name, sizeof mh->name);
        memcpy(name, mh->name, n);
        name[n] = '\0';
        st = NclInfoAddString(w, "allocator", name);
    } else {
        st = NclInfoAddJson(w, "allocator", "null");
    }
    if (st != NCL_OK) return st;

    int nthreads, running;
    int64_t threshold;
    ncl_pool_info(&nthreads, &threshold, &running);
    sb_putf(&b, "{\"count\":%d,\"threshold\":%lld,\"pool_running\":%s,\"threader\":%s}",
            nthreads, (long long)threshold, running ? "true" : "false",
            ncl_node_state(&ncl_threader_node(NCL_SUBSYSTEM_BINARY)->list) & NCL_NODE_LINKED
                ? "true" : "false");
    if ((st = add_built(w, "threads", &b)) != NCL_OK) return st;
    /* The BLAS the Linalg kernels of float32 and float64 call (CMake's
       NCL_BLAS), or null when they run NCLib's own loop. */
#ifdef NCL_BLAS_NAME
    if ((st = NclInfoAddString(w, "blas", NCL_BLAS_NAME)) != NCL_OK) return st;
#else
    if ((st = NclInfoAddJson(w, "blas", "null")) != NCL_OK) return st;
#endif
    if (m->topo_ok)
        sb_putf(&b, "{\"packages\":%d,\"cores\":%d,\"pus\":%d,\"numa_nodes\":%d}", m->packages,
                m->cores, m->pus, m->numa_nodes);
    else
        sb_puts(&b, "null");
    if ((st = add_built(w, "topology", &b)) != NCL_OK) return st;

    sb_put(&b, "{", 1);
    int first = 1;
    for (int s = 0; s < NCL_SUBSYSTEM_COUNT; s++) {
        if (!ncl_subsystem_built((NclSubsystem)s)) continue;
        if (!first) sb_put(&b, ",", 1);
        first = 0;
        sb_json_string(&b, ncl_subsystem_name((NclSubsystem)s));
        sb_put(&b, ":", 1);
        put_chain_names(&b, &ncl_hook_heads[s]);
    }
    sb_put(&b, "}", 1);
    if ((st = add_built(w, "hooks", &b)) != NCL_OK) return st;

    sb_put(&b, "[", 1);
    ncl_kernel_foreach_hooked(put_kernel_chain, &b);
    sb_put(&b, "]", 1);
    return add_built(w, "kernel_hooks", &b);
}
