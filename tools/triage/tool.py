"""`triage`: from what vLLM printed (or a symptom) to the line that printed it, its condition and the way out.

An agent handed `ValueError: nvfp4_per_token online quantization requires a Blackwell (SM100) GPU.` used to
grep the tree for a fragment it had to guess would survive the filling-in, read the file, and reason about
the `if` above it. The registry's message sites hold every raise and log call of the start-up path with
its format string, its guards, and the GPUs on which a GPU guard holds (the interpreter's reading at
derivation), for every bundled release; so this answers offline, from registries alone. A paste that
matches no site at the tag is looked for at the other releases (a message that moved, or was fixed), and
otherwise answered with the nearest messages, named as such: never a guess at which line it was.
Curated pain points and version gates come last, marked curated, matched on the words pasted and on the
deployment's GPU, model and flags; for a symptom with no message they are the answer.
"""

from __future__ import annotations

import difflib
import itertools
import re

from vllm_quant_mcp.knowledge.deploy.serve_command import ServeCommand, ServeCommandError, parse_serve_command
from vllm_quant_mcp.knowledge.facts.fact import cite
from vllm_quant_mcp.knowledge.facts.kinds import Affected, Gpu, PainPoint, VersionGate
from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase, load_knowledge
from vllm_quant_mcp.knowledge.registry.model import MessageSite, Registry
from vllm_quant_mcp.knowledge.search.messages import Hit, Said, base_message, match_sites, nearest_sites, unwrap
from vllm_quant_mcp.knowledge.tags import tag_key
from vllm_quant_mcp.tools.context import ToolContext

from .models import CuratedMatch, NearMessage, SiteMatch, TriageQuery, TriageResult

__all__ = ["triage"]

# What an operator says of output that is wrong without an error, and the words the knowledge base uses.
_SYMPTOMS = {
    "garbage": ("nonsense", "garbage", "gibberish", "corrupt", "degenerate", "repeats", "saturates", "wrong"),
    "nan": ("nan", "inf", "overflow", "saturates"),
    "slow": ("slow", "throughput", "latency", "dispatched", "emulation", "fallback"),
    "crash": ("illegal", "memory", "failing", "failures", "crash", "segfault"),
}
_HINT = re.compile(
    r"[^.;]*\b(?:use|set|pass|try|please|consider|install|upgrade|disable|enable|remove|bypass|specify|switch)\b"
    r"[^.;]*[.;]?",
    re.IGNORECASE,
)
_GPU_WORDS = re.compile(r"capability|is_blackwell|is_hopper|is_sm\d|is_device|\bsm_?\d{2,3}\b", re.IGNORECASE)
_STOP = {
    *("with", "from", "that", "this", "when", "have", "does", "into", "only", "your", "vllm", "model", "using"),
    *("quantization", "method", "support", "supported", "error", "value", "will", "versions", "future"),
}


def triage(ctx: ToolContext, query: TriageQuery) -> TriageResult:
    tag = ctx.tag(query.tag)
    registry = ctx.registry(tag)
    kb = load_knowledge()
    notes: list[str] = []
    assumed: list[str] = []
    gpus = kb.gpus_named(query.gpu) if query.gpu else []
    command = _command(query.command, notes)
    pasted = unwrap(query.text)
    history = _History(ctx)
    sites = [_site(h, tag, gpus, command, history) for h in _distinct(match_sites(registry.message_sites, pasted))]
    elsewhere: list[SiteMatch] = []
    if not sites:
        elsewhere = _elsewhere(ctx, tag, pasted, gpus, command, history, query.limit)
        if elsewhere:
            notes.append(f"Not printed at {tag}; these sites are at the releases that print it (each site's tag).")
    if not query.gpu and any(s.on_your_gpu for s in sites):
        assumed.append("no GPU given: on_your_gpu lists where the GPU guard holds instead of deciding it")
    nearest: list[NearMessage] = []
    if not sites and not elsewhere:
        nearest = [
            NearMessage(message=base_message(site.name), similarity=score, provenance=site.provenance)
            for site, score in nearest_sites(registry.message_sites, pasted, query.limit)
        ]
        notes.append(
            f"No raise or log site on the start-up path at {tag} prints this; "
            + ("the nearest messages follow, as candidates only." if nearest else "nothing near it either.")
        )
    curated = _curated(kb, tag, query, gpus, command, [*sites, *elsewhere])
    if query.model and not any("model" in w for c in curated for w in c.why):
        assumed.append(f"the model {query.model} was matched by name only; its checkpoint config was not read")
    return TriageResult(
        tag=tag,
        reading="message" if sites or elsewhere else "symptom",
        sites=(sites or elsewhere)[: query.limit],
        curated=curated[: query.limit],
        nearest=nearest,
        assumed=assumed,
        notes=notes,
    )


def _command(text: str | None, notes: list[str]) -> ServeCommand | None:
    if not text:
        return None
    try:
        return parse_serve_command(text)
    except ServeCommandError as exc:
        notes.append(f"the command was not read: {exc}")
        return None


