"""GitHub issues and PRs as facts: a cached REST client, closing-PR links, first release with a fix, KB cross-check.

settings.py  API URL, token, allowed repositories, cache location (from the environment)
cache.py     diskcache entries: JSON, ETag, next page, when GitHub last confirmed it
client.py    GET with TTL / ETag revalidation / rate-limit pauses / Link pagination
links.py     which PRs close an issue, body excerpts (pure)
fixes.py     first release containing a fix: git, release notes, knowledge base
kb.py        knowledge-base facts citing a number, and disagreements with GitHub
"""
