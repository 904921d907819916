/* The exact Schnapsen search of `_solver.py` (`Solver.value`), compiled: the same positions, the same moves
 * in the same order (`Solver.search_moves`), the same bounds and the same transposition tables, in C.
 *
 * Why by hand: a review of a hand that ended before the talon ran out solves every decision over several
 * talon orders from the first lead on, hundreds of thousands of positions; the pure Python search takes
 * seconds for that, issue 32 allows 100 ms. No library solves Schnapsen (the double-dummy solvers are
 * bridge's), so the search is ported as it is, and `tests/projections/test_schnapsen_compiled_search.py`
 * holds the two versions together over random positions (the same values, the same positions expanded). Where
 * no compiler built this module, `_solver.py` searches in Python and gives the same values, only slower.
 *
 * A position is the 15-int tuple of `_solver.Node`; the table packs it, its bounds and its best move into two
 * 64-bit words. Each search has two tables: its own for the positions that may still draw a card, and one for the
 * settled positions (the talon closed or used up, nothing more drawn: their values do not depend on the talon's
 * order), which the searches of one hand's talon orders share (`Search(order, trump, shared=other)`).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MARRIAGE 100
#define EXCHANGE (-1)
#define CLOSE (-2)
#define TARGET 66
#define NO_HINT (-1000)
#define MAX_MOVES 24

#if defined(__GNUC__) || defined(__clang__)
#define POPCOUNT(m) __builtin_popcount((unsigned)(m))
#define HIGHEST(m) (31 - __builtin_clz((unsigned)(m))) /* the highest bit set of a nonzero mask */
#define PREFETCH(p) __builtin_prefetch(p)
#else
static int POPCOUNT(int m) {
    int n = 0;
    for (unsigned u = (unsigned)m; u; u &= u - 1) n++;
    return n;
}
static int HIGHEST(int m) {
    int i = -1;
    while (m) {
        m >>= 1;
        i++;
    }
    return i;
}
#define PREFETCH(p) ((void)(p))
#endif

static const int POINTS[20] = {2, 3, 4, 10, 11, 2, 3, 4, 10, 11, 2, 3, 4, 10, 11, 2, 3, 4, 10, 11};

typedef struct {
    int h0, h1, drawn, bottom, closer, op, ot, leader, lead, p0, p1, q0, q1, won, declared;
} Node;

#include "_fasttable.h"

typedef struct {
    PyObject_HEAD
    int order[9];
    int trump;
    int trump_mask;
    Table *open;    /* the positions that may still draw a card: this talon order's own */
    Table *settled; /* the rest (the talon closed or used up): shared by the searches of one hand */
    long long searched;
} Search;

static inline int suit_mask(int s) { return 0x1f << (5 * s); }
static inline int above(int i) { return suit_mask(i / 5) & ~((1 << (i + 1)) - 1); }

/* the points of each 5-bit chunk of a mask (one suit's cards), filled when the module loads */
static int chunk_points[32];
static int points_of(int m) {
    return chunk_points[m & 31] + chunk_points[m >> 5 & 31] + chunk_points[m >> 10 & 31] +
           chunk_points[m >> 15 & 31];
}

/* the cards of `m` within suit `s`, weakest first, appended to out */
static int push_suit(int *out, int n, int m, int s) {
    for (int b = 0; b < 5; b++)
        if (m >> (5 * s + b) & 1) out[n++] = 5 * s + b;
    return n;
}

/* the cards of `m`, weakest rank first across suits (the jacks, then the queens, ...) */
static int push_by_rank(int *out, int n, int m) {
    for (int b = 0; b < 5; b++)
        for (int s = 0; s < 4; s++)
            if (m >> (5 * s + b) & 1) out[n++] = 5 * s + b;
    return n;
}