def _distinct(hits: list[Hit]) -> list[Hit]:
    """One hit per site; two sites saying the same both stay (each has its own guard)."""
    seen: set[tuple[str, int]] = set()
    kept = []
    for hit in hits:
        key = (hit.site.provenance.path, hit.site.provenance.line)
        if key not in seen:
            seen.add(key)
            kept.append(hit)
    return kept


def _elsewhere(
    ctx: ToolContext,
    tag: str,
    pasted: list[Said],
    gpus: list[Gpu],
    command: ServeCommand | None,
    history: _History,
    limit: int,
) -> list[SiteMatch]:
    """Matches at other releases, newest first, one per message: a message this tag no longer (or not yet) prints."""
    found: dict[str, SiteMatch] = {}
    for other in sorted(history.tags, key=tag_key, reverse=True):
        if other == tag:
            continue
        for hit in _distinct(match_sites(ctx.registry(other).message_sites, pasted)):
            if hit.match != "fragment" and base_message(hit.site.name) not in found:
                found[base_message(hit.site.name)] = _site(hit, other, gpus, command, history)
        if len(found) >= limit:
            break
    return list(found.values())[:limit]


class _History:
    """Each bundled release's message sites by message, read once per call from the store's parsed registries."""

    def __init__(self, ctx: ToolContext) -> None:
        self.ctx = ctx
        self.tags = sorted(ctx.store.known_tags(), key=tag_key)
        self._by_tag: dict[str, dict[str, MessageSite]] = {}

    def sites(self, tag: str) -> dict[str, MessageSite]:
        if tag not in self._by_tag:
            registry: Registry = self.ctx.registry(tag)
            by: dict[str, MessageSite] = {}
            for site in registry.message_sites:
                by.setdefault(base_message(site.name), site)
            self._by_tag[tag] = by
        return self._by_tag[tag]

    def of(self, message: str, tag: str) -> tuple[str, str, str | None, str | None, list[str]]:
        """(first and last release of the run of releases holding `tag` that print it, the release after it, the
        message there when reworded, moves between files), walking out from `tag` only as far as the run goes:
        a cold process parses a registry per release it reads."""
        if tag not in self.tags:
            return tag, tag, None, None, []
        at = self.tags.index(tag)
        start = at
        while start > 0 and message in self.sites(self.tags[start - 1]):
            start -= 1
        end = at
        while end + 1 < len(self.tags) and message in self.sites(self.tags[end + 1]):
            end += 1
        gone = self.tags[end + 1] if end + 1 < len(self.tags) else None
        reworded = self._reworded(message, self.sites(self.tags[end])[message], gone) if gone else None
        moves: list[str] = []
        for before, after in itertools.pairwise(self.tags[start : end + 1]):
            old, new = self.sites(before)[message].provenance, self.sites(after)[message].provenance
            if old.path != new.path:
                moves.append(f"{after}: {old.path} -> {new.path}:{new.line}")
        return self.tags[start], self.tags[end], gone, reworded, moves

    def _reworded(self, message: str, site: MessageSite, gone: str) -> str | None:
        same_place = [
            m
            for m, s in self.sites(gone).items()
            if s.function == site.function or s.provenance.path == site.provenance.path
        ]
        best = difflib.get_close_matches(message, same_place, n=1, cutoff=0.6)
        return best[0] if best else None


def _site(hit: Hit, tag: str, gpus: list[Gpu], command: ServeCommand | None, history: _History) -> SiteMatch:
    site = hit.site
    message = base_message(site.name)
    first, last, gone, reworded, moved = history.of(message, tag)
    on_gpu, gpu_reads = _on_gpu(site, gpus)
    return SiteMatch(
        message=message,
        kind=site.kind,
        raises=site.raises,
        match=hit.match,
        filled=_filled(hit),
        tag=tag,
        provenance=site.provenance,
        function=site.function,
        guards=site.guards,
        guard_line=site.guard_line,
        on_your_gpu=on_gpu,
        triggered_by=gpu_reads + _inputs_read(site, hit, command),
        avoid=_avoid(site, message),
        first_seen=first,
        last_seen=last,
        gone_in=gone,
        reworded_as=reworded,
        moved=moved,
    )


def _filled(hit: Hit) -> dict[str, str]:
    """What vLLM put in each placeholder; one it left as written (the tuple case) is shown by its arguments."""
    filled = {holder: value for holder, value in hit.filled if value != holder}
    return filled | ({"(unfilled)": hit.said.unfilled} if hit.said.unfilled else {})


def _cap(gpu: Gpu) -> str | None:
    return f"{gpu.sm // 10}.{gpu.sm % 10}" if gpu.sm is not None and gpu.vendor == "nvidia" else None


