"""What asks the human to act, and what offers a choice, in the other languages agents answer in
(English's offer is verdicts.OFFER): the words for please, could you, and if you want. In English, the
asks themselves (ENGLISH_ASKS), what a last message hands over for later (LATER_CHECK) and what it says
it does next (announces, in the other languages too)."""

from __future__ import annotations

import re

# Japanese and Chinese have no word boundaries; the others do.
ASKS = re.compile(
    r"(?:してください|して下さい|お願いします|お願いいたします|いただけますか|いただければ|いただけると"
    r"|もらえますか|もらえれば|请你|请您|麻烦你|麻烦您|需要你|需要您|能否请"
    # What the human is to do on their own side, after which the agent goes on ("ユーザー側で `sudo …` を
    # 通せれば、こちらで再度実行します", "您那边执行后…"): the "once you have" of these languages.
    r"|(?:ユーザー|お客様|あなた|そちら)側で|お手元で|(?:你|您)那边|사용자 측에서|그쪽에서"
    r"|해 ?주세요|해 ?주시겠|부탁드립니다|부탁합니다|пожалуйста|не могли бы вы|можете ли вы"
    r"|\b(?:pourriez-vous|pouvez-vous|peux-tu|pourrais-tu|merci de|veuillez|il faut que (?:tu|vous)"
    r"|por favor|podrías|podría usted|puedes|necesito que|poderia|você pode|preciso que"
    # what the human will have to do, the "you'll need to" of these languages
    r"|você (?:precisará|precisa|vai precisar|terá que|tem que)|vous (?:devrez|devez|aurez besoin)|tu (?:devras|dois)"
    r"|(?<!\bno )(?:tendrás|tendrá|tienes|tiene) que|(?<!\bno )(?:necesitarás|necesitará)"  # not "no tienes que""
    r"|(?:du musst|sie müssen|du wirst|sie werden) \w+ müssen"
    r"|bitte|könnten sie|können sie|kannst du|könntest du"
    # Indonesian and Malay, Ukrainian: please, could you, if you can ("Jika kamu bisa, coba install …")
    r"|tolong|mohon|silakan|bisakah (?:kamu|anda)|(?:jika|kalau) (?:kamu|anda) bisa|будь ласка|чи (?:можете|могли б)"
    # options handed back for the human to pick from ("vous avez trois options")
    r"|(?:vous avez|tu as|tienes|tiene usted|usted tiene|sie haben|du hast|você tem) (?:\w+ )?(?:options|opciones"
    r"|optionen|opções|möglichkeiten))\b"
    # the same in Chinese and Japanese: numbered options ("方案 1：…", "选项二：", "オプション1:") or a count of them
    r"|(?:方案|选项|選択肢|オプション|案)\s*(?:[1-9一二三四]|[A-D])\s*[：:.．、)）]"
    r"|(?:有|以下)(?:两|三|四|几|[2-9])(?:个|種類の|つの)?(?:方案|选项|选择|選択肢|方法))", re.I)
# An offer of what to do next ("if you want, I …"), which after a failure hands the human the decision.
OFFERS = re.compile(
    r"^(?:si tu veux|si vous voulez|si vous le souhaitez|si quieres|si lo deseas|si desea|wenn du (?:willst|möchtest)"
    r"|wenn sie (?:wollen|möchten)|se quiser|se você quiser|必要であれば|ご希望であれば|よろしければ"
    r"|如果你需要|如果需要|如需|若需|如有需要|如果你愿意|원하시면|если хотите|если нужно"
    # "want me to …?" in Chinese: 你想让我…吗, 要不要我…, 需要我…吗
    r"|(?:你|您)(?:想|希望)让我|要不要我|(?:是否)?需要我"
    # "would you like (me to) …?" in German, Spanish, French, Italian, Portuguese: more work offered
    r"|hast du interesse|haben sie interesse|möchtest du|möchten sie|willst du|soll ich|sollen wir"
    r"|¿?(?:quieres|quiere|te gustaría|le gustaría)|voulez-vous|veux-tu|souhaitez-vous|vuoi che|ti interessa"
    r"|(?:você )?quer que eu|gostaria que eu"
    # "anything else?" in those languages and in Chinese and Japanese: more work offered, nothing asked
    r"|(?:você )?(?:ainda )?precisa de (?:mais )?(?:algo|alguma coisa)|mais alguma coisa|¿?(?:necesitas|necesita) algo"
    r"|¿?algo más|(?:as-tu|avez-vous) besoin d'autre chose|autre chose|(?:brauchst du|brauchen sie) noch"
    r"|sonst noch|(?:ti serve|le serve|hai bisogno di) (?:altro|qualcos)|qualcos'altro"
    r"|还有(?:什么|其他)|还需要(?:什么|其他)"
    r"|他に(?:何か|なにか)"
    # "anything you would like changed?": more work offered ("改善・修正したい点はありますか？", "还有哪些要调整？")
    r"|(?:[^。？?]{0,20}(?:改善|修正|変更|調整|追加)したい(?:点|ところ|箇所))|还有(?:哪些|哪里)"
    # "shall I …?" in Japanese, said at the sentence's end: "…確認しておきましょうか？"
    r"|.*?(?:し|き|み|げ|せ|り)?ましょうか[？?]$)", re.I)
