"""Hand histories: exports (json, jsonl, text, csv), imports, and the text format's grammar.

- `export`: the documents of one game and the NDJSON stream of many;
- `importer`: a file back into a checked game (chain, rules), ready to be written;
- `text` and `notation`: the text hand history (`docs/hand-histories.md`);
- `errors`: `BadImportError`, which names the line or event that sank an import.
"""
