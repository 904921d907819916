/* The Seven and a Half review's expectimax (`review.py`: `Banker` and `Player`), compiled: the same hands,
 * visited in the same order, and the same float operations in the same order, so that every figure comes out
 * the same to the last bit, with the same `searched` counts.
 *
 * Why by hand: a player's hit or stand is valued by solving the banker's best play (over every hand the
 * banker can come to hold, `Table.graph`, 222 hands without a wild card) once for every hand the player can
 * come to hold, tens to hundreds of banker solves a decision; in Python that is about 100 ms a decision, and
 * issue 32 allows 1 ms. No library solves Seven and a Half (it is a small exact expectimax over card counts,
 * with this project's own rules and settlement), so the Python search is ported as it is, and
 * `tests/projections/test_seven_and_a_half_compiled_review.py` holds the two versions together. Where no
 * compiler built this module, `review.py` searches in Python and gives the same figures, only slower.
 *
 * `review.Table.compiled` numbers every hand of the banker's graph (its "states", largest first, ids 0 to
 * states - 1) and every hand one card past one of them (busts, or hands past the deck's count of a class),
 * and every outcome (status, kind, total) one of them can have. From Python it gets each hand's counts by
 * class, its outcome, each state's child by class, the payoff of each player outcome against each banker
 * outcome (what the player wins per chip staked), and whether each outcome is open or a bust.
 *
 * Two shortcuts, neither of which changes a bit of any figure:
 * - A banker's row (`Banker.rows`: its chips per unit of each hidden class's count) holds stakes times
 *   payoffs, integers, and so does its known part; `Banker.stand_value`'s float sum of row entries times
 *   counts is then exact, whatever order it adds them in (every partial sum is an integer far below 2^53:
 *   stakes and payoffs are bounded below), so it is summed here in 64-bit integers, and a bust child's sum is
 *   its parent's less one row entry. Outcomes the player's payoffs cannot tell apart (every bust) share a row.
 * - The stands of a player's hand are kept from one decision of that hand to its next (when the same hand
 *   hits again, the pools past each hand it can come to hold are the same), with the hands they searched, so
 *   that `searched` still counts them as `Player.stand` does.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>
#include "_fastreview_search.h"

/* --------------------------------------------------------------------------- the Python type */

static int ints_from(PyObject *object, const char *what, int *out, Py_ssize_t size, int low, int high) {
    PyObject *seq = PySequence_Fast(object, what);
    if (seq == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != size) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s: %zd ints expected", what, size);
        return -1;
    }
    for (Py_ssize_t i = 0; i < size; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        if (v < low || v > high) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "%s: %ld is out of range", what, v);
            return -1;
        }
        out[i] = (int)v;
    }
    Py_DECREF(seq);
    return 0;
}

static void Hands_free(Hands *self) {
    free(self->counts);
    free(self->outcome);
    free(self->child);
    free(self->payoff);
    free(self->flags);
    free(self->row_of);
    free(self->bust_row);
    free(self->rows);
    free(self->fixed);
    free(self->values);
    free(self->stands);
    free(self->played);
    free(self->played_at);
    free(self->valued);
    free(self->valued_at);
    free(self->stood);
    free(self->stood_searched);
    free(self->stood_known);
    self->counts = self->outcome = self->child = self->payoff = self->row_of = self->bust_row = NULL;
    self->flags = self->stands = self->stood_known = NULL;
    self->rows = self->stood_searched = NULL;
    self->fixed = self->values = self->played = self->valued = self->stood = NULL;
    self->played_at = self->valued_at = NULL;
    self->keyed = 0;
}

