"""The Registry of one tag: its model and kinds, derivation from a tree, diffs, the store, refresh, bundled copies."""
