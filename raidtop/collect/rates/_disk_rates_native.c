/*
 * iostat -x rates from two reads of /proc/diskstats, in C: the compiled twin
 * of rates/disk.py's disk_rate_columns, operation for operation.
 *
 * At thousands of busy disks the 16 differences and 22 rate columns cost
 * CPython three times a raw read of the file (issue 30, item 2). The Python
 * code stays the reference and the fallback (raidtop/collect/native.py):
 * rate_columns() takes only the regular case and returns None for anything
 * else: a column that is not an unsigned 64-bit buffer of the right length,
 * a field printed in one read only, no interval, a change of 2**52 or more
 * (where a double no longer holds it exactly, and Python's int arithmetic
 * could round otherwise).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define COUNTERS 17
#define RATES 22
#define EXACT_LIMIT (UINT64_C(1) << 52)
#define U32 (UINT64_C(1) << 32)

/* Counter positions, in the kernel's order (COUNTER_FIELDS in disk_columns.py). */
enum { RD_IOS, RD_MERGES, RD_SEC, RD_TICKS, WR_IOS, WR_MERGES, WR_SEC, WR_TICKS, IN_FLIGHT,
       TOT_TICKS, RQ_TICKS, DC_IOS, DC_MERGES, DC_SEC, DC_TICKS, FL_IOS, FL_TICKS };
/* Rate positions (DISK_RATE_FIELDS in snapshot.py). */
enum { R_S, W_S, RKIB_S, WKIB_S, RRQM_S, WRQM_S, RRQM_PCT, WRQM_PCT, R_AWAIT, W_AWAIT, AQU_SZ,
       RAREQ_SZ, WAREQ_SZ, UTIL_PCT, D_S, DKIB_S, DRQM_S, DRQM_PCT, D_AWAIT, DAREQ_SZ, F_S, F_AWAIT };

static const char *const counter_names[COUNTERS] = {
    "rd_ios", "rd_merges", "rd_sectors", "rd_ticks", "wr_ios", "wr_merges", "wr_sectors", "wr_ticks",
    "ios_pgr", "tot_ticks", "rq_ticks", "dc_ios", "dc_merges", "dc_sectors", "dc_ticks", "fl_ios", "fl_ticks"};
static const char *const rate_names[RATES] = {
    "r_s", "w_s", "rkib_s", "wkib_s", "rrqm_s", "wrqm_s", "rrqm_pct", "wrqm_pct", "r_await_ms", "w_await_ms",
    "aqu_sz", "rareq_sz_kib", "wareq_sz_kib", "util_pct", "d_s", "dkib_s", "drqm_s", "drqm_pct",
    "d_await_ms", "dareq_sz_kib", "f_s", "f_await_ms"};

/* The millisecond fields the kernel prints with %u, which wrap at 2**32. */
static int
wraps(int field)
{
    return field == RD_TICKS || field == WR_TICKS || field == DC_TICKS || field == FL_TICKS ||
           field == TOT_TICKS || field == RQ_TICKS;
}

/* A column of ``count`` uint64 from an object with the buffer protocol; 0 if it is not one. */
static int
column_view(PyObject *object, Py_ssize_t count, Py_buffer *view)
{
    if (!PyObject_CheckBuffer(object))
        return 0;
    if (PyObject_GetBuffer(object, view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        PyErr_Clear();
        return 0;
    }
    if (view->itemsize != 8 || !view->format || (strcmp(view->format, "Q") && strcmp(view->format, "L")) ||
        view->len != count * 8) {
        PyBuffer_Release(view);
        return 0;
    }
    return 1;
}

typedef struct {
    Py_buffer now[COUNTERS], old[COUNTERS];
    int has_now[COUNTERS], has_old[COUNTERS];
    uint64_t *delta[COUNTERS];
} Inputs;

static void
inputs_release(Inputs *in)
{
    for (int f = 0; f < COUNTERS; f++) {
        if (in->has_now[f])
            PyBuffer_Release(&in->now[f]);
        if (in->has_old[f])
            PyBuffer_Release(&in->old[f]);
        PyMem_Free(in->delta[f]);
    }
}

/* The change of one counter per device, as rates/disk.py's _delta; 0 when out of the exact range. */
static int
deltas(Inputs *in, int field, Py_ssize_t count, int have_old, char *unknown)
{
    const uint64_t *now = in->now[field].buf;
    const uint64_t *old = have_old ? in->old[field].buf : NULL;
    uint64_t *out = in->delta[field] = PyMem_Malloc(sizeof(uint64_t) * (size_t)(count ? count : 1));
    if (!out) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        uint64_t change;
        if (!old || now[i] >= old[i])
            change = old ? now[i] - old[i] : now[i];
        else {
            uint64_t drop = old[i] - now[i];
            if (wraps(field) && drop >= U32 / 2 && drop <= U32)
                change = U32 - drop; /* a 32-bit wrap: the modular difference is the change */
            else {
                unknown[i] = 1; /* a reset: no honest rate this interval */
                change = 0;
            }
        }
        if (change >= EXACT_LIMIT)
            return 0;
        out[i] = change;
    }
    return 1;
}

