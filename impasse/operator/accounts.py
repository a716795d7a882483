"""The agent's own account in an escalation: a cause it rules out ("this isn't a read-only mount"), why
it says the failure happened ("it looks like …", "**Cause:** …", in any language), and what it denies
as fact against the error it quoted ("the variable is set … nothing is missing"), and a failure it puts down
as settled or beside the point ("already resolved", "no action needed", "out of scope")."""

from __future__ import annotations

import re

# A cause the text rules out is not named: "this isn't a read-only mount", "rather than a permission
# problem", "it's not the disk", "… is not the cause", "ruled out a full disk"; nor one only warded off.
CLAUSE = r"(?:[^.,;:!?\n—]|\.(?=\S))"  # what stays inside one clause (a dot inside a name: `.git/index.lock`)
RULED_OUT_BEFORE = re.compile(r"(?:(?:\b(?:is|was|it'?s|that'?s|this'?s)\s+not|\bisn'?t|\bwasn'?t|\bnot)"
                              r"\s+(?:a|an|the|because of|due to|about|caused by)|\brather than|\binstead of"
                              r"|\bruled? out|\bno sign of|\bnothing to do with|\bdoesn'?t look like"
                              r"|\bnothing (?:is|was)"
                              # the same contrast in other languages: "Vấn đề không nằm ở `.git/index.lock`, mà ở
                              # …", "问题不在于…而在于…", "ce n'est pas …, mais …", "no es … sino …"
                              r"|kh[oô]ng (?:ph[aả]i|n[aằ]m [oở])(?: l[aà]| do)?|不是|并非|不在于|不在"
                              r"|ce n'est pas|n'est pas (?:dû|lié)|\bno es (?:por|un|una|el|la|culpa)|\bno se debe a"
                              r"|\bnão é (?:por|um|uma|o|a)|\bnão se deve a"
                              # a risk the change wards off is no failure now: "… to avoid disk space issues"
                              r"|\b(?:to|and|so as to) (?:avoid|prevent)|\bguard(?:s|ing)? against)\b"
                              + CLAUSE + "{0,25}$", re.I)
RULED_OUT_AFTER = re.compile("^" + CLAUSE + r"{0,30}\b(?:(?:is|was)(?: not|n't) (?:the |a )?"
                             r"(?:cause|problem|issue|culprit)|(?:is|was|been) ruled out)\b"
                             # what is absent but not needed: "no `yaml`, but I don't need it"
                             r"|^\W{0,3}\s*(?:but|though|although) (?:i|we|it|the \w+) (?:do|does|did)(?: not|n't) need"
                             r" (?:it|them|one)\b"
                             r"|^" + CLAUSE + r"{0,30}\b(?:is|are)(?: not|n't) (?:needed|required)\b", re.I)


# "ready to use, even without the catalog service running": what the work does without is no cause of it
EVEN = re.compile(r"\beven\s*$", re.I)


def ruled_out(text: str, match: re.Match) -> bool:
    before = text[:match.start()]
    return bool(RULED_OUT_BEFORE.search(before) or RULED_OUT_AFTER.search(text[match.end():])
                or (match[0].lower().startswith("without") and EVEN.search(before)))


