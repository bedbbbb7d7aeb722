/*
 * /proc/diskstats to columns, in C: the compiled twin of diskstats.py's _regular.
 *
 * At thousands of busy disks, CPython's split and int() alone cost three
 * times a raw read of the file (issue 30, item 2); here the text is scanned
 * once. The Python code stays the reference and the fallback
 * (raidtop/collect/native.py): parse() takes only the regular case and
 * returns None for anything else, so the Python path decides every irregular
 * input and words its notes: a text that is not ASCII, a byte other than a
 * digit, a printable name character, space, tab or newline, a line whose
 * field count differs from the first's or is not one the kernel prints (14,
 * 18, 20), a number of 2**64 or more. The caller's read is bounded in size.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define MAX_FIELDS 20
/* 2**64 - 1 is 1844674407370955161 * 10 + 5: a number past it does not fit. */
#define MAX_TENTH (UINT64_MAX / 10)
#define MAX_LAST_DIGIT (UINT64_MAX % 10)

static int
is_blank(unsigned char c)
{
    return c == ' ' || c == '\t';
}

/*
 * parse(text: str) -> (width, names: list[str], data: bytes) | None
 *
 * data holds width - 1 columns of len(names) native uint64 each, one after
 * the other: major, minor, then the counters in the kernel's order.
 */
static PyObject *
parse(PyObject *Py_UNUSED(module), PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "parse() takes a str");
        return NULL;
    }
#if PY_VERSION_HEX < 0x030C0000 /* every str is ready from 3.12 on, where the call is deprecated */
    if (PyUnicode_READY(text) < 0)
        return NULL;
#endif
    if (!PyUnicode_IS_ASCII(text))
        Py_RETURN_NONE;
    const unsigned char *s = PyUnicode_1BYTE_DATA(text);
    Py_ssize_t len = PyUnicode_GET_LENGTH(text);

    Py_ssize_t lines = 0;
    for (const unsigned char *at = s, *end = s + len; (at = memchr(at, '\n', (size_t)(end - at))); at++)
        lines++;
    if (len && s[len - 1] != '\n')
        lines++;
    if (!lines)
        Py_RETURN_NONE;

    /* The first line's field count sets the width (and the size of the result). */
    int width = 0;
    for (Py_ssize_t i = 0; i < len && s[i] != '\n'; i++)
        width += !is_blank(s[i]) && (i == 0 || is_blank(s[i - 1]));
    if (width != 14 && width != 18 && width != 20)
        Py_RETURN_NONE;
    PyObject *names = PyList_New(lines);
    if (!names)
        return NULL;
    PyObject *bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sizeof(uint64_t) * (width - 1) * lines);
    if (!bytes) {
        Py_DECREF(names);
        return NULL;
    }
    uint64_t *data = (uint64_t *)PyBytes_AS_STRING(bytes);
    Py_ssize_t line = 0, i = 0;
    while (line < lines) {
        uint64_t *row = data + line;  /* this line's value of column c is row[c * lines] */
        const unsigned char *name = NULL;
        Py_ssize_t name_len = 0;
        int fields = 0;
        while (i < len && s[i] != '\n') {
            if (is_blank(s[i])) {
                i++;
                continue;
            }
            if (fields == width)
                goto irregular;
            Py_ssize_t start = i;
            while (i < len && s[i] != '\n' && !is_blank(s[i]))
                i++;
            if (fields == 2) {
                name = s + start;
                name_len = i - start;
                for (Py_ssize_t k = start; k < i; k++)
                    if (s[k] < 0x21 || s[k] > 0x7e)
                        goto irregular; /* \r, \v, \f and other controls: Python's splitlines() decides */
            }
            else {
                uint64_t value = 0;
                for (Py_ssize_t k = start; k < i; k++) {
                    unsigned digit = (unsigned)s[k] - '0';
                    if (digit > 9 || value > MAX_TENTH || (value == MAX_TENTH && digit > MAX_LAST_DIGIT))
                        goto irregular; /* not a plain number, or 2**64 or more */
                    value = value * 10 + digit;
                }
                row[(fields < 2 ? fields : fields - 1) * lines] = value;
            }
            fields++;
        }
        i++; /* past the newline (or the end) */
        if (fields != width)
            goto irregular;
        PyObject *text_name = PyUnicode_FromStringAndSize((const char *)name, name_len);
        if (!text_name) {
            Py_DECREF(bytes);
            Py_DECREF(names);
            return NULL;
        }
        PyList_SET_ITEM(names, line, text_name);
        line++;
    }
    return Py_BuildValue("(iNN)", width, names, bytes);

irregular:
    Py_DECREF(bytes);
    Py_DECREF(names);
    Py_RETURN_NONE;
}

/*
 * changed_rows(data: bytes, before: bytes, count: int) -> list[int] | None
 *
 * The rows (of ``count``) in which any column of two parse() results
 * differs; None when the two are not the same shape.
 */
static PyObject *
changed_rows(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyBytes_Check(args[0]) || !PyBytes_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "changed_rows(data: bytes, before: bytes, count: int)");
        return NULL;
    }
    Py_ssize_t count = PyLong_AsSsize_t(args[2]);
    if (count == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t size = PyBytes_GET_SIZE(args[0]);
    if (count <= 0 || size != PyBytes_GET_SIZE(args[1]) || size % ((Py_ssize_t)sizeof(uint64_t) * count))
        Py_RETURN_NONE;
    Py_ssize_t columns = size / (Py_ssize_t)sizeof(uint64_t) / count;
    const uint64_t *now = (const uint64_t *)PyBytes_AS_STRING(args[0]);
    const uint64_t *old = (const uint64_t *)PyBytes_AS_STRING(args[1]);
    PyObject *out = PyList_New(0);
    if (!out)
        return NULL;
    for (Py_ssize_t row = 0; row < count; row++) {
        for (Py_ssize_t c = 0; c < columns; c++) {
            if (now[c * count + row] != old[c * count + row]) {
                PyObject *index = PyLong_FromSsize_t(row);
                if (!index || PyList_Append(out, index) < 0) {
                    Py_XDECREF(index);
                    Py_DECREF(out);
                    return NULL;
                }
                Py_DECREF(index);
                break;
            }
        }
    }
    return out;
}
/* ------------------------------------------------------------------ module */

static PyMethodDef methods[] = {
    {"parse", parse, METH_O, "parse(text) -> (width, names, data) | None: /proc/diskstats as columns."},
    {"changed_rows", (PyCFunction)(void (*)(void))changed_rows, METH_FASTCALL,
     "changed_rows(data, before, count) -> list[int] | None: rows that differ between two parse() results."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_diskstats_native", "/proc/diskstats as columns, in C.", -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__diskstats_native(void)
{
    return PyModule_Create(&module);
}
