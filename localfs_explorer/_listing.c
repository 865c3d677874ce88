/* One directory listing as three flat values, for the exposure walk.
 *
 * list_dir(path) -> (names, types, inodes)
 *
 *   names   list of str: each entry's name as os.scandir gives it (os.fsdecode of the
 *           bytes readdir returns), "." and ".." left out;
 *   types   bytes: the entry's d_type, one byte per name (0 where the system gives none);
 *   inodes  list of int: the entry's d_ino, which os.DirEntry.inode() returns.
 *
 * The walk asks each os.DirEntry the same three things one method call at a time; this
 * asks readdir once per entry and builds no DirEntry at all. It decides nothing: what a
 * type means, and whether the listing's inode is the one stat reports, stays with the
 * Python caller. Errors are raised as os.scandir raises them (OSError with the path).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <dirent.h>
#include <errno.h>
#include <string.h>

static PyObject *
list_dir(PyObject *module, PyObject *arg)
{
    PyObject *encoded = NULL;
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "list_dir() takes a str path");
        return NULL;
    }
    /* Refuses an embedded NUL with ValueError, as os.scandir does. */
    if (!PyUnicode_FSConverter(arg, &encoded)) {
        return NULL;
    }

    DIR *dir;
    int open_error;
    Py_BEGIN_ALLOW_THREADS
    dir = opendir(PyBytes_AS_STRING(encoded));
    open_error = errno;
    Py_END_ALLOW_THREADS
    if (dir == NULL) {
        errno = open_error;
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, arg);
        Py_DECREF(encoded);
        return NULL;
    }

    PyObject *names = PyList_New(0);
    PyObject *inodes = PyList_New(0);
    char *types = NULL;
    Py_ssize_t count = 0, room = 0;
    PyObject *result = NULL;
    if (names == NULL || inodes == NULL) {
        goto done;
    }

    for (;;) {
        struct dirent *entry;
        int error;
        Py_BEGIN_ALLOW_THREADS
        errno = 0;
        entry = readdir(dir);
        error = errno;
        Py_END_ALLOW_THREADS
        if (entry == NULL) {
            if (error != 0) {
                errno = error;
                PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, arg);
                goto done;
            }
            break;
        }
        const char *name = entry->d_name;
        if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) {
            continue;
        }
        if (count == room) {
            Py_ssize_t larger = room ? room * 2 : 256;
            char *grown = PyMem_Realloc(types, (size_t)larger);
            if (grown == NULL) {
                PyErr_NoMemory();
                goto done;
            }
            types = grown;
            room = larger;
        }
        PyObject *text = PyUnicode_DecodeFSDefault(name);
        if (text == NULL) {
            goto done;
        }
        int failed = PyList_Append(names, text);
        Py_DECREF(text);
        if (failed) {
            goto done;
        }
        PyObject *number = PyLong_FromUnsignedLongLong((unsigned long long)entry->d_ino);
        if (number == NULL) {
            goto done;
        }
        failed = PyList_Append(inodes, number);
        Py_DECREF(number);
        if (failed) {
            goto done;
        }
#ifdef DT_UNKNOWN
        types[count] = (char)entry->d_type;
#else
        types[count] = 0;
#endif
        count++;
    }

    PyObject *type_bytes = PyBytes_FromStringAndSize(types ? types : "", count);
    if (type_bytes != NULL) {
        result = PyTuple_Pack(3, names, type_bytes, inodes);
        Py_DECREF(type_bytes);
    }

done:
    Py_BEGIN_ALLOW_THREADS
    closedir(dir);
    Py_END_ALLOW_THREADS
    PyMem_Free(types);
    Py_XDECREF(names);
    Py_XDECREF(inodes);
    Py_DECREF(encoded);
    return result;
}

static PyMethodDef listing_methods[] = {
    {"list_dir", list_dir, METH_O,
     "list_dir(path) -> (names, types, inodes): one readdir pass over a directory."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef listing_module = {
    PyModuleDef_HEAD_INIT,
    "localfs_explorer._listing",
    "A directory listing as names, d_type bytes and inode numbers, in one pass.",
    -1,
    listing_methods,
};

PyMODINIT_FUNC
PyInit__listing(void)
{
    return PyModule_Create(&listing_module);
}
