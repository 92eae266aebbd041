/*
 * error.c: status descriptions, the per-thread state (including the message
 * of the last failure), and shape formatting for messages. Nothing here
 * allocates: a failure must be reportable when memory is exhausted.
 */
#include <stdio.h>
#include <string.h>
#include "core/ncl_core.h"

_Thread_local ncl_thread_state ncl_tls NCL_TLS_FAST;
_Thread_local char ncl_last_error[NCL_ERROR_CAP];

const char *NclStatusString(NclStatus s)
{
    switch (s) {
#define NCL_X_(name, value, text) case name: return text;
        NCL_STATUS_LIST(NCL_X_)
#undef NCL_X_
    default: return "unknown status";
    }
}

const char *NclLastError(void) { return ncl_last_error; }

NclStatus NclSetError(NclStatus s, const char *message)
{
    if (message) snprintf(ncl_last_error, sizeof ncl_last_error, "%s", message);
    return s;
}

NclStatus ncl_error(NclStatus s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ncl_last_error, sizeof ncl_last_error, fmt, ap);
    va_end(ap);
    return s;
}

NclStatus ncl_array_tag_check(const char *who, const char *what, const NclArray *a)
{
    if (NCL_LIKELY(ncl_array_tag_any_ok(a))) return NCL_OK;
    return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s is not an NclArray (a freed array, or "
                     "another object)", who, what);
}

NclStatus ncl_array_local_check(const char *who, const char *what, const NclArray *a)
{
    if (NCL_LIKELY(a == NULL || !ncl_array_is_ext(a))) return NCL_OK;
    return ncl_error(NCL_ERR_UNSUPPORTED, "%s: %s is an external array (NclArrayFromExt): its "
                     "elements are not in this process's memory, and no hook in front of this "
                     "call handles it", who, what);
}

NclStatus ncl_array_check(const char *who, const char *what, const NclArray *a)
{
    if (NCL_LIKELY(ncl_array_tag_ok(a))) return NCL_OK;
    NclStatus st = ncl_array_tag_check(who, what, a);
    return st != NCL_OK ? st : ncl_array_local_check(who, what, a);
}

const char *ncl_shape_str(char *buf, int ndim, const int64_t *shape)
{
    size_t cap = NCL_SHAPE_STR, len = 0;
    buf[len++] = '(';
    for (int i = 0; i < ndim && len < cap; i++) {
        int w = snprintf(buf + len, cap - len, i ? ",%lld" : "%lld", (long long)shape[i]);
        if (w < 0 || (size_t)w >= cap - len) {
            /* Out of room: end with an ellipsis that still reads as a shape. */
            memcpy(buf + cap - 5, ",...", 4);
            len = cap - 1;
            break;
        }
        len += (size_t)w;
    }
    if (ndim == 1 && len + 1 < cap) buf[len++] = ',';
    if (len + 1 < cap) buf[len++] = ')';
    buf[len < cap ? len : cap - 1] = '\0';
    return buf;
}

/* ---- the accuracy tier, a per-thread setting ------------------------------------ */

NclStatus NclSetAccuracy(NclAccuracy accuracy)
{
    if (accuracy != NCL_ACCURACY_HIGH && accuracy != NCL_ACCURACY_FAST)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "NclSetAccuracy: unknown accuracy tier %d",
                         (int)accuracy);
    ncl_tls.accuracy = accuracy;
    return NCL_OK;
}

NclAccuracy NclGetAccuracy(void) { return ncl_tls.accuracy; }
