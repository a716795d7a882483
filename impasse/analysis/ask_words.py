"""What asks the human to act, and what offers a choice, in the other languages agents answer in
(English is verdicts.ASKS and verdicts.OFFER): the words for please, could you, and if you want. And
in English, what a last message hands over for later (LATER_CHECK) or says it does next (ANNOUNCES)."""

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
    r"|(?:tendrás|tendrá|tienes|tiene) que|necesitarás|necesitará"
    r"|(?:du musst|sie müssen|du wirst|sie werden) \w+ müssen"
    r"|bitte|könnten sie|können sie|kannst du|könntest du"
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
    r"|如果你需要|如果需要|如果你愿意|원하시면|если хотите|если нужно"
    # "want me to …?" in Chinese: 你想让我…吗, 要不要我…, 需要我…吗
    r"|(?:你|您)(?:想|希望)让我|要不要我|(?:是否)?需要我"
    # "would you like (me to) …?" in German, Spanish, French, Italian, Portuguese: more work offered
    r"|hast du interesse|haben sie interesse|möchtest du|möchten sie|willst du|soll ich|sollen wir"
    r"|¿?(?:quieres|quiere|te gustaría|le gustaría)|voulez-vous|veux-tu|souhaitez-vous|vuoi che|ti interessa"
    r"|(?:você )?quer que eu|gostaria que eu)", re.I)
QUESTION_MARKS = ("?", "？")


# A check handed to the human for later, once what it needs is there ("Once aider is available, please
# run: …"): in a report that claims the work done, it asks nothing the agent needs to go on.
LATER_CHECK = re.compile(r"^\W*(?:once|when|after)\b[^.?!\n]{0,80}\b(?:available|installed|ready|set up|in place|back"
                         r"|running|exists?)\b[^.?!\n]{0,20}?[,:]?\s*(?:please\s+)?(?:run|verify|check|test|try|execute)\b",
                         re.I)


# Words that end on the agent's own next step ("Let me check the logs.", "Now I'll stage all changes and
# commit:", "Starting the authorization flow now..."): with no call after them, the log stops mid-work.
ANNOUNCES = re.compile(r"^(?:(?:ok(?:ay)?|now|next|then|first|alright|great|perfect|good)\W+)*"
                       r"(?:let me (?!know\b)"
                       r"|(?:i'll|i will|i'm going to|i am going to) (?!(?:be|wait|leave|stop|need)\b)"
                       r"|(?:i'm|i am) (?:now )?\w+ing\b[^.?!]*\b(?:now|next)\b"
                       r"|(?:starting|running|creating|launching|proceeding|continuing|moving on|checking|fixing"
                       r"|writing)"
                       r"\b[^.?!]*\bnow\b)", re.I)
