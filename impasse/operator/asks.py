"""What an escalation asks the human to do, held to what would lift the blocker.

A careful person answers the ask, not the error quoted above it: asked to kill a process under a
root-owned tree, to set PYTHONPATH for a package that is gone, or to re-clone a repository on a full
disk, they would do that, and the blocker would stay. So an ask is read for its action:

- a **specific** ask names an action a person would carry out (chown, remount, install, kill, set,
  restart, free, delete, renew, add to PATH …); it fits a card when it is one of the card's remedies
  (its YAML `operator.remedies`, filled with the task's names like the diagnosis);
- a plea for help ("could you help?", "please advise") is no specific ask: the cause and the object decide.

An escalation whose specific asks fit none of the named card's remedies asked for the wrong thing.
"""

from __future__ import annotations

import re
from functools import lru_cache

from impasse.catalog.cards import ANY_NAME, NEVER, PLACEHOLDERS, Card, Injected, fill
from impasse.operator import other_languages
from impasse.operator.leave import BULLET, LIST_OPENS, NUMBERED, OFFERS_HEADING, go_on, on_their_machine
from impasse.operator.objects import mentions
from impasse.prose import CJK_FULL_STOP, NOT_AFTER_ABBREVIATION, NOT_AFTER_LIST_NUMBER

# A sentence aimed at the human: a plea or a modal on "you", or one that opens on a verb (imperative).
REQUEST = re.compile(
    r"\b(?:please|pls|kindly|could you|can you|would you|will you|i need you to|i'?d need you to"
    r"|i(?: would|'d)? (?:suggest|recommend) (?:that )?you"
    r"|need (?:you|someone|a human|a person|an admin|an administrator|an operator|root) to"
    # the human named in the third person: "I need the user to delete …", "asking the user to remove …"
    r"|(?:need|ask(?:ing)?|want|would like) (?:the|a|an|my) (?:user|human|operator|person|admin(?:istrator)?"
    r"|maintainer|owner)s? to"
    r"|\bthe (?:user|human|operator|maintainer|admin(?:istrator)?|owner)"
    r" (?:should|must|needs? to|has to|will need to)\b"
    r"|you(?:'ll|'d| will| would)? (?:need|have|must|should) to|you (?:must|should)|ask(?:ing)? you to"
    # a question put to anyone who can act: "could someone start it?", "is it possible to get …",
    # "mind chowning .git?"
    r"|(?:could|can|would|will) (?:someone|somebody|anyone|anybody)|(?:is|would) it (?:be )?possible to"
    r"|\bmind \w+ing\b"
    # a state the work needs, said as the team's need: "we need to make sure KEY is set" (as "make sure …")
    r"|\b(?:we|i) (?:still |now |first )?need to (?:make sure|ensure)\b"
    r"|(?:requires?|needs?) (?:root|sudo|admin)\b"
    # a need stated to the human: "I need write permission on .git" (not "I need to run …", a plan)
    r"|\bi (?:need|require|would need) (?!to\b)(?:\w+ ){0,2}(?:access|permission|permissions|rights|root|sudo"
    r"|privileges|network|the|a|an)\b)", re.I)