/* `_solver.Solver.search_moves` */
static int moves(const Search *self, const Node *x, int *out) {
    int n = 0;
    int trump = self->trump;
    if (x->lead >= 0) {
        int hand = x->leader == 0 ? x->h1 : x->h0;
        int led = x->lead / 5;
        int same = hand & suit_mask(led);
        int trumps = led != trump ? hand & self->trump_mask : 0;
        int higher = same & above(x->lead);
        if (x->closer >= 0 || x->drawn >= 10) {
            if (same) {
                if (higher) {
                    n = push_suit(out, n, higher, led);
                    return push_suit(out, n, same ^ higher, led);
                }
                return push_suit(out, n, same, led);
            }
            if (trumps) return push_suit(out, n, trumps, trump);
            return push_by_rank(out, n, hand);
        }
        if (higher) n = push_suit(out, n, higher, led);
        if (trumps) n = push_suit(out, n, trumps, trump);
        return push_by_rank(out, n, hand & ~higher & ~trumps);
    }
    int hand = x->leader == 0 ? x->h0 : x->h1;
    int declared = x->declared >> (4 * x->leader);
    if (x->closer < 0 && x->drawn <= 8 && (hand >> (5 * trump) & 1)) out[n++] = EXCHANGE;
    for (int s = 0; s < 4; s++) {
        if ((hand >> (5 * s + 1) & 3) == 3 && !(declared >> s & 1)) {
            out[n++] = MARRIAGE + 5 * s + 2;
            out[n++] = MARRIAGE + 5 * s + 1;
        }
    }
    for (int b = 4; b >= 0; b--)
        for (int s = 0; s < 4; s++)
            if (s != trump && (hand >> (5 * s + b) & 1)) out[n++] = 5 * s + b;
    for (int b = 4; b >= 0; b--)
        if (hand >> (5 * trump + b) & 1) out[n++] = 5 * trump + b;
    if (x->closer < 0 && x->drawn <= 8) out[n++] = CLOSE;
    return n;
}

static int game_points(int points, int won) {
    if (points >= 33) return 1;
    return won ? 2 : 3;
}

/* the hand's value for seat 0 once it has ended: `reacher` reached 66 (-1: all tricks played, `last` won the
 * last one) */
static int outcome(const Node *x, int reacher, int last) {
    if (x->closer < 0) {
        if (reacher < 0) return last == 0 ? 1 : -1;
        int loser_points = reacher == 0 ? x->p1 : x->p0;
        int g = game_points(loser_points, x->won >> (1 - reacher) & 1);
        return reacher == 0 ? g : -g;
    }
    if (reacher == x->closer) {
        int g = game_points(x->op, x->ot);
        return x->closer == 0 ? g : -g;
    }
    int g = x->ot ? 2 : 3;
    return x->closer == 1 ? g : -g;
}

/* the position after `move` in *out, or 1 and the hand's value in *value if the move ends the hand */
static int child(const Search *self, const Node *x, int move, Node *out, int *value) {
    *out = *x;
    Node *y = out;
    if (move == EXCHANGE) {
        int jack = 5 * self->trump;
        int swap = (1 << jack) | (1 << x->bottom);
        if (x->leader == 0)
            y->h0 ^= swap;
        else
            y->h1 ^= swap;
        y->bottom = jack;
        return 0;
    }
    if (move == CLOSE) {
        if (x->leader == 0) {
            y->op = x->p1;
            y->ot = x->won >> 1 & 1;
        } else {
            y->op = x->p0;
            y->ot = x->won & 1;
        }
        y->closer = x->leader;
        return 0;
    }
    if (x->lead < 0) {
        int card = move;
        if (move >= MARRIAGE) {
            card = move - MARRIAGE;
            int s = card / 5;
            y->declared |= 1 << (4 * x->leader + s);
            int worth = s == self->trump ? 40 : 20;
            if (x->won >> x->leader & 1) {
                if (x->leader == 0)
                    y->p0 += worth;
                else
                    y->p1 += worth;
                if ((x->leader == 0 ? y->p0 : y->p1) >= TARGET) {
                    y->lead = card;
                    *value = outcome(y, x->leader, x->leader);
                    return 1;
                }
            } else if (x->leader == 0) {
                y->q0 += worth;
            } else {
                y->q1 += worth;
            }
        }
        if (x->leader == 0)
            y->h0 &= ~(1 << card);
        else
            y->h1 &= ~(1 << card);
        y->lead = card;
        return 0;
    }
    int card = move;
    int follower = 1 - x->leader;
    if (follower == 0)
        y->h0 &= ~(1 << card);
    else
        y->h1 &= ~(1 << card);
    int s = card / 5, led = x->lead / 5;
    int winner;
    if (s == led)
        winner = card > x->lead ? follower : x->leader;
    else
        winner = s == self->trump ? follower : x->leader;
    int points = POINTS[card] + POINTS[x->lead];
    int reached;
    if (winner == 0) {
        y->p0 += points + y->q0;
        y->q0 = 0;
        y->won |= 1;
        reached = y->p0 >= TARGET;
    } else {
        y->p1 += points + y->q1;
        y->q1 = 0;
        y->won |= 2;
        reached = y->p1 >= TARGET;
    }
    y->leader = winner;
    y->lead = -1;
    if (reached) {
        *value = outcome(y, winner, winner);
        return 1;
    }
    if (x->closer < 0 && x->drawn < 10) {
        int first = self->order[x->drawn];
        int second = x->drawn < 8 ? self->order[x->drawn + 1] : x->bottom;
        if (winner == 0) {
            y->h0 |= 1 << first;
            y->h1 |= 1 << second;
        } else {
            y->h1 |= 1 << first;
            y->h0 |= 1 << second;
        }
        y->drawn += 2;
        if (y->drawn >= 10) y->bottom = -1;
    } else if (!y->h0 && !y->h1) {
        *value = outcome(y, -1, winner);
        return 1;
    }
    return 0;
}

