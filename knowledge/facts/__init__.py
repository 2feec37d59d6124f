"""Curated, cited facts as data (data/*.yaml), their kinds, the predicate language and `verify`."""
