/* The Seven and a Half review's expectimax (`_fastreview.c`, `review.py`'s `Banker` and `Player`) over the
 * numbered hands of `review.Table.compiled`: the search itself, with the `Hands` and `Player` it works on.
 * `_fastreview.c` (which alone includes this, after Python.h) says why it is compiled and how it is held to
 * the Python search; what it gives Python is there too. */
#ifndef TABLEBOOK_FASTREVIEW_SEARCH_H
#define TABLEBOOK_FASTREVIEW_SEARCH_H

#include <stdlib.h>
#include <string.h>

#define CLASSES 9
#define IS_OPEN 1
#define IS_BUST 2
/* `stands` of a hand the banker cannot hold (more of a class than it has not seen): Python's
 * `banker.stands.get(cards, True)` reads it as standing */
#define UNSOLVED 2
/* the bounds that keep every row sum exact: |payoff| per chip, the stakes' total (`review.COMPILED_STAKES`,
 * where the review searches in Python instead), a pool's count of a class */
#define MAX_PAYOFF 1000
#define MAX_STAKES (1LL << 30)
#define MAX_COUNT 64
/* what keeps the player's stands from one decision to the next: stake, hidden flag, the hidden cards, and the
 * player's and the banker's pools with the face-up cards put back */
#define KEY (2 + 3 * CLASSES)

typedef struct {
    PyObject_HEAD
    int hands;    /* every numbered hand */
    int states;   /* the banker's graph: hands 0 to states - 1, largest first */
    int outcomes;
    int empty;    /* the id of the empty hand */
    int *counts;  /* hands * CLASSES */
    int *outcome; /* hands */
    int *child;   /* states * CLASSES */
    int *payoff;  /* outcomes * outcomes: [player outcome][banker outcome] */
    unsigned char *flags; /* outcomes: IS_OPEN, IS_BUST */
    int *row_of;  /* outcomes: the first banker outcome with the same payoffs to every player outcome */
    int *bust_row; /* states * CLASSES: the child's row where it is a bust, else -1 */
    int busts;     /* the row of every bust, where they share one (else -1) */
    /* the working state of one search */
    long long *rows; /* outcomes * CLASSES, at row_of's outcomes */
    double *fixed;   /* outcomes: the known part */
    double *values;        /* states: the banker's value of each hand */
    unsigned char *stands; /* states: 1 stands, 0 takes a card, UNSOLVED */
    double *played;        /* hands: `Player.stand`'s `play` memo */
    unsigned *played_at;   /* the stamp it was stored under */
    unsigned play_stamp;
    double *valued;        /* states: `Player.value`'s memo, by the face-up cards */
    unsigned *valued_at;
    unsigned value_stamp;
    /* the last player hand's stands, by its face-up cards */
    long long key[KEY];
    int keyed;
    double *stood;
    long long *stood_searched;
    unsigned char *stood_known;
} Hands;

/* one `Player` search: its inputs, the stand being worked out, and what went wrong */
typedef struct {
    Hands *h;
    long long stake;
    int hidden; /* whether a card of the hand lies face down */
    int pool[CLASSES], banker_pool[CLASSES], shown0[CLASSES];
    int mine;         /* the player's outcome, in the current stand */
    int pp[CLASSES];  /* the player's pool, in the current stand */
    long long played; /* hands in the current stand's memo */
    long long searched;
    const char *error;
    PyObject *error_type;
} Player;

static void fail(Player *p, PyObject *type, const char *message) {
    if (p->error == NULL) {
        p->error = message;
        p->error_type = type;
    }
}

static inline long long dot(const long long *row, const int *left) {
    long long out = 0;
    for (int c = 0; c < CLASSES; c++) out += row[c] * left[c];
    return out;
}

/* `Banker.stand_value` of row `r`, given the row sum `sum` over the `n` cards left */
static inline double stand_value(const Hands *h, int r, long long sum, int n) {
    if (!n) return h->fixed[r];
    return h->fixed[r] + (double)sum / (double)n;
}