QUESTION_MARKS = ("?", "？")
# A question that only fills in the offer before it ("Want me to commit it? Something like `session.jsonl`?").
FOLLOW_UP = re.compile(r"^(?:(?:something like|maybe|perhaps|or|say|e\.g\.|like|for example|ideally)\b"
                       r"|比如|例如|譬如|或者|たとえば|例えば)", re.I)


# A check handed to the human for later, once what it needs is there ("Once aider is available, please
# run: …"): in a report that claims the work done, it asks nothing the agent needs to go on.
LATER_CHECK = re.compile(r"^\W*(?:once|when|after)\b[^.?!\n]{0,80}\b(?:available|installed|ready|set up|in place|back"
                         r"|running|exists?)\b[^.?!\n]{0,20}?[,:]?\s*(?:please\s+)?(?:run|verify|check|test|try|execute)\b",
                         re.I)


# Words that end on the agent's own next step ("Let me check the logs.", "Now I'll stage all changes and
# commit:", "Starting the authorization flow now..."): with no call after them, the log stops mid-work.
# Waiting on its own running work ("I will wait for the Git push task to complete") is its next step;
# waiting on the human ("I'll wait for your approval") is not.
ON_OWN_WORK = (r"[^.?!]{0,80}\bfor (?:the|my|its|this|that) [^.?!]{0,60}"
               r"\bto (?:finish|complete|fire|end|return|succeed)\b")
ANNOUNCES = re.compile(r"^(?:(?:ok(?:ay)?|now|next|then|first|alright|great|perfect|good)\W+)*"
                       r"(?:let me (?!know\b)"
                       r"|(?:i'll|i will|i'm going to|i am going to) (?!(?:be|leave|stop|need)\b)"
                       rf"(?!wait\b(?!{ON_OWN_WORK}))"
                       r"|(?:i'm|i am) (?:now )?\w+ing\b[^.?!]*\b(?:now|next)\b"
                       r"|(?:starting|running|creating|launching|proceeding|continuing|moving on|checking|fixing"
                       r"|writing)"
                       r"\b[^.?!]*\bnow\b)", re.I)

# The same in the other languages agents answer in, each in its own grammar of intent: a verb of going
# before the infinitive ("Agora vou adicionar …", "Voy a revisar …", "Je vais lancer …"), German's
# "ich werde" and "lass mich", a Japanese sentence (the last after a 。) that opens on its next step
# and ends on -masu ("次に … を確認します。"), and Korean's ending of intent (확인하겠습니다, 볼게요;
# not 감사하겠습니다, "I'd be grateful", which closes an ask, nor after a condition, "알려주시면 …
# 볼게요", which offers more). Waiting and stopping are no step of the agent's own.
ANNOUNCES_IN_OTHER_LANGUAGES = re.compile(
    r"^(?:(?:agora|ahora|maintenant|jetzt|então|entonces|bom|bien|certo|entendido|d'accord|gut|ok(?:ay)?)\W+)*"
    r"(?:(?:vou|vamos)\s+(?:agora\s+|primeiro\s+|então\s+)?(?!(?:aguardar|esperar|ficar|parar|precisar)\b)\w+(?:ar|er|ir)\b"
    r"|(?:voy|vamos) a (?!(?:esperar|quedar|parar|necesitar)\b)\w+(?:ar|er|ir)\b"
    r"|(?:je vais|on va) (?!(?:attendre|rester|arrêter|m'arrêter)\b)\w+(?:er|ir|re)\b"
    r"|ich werde\b(?![^.?!]*\b(?:warten|aufhören)\b)|lass(?:t)? mich\b"
    r")|(?:^|[。！])\s*(?:次に|では|まず|それでは)[^。.?？]*(?<!あり)(?<!い)(?<!でき)ます[。.]?$"
    r"|^(?![^.?!。]*면\s)[^.?!。]*(?<!감사)(?<!감사하)(?:하겠습니다|보겠습니다|할게요|볼게요)[.。]?$", re.I)