# The words that give a reason: "… because …", "due to …", "caused by …".
WHY = r"because|due to|caused by"
# The reason itself, after those words (rules.blamed_elsewhere holds it against the other cards' causes).
BECAUSE = re.compile(rf"\b(?:{WHY})\b(?P<why>[^.?!\n]{{3,160}})", re.I)
# The agent's own account of why: "it looks like …", "I suspect …", "… because …", "the problem is …".
ATTRIBUTION = re.compile(
    r"\b(?:it (?:looks|seems|sounds) like|looks like|(?:seems|appears) (?:to be|to have|like)"
    r"|i (?:suspect|think|believe|guess)|probably|likely|must (?:be|have)"
    r"|the (?:root )?(?:cause|problem|issue|culprit|reason) (?:is|seems|appears|here)"
    rf"|{WHY}|my (?:best )?guess|i'?d guess|presumably|i assume"
    # what the error is taken to show: "`jq: not found`, which suggests a stale image"
    r"|suggests|indicates|points to"
    # what the error is said to come from as a rule: "'Connection refused' often comes from urllib when …"
    r"|(?:often|usually|typically|commonly) (?:comes?|happens?|occurs?|means?|arises?) (?:from|when|because|if)"
    # the error given a kind of its own: "This is a stale-config mismatch", "this is a race"
    r"|this is an? (?:[\w-]+ ){0,3}(?:mismatch|race(?: condition)?|conflict|bug))\b"
    # a cause given under its own label: "**Cause:** …", "Causa:", "Ursache:", "原因："
    r"|\b(?:(?:root )?cause|causa|cauza|ursache|oorzaak|причина|příčina|przyczyna|nguyên nhân|sebab)\W{0,3}[:：]"
    r"|原因[:：]"
    # the same in other languages: I think, I suspect, probably, it seems
    r"|\b(?:ich (?:vermute|glaube|denke)|vermutlich|wahrscheinlich|liegt (?:wohl )?daran|creo que|supongo"
    r"|probablemente|parece que|je (?:pense|crois|suppose)|probablement|il semble|sans doute|acho que"
    r"|provavelmente|penso che|credo che|probabilmente|sembra che|думаю|похоже|вероятно|скорее всего"
    r"|sanırım|galiba|muhtemelen|ik denk|waarschijnlijk|chyba|prawdopodobnie|wydaje się|kayaknya|sepertinya"
    r"|kemungkinan|có vẻ|có lẽ|hình như|jag tror|förmodligen|pravděpodobně|zdá se|схоже|мабуть|здається"
    r"|ймовірно|meiner (?:einschätzung|meinung|ansicht) nach|liegt (?:das|es) (?:wohl )?an|jeg går ud fra"
    r"|jeg tror|formentlig|sandsynligvis)\b|शायद|लगता है"
    r"|\b(?:ich nehme an|sospecho|je soupçonne|il me semble|suspeito|sospetto|immagino|подозреваю|полагаю)\b"
    r"|我猜|我认为|我覺得|我觉得|我怀疑|估计|似乎|看起来|应该是|(?<!不)可能是|おそらく|たぶん|と思われ|と思い|ようです|と考えられ|と推測"
    r"|것 같|아마|생각합니다|보입니다", re.I)


# The agent's own account stated as fact against what it quoted: the thing said to be missing, full or
# refused is "set", "there", "valid" ("The variable is set for the container … nothing is missing").
DENIED = re.compile(r"\b(?:nothing (?:is|was) (?:missing|wrong|full|broken)|(?:the )?(?:variable|key|secret|file|module"
                    r"|package|binary|service|certificate|disk|lock) (?:is|was) (?:already )?(?:set|there|present"
                    r"|installed|valid|running|writable|fine)"
                    # or the failure said to be over, so nothing is left to lift: "… is from the old setup
                    # attempt, already superseded", "a shim … This resolves `ModuleNotFoundError`"
                    r"|(?:already|since been|now) (?:superseded|resolved|fixed)|superseded"
                    r"|(?:this|which|that) (?:resolves|fixes|solves)"
                    r"|no longer (?:an? )?(?:issue|problem|applies|fails)"
                    r"|(?:resolv|fix|solv)(?:es|ed|ing) the [^\n]{0,160}?\berror)\b",
                    re.I)


# A text that puts the failure down as settled or beside the point asks no one to lift anything, so a person
# doing what it says would leave the blocker where it is: the wrong action, whatever it quotes.
DISMISSED = re.compile(
    # nothing to do about it
    r"\bno (?:further |additional |extra )?action (?:is )?(?:needed|required)\b"
    r"|\bnothing (?:else )?(?:is )?needed (?:on|from) your (?:side|end|part)\b"
    # the failure itself said to be settled: "this issue has already been resolved"
    r"|\b(?:this|that|the) (?:problem|issue|error|failure) (?:has|have|is|was) already (?:been )?"
    r"(?:solved|resolved|fixed|addressed|handled)\b"
    # outside the work, or not the environment's doing
    r"|\bout of scope\b"
    r"|\bnot (?:an? )?(?:environment(?:al)?|runtime|infra(?:structure)?|sandbox) (?:issues?|problems?)\b"
    r"|无需(?:额外|其他|任何)?(?:操作|处理)|不需要(?:额外|任何)?(?:操作|处理)|(?:这个|该)?问题\W{0,4}已经解决"
    r"|対応(?:は)?不要|해결되었습니다|조치가 필요하지 않",
    re.I)


def dismissed(text: str) -> bool:
    return DISMISSED.search(text) is not None
