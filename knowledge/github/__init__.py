"""GitHub issues and PRs as facts: live state first, then the release that provably holds a fix, curated facts last.

settings.py     API URL, token, allowed repositories, vLLM's git remote, cache locations (from the environment)
deadline.py     one time budget per lookup; after the first timeout nothing waits on the network again
cache.py        diskcache entries per API endpoint and token identity: JSON, ETag, next page, age; pauses
client.py       GET with TTL / ETag revalidation / per-resource rate-limit pauses / Link pagination / deadline
links.py        which PRs close an issue, the commit that closed it, body excerpts (pure)
live.py         what the live state settles (open, unmerged, not planned) and the fix commit to prove (pure)
history.py      the treeless history of vLLM's tags and default branch, fetched under the deadline
containment.py  per-tag proof from commits: ancestry, cherry-picks, reverts (pure, over a git callable)
compare.py      the same per-tag question asked of GitHub's compare endpoint when git cannot reach (pure)
fixes.py        a first release and per-tag verdicts from one piece of evidence: proof, notes, curated
prover.py       the evidence chain for one fix: git, compare, release notes, the knowledge base
kb.py           knowledge-base facts citing a number, and disagreements with GitHub and the proof
answers.py      the answer shapes (light: the server builds schemas from them at start-up)
service.py      the process-wide client, knowledge base and history repository
"""
