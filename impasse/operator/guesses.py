"""When an escalation offers its causes as guesses: several named at once, or alternatives in words,
however many of them the cards' patterns know."""

from __future__ import annotations

import re

from impasse.operator.other_languages import ALTERNATIVES

SHOTGUN = 3  # causes named at once: a list of guesses (an honest account may name a second, as context)
# A text that offers its causes as alternatives is a list of guesses however many the patterns know:
# "possible reasons:", "it's either a quota, a broken tmpfs, or …", "maybe one of these: …".
GUESSES = re.compile(r"\b(?:possible|potential|probable|likely) (?:reasons?|causes?|explanations?)\b"
                     r"|\b(?:it'?s|it is|this is|that'?s|could be|might be|may be) either\b"
                     r"|\bone of (?:these|the following)\b"
                     # "This usually means that either:" over a numbered or bulleted list of causes
                     r"|\b(?:means?|meaning|be|is)(?: that)? either\s*:"
                     # alternatives offered in one breath: "it could be an expired certificate, a hostname
                     # mismatch, or a missing CA"
                     r"|\b(?:could|might|may) (?:also )?be\b(?:[^.?!\n]|\.(?=\S)){0,80}\bor\b"
                     # the same hedged on the verb: "it likely ran out of memory or hit an error in the filter"
                     r"|\b(?:it|this|that) (?:likely|probably|possibly|perhaps) (?:\w+ed|ran|hit|got|was|had)\b"
                     r"(?:[^.?!\n]|\.(?=\S)){0,60}\bor (?:\w+ed|hit|ran|got|was|had)\b"
                     # a list under "it could be:" ("This could be due to:"), or the human asked to find out which of
                     # them it is
                     r"|\b(?:could|might|may) be(?: one of(?: these| the following)?"
                     r"| due to| caused by| because of)?\s*:"
                     # … and under what the failure "could mean:" ("A refused connection could mean: - the service
                     # isn't running - it is bound to another port - a firewall rule")
                     r"|\b(?:could|can|may|might) (?:mean|indicate|suggest)(?: that)?"
                     r"(?: one of(?: these| the following)?)?\s*:"
                     r"|\b(?:check|find out|tell me|confirm|determine|figure out|see|verify) which (?:of (?:these|them"
                     r"|those|the two|the three)|one|it is)\b"
                     # "either the certificate has expired, or the clock is ahead": alternative states
                     r"|\beither\b(?:[^.?!\n]|\.(?=\S)){0,100}\b(?:is|are|has|have|was|were)\b"
                     r"(?:[^.?!\n]|\.(?=\S)){0,100}\bor\b"
                     r"|(?:^|[.!?]\s+)either\b[^.?!\n]{0,120}\bor\b"  # a sentence that opens on "Either"
                     r"|\b(?:is|are|was|were) either\b[^.?!\n]{1,80}\bor\b"  # "the pieces are either missing or …"
                     # a hedged "because:" over a list, or a list whose items open on "Either" then "Or": "This
                     # is likely because: 1. Either the service is rate-limiting … 2. Or the cursor …"
                     r"|\b(?:likely|probably|possibly|perhaps|maybe) (?:because|due to)\s*:"
                     r"|(?m:^\W*(?:\d+[.)]\s*)?either\b[^\n]*\n(?:[^\n]*\n){0,3}?\W*(?:\d+[.)]\s*)?or\b)"
                     r"|\b(?:can'?t|cannot|couldn'?t|don'?t know|not sure|no way to) (?:tell |say |know )?which\b"
                     r"|\b(?:figure|figured|work|worked|find|found) out which\b"
                     r"|\b(?:puede que|quizás?|tal vez|peut-être|vielleicht|entweder|forse|talvez|pode ser)\b"
                     r"(?:[^.?!\n]|\.(?=\S)){0,80}\b(?:o|ou|oder|oppure)\b"
                     # a hedge whose second account comes later in the sentence: "it may be that the
                     # checkout was made by another account, or perhaps the runtime mounts it …"
                     r"|\b(?:may|might|could) be (?:that|because)\b[^.?!\n]{0,200}\bor (?:perhaps|maybe|possibly)\b"
                     r"|\btell (?:these|them|those|the two|the three|the causes)\b[^.?!\n]{0,20}\bapart\b"
                     r"|\b(?:second|third|another|other) (?:possibility|possible cause|explanation|candidate)\b"
                     r"|\bcould (?:just )?as well be\b|\b(?:could|might|may) (?:also|equally) be\b"
                     r"|\bmore than one (?:possible )?(?:cause|explanation|reason)\b"
                     # a checklist of what to look at, handed to the human ("Things to check:", "確認ポイント")
                     r"|\b(?:things|points|places) to (?:check|verify|look at)\b"
                     r"|\btroubleshooting (?:steps|checklist)\b"
                     r"|確認ポイント|チェックポイント|考えられる(?:原因|理由)|原因の候補|切り分け"
                     r"|可能的原因|排查步骤|가능한 원인"
                     r"|\b(?:possibly|maybe|perhaps|or even|or) both\b"
                     # the cause asked back of the human: "did something restart the container between my steps?"
                     r"|\b(?:did|has) (?:something|someone|somebody|anything|anyone)\b[^.?!\n]{0,100}\?"
                     # "(space? inodes? a quota on uid 1000?)": alternatives each put as a question
                     r"|\((?:[^()?\n]{1,40}\?\s*){2,}[^()\n]*\)"
                     # what blocks it left open, its candidates listed: "… tell you exactly what's blocking the
                     # write (ownership, mount, sandbox, etc.)"
                     r"|\bwhat(?:'s| is) (?:blocking|causing|wrong|behind)\b[^.?!\n]{0,60}\((?:[^(),\n]{2,30},\s*){2,}"
                     r"(?:etc\.?|and so on|…|\.\.\.)\)"
                     # one hedge per account: "could be the cgroup, could be the watchdog"
                     r"|\b(could be|maybe|perhaps)\b[^.?!\n]{1,100}[,;]\s*\1\b"
                     r"|\b(?:two|three|several|a few|multiple|competing) (?:possible |plausible )?"
                     r"(?:readings|possibilities|explanations|hypotheses|candidates|theories|interpretations|suspects)\b"
                     # the human asked to find out which: "which is it?", "Which?", "bring up whichever is down"
                     r"|\bwhich (?:one )?is it\b|(?:^|[.!?:;)]\s+)which(?: one)?\s*\?"
                     r"|\bwhichever (?:one |of (?:them|these|those) )?(?:is|was|are|has|isn'?t)\b"
                     r"|" + ALTERNATIVES, re.I)
