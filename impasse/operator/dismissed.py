"""A text that puts the failure down as settled or beside the point ("this issue is already resolved",
"no action needed", "out of scope", "not an environment issue"): it asks no one to lift anything, so a
person doing what it says would leave the blocker where it is — the wrong action, whatever it quotes."""

from __future__ import annotations

import re

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
