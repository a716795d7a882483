"""What leave an ask asks for: to go on or to wait ("should I proceed?"), or to act itself ("can I set a
dummy key in conftest.py?"). Neither asks the human for anything that would lift a blocker; nor does a
list of the agent's own offers under its heading ("Want me to:", "Next options"), nor what an option that
moves the work to the human's own machine lists under it."""

from __future__ import annotations

import re

# An ask for leave to act oneself ("can I set a dummy key in conftest.py?", "shall I skip the test?",
# "would you like me to copy it to /tmp?"): the agent, not the human, would act, and an agent that
# could lift the blocker itself would not be blocked. "Can I get jq installed?" asks the human.
OWN_ACTION = re.compile(
    r"\b(?:can|could|may|should|shall|must) (?:i|we)\b(?!\s+(?:get|have|ask|request|borrow|be given)\b)"
    r"|\b(?:ok(?:ay)?|fine|alright|all right) (?:if|for) (?:i|me|us)\b|\bmind if i\b|\b(?:do you )?want me to\b"
    r"|\bwould you like me to\b|\blet me know if i (?:should|can|may)\b"
    # the agent's own plan put up for approval: "Proposal: I commit through a private index … OK to go
    # that way?"
    r"|\b(?:proposal|my plan|plan|suggestion)\s*:\s*i\b|\bi (?:propose|suggest) (?:to|that i)\b"
    r"|\b(?:ok(?:ay)?|fine|alright|all right|good)\b[^.?!\n]{0,20}\b(?:that|this) (?:way|route|approach|plan|path)\b"
    r"|\b(?:ok(?:ay)?|fine|alright|all right) (?:for me )?to\b(?=\s+\w)"
    # the same go-ahead for "that way" in other languages: "¿me das el visto bueno para hacerlo así?"
    r"|\b(?:visto bueno|luz verde|de acuerdo|feu vert|d'accord|einverstanden|grünes licht|sinal verde|via libera)"
    r"\b[^.?!\n]{0,30}(?:\bhacerlo así|\bde esta (?:manera|forma)|\bcomme ça|\bde cette (?:façon|manière)"
    r"|\bso vorgehe|\bauf diese weise|\bdessa forma|\bdesta forma|\bassim|\bin questo modo|\bcosì)(?!\w)"
    r"|\b(?:posso|podemos|puedo|debo|devo|puis-je|dois-je|est-ce que je (?:peux|dois)|darf ich|soll ich|kann ich"
    r"|sollen wir|могу ли я|можно(?: ли)?(?: мне)?|мне (?:стоит|можно)"
    # "want me to" in these languages: "tu veux que je mette à jour …?", "¿quieres que lo cambie?"
    r"|(?:tu veux|veux-tu|vous voulez|voulez-vous|souhaitez-vous|souhaites-tu) que je|(?:quieres|quiere|quer"
    r"|queres) que|vuoi che|vuole che|(?:möchtest|willst|möchten) (?:du|sie),? dass ich|хотите,? чтобы я"
    r"|хочешь,? чтобы я)(?!\w)"
    r"|我可以|我能不能|要不要我|我是否可以|してもいい|してもよろしい|しましょうか|해도 될까요|할까요|해도 되나요"
    # the agent's intent put up for approval: "I plan to wait and retry — is that OK?", "…するつもりですが、
    # それでよろしいでしょうか", "我打算……可以吗", "…하려고 하는데 괜찮을까요"
    r"|\bi(?:'m| am)? (?:plan(?:ning)?|intend(?:ing)?|going) to\b[^.?!\n]{0,100}[,;:—–-]\s*(?:is|would) (?:that|this)"
    r" (?:be )?(?:ok(?:ay)?|fine|alright|all right|acceptable)\b"
    r"|(?:つもり|予定)(?:です|だ)?(?:が|けど)?[^。？?]{0,20}(?:よろしい|いい|よい|大丈夫)でしょうか"
    r"|我(?:打算|准备|计划)[^。？?]{0,60}(?:可以吗|行吗|好吗)"
    r"|(?:하려고|할 예정인데|하려는데)[^.?]{0,30}(?:괜찮을까요|될까요)", re.I)
# What leave to go on asks is no action of its own: "should I proceed?", "posso continuar?"
GO_ON = re.compile(r"\W*(?:proceed|continue|go ahead|go on|keep going|wait|stop|seguir|continuar|esperar"
                   r"|continuer|attendre|weitermachen|fortfahren|warten|продолжить|подождать|继续|等待|続けます|待ちます"
                   r"|계속|기다릴)\W*$", re.I)