static PyObject *zero; /* one 0.0 shared by every idle device's rates */

static PyObject *
number(double value)
{
    if (value == 0.0 && !signbit(value)) {
        Py_INCREF(zero);
        return zero;
    }
    return PyFloat_FromDouble(value);
}

/* The three shapes of iostat's arithmetic, each as rates/disk.py writes it. */
enum { PER_SECOND, HALVES_PER_SECOND, SHARE, PER_REQUEST, HALVES_PER_REQUEST, PER_MS, PCT_OF_MS };

static PyObject *
rate_column(int shape, const uint64_t *amount, const uint64_t *other, Py_ssize_t count, double s,
            const char *unknown)
{
    PyObject *out = PyList_New(count);
    if (!out)
        return NULL;
    double ms = s * 1000.0;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item;
        double a = (double)amount[i];
        if (unknown[i]) {
            Py_INCREF(Py_None);
            item = Py_None;
        }
        else if (shape == PER_SECOND)
            item = number(a / s);
        else if (shape == HALVES_PER_SECOND)
            item = number(a / 2.0 / s);
        else if (shape == PER_MS)
            item = number(a / ms);
        else if (shape == PCT_OF_MS)
            item = number(a / ms * 100.0);
        else if (shape == SHARE) { /* merged as a share of all requests (amount: merges, other: ios) */
            uint64_t total = amount[i] + other[i];
            if (total) {
                item = number(a / (double)total * 100.0);
            }
            else {
                Py_INCREF(Py_None);
                item = Py_None;
            }
        }
        else if (other[i]) /* PER_REQUEST, HALVES_PER_REQUEST: an average over the requests */
            item = number(a / (shape == PER_REQUEST ? 1.0 : 2.0) / (double)other[i]);
        else {
            Py_INCREF(Py_None);
            item = Py_None;
        }
        if (!item) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, item);
    }
    return out;
}

/*
 * rate_columns(now: tuple, before: tuple | None, interval_s: float) -> (tuple, list[int]) | None
 *
 * ``now`` and ``before`` hold the 17 counter columns of two reads of the
 * same devices in the same order (a column: an unsigned 64-bit buffer, or
 * None where the kernel does not print the field); ``before=None`` means
 * since each device appeared. Returns the 22 rate columns (a list per rate,
 * None where unknown for every device) and the positions whose counters
 * went back, or None for anything but this regular case.
 */