static int Hands_init(Hands *self, PyObject *args, PyObject *kwds) {
    PyObject *counts, *outcome, *child, *payoff, *flags;
    int empty;
    static char *names[] = {"counts", "outcome", "child", "payoff", "flags", "empty", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOOi", names, &counts, &outcome, &child, &payoff, &flags, &empty))
        return -1;
    Py_ssize_t hands = PyObject_Length(outcome), all = PyObject_Length(child), outcomes = PyObject_Length(flags);
    if (hands < 0 || all < 0 || outcomes < 0) return -1;
    Py_ssize_t states = all / CLASSES;
    if (hands < 1 || states < 1 || states > hands || all % CLASSES || outcomes < 1 || hands > 1 << 20 ||
        outcomes > 1 << 10 || empty < 0 || empty >= states) {
        PyErr_SetString(PyExc_ValueError, "a graph of hands and outcomes is expected");
        return -1;
    }
    Hands_free(self);
    self->hands = (int)hands;
    self->states = (int)states;
    self->outcomes = (int)outcomes;
    self->empty = empty;
    size_t h = (size_t)hands, s = (size_t)states, m = (size_t)outcomes;
    self->counts = malloc(sizeof(int) * h * CLASSES);
    self->outcome = malloc(sizeof(int) * h);
    self->child = malloc(sizeof(int) * s * CLASSES);
    self->payoff = malloc(sizeof(int) * m * m);
    self->flags = malloc(m);
    self->row_of = malloc(sizeof(int) * m);
    self->bust_row = malloc(sizeof(int) * s * CLASSES);
    self->rows = malloc(sizeof(long long) * m * CLASSES);
    self->fixed = malloc(sizeof(double) * m);
    self->values = malloc(sizeof(double) * s);
    self->stands = malloc(s);
    self->played = malloc(sizeof(double) * h);
    self->played_at = calloc(h, sizeof(unsigned));
    self->valued = malloc(sizeof(double) * s);
    self->valued_at = calloc(s, sizeof(unsigned));
    self->stood = malloc(sizeof(double) * s);
    self->stood_searched = malloc(sizeof(long long) * s);
    self->stood_known = calloc(s, 1);
    self->play_stamp = self->value_stamp = 0;
    int *flag_ints = malloc(sizeof(int) * m);
    if (!self->counts || !self->outcome || !self->child || !self->payoff || !self->flags || !self->row_of || !self->bust_row ||
        !self->rows || !self->fixed || !self->values || !self->stands || !self->played || !self->played_at ||
        !self->valued || !self->valued_at || !self->stood || !self->stood_searched || !self->stood_known ||
        !flag_ints) {
        free(flag_ints);
        Hands_free(self);
        PyErr_NoMemory();
        return -1;
    }
    int bad = ints_from(counts, "counts", self->counts, hands * CLASSES, 0, MAX_COUNT) < 0 ||
              ints_from(outcome, "outcome", self->outcome, hands, 0, (int)outcomes - 1) < 0 ||
              ints_from(child, "child", self->child, states * CLASSES, 0, (int)hands - 1) < 0 ||
              ints_from(payoff, "payoff", self->payoff, outcomes * outcomes, -MAX_PAYOFF, MAX_PAYOFF) < 0 ||
              ints_from(flags, "flags", flag_ints, outcomes, 0, IS_OPEN | IS_BUST) < 0;
    for (size_t o = 0; !bad && o < m; o++) self->flags[o] = (unsigned char)flag_ints[o];
    free(flag_ints);
    if (bad) {
        Hands_free(self);
        return -1;
    }
    for (size_t o = 0; o < m; o++) {
        size_t same = 0;
        for (; same < o; same++) {
            size_t p = 0;
            while (p < m && self->payoff[p * m + same] == self->payoff[p * m + o]) p++;
            if (p == m) break;
        }
        self->row_of[o] = (int)same;
    }
    self->busts = -2;
    for (size_t i = 0; i < s * CLASSES; i++) {
        int after = self->outcome[self->child[i]];
        self->bust_row[i] = self->flags[after] & IS_BUST ? self->row_of[after] : -1;
    }
    for (size_t o = 0; o < m; o++)
        if (self->flags[o] & IS_BUST) self->busts = self->busts == -2 || self->busts == self->row_of[o] ? self->row_of[o] : -1;
    if (self->busts == -2) self->busts = -1;
    return 0;
}

static void Hands_dealloc(Hands *self) {
    Hands_free(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int ready(Hands *self) {
    if (self->counts == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Hands was not initialised");
        return 0;
    }
    return 1;
}

static int id_in(Hands *self, int id, int states_only) {
    if (id < 0 || id >= (states_only ? self->states : self->hands)) {
        PyErr_SetString(PyExc_ValueError, "a hand id out of range");
        return 0;
    }
    return 1;
}

static PyObject *Hands_banker(Hands *self, PyObject *args) {
    PyObject *hands, *pool_object;
    int cards;
    if (!PyArg_ParseTuple(args, "OOi", &hands, &pool_object, &cards)) return NULL;
    if (!ready(self) || !id_in(self, cards, 1)) return NULL;
    int pool[CLASSES];
    if (ints_from(pool_object, "pool", pool, CLASSES, -MAX_COUNT, MAX_COUNT) < 0) return NULL;
    PyObject *seq = PySequence_Fast(hands, "hands must be a sequence of (stake, shown, hidden)");
    if (seq == NULL) return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    long long *stakes = malloc(sizeof(long long) * (size_t)(count + 1));
    int *shown = malloc(sizeof(int) * (size_t)(count + 1));
    int *hidden = malloc(sizeof(int) * (size_t)(count + 1));
    if (!stakes || !shown || !hidden) {
        free(stakes), free(shown), free(hidden);
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    long long total = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        int flag;
        int ok = PyArg_ParseTuple(item, "Lip", &stakes[i], &shown[i], &flag) && id_in(self, shown[i], 1);
        if (ok) {
            ok = stakes[i] >= -MAX_STAKES && stakes[i] <= MAX_STAKES;
            total += ok ? llabs(stakes[i]) : 0;
            ok = ok && total <= MAX_STAKES;
        }
        if (!ok) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "stakes out of range");
            free(stakes), free(shown), free(hidden);
            Py_DECREF(seq);
            return NULL;
        }
        hidden[i] = flag;
    }
    Py_DECREF(seq);
    /* the rows, as `Banker.__init__` sums them: the known hands' payoffs, the hidden ones' by class */
    int m = self->outcomes;
    for (int o = 0; o < m; o++) {
        if (self->row_of[o] != o) continue;
        long long known = 0;
        long long *row = self->rows + (size_t)o * CLASSES;
        for (int c = 0; c < CLASSES; c++) row[c] = 0;
        for (Py_ssize_t i = 0; i < count; i++) {
            if (!hidden[i]) {
                known += stakes[i] * self->payoff[(size_t)self->outcome[shown[i]] * m + o];
                continue;
            }
            const int *child = self->child + (size_t)shown[i] * CLASSES;
            for (int c = 0; c < CLASSES; c++) row[c] -= stakes[i] * self->payoff[(size_t)self->outcome[child[c]] * m + o];
        }
        self->fixed[o] = -(double)known;
    }
    free(stakes), free(shown), free(hidden);
    long long searched = solve(self, pool);
    if (searched < 0) {
        PyErr_SetString(PyExc_RuntimeError, "a banker's hand outside its graph");
        return NULL;
    }
    /* `Banker.stand` and `Banker.hit` on `cards` */
    const int *hand = self->counts + (size_t)cards * CLASSES;
    const int *child = self->child + (size_t)cards * CLASSES;
    int left[CLASSES], n = 0;
    for (int c = 0; c < CLASSES; c++) {
        left[c] = pool[c] - hand[c];
        n += left[c];
    }
    int r = self->row_of[self->outcome[cards]];
    double stand = stand_value(self, r, dot(self->rows + (size_t)r * CLASSES, left), n), hit;
    if (!n) {
        hit = stand;
    } else {
        hit = 0.0;
        for (int c = 0; c < CLASSES; c++) {
            int k = left[c];
            if (!k) continue;
            int id = child[c];
            if (id < self->states && self->stands[id] != UNSOLVED) {
                hit += k * self->values[id];
            } else { /* a bust */
                int b = self->row_of[self->outcome[id]];
                left[c] = k - 1;
                hit += k * stand_value(self, b, dot(self->rows + (size_t)b * CLASSES, left), n - 1);
                left[c] = k;
            }
        }
        hit /= n;
    }
    return Py_BuildValue("ddL", stand, hit, searched);
}

static PyObject *Hands_player(Hands *self, PyObject *args) {
    long long stake;
    PyObject *pool, *banker_pool;
    int hidden, shown, hand;
    if (!PyArg_ParseTuple(args, "LOOpii", &stake, &pool, &banker_pool, &hidden, &shown, &hand)) return NULL;
    if (!ready(self) || !id_in(self, shown, 1) || !id_in(self, hand, 1)) return NULL;
    if (stake < -MAX_STAKES || stake > MAX_STAKES) {
        PyErr_SetString(PyExc_ValueError, "a stake out of range");
        return NULL;
    }
    Player p;
    memset(&p, 0, sizeof(p));
    p.h = self;
    p.stake = stake;
    p.hidden = hidden;
    if (ints_from(pool, "pool", p.pool, CLASSES, -MAX_COUNT, MAX_COUNT) < 0 ||
        ints_from(banker_pool, "banker_pool", p.banker_pool, CLASSES, -MAX_COUNT, MAX_COUNT) < 0)
        return NULL;
    memcpy(p.shown0, self->counts + (size_t)shown * CLASSES, sizeof(p.shown0));
    /* the same hand as the last search's, one or more hits on: its stands are the same */
    long long key[KEY];
    key[0] = stake;
    key[1] = hidden;
    for (int c = 0; c < CLASSES; c++) {
        key[2 + c] = self->counts[(size_t)hand * CLASSES + c] - p.shown0[c];
        key[2 + CLASSES + c] = p.pool[c] + p.shown0[c];
        key[2 + 2 * CLASSES + c] = p.banker_pool[c] + p.shown0[c];
    }
    if (!self->keyed || memcmp(key, self->key, sizeof(key))) {
        memset(self->stood_known, 0, (size_t)self->states);
        memcpy(self->key, key, sizeof(key));
        self->keyed = 1;
    }
    next_stamp(&self->value_stamp, self->valued_at, self->states);
    /* `Player.start` */
    double stand = player_stand(&p, shown, hand);
    double hit = p.error == NULL ? player_hit(&p, shown, hand) : 0.0;
    if (p.error != NULL) {
        self->keyed = 0;
        memset(self->stood_known, 0, (size_t)self->states);
        PyErr_SetString(p.error_type, p.error);
        return NULL;
    }
    return Py_BuildValue("ddL", stand, hit, p.searched);
}

static PyMethodDef Hands_methods[] = {
    {"banker", (PyCFunction)Hands_banker, METH_VARARGS,
     "banker(hands, pool, cards): (stand, hit, searched) of `review.Banker(table, hands, pool)` on hand `cards`, "
     "each hand (stake, its face-up cards' id, whether a card of it lies face down)"},
    {"player", (PyCFunction)Hands_player, METH_VARARGS,
     "player(stake, pool, banker_pool, hidden, shown, hand): (stand, hit, searched) of `review.Player.start`, "
     "`shown` the face-up cards' id, `hand` the whole hand's"},
    {NULL, NULL, 0, NULL},
};

static PyObject *Hands_get_states(Hands *self, void *closure) {
    (void)closure;
    return PyLong_FromLong(self->states);
}

static PyGetSetDef Hands_getset[] = {
    {"states", (getter)Hands_get_states, NULL, "hands in the banker's graph", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject HandsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "projections.games.seven_and_a_half._fastreview.Hands",
    .tp_doc = "Hands(counts, outcome, child, payoff, flags, empty): a table's hands, numbered (see review.Table)",
    .tp_basicsize = sizeof(Hands),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Hands_init,
    .tp_dealloc = (destructor)Hands_dealloc,
    .tp_methods = Hands_methods,
    .tp_getset = Hands_getset,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_fastreview",
    .m_doc = "Seven and a Half's review expectimax, compiled (see review.py)",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__fastreview(void) {
    if (PyType_Ready(&HandsType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&HandsType);
    if (PyModule_AddObject(m, "Hands", (PyObject *)&HandsType) < 0) {
        Py_DECREF(&HandsType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