def _on_gpu(site: MessageSite, gpus: list[Gpu]) -> tuple[str | None, list[str]]:
    """What the site's GPU guard says of the user's GPU (or, without one, of the grid), and whether it is the cause."""
    asks = any(_GPU_WORDS.search(g) for g in site.guards)
    if site.raised_on is None:
        if asks:
            return "a guard asks for the GPU but does not reduce at derivation; read the guard", []
        return None, []
    where = f"holds on SM {', '.join(site.raised_on) or 'none'}; fails on SM {', '.join(site.spared_on) or 'none'}"
    if not gpus:
        return where, []
    verdicts = []
    reads = []
    for gpu in gpus:
        cap = _cap(gpu)
        if cap in site.raised_on:
            verdicts.append(f"{gpu.id} (SM {cap}): the GPU guard holds, reached there")
            reads.append(f"gpu {gpu.id} (SM {cap})")
        elif cap in site.spared_on:
            verdicts.append(f"{gpu.id} (SM {cap}): the GPU guard fails, not reached there")
        else:
            verdicts.append(f"{gpu.id} (SM {cap}): not decided ({where})")
    return "; ".join(verdicts), reads


def _inputs_read(site: MessageSite, hit: Hit, command: ServeCommand | None) -> list[str]:
    """The flags and env vars of the command that the guards read, or that fill the message's placeholders."""
    if command is None:
        return []
    guards = " ".join(site.guards)
    filled = {v.strip("'\"") for _, v in hit.filled} | {(hit.said.unfilled or "").strip("'\"")}
    reads = []
    for flag in command.flags:
        field = flag.option.removeprefix("--").replace("-", "_")
        value = flag.value or ""
        if re.search(rf"\b{re.escape(field)}\b", guards) or (value and value in filled):
            reads.append(f"{flag.written} {value}".strip())
    reads += [f"{name}={value}" for name, value in command.env.items() if name in guards]
    return reads


def _avoid(site: MessageSite, message: str) -> list[str]:
    ways = [f"the message says: {m.group().strip()}" for m in _HINT.finditer(message)][:2]
    if site.spared_on:
        ways.append(f"a GPU of SM {', '.join(site.spared_on)}, where the GPU guard fails")
    if site.guards:
        ways.append(f"make `{site.guards[0]}` false (line {site.guard_line})")
    return ways


def _curated(
    kb: KnowledgeBase,
    tag: str,
    query: TriageQuery,
    gpus: list[Gpu],
    command: ServeCommand | None,
    sites: list[SiteMatch],
) -> list[CuratedMatch]:
    words = _wordset(" ".join([query.text, *(s.message for s in sites)]))
    for symptom, spoken in _SYMPTOMS.items():
        if symptom in words or words & set(spoken):
            words |= set(spoken)
    scored: list[tuple[float, CuratedMatch]] = []
    facts: list[PainPoint | VersionGate] = [*kb.pain_points, *kb.version_gates]
    for fact in facts:
        if not fact.applies_at(tag):
            continue
        if isinstance(fact, VersionGate) and tag_key(fact.version) > tag_key(tag):
            continue
        if isinstance(fact, PainPoint) and fact.fixed_in and tag_key(fact.fixed_in) <= tag_key(tag):
            continue
        said = f"{fact.symptom} {fact.cause}" if isinstance(fact, PainPoint) else fact.change
        overlap = words & _wordset(said)
        why = [f"{a.kind} {a.name}" for a in fact.affects if _affects(a, query, gpus, command)]
        score = len(overlap) / max(4, len(_wordset(said)))
        # With a message the words decide and the deployment only ranks; a symptom is the deployment's.
        if (sites and (len(overlap) < 2 or score < 0.2)) or (not sites and not why and score < 0.3):
            continue
        score += 0.5 * len(why)
        if overlap:
            why.append(f"words: {', '.join(sorted(overlap)[:6])}")
        scored.append((score, _curated_match(fact, why)))
    return [m for _, m in sorted(scored, key=lambda s: -s[0])]


def _curated_match(fact: PainPoint | VersionGate, why: list[str]) -> CuratedMatch:
    if isinstance(fact, PainPoint):
        return CuratedMatch(
            kind="pain_point",
            id=fact.id,
            says=fact.symptom,
            action=fact.workaround,
            fixed_in=fact.fixed_in,
            why=why,
            citations=[cite(c) for c in fact.citations],
        )
    return CuratedMatch(
        kind="version_gate",
        id=fact.id,
        says=" ".join(fact.change.split()),
        action=" ".join(fact.action.split()),
        fixed_in=None,
        why=why,
        citations=[cite(c) for c in fact.citations],
    )


def _affects(affected: Affected, query: TriageQuery, gpus: list[Gpu], command: ServeCommand | None) -> bool:
    name = affected.name.lower()
    if affected.kind == "gpu":
        return any(g.id == name for g in gpus)
    if affected.kind == "model_family":
        return query.model is not None and name in query.model.lower()
    if command is None:
        return False
    values = {(f.option, (f.value or "").lower()) for f in command.flags}
    if affected.kind == "flag_value":
        return (affected.flag or "", name) in values
    if affected.kind == "method":
        return ("--quantization", name) in values
    if affected.kind == "kv_dtype":
        return ("--kv-cache-dtype", name) in values
    if affected.kind == "flag":
        return any(option == affected.name for option, _ in values)
    if affected.kind == "env_var":
        return affected.name in command.env
    return False


def _wordset(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z][a-z0-9_]{3,}", text.lower()) if w not in _STOP}
