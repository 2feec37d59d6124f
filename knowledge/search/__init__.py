"""The search behind grep, read and find_symbol: a linear-time scan of the tree's pack, `regex` where it must."""