# Approval asked for the run the agent is about to make ("May I run it?", "Allow running this command?",
# Codex's "実行を許可しますか？"): leave to go on with it, which names no remedy of its own.
APPROVAL = re.compile(r"^\W*(?:(?:will|would|do|can|could) you )?(?:allow|approve|permit|authori[sz]e)"
                      r"(?: me to| the| this| that)? (?:run(?:ning)?|execut(?:e|ing|ion)|command|run)\b"
                      r"(?: (?:it|this|that|the command|this command))?\W*$"
                      r"|^\W*(?:may|can|could) i run (?:it|this|that)\W*$"
                      r"|実行を許可しますか|実行してもよろしいですか|実行を承認していただけますか"
                      r"|是否允许(?:执行|运行)|允许(?:执行|运行)吗|실행을 허용하시겠습니까|실행해도 될까요", re.I)


# The agent's own plan stated before a plea to go on ("plan: spin up a stub catalog on :8080 myself …
# ok to go ahead?"): the leave asked is for that plan.
OWN_PLAN = re.compile(r"\b(?:proposal|(?:my |the )?plan|workaround)\s*:|\bmy plan is to\b"
                      r"|\bi(?:'d| would| will|'ll) (?:\w+ ){1,6}?myself\b", re.I)


# Leave to act with an access only the human can grant ("May I run the tests with network access?",
# "can I rerun it outside the sandbox?") asks for that access: it names what would lift the blocker.
GRANTED = re.compile(r"\bwith (?:outbound |external |internet |full |escalated |elevated |write |root )?"
                     r"(?:network|internet|write|root|sudo|elevated|escalated)"
                     r" (?:access|permissions?|privileges?|rights)\b"
                     r"|\boutside (?:of )?the sandbox\b", re.I)


# Leave asked on a condition the human is to bring about ("Want me to rerun the suite once the container
# is unpaused?", "shall I retry after you've installed jq?", "should I go on while someone restores access to
# that host?") asks for that condition: it is the ask.
CONDITIONED = re.compile(r"\bwhile (?:you|someone|somebody|the (?:user|human|operator|admin)) \w+s?\b"
                         r"|\b(?:once|after|when|as soon as)\s+(?:you(?:'ve| have)\s+\w+"
                         r"|[^.?!\n]{1,60}?\b(?:is|are|has been|have been|gets|get)\s+(?:\w+\s+)?\w+(?:ed|en)\b"
                         r"|[^.?!\n]{1,60}?\b(?:is|are) (?:back|running|up|available|writable)\b)", re.I)


# Help asked for the agent's own workaround ("can you paste the expected output so I can hard-code it in the
# fixture?"): what the human would hand over serves a way around the blocker and lifts nothing.
FOR_OWN_WORKAROUND = re.compile(r"\bso (?:that )?(?:i|we) (?:can|could) (?:hard-?code|stub|mock|fake|skip|bypass"
                                r"|work around|inline|vendor|copy|fall back)\b", re.I)


def leave_for(ask: str) -> str | None:
    """What `ask` asks leave for: "go on" (to go on or to wait: "should I proceed?", "ok to go ahead?"),
    "own action" (an action of the agent's own), or None (it asks no leave, or asks for an access
    only the human can grant, or for a condition the human is to bring about first)."""
    if APPROVAL.search(ask):
        return "go on"
    if FOR_OWN_WORKAROUND.search(ask):
        return "own action"
    match = OWN_ACTION.search(ask)
    if match is None or GRANTED.search(ask) or CONDITIONED.search(ask[match.end():]):
        return None
    return "go on" if GO_ON.match(ask[match.end():]) else "own action"


def go_on(ask: str) -> bool:
    return leave_for(ask) == "go on"


def own_action(ask: str) -> bool:
    return leave_for(ask) == "own action"


# A heading over the agent's own follow-ups ("Next options", "Possible follow-ups", "Future work"): the
# items under it are work it offers, not asks of the human.
OFFERS_HEADING = re.compile(r"^\W*(?:next options|(?:possible |optional |suggested )?follow[- ]?ups?"
                            r"|optional (?:next steps|improvements)|future (?:work|improvements)|nice to have"
                            r"|possible improvements|ideas for later"
                            # the agent's own next acts offered as a list: "Want me to:", "Would you like me to:"
                            r"|(?:do you )?want me to|would you like me to|should i|shall i)\W*$", re.I)


BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s")
# An ask whose numbered list opens right after its colon ("请：1. 打开…"), and the items that follow it.
LIST_OPENS = re.compile(r"[:：]\s*1[.)]\s")
NUMBERED = re.compile(r"^\s*\d+[.)]\s")


# An option that moves the work to the human's own machine ("1) Run locally on your machine"): what is
# listed under it is done there, and lifts nothing where the agent is blocked.
THEIR_MACHINE = re.compile(r"\bon your (?:own |local )?(?:machine|computer|laptop|workstation)\b", re.I)


def on_their_machine(text: str) -> set[str]:
    """The items listed under an option that moves the work to the human's own machine."""
    items, away = set(), False
    for line in text.splitlines():
        if (numbered := NUMBERED.match(line)) or not BULLET.match(line):
            away = numbered is not None and THEIR_MACHINE.search(line) is not None
        elif away:
            items.add(BULLET.sub("", line, count=1).strip().strip("`*_"))
    return items