static int marriages_of(const Search *self, int hand, int declared) {
    int total = 0;
    for (int s = 0; s < 4; s++)
        if ((hand >> (5 * s + 1) & 3) == 3 && !(declared >> s & 1)) total += s == self->trump ? 40 : 20;
    return total;
}

/* the points of the `n` cheapest cards of `m` */
static int cheapest(int m, int n) {
    int total = 0;
    for (int b = 0; b < 5 && n > 0; b++)
        for (int s = 0; s < 4 && n > 0; s++)
            if (m >> (5 * s + b) & 1) {
                total += POINTS[b];
                n--;
            }
    return total;
}

/* `_solver.Solver.cashes`: at a lead once no card is drawn, 1 and the hand's value in *v when the leader reaches
 * 66 by leading cards the opponent cannot beat, whatever it plays */
static int cashes(const Search *self, const Node *x, int *v) {
    int leader = x->leader;
    int mine = leader == 0 ? x->h0 : x->h1, theirs = leader == 0 ? x->h1 : x->h0;
    int tm = self->trump_mask;
    int their_trumps = theirs & tm, my_trumps = mine & tm;
    int sure = 0;
    if (their_trumps) {
        sure = my_trumps & above(HIGHEST(their_trumps));
        if (!sure) return 0;
    }
    if (!their_trumps || POPCOUNT(sure) >= POPCOUNT(their_trumps)) {
        sure = my_trumps;
        for (int c = 0; c < 20; c++)
            if ((mine & ~tm) >> c & 1 && !(theirs & above(c))) sure |= 1 << c;
    }
    int n = POPCOUNT(sure);
    if (!n) return 0;
    int reach = (leader == 0 ? x->p0 + x->q0 : x->p1 + x->q1) + points_of(sure) + cheapest(theirs, n);
    if (reach < TARGET) return 0;
    *v = outcome(x, leader, leader);
    return 1;
}

static void bounds(const Search *self, const Node *x, int *low, int *high) {
    if (x->closer >= 0 || x->drawn >= 10) {
        int v;
        if (x->lead < 0 && cashes(self, x, &v)) { /* the leader wins for as much as it still can */
            *low = *high = v;
            return;
        }
        int rest = points_of(x->h0 | x->h1) + (x->lead >= 0 ? POINTS[x->lead] : 0);
        int reach0 = x->p0 + x->q0 + rest + marriages_of(self, x->h0, x->declared);
        int reach1 = x->p1 + x->q1 + rest + marriages_of(self, x->h1, x->declared >> 4);
        if (x->closer >= 0) {
            int made = game_points(x->op, x->ot);
            int failed = x->ot ? 2 : 3;
            if ((x->closer == 0 ? reach0 : reach1) < TARGET) {
                int v = x->closer == 0 ? -failed : failed;
                *low = *high = v;
                return;
            }
            if (x->closer == 0) {
                *low = -failed;
                *high = made;
            } else {
                *low = -made;
                *high = failed;
            }
            return;
        }
        int hi = reach0 < TARGET || x->p1 >= 33 ? 1 : (x->won & 2 ? 2 : 3);
        int lo = reach1 < TARGET || x->p0 >= 33 ? 1 : (x->won & 1 ? 2 : 3);
        *low = -lo;
        *high = hi;
        return;
    }
    int hi = x->p1 >= 33 ? 1 : (x->won & 2 ? 2 : 3);
    int lo = x->p0 >= 33 ? 1 : (x->won & 1 ? 2 : 3);
    if (x->drawn <= 8) {
        int a = x->won & 1 ? 2 : 3, b = x->won & 2 ? 2 : 3;
        if (a > hi) hi = a;
        if (b > lo) lo = b;
    }
    *low = -lo;
    *high = hi;
}