def announces(sentence: str) -> bool:
    """Whether a sentence announces the agent's own next step, in English or another language."""
    return bool(ANNOUNCES.match(sentence) or ANNOUNCES_IN_OTHER_LANGUAGES.search(sentence))

# A grant only a person gives, still to come ("waiting for file write permission", "pending your approval"):
# the human's to give (an ask), and the work it waits on not done (no claim, claim_words.NOT_A_CLAIM).
AWAITING_GRANT = r"\b(?:waiting (?:for|on)|awaiting|pending)\s+(?:[\w-]+\s+){0,4}?(?:approval|permission)\b"
# A request that the human act: a modal or a plea aimed at "you", then something to do.
ACT = (r"(?:run|install|grant|give|provide|set|add|start|restart|enable|approve|allow|check|confirm|update|create"
       r"|configure|log ?in|sign in|authenticate|upgrade|fix|share|paste|send|tell|choose|decide|pick|review|open"
       r"|connect|unlock|free|remove|delete|rotate|export|fund|top up|deploy|retry|re-?run|clarify|specify"
       r"|complete|finish|follow|click|visit|accept|enter)")
ENGLISH_ASKS = re.compile(
    rf"(?:\bplease\b[^.?!\n]{{0,40}}?\b{ACT}\b|\b(?:could|can|would) you\b(?! like)[^.?!\n]{{0,40}}?\b{ACT}\b"
    rf"|\byou(?:'ll|'d| will| would)? (?:need|have|must|should) (?:to )?{ACT}\b|\bi need you to\b"
    rf"|\b(?:action|input|approval|permission|confirmation) (?:is )?(?:required|needed) from you\b"
    # a heading that hands the human the next act ("Action required: run `gh auth login` …")
    rf"|^\W*(?:(?:user |human |manual )?action (?:required|needed)|what you need to do|next steps? for you"
    rf"|for you to do)\W*:[\s*_`]*(?!none\b|nothing\b|n/?a\b)\w"
    rf"|\bhere'?s how (?:to|you can) (?:fix|resolve|solve|unblock|get past) (?:this|it|that)\W*:"  # steps follow
    rf"|\b(?:needs?|requires?|waiting (?:for|on)|awaiting|pending) (?:your|human|manual) (?:input|action|approval"
    rf"|permission|help|decision|confirmation)\b"
    # a grant only a person gives, still to come ("ready and waiting for file write permission to save it")
    rf"|{AWAITING_GRANT}"
    rf"|\b(?:once|when|after) you(?:'ve| have)\b"
    rf"|\blet me know (?:which|what|how|whether|when you|once you|if you(?:'d| would) prefer)\b"
    # the act asked for as a condition to hear back on: "let me know if you can install jq"
    rf"|\b(?:let me know|tell me) if you (?:can|could|are able to) {ACT}\b"
    # the agent goes on only after the human acts ("If you can run `sudo …`, I'll finish the deploy"),
    # and the steps left to the human ("Manual step required", "To proceed, you'll need to …")
    rf"|\bif you (?:can |could )?{ACT}\b[^.?!\n]{{0,80}}\bI(?:'ll| will| can)\b"
    # the human's step, then the agent's: "Now run this to log into GitHub, then I'll create the repo"
    rf"|^\W*(?:now |first |just )?{ACT}\b[^.?!\n]{{0,80}}\bthen I(?:'ll| will| can)\b"
    rf"|\bmanual (?:step|action|intervention)s? (?:is |are )?(?:required|needed)\b"
    rf"|\bto (?:proceed|continue|unblock)\b[^.?!\n]{{0,30}}\b(?:you(?:'ll)?|someone|a human) (?:will )?"
    rf"(?:need|must|have)\b"
    # the choice handed back: options the human is to pick from and carry out ("You have three options")
    rf"|\byou have (?:\w+ )?(?:options|choices)\b|\byour (?:options|choices) (?:are|here)\b)", re.I)