ELSEWHERE_REQUEST = re.compile(other_languages.REQUEST, re.I)
# An ask phrased as the fix rather than a request: a label that opens the sentence ("Suggested fix:
# …", "Next step on your side: …", "Needed from you: …"), "the proper fix is to …", "the way forward is
# for someone to …", "… would unblock me". A label inside a sentence is none ("a way I cannot fix: …").
PROPOSES = re.compile(
    r"^\W*(?:(?:suggested|proposed|recommended|requested|required|possible|proper|right|simplest|only|quick|easy"
    r"|best|the)\s+)?"
    r"(?:fix(?:es)?|solutions?|resolution|remed(?:y|ies)|workarounds?|way forward|next steps?|actions?|request|ask"
    r"|need(?:ed)?"
    r"|what (?:would|will|could) (?:help|fix|unblock))"
    r"(?:\s+(?:needed|required|on your (?:side|end)|for you|from you))?\s*:"
    r"|\b(?:fix|solution|resolution|remedy|workaround|way forward|next step)\s+(?:is|would be|will be)"
    r"\s+(?:to|for|that)\b"
    r"|\bwould (?:unblock|fix|solve|resolve) (?:me|this|it|the)\b"
    # an ask put as the condition the work waits on: "With jq installed, the tests would pass", "once
    # it's rw again I'll apply it", "if the cert gets renewed …"
    r"|^(?:with|once|if|when|after|as soon as)\b[^!?\n]{0,80}?\b(?:(?:re-?)?installed|set|exported|running|started"
    r"|has|have|gets|shows? up|appears"
    r"|restarted|renewed|rotated|replaced|removed|deleted|writable|freed|raised|increased|restored|remounted"
    r"|chowned|unlocked|rw|back|opened|allowed|enabled|reachable|resumed|unpaused)\b", re.I)
OPENS_ON_A_VERB = re.compile(
    r"^(?:re-?mount|mount|install|re-?install|run|chown|chmod|set|export|start|re-?start|free|delete|remove"
    r"|restore|renew|rotate|replace|raise|increase|grant|give|add|kill|allow|open|enable|re-?clone|clone"
    r"|unlock|clear|fix|bring|launch|bump|sudo|pip3?|apt(?:-get)?|put|get|hand|provide|make|complete|finish)\b"
    # followed by a finite verb the word is the subject, no imperative: "pip isn't available", "install
    # failed", "run returns 1"
    r"(?!\s+(?:is|isn'?t|was|wasn'?t|are|aren'?t|has|hasn'?t|had|does|doesn'?t|did|didn'?t|can'?t|cannot"
    r"|won'?t|will|would|fails?|failed|returns?|returned|says?|said|reports?|prints?|printed|gives?|gave"
    r"|exits?|exited|errors?|errored|works?|worked|itself)\b)", re.I)
ACTIONS = (
    "chown", "chmod", "re-?mount", "mount", "install", "re-?install", "uninstall", "pip3?", "apt(?:-get)?", "brew",
    "kill", "pkill", "re-?start", "start", "stop", "set", "export", "add", "remove", "delete", "rm", "free",
    "restore", "renew", "rotate", "replace", "raise", "increase", "open", "allow", "enable", "disable", "re-?clone",
    "clone", "reset", "trust", "upgrade", "downgrade", "grant", "bind", "unlock", "clear", "clean", "sudo",
    "download", "copy", "move", "rename", "whitelist", "reboot", "rebuild", "recreate", "bump", "mirror", "switch",
    "re-?sign", "regenerate", "re-?issue", "pin", "vendor", "source", "sync", "update", "edit", "change",
    "configure", "point", "commit", "adjust", "modify", "lower", "reduce", "extend", "revert", "run", "define",
    "skip", "xfail", "mock", "stub", "bypass", r"comment\s+out",  # what only hides the blocker: the wrong action
    r"roll(?:ing)?\s?back", "unset", "flush", "purge", "refresh", "unmount", r"make\s+(?:\S+\s+){0,5}?available",
)


def verb_forms(verb: str) -> str:
    """A verb as asked in any form: "remount", "remounting", "syncing", "freeing", "adding", "stopping"."""
    if not verb.isalpha():  # a pattern ("re-?mount", "apt(?:-get)?"): its -ing form where it ends on a letter
        return f"{verb}(?:ing)?" if verb[-1].isalpha() else verb
    stem = verb[:-1] if verb.endswith("e") and not verb.endswith("ee") else verb
    if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnprt]", verb):  # one short vowel, one consonant: stop → stopping
        stem = verb + verb[-1]
    return f"(?:{verb}|{stem}ing)"