/* ------------------------------------------------------------------------------------------- the search */

/* `_solver.Solver.value`: exact inside (alpha, beta); -100 when memory ran out */
static int value(Search *self, const Node *x, int alpha, int beta) {
    uint64_t k1, k2;
    key_of(x, &k1, &k2);
    Table *table = x->closer >= 0 || x->drawn >= 10 ? self->settled : self->open;
    Entry *found = find(table, k1, k2);
    int low, high, hint = NO_HINT;
    if (found->k2 & USED) {
        low = entry_low(found);
        high = entry_high(found);
        hint = entry_hint(found);
        if (low >= beta) return low;
        if (high <= alpha) return high;
        if (low == high) return low;
    } else {
        bounds(self, x, &low, &high);
        if (low == high || low >= beta || high <= alpha) /* not stored: bounds() gives the same again */
            return low >= beta || low == high ? low : high;
    }
    if (low > alpha) alpha = low;
    if (high < beta) beta = high;
    self->searched++;
    int first = alpha, last = beta;
    int maximising = (x->lead < 0 ? x->leader : 1 - x->leader) == 0;
    int list[MAX_MOVES];
    int n = moves(self, x, list);
    if (hint != NO_HINT && n > 0 && list[0] != hint) {
        for (int j = 1; j < n; j++) {
            if (list[j] == hint) {
                memmove(list + 1, list, j * sizeof(int));
                list[0] = hint;
                break;
            }
        }
    }
    int best_move = list[0];
    int best = maximising ? -4 : 4;
    /* every child first, its table slot fetched ahead: the probes wait on memory together, not one by one */
    Node kids[MAX_MOVES];
    int ended[MAX_MOVES], worth[MAX_MOVES];
    for (int j = 0; j < n; j++) {
        ended[j] = child(self, x, list[j], &kids[j], &worth[j]);
        if (!ended[j]) {
            uint64_t c1, c2;
            key_of(&kids[j], &c1, &c2);
            const Table *t = kids[j].closer >= 0 || kids[j].drawn >= 10 ? self->settled : self->open;
            PREFETCH(&t->slots[mix(c1, c2) & (t->capacity - 1)]);
        }
    }
    for (int j = 0; j < n; j++) {
        int v = worth[j];
        if (!ended[j]) {
            v = value(self, &kids[j], alpha, beta);
            if (v == -100) return -100;
        }
        if (maximising) {
            if (v > best) {
                best = v;
                best_move = list[j];
                if (v > alpha) {
                    alpha = v;
                    if (alpha >= beta) break;
                }
            }
        } else if (v < best) {
            best = v;
            best_move = list[j];
            if (v < beta) {
                beta = v;
                if (alpha >= beta) break;
            }
        }
    }
    int stored;
    if (best <= first)
        stored = store(table, k1, k2, low, best, best_move);
    else if (best >= last)
        stored = store(table, k1, k2, best, high, best_move);
    else
        stored = store(table, k1, k2, best, best, best_move);
    return stored < 0 ? -100 : best;
}

/* ------------------------------------------------------------------------------------------- Python */

static PyTypeObject SearchType;

static int Search_init(Search *self, PyObject *args, PyObject *kwds) {
    PyObject *order, *shared = Py_None;
    int trump;
    static char *names[] = {"order", "trump", "shared", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "Oi|$O", names, &order, &trump, &shared)) return -1;
    if (shared != Py_None && !PyObject_TypeCheck(shared, &SearchType)) {
        PyErr_SetString(PyExc_TypeError, "shared must be a Search or None");
        return -1;
    }
    if (shared != Py_None && ((Search *)shared)->settled == NULL) {
        PyErr_SetString(PyExc_ValueError, "the shared search was never initialised");
        return -1;
    }
    if (shared != Py_None && ((Search *)shared)->trump != trump) {
        PyErr_SetString(PyExc_ValueError, "a shared search must have the same trump suit");
        return -1;
    }
    PyObject *seq = PySequence_Fast(order, "order must be a sequence of nine card indices");
    if (seq == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != 9 || trump < 0 || trump > 3) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "nine card indices and a trump suit from 0 to 3");
        return -1;
    }
    for (int i = 0; i < 9; i++) {
        long card = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (card < 0 || card > 19) {
            Py_DECREF(seq);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a card index is 0 to 19");
            return -1;
        }
        self->order[i] = (int)card;
    }
    Py_DECREF(seq);
    self->trump = trump;
    self->trump_mask = suit_mask(trump);
    Table *open = table_new();
    Table *settled = shared != Py_None ? ((Search *)shared)->settled : table_new();
    if (open == NULL || settled == NULL) {
        table_release(open);
        if (shared == Py_None) table_release(settled);
        PyErr_NoMemory();
        return -1;
    }
    if (shared != Py_None) settled->users++;
    table_release(self->open); /* a search initialised again starts afresh */
    table_release(self->settled);
    self->open = open;
    self->settled = settled;
    self->searched = 0;
    return 0;
}