/* `Banker._solve` over `pool`, the rows set: returns how many hands were solved (-1 on a broken graph) */
static long long solve(Hands *h, const int *pool) {
    long long searched = 0;
    for (int i = 0; i < h->states; i++) {
        const int *hand = h->counts + (size_t)i * CLASSES;
        int left[CLASSES], n = 0, negative = 0;
        for (int c = 0; c < CLASSES; c++) {
            left[c] = pool[c] - hand[c];
            negative |= left[c] < 0;
            n += left[c];
        }
        if (negative) {
            h->stands[i] = UNSOLVED;
            continue;
        }
        searched++;
        int o = h->outcome[i], r = h->row_of[o];
        if (!(h->flags[o] & IS_OPEN) || !n) {
            h->values[i] = stand_value(h, r, dot(h->rows + (size_t)r * CLASSES, left), n);
            h->stands[i] = 1;
            continue;
        }
        /* the row sums of this hand's outcome and of the busts, in one pass */
        const long long *row = h->rows + (size_t)r * CLASSES;
        int last = h->busts; /* the row whose sum over `left` is `last_sum` */
        long long sum = 0, last_sum = 0;
        if (last >= 0) {
            const long long *bust = h->rows + (size_t)last * CLASSES;
            for (int c = 0; c < CLASSES; c++) {
                sum += row[c] * left[c];
                last_sum += bust[c] * left[c];
            }
        } else {
            sum = dot(row, left);
        }
        double stand = stand_value(h, r, sum, n);
        double hit = 0.0;
        const int *child = h->child + (size_t)i * CLASSES;
        const int *bust_row = h->bust_row + (size_t)i * CLASSES;
        for (int c = 0; c < CLASSES; c++) {
            int k = left[c];
            if (!k) continue;
            int b = bust_row[c];
            if (b >= 0) { /* stands on the bust, with one card of class c fewer left */
                if (b != last) {
                    last = b;
                    last_sum = dot(h->rows + (size_t)b * CLASSES, left);
                }
                hit += k * stand_value(h, b, last_sum - h->rows[(size_t)b * CLASSES + c], n - 1);
            } else {
                int id = child[c];
                if (id >= h->states || h->stands[id] == UNSOLVED) return -1;
                hit += k * h->values[id];
            }
        }
        hit /= n;
        h->values[i] = hit > stand ? hit : stand; /* Python's max(stand, hit): hit only when greater */
        h->stands[i] = stand >= hit;
    }
    return searched;
}

/* `Player.stand`'s `play`: the player's chips per chip staked once the banker holds hand `id` */
static double play(Player *p, int id) {
    Hands *h = p->h;
    if (h->played_at[id] == h->play_stamp) return h->played[id];
    double found;
    if (id >= h->states || h->stands[id]) {
        found = (double)h->payoff[(size_t)p->mine * h->outcomes + h->outcome[id]];
    } else {
        const int *cards = h->counts + (size_t)id * CLASSES;
        const int *child = h->child + (size_t)id * CLASSES;
        int n = 0;
        double acc = 0.0;
        for (int c = 0; c < CLASSES; c++) {
            int k = p->pp[c] - cards[c];
            n += k;
            if (k) acc += k * play(p, child[c]);
        }
        if (!n) {
            fail(p, PyExc_ZeroDivisionError, "float division by zero");
            return 0.0;
        }
        found = acc / n;
    }
    h->played[id] = found;
    h->played_at[id] = h->play_stamp;
    p->played++;
    return found;
}

static void next_stamp(unsigned *stamp, unsigned *at, int size) {
    if (++*stamp == 0) { /* wrapped: forget every old stamp */
        memset(at, 0, (size_t)size * sizeof(unsigned));
        *stamp = 1;
    }
}

