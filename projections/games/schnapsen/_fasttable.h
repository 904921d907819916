/* The Schnapsen search's transposition table (`_fastsolver.c`, `_solver.Solver.table`): a position packed into
 * two 64-bit words with its bounds and the move that decided it, in an open-addressing table that may be shared
 * by the searches of one hand (`users`). Included by `_fastsolver.c` alone, after its `Node` and `NO_HINT`. */
#ifndef TABLEBOOK_FASTTABLE_H
#define TABLEBOOK_FASTTABLE_H

#include <stdint.h>
#include <stdlib.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

/* a table slot: the position's key in the low 57 bits of k1 and 51 of k2; above them the move that decided it
 * (k1, 7 bits: move + 2, 127 for none), then whether the slot is used (k2, 1 bit) and the bounds (k2, 4 bits
 * each: low + 4, high + 4) */
typedef struct {
    uint64_t k1, k2;
} Entry;
#define K1_BITS 57
#define K2_BITS 51
#define K1_MASK ((1ULL << K1_BITS) - 1)
#define K2_MASK ((1ULL << K2_BITS) - 1)
#define USED (1ULL << K2_BITS)
static inline int entry_hint(const Entry *e) {
    int h = (int)(e->k1 >> K1_BITS);
    return h == 127 ? NO_HINT : h - 2;
}
static inline int entry_low(const Entry *e) { return (int)(e->k2 >> (K2_BITS + 1) & 15) - 4; }
static inline int entry_high(const Entry *e) { return (int)(e->k2 >> (K2_BITS + 5) & 15) - 4; }

/* zeroed slots; on Linux a big table asks for huge pages (its probes land anywhere: with 4 KiB pages most of them
 * would miss the TLB) */
#define HUGE_PAGE (2u << 20)
static Entry *slots_new(size_t capacity) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    size_t bytes = capacity * sizeof(Entry);
    if (bytes >= HUGE_PAGE) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return NULL;
        madvise(p, bytes, MADV_HUGEPAGE);
        return p;
    }
#endif
    return calloc(capacity, sizeof(Entry));
}

static void slots_free(Entry *slots, size_t capacity) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (capacity * sizeof(Entry) >= HUGE_PAGE) {
        munmap(slots, capacity * sizeof(Entry));
        return;
    }
#endif
    free(slots);
}

/* a transposition table: open addressing, linear probing, at most half full */
typedef struct {
    Entry *slots;
    size_t capacity; /* a power of two */
    size_t size;
    int users; /* the searches holding it */
} Table;

static Table *table_new(void) {
    Table *t = malloc(sizeof(Table));
    if (t == NULL) return NULL;
    t->capacity = 1 << 12;
    t->size = 0;
    t->users = 1;
    t->slots = slots_new(t->capacity);
    if (t->slots == NULL) {
        free(t);
        return NULL;
    }
    return t;
}

static void table_release(Table *t) {
    if (t != NULL && --t->users == 0) {
        slots_free(t->slots, t->capacity);
        free(t);
    }
}

static inline void key_of(const Node *x, uint64_t *k1, uint64_t *k2) {
    *k1 = (uint64_t)x->h0 | (uint64_t)x->h1 << 20 | (uint64_t)x->drawn << 40 | (uint64_t)(x->bottom + 1) << 44 |
          (uint64_t)(x->closer + 1) << 49 | (uint64_t)x->leader << 51 | (uint64_t)(x->lead + 1) << 52;
    *k2 = (uint64_t)x->op | (uint64_t)x->ot << 8 | (uint64_t)x->p0 << 9 | (uint64_t)x->p1 << 17 |
          (uint64_t)x->q0 << 25 | (uint64_t)x->q1 << 33 | (uint64_t)x->won << 41 | (uint64_t)x->declared << 43;
}

static inline uint64_t mix(uint64_t k1, uint64_t k2) {
    uint64_t z = k1 * 0x9E3779B97F4A7C15ULL ^ (k2 + 0xBF58476D1CE4E5B9ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static Entry *find(Table *t, uint64_t k1, uint64_t k2) {
    size_t m = t->capacity - 1;
    size_t i = mix(k1, k2) & m;
    while (t->slots[i].k2 & USED) {
        if ((t->slots[i].k1 & K1_MASK) == k1 && (t->slots[i].k2 & K2_MASK) == k2) return &t->slots[i];
        i = (i + 1) & m;
    }
    return &t->slots[i]; /* the empty slot where it would go */
}

static int grow(Table *t) {
    size_t old_capacity = t->capacity;
    Entry *old = t->slots;
    Entry *fresh = slots_new(old_capacity * 2);
    if (fresh == NULL) return -1;
    t->slots = fresh;
    t->capacity = old_capacity * 2;
    for (size_t i = 0; i < old_capacity; i++) {
        if (old[i].k2 & USED) *find(t, old[i].k1 & K1_MASK, old[i].k2 & K2_MASK) = old[i];
    }
    slots_free(old, old_capacity);
    return 0;
}

static int store(Table *t, uint64_t k1, uint64_t k2, int low, int high, int hint) {
    Entry *e = find(t, k1, k2);
    if (!(e->k2 & USED)) {
        if ((t->size + 1) * 2 > t->capacity) {
            if (grow(t) < 0) return -1;
            e = find(t, k1, k2);
        }
        t->size++;
    }
    e->k1 = k1 | (uint64_t)(hint == NO_HINT ? 127 : hint + 2) << K1_BITS;
    e->k2 = k2 | USED | (uint64_t)(low + 4) << (K2_BITS + 1) | (uint64_t)(high + 4) << (K2_BITS + 5);
    return 0;
}

#endif