static void Search_dealloc(Search *self) {
    table_release(self->open);
    table_release(self->settled);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int node_from(PyObject *tuple, Node *x) {
    if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) != 15) {
        PyErr_SetString(PyExc_TypeError, "a node is a tuple of 15 ints");
        return -1;
    }
    int *fields = &x->h0;
    for (int i = 0; i < 15; i++) {
        long v = PyLong_AsLong(PyTuple_GET_ITEM(tuple, i));
        if (v == -1 && PyErr_Occurred()) return -1;
        fields[i] = (int)v;
    }
    if (x->h0 < 0 || x->h0 >= 1 << 20 || x->h1 < 0 || x->h1 >= 1 << 20 || x->drawn < 0 || x->drawn > 10 ||
        x->bottom < -1 || x->bottom > 19 || x->closer < -1 || x->closer > 1 || x->op < 0 || x->op > 255 ||
        x->ot < 0 || x->ot > 1 || x->leader < 0 || x->leader > 1 || x->lead < -1 || x->lead > 19 || x->p0 < 0 ||
        x->p0 > 255 || x->p1 < 0 || x->p1 > 255 || x->q0 < 0 || x->q0 > 255 || x->q1 < 0 || x->q1 > 255 ||
        x->won < 0 || x->won > 3 || x->declared < 0 || x->declared > 255) {
        PyErr_SetString(PyExc_ValueError, "a node field is out of its range");
        return -1;
    }
    return 0;
}

static PyObject *Search_value(Search *self, PyObject *args) {
    PyObject *tuple;
    int alpha = -4, beta = 4;
    if (!PyArg_ParseTuple(args, "O|ii", &tuple, &alpha, &beta)) return NULL;
    Node x;
    if (node_from(tuple, &x) < 0) return NULL;
    int v = value(self, &x, alpha, beta);
    if (v == -100) return PyErr_NoMemory();
    return PyLong_FromLong(v);
}

static PyObject *Search_get_searched(Search *self, void *closure) { return PyLong_FromLongLong(self->searched); }
static PyObject *Search_get_size(Search *self, void *closure) {
    return PyLong_FromSize_t(self->open->size + self->settled->size);
}

static PyMethodDef Search_methods[] = {
    {"value", (PyCFunction)Search_value, METH_VARARGS,
     "value(node, alpha=-4, beta=4): the hand's value for seat 0, exact inside (alpha, beta)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Search_getset[] = {
    {"searched", (getter)Search_get_searched, NULL, "positions expanded", NULL},
    {"size", (getter)Search_get_size, NULL, "positions in the tables (the settled one shared)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SearchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "projections.games.schnapsen._fastsolver.Search",
    .tp_doc = "Search(order, trump, *, shared=None): the exact search over one hand with one talon order "
              "(shared: another Search of the hand, whose table of settled positions this one uses too)",
    .tp_basicsize = sizeof(Search),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Search_init,
    .tp_dealloc = (destructor)Search_dealloc,
    .tp_methods = Search_methods,
    .tp_getset = Search_getset,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fastsolver", "Schnapsen's exact search, compiled (see _solver.py)", -1, NULL,
};

PyMODINIT_FUNC PyInit__fastsolver(void) {
    for (int c = 0; c < 32; c++) {
        chunk_points[c] = 0;
        for (int b = 0; b < 5; b++)
            if (c >> b & 1) chunk_points[c] += POINTS[b];
    }
    if (PyType_Ready(&SearchType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&SearchType);
    if (PyModule_AddObject(m, "Search", (PyObject *)&SearchType) < 0) {
        Py_DECREF(&SearchType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