static PyObject *
rate_columns(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "rate_columns(now, before, interval_s)");
        return NULL;
    }
    PyObject *now = args[0], *before = args[1];
    double s = PyFloat_AsDouble(args[2]);
    if (s == -1.0 && PyErr_Occurred())
        return NULL;
    if (!PyTuple_Check(now) || PyTuple_GET_SIZE(now) != COUNTERS ||
        (before != Py_None && (!PyTuple_Check(before) || PyTuple_GET_SIZE(before) != COUNTERS)) ||
        !(s > 0.0) || !isfinite(s))
        Py_RETURN_NONE;
    PyObject *first = PyTuple_GET_ITEM(now, RD_IOS);
    if (!PyObject_CheckBuffer(first))
        Py_RETURN_NONE;
    Py_ssize_t count = PyObject_Length(first);
    if (count <= 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }

    Inputs in;
    memset(&in, 0, sizeof in);
    PyObject *result = NULL;
    char *unknown = PyMem_Calloc((size_t)count, 1);
    if (!unknown)
        return PyErr_NoMemory();
    int have_old = before != Py_None;
    for (int f = 0; f < COUNTERS; f++) {
        PyObject *column = PyTuple_GET_ITEM(now, f);
        PyObject *old = have_old ? PyTuple_GET_ITEM(before, f) : Py_None;
        if (column == Py_None && old == Py_None)
            continue; /* a field this kernel does not print */
        if (column == Py_None || (have_old && old == Py_None))
            goto decline; /* printed in one read only: the Python path words it */
        if (!(in.has_now[f] = column_view(column, count, &in.now[f])))
            goto decline;
        if (have_old && !(in.has_old[f] = column_view(old, count, &in.old[f])))
            goto decline;
        if (f == IN_FLIGHT)
            continue; /* a gauge, not a counter */
        int made = deltas(&in, f, count, have_old, unknown);
        if (made < 0)
            goto done;
        if (!made)
            goto decline;
    }
    for (int f = RD_IOS; f <= RQ_TICKS; f++)
        if (!in.has_now[f])
            goto decline; /* without the core fields every rate is unknown: the Python path */

    PyObject *columns = PyTuple_New(RATES);
    if (!columns)
        goto done;
    for (int r = 0; r < RATES; r++) {
        Py_INCREF(Py_None);
        PyTuple_SET_ITEM(columns, r, Py_None);
    }
    struct { int rate, shape, amount, other; } plan[RATES] = {
        {R_S, PER_SECOND, RD_IOS, -1},           {W_S, PER_SECOND, WR_IOS, -1},
        {RKIB_S, HALVES_PER_SECOND, RD_SEC, -1}, {WKIB_S, HALVES_PER_SECOND, WR_SEC, -1},
        {RRQM_S, PER_SECOND, RD_MERGES, -1},     {WRQM_S, PER_SECOND, WR_MERGES, -1},
        {RRQM_PCT, SHARE, RD_MERGES, RD_IOS},    {WRQM_PCT, SHARE, WR_MERGES, WR_IOS},
        {R_AWAIT, PER_REQUEST, RD_TICKS, RD_IOS}, {W_AWAIT, PER_REQUEST, WR_TICKS, WR_IOS},
        {AQU_SZ, PER_MS, RQ_TICKS, -1},          {RAREQ_SZ, HALVES_PER_REQUEST, RD_SEC, RD_IOS},
        {WAREQ_SZ, HALVES_PER_REQUEST, WR_SEC, WR_IOS}, {UTIL_PCT, PCT_OF_MS, TOT_TICKS, -1},
        {D_S, PER_SECOND, DC_IOS, -1},           {DKIB_S, HALVES_PER_SECOND, DC_SEC, -1},
        {DRQM_S, PER_SECOND, DC_MERGES, -1},     {DRQM_PCT, SHARE, DC_MERGES, DC_IOS},
        {D_AWAIT, PER_REQUEST, DC_TICKS, DC_IOS}, {DAREQ_SZ, HALVES_PER_REQUEST, DC_SEC, DC_IOS},
        {F_S, PER_SECOND, FL_IOS, -1},           {F_AWAIT, PER_REQUEST, FL_TICKS, FL_IOS},
    };
    int discards = in.has_now[DC_IOS] && in.has_now[DC_MERGES] && in.has_now[DC_SEC] && in.has_now[DC_TICKS];
    for (int k = 0; k < RATES; k++) {
        int r = plan[k].rate;
        if (r >= D_S && r <= DAREQ_SZ && !discards)
            continue; /* a kernel before 4.18 counts no discards */
        if (!in.delta[plan[k].amount] || (plan[k].other >= 0 && !in.delta[plan[k].other]))
            continue; /* no flushes before 5.5 */
        PyObject *column = rate_column(plan[k].shape, in.delta[plan[k].amount],
                                       plan[k].other >= 0 ? in.delta[plan[k].other] : NULL, count, s, unknown);
        if (!column) {
            Py_DECREF(columns);
            goto done;
        }
        Py_DECREF(Py_None);
        PyTuple_SET_ITEM(columns, r, column); /* in place of the None put there above */
    }
    PyObject *went_back = PyList_New(0);
    if (!went_back) {
        Py_DECREF(columns);
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        if (!unknown[i])
            continue;
        PyObject *index = PyLong_FromSsize_t(i);
        if (!index || PyList_Append(went_back, index) < 0) {
            Py_XDECREF(index);
            Py_DECREF(went_back);
            Py_DECREF(columns);
            goto done;
        }
        Py_DECREF(index);
    }
    result = Py_BuildValue("(NN)", columns, went_back);
    goto done;

decline:
    PyErr_Clear();
    Py_INCREF(Py_None);
    result = Py_None;
done:
    inputs_release(&in);
    PyMem_Free(unknown);
    return result;
}
/* ------------------------------------------------------------------ module */

static PyMethodDef methods[] = {
    {"rate_columns", (PyCFunction)(void (*)(void))rate_columns, METH_FASTCALL,
     "rate_columns(now, before, interval_s) -> (columns, went_back) | None: iostat -x rates per device."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_disk_rates_native", "iostat -x rates per device, in C.", -1, methods, NULL, NULL, NULL, NULL,
};

static PyObject *
names_tuple(const char *const *names, int count)
{
    PyObject *out = PyTuple_New(count);
    for (int k = 0; out && k < count; k++) {
        PyObject *name = PyUnicode_FromString(names[k]);
        if (!name) {
            Py_CLEAR(out);
            break;
        }
        PyTuple_SET_ITEM(out, k, name);
    }
    return out;
}

PyMODINIT_FUNC
PyInit__disk_rates_native(void)
{
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    zero = PyFloat_FromDouble(0.0);
    if (!zero || PyModule_AddObject(m, "COUNTER_FIELDS", names_tuple(counter_names, COUNTERS)) < 0 ||
        PyModule_AddObject(m, "RATE_FIELDS", names_tuple(rate_names, RATES)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
