"""The record: cards, the event envelope, event schemas, the append-only store
and the hash chain. This package knows no game rules."""