# An action a person would carry out as asked; "help", "advise", "look into", "fix it" are not.
SPECIFIC = re.compile(r"\b(?:" + "|".join(map(verb_forms, ACTIONS)) + r")\b", re.I)
# A question in an escalation is put to the human ("Can /usr/bin/jq be reinstated?"); one without an
# action in it is a plea, and leaves the cause and object to decide.
QUESTION = re.compile(r"[?？]\W*$")
HEADING = re.compile(r"^(?:#+\s.*|\*\*[^*]+\*\*:?|[^.!?]{1,60}:)$")
# A sentence ends after its punctuation, also where emphasis or a quote closes after it ("… fall back?**
# It's small").
# A quote, emphasis or bracket closed after the mark ends the sentence too, unless the sentence goes on in
# lower case: "(an editor, or a pytest run that never exited?) still has the file open" is one sentence.
# A numbered list's "1." is no sentence's end: the item goes on after it; nor is an abbreviation's.
SENTENCE_END = re.compile(r"(?<=[.!?])" + NOT_AFTER_ABBREVIATION + NOT_AFTER_LIST_NUMBER + r"\s+"
                          r"|(?<=[.!?][*_\"'”’)])\s+(?![a-z])"
                          r"|(?<=[.!?][*_]{2})\s+|" + CJK_FULL_STOP + r"|\n+")
LEAD = "*#>-•0123456789. )\t"


# A sentence that says an action would not help asks for nothing: "`pip install jq` wouldn't help".
WOULD_NOT_HELP = re.compile(r"\b(?:would(?:n'?t| not)|won'?t|will not|does(?:n'?t| not)|did(?:n'?t| not))"
                            r" (?:help|work|fix (?:it|this|anything))\b", re.I)


def asking(plain: str, reports_a_command: bool = False) -> bool:
    """`reports_a_command`: the sentence opens on a command in backticks ("`chmod u+w x` returns …"):
    it reports what the command did; its verb is no imperative."""
    if WOULD_NOT_HELP.search(plain):
        return False
    opens_on_a_verb = not reports_a_command and OPENS_ON_A_VERB.match(plain)
    return bool(REQUEST.search(plain) or PROPOSES.search(plain) or opens_on_a_verb or QUESTION.search(plain)
                or ELSEWHERE_REQUEST.search(plain))


# A question that hands the human a choice ("What should I do?", "How would you like to proceed?",
# "どうしますか？"): the items listed under it are the actions the human may pick, each an ask.
CHOICE = re.compile(r"\b(?:what|how) (?:should|shall|do you want|would you like|would you prefer)\b[^?]*\?"
                    r"|\bwhich (?:option|one|do you|would you|should i)\b[^?]*\?"
                    r"|\b(?:pick|choose|select) (?:one|an option)\b|" + other_languages.CHOICE, re.I)


def asks_of(text: str) -> list[str]:
    """The sentences of `text` that ask the human to act: the one under a heading that asks ("## What would unblock
    me"), each item of a numbered list an ask opens; none under a heading of the agent's own follow-ups."""
    asks, under_heading, offered, listing = [], False, False, False
    for sentence in SENTENCE_END.split(text):
        opening = sentence.strip().lstrip(LEAD)
        plain = opening.strip().strip("`*_")
        if not plain:
            continue
        offered = bool(OFFERS_HEADING.match(plain)) or (offered and BULLET.match(sentence) is not None)
        if offered:
            continue
        listed = listing and NUMBERED.match(sentence) is not None
        if under_heading or listed or asking(plain, opening.startswith("`")):
            asks.append(plain)
            under_heading = not under_heading and HEADING.match(sentence.strip()) is not None
            listing = listed or LIST_OPENS.search(plain) is not None
        else:
            under_heading = listing = False
    away = on_their_machine(text)
    return [ask for ask in asks + [item for item in choices(text) if item not in asks] if ask not in away]