# What the agent says is left of the work itself, waiting on the human ("**Waiting on you:**", "The one real
# gap is the ID check.", "not yet implemented", "before I execute it"): a question after it hands the human the
# decision the agent needs to go on, whatever the message reports done first.
WORK_LEFT = re.compile(r"\bwaiting (?:on|for) you(?:r\b|\b)|\bawaiting your\b|\bnot yet (?:implemented|done|started"
                       r"|applied|executed|run)\b|\b(?:the )?(?:one|only) (?:real |remaining )?gap\b"
                       r"|\bstill (?:outstanding|pending|to (?:do|be done))\b|\bbefore i (?:proceed|go ahead|start"
                       r"|execute|run|apply)\b", re.I)
# A question for something only the human has (a value, a place): "What's your private repo URL?", "Where is
# the key file?", "Can you share the credentials?". Whatever the message reports done, the agent needs it to go on.
ASKS_FOR_A_VALUE = re.compile(r"^\W*(?:what(?:'s| is) your|where (?:is|are|can i find) (?:your|the)"
                              r"|can you (?:share|send|provide|paste|give me))\b", re.I)


# "If you need anything more, tell me" in Chinese (如果你需要进一步的…，请告诉我) and in the languages SIGN_OFF
# reads ("si necesitas otra cosa, avísame", "se hai bisogno di altro, fammi sapere"): help offered on the human's need.
NEED_MORE = (r"(?:如果|如)(?:你|您)?(?:还)?(?:需要|有(?:任何|其他)?(?:问题|需求))[^。！？?]{0,60}"
             r"(?:请|欢迎)?(?:告诉|告知|联系)我"
             r"|\b(?:si necesitas?|se (?:você )?precisar|si (?:tu as|vous avez) besoin|se hai bisogno|se ti serve"
             r"|wenn (?:du|sie) (?:noch )?(?:etwas|was) (?:brauchst|brauchen))\b[^.?!\n]{0,60}"
             r"(?:avísame|me avisa|dime|dis-moi|dites-moi|fammi sapere|sag (?:mir )?Bescheid)")
# Help offered whenever the human wants it (有事随时叫我, 何かあれば), or on the human's own need.
ANY_TIME = r"有事随时|随时(?:叫|找|告诉)我|何かあれば|" + NEED_MORE
# A sign-off that offers more help ("let me know if anything else comes up", "fammi sapere", 有事随时叫我)
# closes a turn whose work the agent holds done: no ask, nothing failed.
SIGN_OFF = re.compile(r"\b(?:let me know if|feel free to (?:ask|reach out)|fammi sapere|avísame|me avisa|sag "
                      r"(?:mir )?Bescheid|n'hésite pas)\b|" + ANY_TIME, re.I)
# Help offered on the human's own need ("let me know if you need anything else", 如果你需要…请告诉我) is no ask,
# unlike "let me know if you can install jq", which asks for the act.
HELP_OFFERED = re.compile(r"\b(?:let me know|tell me) if you (?:need|want|have|would like|'d like)\b"
                          r"|\bfeel free to (?:ask|reach out)\b|" + ANY_TIME, re.I)


# What the agent must do before it can go on, said with no failure ("To proceed, I need to delete the
# existing configuration first"), or a check it would have to get past ("Should I commit with `--no-verify`
# to skip the hook?"): an offer after it hands the human that decision.
NEEDED_FIRST = re.compile(r"\bto (?:proceed|continue|go on|move forward)\b[^.?!\n]{0,120}\b(?:i|we) (?:need|must|have)"
                          r" to\b|\b(?:i|we) (?:need|must|have) to\b[^.?!\n]{1,120}\bfirst\b"
                          r"|--no-verify\b|\b(?:skip|bypass)(?:ping)? (?:the |this |that )?(?:[\w-]+ ){0,2}"
                          r"(?:hooks?|checks?|verification)\b", re.I)
