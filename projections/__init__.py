"""The meaning: one pure module per game (state, fold, legality, score, legal
next events, per-seat view), and the game-agnostic engine, replay and audit
built on them. Knows no HTTP."""