def choices(text: str) -> list[str]:
    """The items listed under a question that hands the human a choice, each without its bullet."""
    items, choosing = [], False
    for line in text.splitlines():
        if not line.strip():
            continue
        if choosing and BULLET.match(line):
            items.append(BULLET.sub("", line, count=1).strip().strip("`*_"))
        else:
            choosing = CHOICE.search(line) is not None
    return items


def specific(asks: list[str]) -> list[str]:
    """The asks that name an action in the clause that asks: "the key is not set in the environment;
    I need the credential" asks for the credential, and "set" there states, it does not ask."""
    return [ask for ask in asks if any(SPECIFIC.search(part) or other_languages.verbs_asked(part)
                                       or other_languages.assigned(part) for part in asking_clauses(ask))]


def asking_clauses(ask: str) -> list[str]:
    parts = clauses(ask)
    return [part for part in parts if asking(part.strip())] or [ask]


# Where one clause of an ask ends: a remedy is an action and its object in one clause. "Add
# /usr/local/bin to PATH, jq is probably there" asks for PATH, not for jq.
# A purpose clause says what the remedy is for, not what it is: "restart the pricing service so it picks
# up the new cert" asks for a restart, and the new certificate is no part of the ask.
PURPOSE = r"so\s+(?:that\b|(?:it|i|we|you|they|the|this|my|our|tests?|pytest)\b)"
CLAUSE_END = re.compile(r"[,;]\s|[，；]|\s[—–-]+\s|:\s+(?=[a-z])|\s+(?=" + PURPOSE + ")", re.I)
IS_PURPOSE = re.compile(PURPOSE, re.I)


ASIDE = re.compile(r"\([^()]*\)")  # an aside in parentheses, one level deep


def clauses(ask: str) -> list[str]:
    """The clauses of an ask; an aside in parentheses stays inside its clause ("get jq (the Debian
    package, 1.6 is fine) into this image")."""
    kept = ASIDE.sub(lambda aside: aside[0].replace(",", "\0").replace(";", "\1"), ask)
    return [part.replace("\0", ",").replace("\1", ";") for part in CLAUSE_END.split(kept) if part.strip()]


ACTION = re.compile("|".join(ACTIONS), re.I)


def base_forms(text: str) -> str:
    """Every -ing form of an action as its base, which the cards' remedies are written in: "mind
    chowning .git" → "mind chown .git", "removing" → "remove", "stopping" → "stop"."""
    def base(match: re.Match) -> str:
        stem = match[1]
        return next((c for c in (stem, stem + "e", stem[:-1]) if ACTION.fullmatch(c)), match[0])
    return re.sub(r"\b(\w+?)ing\b", base, text)


# A state the human is to bring about: "Ensure `jq` is installed and on PATH", "make sure the catalog
# service is running" ask for what the cards' passive remedies say ("get jq installed").
ENSURED = re.compile(r"\b(?:ensure|make sure)\s+(?:that\s+)?([^.;:!?\n]{1,60}?)\s+(?:is|are)\s+(?=\w)", re.I)


def ensured(ask: str) -> str:
    return ENSURED.sub(r"get \1 ", ask)


def fits(card: Card, names: Injected, asks: list[str], known_only: bool = False) -> bool:
    """Whether one of the asks is one of the card's remedies, read clause by clause, its verbs in any
    form. `known_only`: a name the task lacks matches nothing (a task with no binary has no "install
    <binary>" to ask for; filled with any name it would fit any install)."""
    remedies = compiled(card.operator.remedies, names, NEVER if known_only else ANY_NAME)
    others = compiled((card.operator.other_objects,), names, NEVER)[0] if card.operator.other_objects else None
    # another object counts where the action is asked of it, not in an aside ("export KEY (the test key
    # from your vault)": the vault is where the key comes from)
    parts = [part for ask in asks for part in clauses(ask) + clauses(base_forms(ensured(ask)))
             if not IS_PURPOSE.match(part) and not (others and others.search(ASIDE.sub("", part)))]
    own = own_names(card, names)
    return any(r.search(part) for r in remedies for part in parts) or any(
        fits_elsewhere(card, own, part) for part in parts)


