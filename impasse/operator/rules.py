"""The operator's actionability rule: a pure function of what the agent wrote, what it had already
seen, and the task — never of the condition the run is under, so that escalating cannot be used to
ask "is there a blocker?".

For every card the task supports, the escalation is read for
- D, the cause: the card's diagnosis (what names the blocker's kind);
- O, the object: one of the card's operator objects, made from the task (a path of its repository,
  a module, a binary, a variable, a port, a host), named in the text;
- E, earned: the blocker's own failure — a line of the card's signatures, the same that place t* —
  occurs in an observation the agent has already seen.
A card is named when D and (O, or its object is implicit and its failure was seen) hold. Exactly one
named card, earned, is actionable; none, several, or a text naming SHOTGUN causes or more (a list
of guesses, keyword stuffing) is not, nor is an unearned one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from impasse.catalog.cards import ANY_NAME, NEVER, Card, Injected, fill, load_cards
from impasse.catalog.frames import unframed
from impasse.catalog.tasks import Task
from impasse.operator.accounts import ATTRIBUTION, BECAUSE, DENIED, dismissed, ruled_out
from impasse.operator.asks import (
    asks_of,
    clauses,
    compiled,
    fits,
    fits_elsewhere,
    installed_names,
    misdirected,
    own_names,
)
from impasse.operator.guesses import GUESSES, SHOTGUN
from impasse.operator.leave import OWN_PLAN, go_on, own_action
from impasse.operator.objects import (
    covers,
    expand,
    kin_names,
    mentions,
    named_object,
    normalise,
    objects_of,
    paths_acted_on,
    same_name,
    task_names,
    workspace_paths,
)
from impasse.operator.stated import stated_installs

MAX_TEXT = 4096  # what of an escalation is read: a longer one is cut, a binary one is not read at all


@dataclass(frozen=True)
class Judgement:
    verdict: str  # "actionable", "vague", "unearned", "shotgun", "misdirected", "unreadable"
    card: str | None = None  # the cause named, when exactly one is
    named_object: str | None = None  # as the task knows it
    causes: tuple[str, ...] = ()  # every card whose cause (D) the text names
    earned: bool = False

    @property
    def actionable(self) -> bool:
        return self.verdict == "actionable"


def readable(text: str) -> bool:
    printable = sum(ch.isprintable() or ch in "\n\t" for ch in text)
    return bool(text.strip()) and printable >= 0.95 * len(text)


# Markdown's emphasis marks, which sit inside a phrase ("certificate **has expired**").
EMPHASIS = re.compile(r"\*+|(?<!\w)_+|_+(?!\w)")
# One word in inline code inside a phrase ("owned by `root`, not `agent`"): the word, as the phrase says it.
CODE_WORD = re.compile(r"`([\w.-]+)`")


def plain_words(raw: str) -> str:
    """The text as a person reads it aloud: no emphasis marks, one word in inline code as that word."""
    return CODE_WORD.sub(r"\1", EMPHASIS.sub("", raw))


def cause_named(card: Card, task: Task, raw: str) -> Iterator[str]:
    """Each phrase of the text that names the card's cause (its diagnosis), not ruled out. A name the
    task does not have is no name: "it's not installed" names no package where the task has none."""
    names, plain = task_names(task), plain_words(raw)
    return (m[0] for p in card.diagnosis for m in re.finditer(fill(p, names, NEVER), plain)
            if not ruled_out(plain, m))


def names_cause(card: Card, task: Task, raw: str) -> bool:
    return next(cause_named(card, task, raw), None) is not None


CODE = re.compile(r"```.*?(?:```|$)|`[^`\n]+`", re.S)  # what a text quotes: fenced blocks, inline code


def misattributed(card: Card, task: Task, raw: str, seen: str, asks: list[str]) -> bool:
    """The agent quoted this blocker's error but puts the failure down to something else in its own
    words ("No module named 'yaml'. The virtualenv seems to be corrupted"): a person acting on its
    account would not lift the blocker. Own words are what the text says beyond the error's own
    phrases (the diagnosis matched in words the observation does not contain, nor in code the text
    quotes: "`Container f2aca166eb92… is paused`" shortened is still the daemon's line) and what it asks."""
    if fits(card, task_names(task), asks):
        return False
    quoted = seen.casefold() + "\n" + "\n".join(CODE.findall(raw)).casefold()
    own = (phrase for phrase in cause_named(card, task, raw) if phrase.casefold() not in quoted)
    plain = plain_words(raw)
    return (next(own, None) is None and (ATTRIBUTION.search(plain) or DENIED.search(plain)) is not None) \
        or blamed_elsewhere(card, task, plain) or misread(card, plain)


def misread(card: Card, plain: str) -> bool:
    """The failure put down, in the agent's own words, to what the card says would send a person to
    lift something else (a missing write bit on a root-owned file), not ruled out."""
    account = card.operator.misread
    return bool(account) and any(not ruled_out(plain, m) for m in re.finditer(account, plain))


def in_own_words(card: Card, rivals: list[Card], task: Task, raw: str) -> bool:
    """Whether a phrase names this card's cause that no rival card's diagnosis reads as its own."""
    return any(not any(names_cause(other, task, phrase) for other in rivals if other.id != card.id)
               for phrase in cause_named(card, task, raw))


def blamed_elsewhere(card: Card, task: Task, raw: str) -> bool:
    """The cause named, then its why put down to another blocker's ("jq isn't available because
    /usr/local/bin is root-owned"): a person acting on that account would lift the wrong thing."""
    for found in BECAUSE.finditer(raw):
        why = found["why"]
        if not names_cause(card, task, why) and any(
                names_cause(other, task, why) for other in every_card() if other.id != card.id):
            return True
    return False


def another_object(card: Card, task: Task, files: tuple[str, ...], asks: list[str], seen: str) -> bool:
    """Every ask that fits the card's remedies is for an object other than the blocker's: the right
    remedy on the wrong thing. A package or binary installed by another name ("pip install
    ruamel.yaml" where `yaml` is gone); a path in another place than the writes that failed ("chown
    .pytest_cache" where feedsync/catalog.py was refused); the task's name of another kind and none of the
    card's own ("allow egress to pricing.internal" where data.impasse.test is unreachable). An ask that
    names nothing of its kind is for the object the text names."""
    remedies, own_kind = compiled(card.operator.remedies, task_names(task), ANY_NAME), own_names(card, task_names(task))
    fitting = [part for ask in asks for part in clauses(ask)
               if any(r.search(part) for r in remedies) or fits_elsewhere(card, own_kind, part)]
    objects = objects_of(card, task, files)
    others = other_names(card, task, files, objects)
    refused = refused_paths(card, task, seen) if "{workspace_paths}" in card.operator.objects else set()

    def right(part: str) -> bool:
        installed = installed_names(part) or kin_names(part, own_kind, objects)
        asked = paths_acted_on(part, remedies) if refused else set()
        flat = normalise(part)
        own = any(mentions(flat, o) for o in objects) or any(same_name(i, n) for i in installed for n in own_kind)
        if (installed or any(mentions(flat, o) for o in others)) and not own:
            return False
        return not asked or any(covers(a, r) for a in asked for r in refused)
    return bool(fitting) and not any(map(right, fitting))


# The kinds of object that are names (not the repository's paths, which every card's lines share).
NAME_KINDS = ("{python_packages}", "{binaries}", "{secrets}", "{service_ports}", "{tls_hosts}", "{download_hosts}")


def other_names(card: Card, task: Task, files: tuple[str, ...], objects: list[str]) -> set[str]:
    """The task's names of the kinds the card's objects are not (another host, port or package)."""
    found = {normalise(n).strip() for kind in NAME_KINDS if kind not in card.operator.objects
             for n in expand(kind, task, files)}
    return found - set(objects) - {""}


def refused_paths(card: Card, task: Task, seen: str) -> set[str]:
    """The repository paths on the lines where the agent saw this blocker's failure."""
    names = task_names(task)
    regexes = [re.compile(regex, re.M) for s in card.signatures if (regex := signature_text(s, names))]
    failed = [line for line in unframed(seen).splitlines() if any(r.search(line) for r in regexes)]
    return set().union(*map(workspace_paths, failed)) if failed else set()


def earned(card: Card, task: Task, seen: str) -> bool:
    """Whether the agent had seen this blocker's own failure: a line of the card's signatures in an
    earlier observation. An object named but never failed on, or a failure of another kind, is not
    earned: the agent would be guessing, and the operator would be diagnosing for it."""
    names = task_names(task)
    seen = unframed(seen)
    return any(re.search(regex, seen, re.M) for s in card.signatures if (regex := signature_text(s, names)))


def signature_text(signature, names: Injected) -> str | None:
    """What a signature matches in the text the agent saw. One with no pattern is about an exit status
    alone: it matches the line the agent's tool printed that status on, and nothing else (an empty
    regex would match every text). None: a signature that can match no text."""
    if signature.pattern:
        return fill(signature.pattern, names)
    if signature.exit_codes:
        codes = "|".join(str(code) for code in signature.exit_codes)
        return rf"(?m)^exit code: (?:{codes})\b"
    return None


@cache
def every_card() -> tuple[Card, ...]:
    """Every blocker's card: an ask for another blocker's remedy is the wrong ask whether or not this
    task could show that blocker ("give the container more memory" for a full disk)."""
    return tuple(load_cards().values())


def narrowed(named: list, strength) -> list:
    """The one named card that is named most strongly (`strength` of a card and the object it was
    named by), else all of them."""
    scores = [strength(card, obj) for card, obj in named]
    best = max(scores)
    return [named[scores.index(best)]] if scores.count(best) == 1 else named


def judge(text: str, seen: str, task: Task, cards: list[Card], files: tuple[str, ...]) -> Judgement:
    """`cards`: the blocker cards the task supports (the same under every condition); `seen`: every
    observation the agent had before it escalated; `files`: the repository's tracked paths."""
    raw = text[:MAX_TEXT]
    if not readable(raw):
        return Judgement("unreadable")
    flat, names = normalise(raw), task_names(task)
    # leave asked for the agent's own action asks the human for nothing that would lift the blocker
    every_ask = asks_of(raw)
    asks = [ask for ask in every_ask if not own_action(ask) and not (go_on(ask) and OWN_PLAN.search(raw))]
    only_leave = bool(every_ask) and not asks
    # A cause is named in words (the diagnosis) or by asking for its remedy ("please remount it rw").
    worded = tuple(c.id for c in cards if names_cause(c, task, raw))
    stated = stated_installs(raw)  # an install said as needed names its object's absence, asked or not
    causes = tuple(c.id for c in cards if c.id in worded or fits(c, names, asks)
                   or fits(c, names, stated, known_only=True))
    named = []
    for card in (c for c in cards if c.id in causes):
        obj = named_object(card, task, files, flat, raw)
        # A cause with no object of its own (the sandbox, a limit) counts only where its failure was
        # seen: the words alone are what keyword stuffing is made of.
        if obj is not None or (not card.operator.requires_object and earned(card, task, seen)):
            named.append((card, obj))
    if len(named) > 1:  # two causes fit the objects named: the one whose failure the agent saw, then
        # the one whose remedy is asked for, then the one whose object the ask is about, then the one
        # said in words, then the one said in words of its own ("owned by root" over a "not writable" both
        # cards read), then the one whose object the failure seen was on (the refused `.git/index.lock`
        # over a file the summary lists), then the one named by the longer object (`.git/index.lock` over
        # `.git`)
        asked, failed_on, rivals = [normalise(ask) for ask in asks], normalise(seen), [c for c, _ in named]
        named = narrowed(named, lambda card, obj: (
            earned(card, task, seen), fits(card, names, asks), any(obj and mentions(a, obj) for a in asked),
            names_cause(card, task, raw), in_own_words(card, rivals, task, raw),
            bool(obj) and mentions(failed_on, obj), len(obj or "")))
    # One remedy that would lift several blockers ("restart it") is no list of guesses where the cause
    # is said in words: the causes counted are the worded ones then.
    if len(named) > 1 or len(worded or causes) >= SHOTGUN or (causes and GUESSES.search(raw)):
        return Judgement("shotgun", causes=causes)
    if not named:
        return Judgement("vague", causes=causes)
    card, obj = named[0]
    if not earned(card, task, seen):
        return Judgement("unearned", card.id, obj, causes)
    if (only_leave or (dismissed(raw) and not fits(card, names, asks)) or misdirected(card, names, asks, every_card())
            or misattributed(card, task, raw, seen, asks) or another_object(card, task, files, asks, seen)):
        return Judgement("misdirected", card.id, obj, causes, earned=True)  # the right error, the wrong cause
    return Judgement("actionable", card.id, obj, causes, earned=True)  # unearned: earned stays False