/* `Player.stand`: the player's chips standing with face-up cards `shown` and the whole hand `hand` */
static double player_stand(Player *p, int shown, int hand) {
    Hands *h = p->h;
    int m = h->outcomes;
    int mine = h->outcome[hand];
    if (h->flags[mine] & IS_BUST) return -(double)p->stake;
    if (shown >= h->states) {
        fail(p, PyExc_RuntimeError, "a player's face-up cards outside the banker's graph");
        return 0.0;
    }
    if (h->stood_known[shown]) {
        p->searched += h->stood_searched[shown];
        return h->stood[shown];
    }
    const int *cards = h->counts + (size_t)shown * CLASSES;
    int bp[CLASSES];
    for (int c = 0; c < CLASSES; c++) {
        int hits = cards[c] - p->shown0[c];
        bp[c] = p->banker_pool[c] - hits;
        p->pp[c] = p->pool[c] - hits;
    }
    /* `Banker.__init__`'s rows for the one hand `(1, shown, hidden)` */
    const int *child = h->child + (size_t)shown * CLASSES;
    for (int o = 0; o < m; o++) {
        if (h->row_of[o] != o) continue;
        long long *row = h->rows + (size_t)o * CLASSES;
        if (p->hidden) {
            h->fixed[o] = -(double)0;
            for (int c = 0; c < CLASSES; c++) row[c] = -h->payoff[(size_t)h->outcome[child[c]] * m + o];
        } else {
            h->fixed[o] = -(double)h->payoff[(size_t)h->outcome[shown] * m + o];
            for (int c = 0; c < CLASSES; c++) row[c] = 0;
        }
    }
    long long solved = solve(h, bp);
    if (solved < 0) {
        fail(p, PyExc_RuntimeError, "a banker's hand outside its graph");
        return 0.0;
    }
    p->mine = mine;
    p->played = 0;
    next_stamp(&h->play_stamp, h->played_at, h->hands);
    const int *first = h->child + (size_t)h->empty * CLASSES;
    int n = 0;
    double acc = 0.0;
    for (int c = 0; c < CLASSES; c++) {
        int k = p->pp[c];
        n += k;
        if (k) acc += k * play(p, first[c]);
    }
    if (!n) {
        fail(p, PyExc_ZeroDivisionError, "float division by zero");
        return 0.0;
    }
    double value = (double)p->stake * (acc / n);
    if (p->error == NULL) {
        h->stood[shown] = value;
        h->stood_searched[shown] = p->played + solved;
        h->stood_known[shown] = 1;
    }
    p->searched += p->played + solved;
    return value;
}

static double player_value(Player *p, int shown, int hand);

/* `Player.hit` */
static double player_hit(Player *p, int shown, int hand) {
    Hands *h = p->h;
    if (shown >= h->states || hand >= h->states) {
        fail(p, PyExc_RuntimeError, "a player's hand outside the banker's graph");
        return 0.0;
    }
    const int *cards = h->counts + (size_t)shown * CLASSES;
    const int *shown_child = h->child + (size_t)shown * CLASSES;
    const int *hand_child = h->child + (size_t)hand * CLASSES;
    int pool[CLASSES], n = 0;
    for (int c = 0; c < CLASSES; c++) {
        pool[c] = p->pool[c] - (cards[c] - p->shown0[c]);
        n += pool[c];
    }
    double acc = 0.0;
    for (int c = 0; c < CLASSES; c++)
        if (pool[c]) acc += pool[c] * player_value(p, shown_child[c], hand_child[c]);
    if (!n) {
        fail(p, PyExc_ZeroDivisionError, "float division by zero");
        return 0.0;
    }
    return acc / n;
}

/* `Player.value`: the player's chips with its best play from here */
static double player_value(Player *p, int shown, int hand) {
    Hands *h = p->h;
    if (p->error != NULL) return 0.0;
    if (h->flags[h->outcome[hand]] & IS_BUST) return -(double)p->stake; /* a stand, and no card to take */
    if (shown >= h->states) {
        fail(p, PyExc_RuntimeError, "a player's face-up cards outside the banker's graph");
        return 0.0;
    }
    if (h->valued_at[shown] == h->value_stamp) return h->valued[shown];
    double found = player_stand(p, shown, hand);
    if (h->flags[h->outcome[hand]] & IS_OPEN) {
        double hit = player_hit(p, shown, hand);
        if (hit > found) found = hit;
    }
    h->valued[shown] = found;
    h->valued_at[shown] = h->value_stamp;
    return found;
}

#endif