def fits_elsewhere(card: Card, own: list[str], part: str) -> bool:
    """An ask in another language fits by its verb, one of the card's; "add" only where it names the
    card's own object (`own`: "jq を追加して"; added to PATH or to a config file, it is no remedy). A
    variable assigned in code is "set" in any language, and fits only where it is the card's own."""
    verbs = other_languages.verbs_asked(part)
    if verbs & set(card.operator.verbs):
        return True
    if "add" in verbs and any(mentions(part.casefold(), name.casefold()) for name in own):
        return True
    return "set" in card.operator.verbs and bool(other_languages.assigned(part) & set(own))


def own_names(card: Card, names: Injected) -> list[str]:
    """The task's names of the kinds the card's objects are (its binary, its package, its variable)."""
    return [name for key in PLACEHOLDERS if "{" + key + "}" in card.operator.objects for name in getattr(names, key)]


@lru_cache(maxsize=1024)
def compiled(remedies: tuple[str, ...], names: Injected, unknown: str) -> tuple[re.Pattern, ...]:
    return tuple(re.compile(fill(r, names, unknown)) for r in remedies)


# What an install names. After a package manager's install every word up to the first that is no
# name is one (`pip install ruamel.yaml`, `apt-get install -y gojq`); in prose only a word spelled as
# a name ("install `types-PyYAML`", "install ruamel.yaml"), since "install the missing module" names
# nothing. Pronouns, class words and the prose that follows a command name nothing either.
INSTALLER = re.compile(r"\b(?:(?:pip3?|python3? -m pip|uv pip|pipx|conda|mamba|apt(?:-get)?|apk|yum|dnf|brew"
                       r"|pacman|zypper|npm)\s+(?:install|add)|uv add|poetry add|pipenv install)\b", re.I)
PROSE_INSTALL = re.compile(r"\b(?:re-?)?install(?:ing)?\s+(?:the\s+)?(?:package\s+|module\s+)?"
                           r"(`[^`\s]+`|[A-Za-z][\w-]*[._\d-][\w.-]*\w)", re.I)
NAME = re.compile(r"[A-Za-z][\w.\[\]=<>~!+-]*")
NAMES_NOTHING = frozenset(re.findall(r"\w+", """
    it them this that these those the a an its package packages module modules dependency dependencies
    library libraries requirements missing required needed removed same deps everything all again
    into in on for to with via from inside and so please globally system"""))


def installed_names(clause: str) -> list[str]:
    """The names a clause asks to be installed ("pip install --user ruamel.yaml" → ruamel.yaml)."""
    found = []
    for match in INSTALLER.finditer(clause):
        words = clause[match.end():].replace("`", " ").split()
        words = [w.strip(".,;:!?)('\"") for w in words if not w.startswith("-")]
        for word in words:
            if not NAME.fullmatch(word) or word.casefold() in NAMES_NOTHING:
                break
            found.append(word)
    prose = (m[1].strip("`") for m in PROSE_INSTALL.finditer(clause))
    return found + [name for name in prose if name.casefold() not in NAMES_NOTHING]


def misdirected(card: Card, names: Injected, asks: list[str], others: list[Card] = ()) -> bool:
    """The text asks for something specific, or for another blocker's remedy ("fix the cert" under a
    network that is down), and none of it would lift this card's blocker. A card that declares no
    remedies is not judged by its asks."""
    asks = [ask for ask in asks if not go_on(ask)]  # leave to go on ("May I run it?") asks for no remedy
    if not card.operator.remedies or fits(card, names, asks):
        return False
    wrong = (other for other in others if other.id != card.id)
    return bool(specific(asks)) or any(fits(other, names, asks, known_only=True) for other in wrong)
