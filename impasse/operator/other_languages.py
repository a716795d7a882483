"""An ask written in another language, read by the same rule as one in English.

The cards' remedies are regexes over English ("install jq", "delete .git/index.lock"). An ask in
Chinese, Japanese, Korean, German, Spanish, French, Portuguese, Italian, Russian, Dutch, Turkish,
Polish, Vietnamese or Swedish is read for its action alone: the verb, as the English one a card lists
among its `operator.verbs` ("请帮我删除锁文件" asks to delete, which lifts a stale lock; "请帮我新建一个分支"
asks nothing a table knows). Its object is not read: word order and inflection differ too much for
the remedies' patterns, and the object of the cause the text names is still required. A verb no table
knows leaves the ask a plea, as in English.
"""

from __future__ import annotations

import re

# A request put to the human: please, could you, would you mind.
REQUEST = (r"请|麻烦|能否|能不能|可否|建议你|建议您|お願い|ください|いただけ|もらえ|주세요|주시겠|주실 수|주시면|부탁"
           r"|\b(?:bitte|könnten sie|können sie|kannst du|könntest du|por favor|podr[ií]a[sn]?|puede[sn]?"
           r"|pourriez|pouvez|peux-tu|pourrais-tu|s'il vous pla[iî]t|merci de|poderia|pode[sm]?|per favore"
           r"|potrebbe|potresti|potreste|potete|puoi|può|пожалуйста|не могли бы|можете|можно ли|прошу|просьба"
           r"|graag|alsjeblieft|alstublieft|kunt u|kun je|kunnen jullie|zou je|zou u"
           r"|lütfen|rica ed\w*|m[iıuü]s[iıuü]n(?:[iıuü]z)?"
           r"|proszę|czy (?:mo|mó)\w*"
           r"|vui lòng|làm ơn|xin hãy|giúp tôi|(?:bạn|anh|chị) có thể"
           r"|snälla|vänligen|kan du|kan ni|skulle du|skulle ni"
           # Romanian, Hungarian, Greek, Finnish, Danish and Norwegian, Malay and Indonesian
           r"|vă rog|te rog|puteți|ați putea|kérem|kérlek|kérném|tudná|tudnád|παρακαλώ|μπορείτε|θα μπορούσατε"
           r"|voisitko|voisitteko|voitko|ole hyvä|venligst|vennligst|kunne du|kunne dere|tolong|sila|mohon)\b"
           r"|בבקשה|אנא|กรุณา|ช่วย|لطفاً|لطفا|অনুগ্রহ করে|দয়া করে|कृपया|من فضلك|يرجى|الرجاء"
           r"|هل (?:يمكنك|يمكنكم|بإمكانك|بإمكانكم|تستطيع|تستطيعون)"
           # an access stated as what the agent needs, as "I need write permission on .git" asks in English
           r"|\b(?:preciso|necessito) de (?:permiss|acesso)|\bnecesito (?:permiso|acceso)"
           r"|\bj'ai besoin (?:de la permission|des droits|de l'autorisation|d'un accès)"
           r"|\bho bisogno (?:del permesso|dei permessi|dell'accesso)"
           r"|\bich brauche (?:\w+ )?(?:rechte|berechtigung|zugriff)"
           r"|\bcần quyền")

# Alternatives offered in another language, the human asked to pick: "which of them", "one of these
# options", "I don't know which" (Czech, German, Spanish, French, Portuguese, Italian, Russian,
# Ukrainian, Polish, Dutch, Turkish, Swedish, Vietnamese, Indonesian, Chinese, Japanese, Korean,
# Hindi, Arabic).
ALTERNATIVES = (r"\b(?:kter[áýou] z (?:nich|těchto)|jedn(?:u|ou|a) z těchto|nevím,? kter"
                r"|welche (?:davon|der beiden|von beiden|von diesen)|eine (?:der|dieser) (?:folgenden )?"
                r"(?:möglichkeiten|optionen|ursachen)|weiß nicht,? welche"
                r"|cuál de (?:ellas|ellos|estas|estos|las dos|los dos)|una de estas (?:opciones|posibilidades)"
                r"|no sé cuál"
                r"|lequel (?:de|des)|laquelle (?:de|des)|l'une de ces|une de ces (?:options|possibilités)"
                r"|je ne sais pas lequel|je ne sais pas laquelle"
                r"|qual (?:delas|deles|destas|destes|das duas|dos dois)|uma destas (?:opções|possibilidades)"
                r"|não sei qual"
                r"|quale (?:delle|dei|di queste|di questi|tra)|una di queste (?:opzioni|possibilità)|non so quale"
                r"|как(?:ая|ой|ую) из (?:них|этих|двух|трёх)|котор(?:ая|ый|ую) из|один из (?:этих )?вариантов"
                r"|не знаю,? (?:какая|какой|что из)|як(?:а|ий|у) з (?:них|цих|двох)|не знаю,? (?:яка|який)"
                r"|któr[ayą] z (?:nich|tych)|jedną z tych|nie wiem,? któr"
                r"|welke (?:van deze|daarvan|van de twee)|een van deze (?:opties|mogelijkheden)|weet niet welke"
                r"|hangisi\w*|bu seçeneklerden"
                r"|vilken av (?:dem|dessa)|ett av dessa alternativ|vet inte vilken"
                r"|cái nào|một trong (?:các|những) (?:phương án|khả năng|lựa chọn)|không biết (?:là )?nguyên nhân nào"
                r"|yang mana|salah satu dari (?:opsi|kemungkinan)|tidak tahu (?:yang )?mana)(?!\w)"
                r"|哪一个|是哪个|哪个是|其中之一|以下之一|哪一种|どれが|どれなのか|いずれか|どちらが"
                # two states joined by "or" before "in the case that": "立っていないか、ポートが違う場合",
                # "要么…要么", "실행되지 않았거나 포트가 다른 경우"
                r"|(?:ない|いる|ある|です|ます|た)か[、,][^。\n]{1,60}(?:場合|可能性|かも)"
                r"|要么[^。\n]{1,60}要么|(?:않았|않|없|있|었)거나[^.\n]{1,60}(?:경우|수 있)"
                # which of several it is, left open ("設定の誤りか、プロキシかは不明", "是 A 还是 B，不清楚");
                # several causes announced over a list: "这可能是因为：", "考えられる原因："
                r"|か[、,][^。\n]{1,60}か(?:は|が)?(?:不明|わかりません|分かりません|わからない)"
                r"|还是[^。\n]{1,40}(?:不清楚|不确定|不知道|未知)"
                r"|可能(?:的)?原因(?:有|是|包括)?[:：]|可能是因为[:：]"
                r"|考えられる原因(?:は)?[:：]"
                r"|어느 (?:것|쪽)|중 하나"
                r"|कौन सा|इनमें से|أي منها|أيهما"
                # one hedge word per account: "może brakuje miejsca, może plik jest uszkodzony"
                r"|(?<!\w)(?P<hedge>może|vielleicht|quizás?|tal vez|peut-être|talvez|forse|возможно|может быть"
                r"|mungkin|có thể|belki|misschien|kanske|možná|ehkä|poate|ίσως)(?!\w)[^.?!\n]{1,100}[,;]\s*"
                r"(?:(?:a|o|ou|oder|or|или|atau|hoặc|veya|of|eller|nebo|tai|sau|ή)\s+)?(?P=hedge)(?!\w)"
                r"|nie wiem,? co (?:jest )?(?:przyczyną|powoduje)|no sé (?:qué|cuál es la causa)"
                r"|je ne sais pas (?:ce qui|quelle est la cause)|ich weiß nicht,? (?:was|woran)"
                # a second account offered beside the first: "mais ce pourrait aussi être …"
                r"|pourrait (?:aussi|également) être|peut (?:aussi|également) être|también podría ser"
                r"|podría ser también|também (?:pode|poderia) ser|poderia também ser|könnte auch\b[^.?!\n]{0,40}\bsein"
                r"|potrebbe anche essere|также может быть|kan ook\b[^.?!\n]{0,30}\bzijn|może też być"
                # "possible causes" in these languages, and a list under "possible are:"
                r"|mögliche (?:ursachen|gründe|erklärungen)|möglich (?:sind|wären)\s*:|posibles (?:causas|razones"
                r"|explicaciones)|(?:causes|raisons|explications) possibles|(?:causas|razões) possíveis"
                r"|possíveis (?:causas|razões)|(?:possibili|probabili) (?:cause|ragioni)|возможные причины"
                # one alternative per clause, each opened by the pair's word: "o falta PyYAML, o hay un import
                # circular", "soit … soit …", "ou … ou …", "либо … либо …", "或者…或者…"
                r"|(?:^|[:;,]\s*|\b(?:que|é|es|est)\s+)(?P<either>o|ou|soit|либо|или|oder|veya|ya)\s[^.?!\n]{3,120}[,;]\s*"
                r"(?P=either)\s|或者[^。\n]{2,60}[，,；;]\s*或者|要么[^。\n]{2,60}[，,；;]\s*要么")

# Each action in the other languages' words, as the English verb the remedies are written with.
ACTIONS = {
    "install": r"安装|装上|装一下|インストール|入れ|설치|installier\w*|instal[aeo]\w*|installer|installez|installare"
               r"|установ(?:и|ите|ить)(?! переменн)"
               r"|installeer\w*|\bkur(?:un|sun|ar|abilir|manız|mak|ulum)\w*|yükle(?:y|r\b|mek)\w*|zainstaluj\w*"
               r"|instaluj\w*|zainstalow\w*|cài(?: đặt)?|installera\w*",
    "delete": r"删除|删掉|移除|削除|消して|消し|삭제|지워|lösch\w*|entfern\w*|elimin\w*|borr[ae]\w*|supprim\w*"
              r"|effac\w*|apag[ae]\w*|remov[ae]\w*|rimuov\w*|cancell\w*|удал\w*"
              r"|verwijder\w*|\bsil(?:in(?:iz)?\b|ebilir\w*|er\b|mek\w*|\b)|\bkaldır(?:ın|abilir|ır m)\w*|usuń\w*"
              r"|usun(?:ąć|ięcie)\b|skasuj\w*|x(?:óa|oá)|gỡ bỏ|\bta(?:r|s)? bort\b|radera\w*",
    "restart": r"重启|重新启动|再起動|재시작|neu ?start\w*|reinici\w*|redémarr\w*|relanc\w*|riavvi\w*|перезапуст\w*"
               r"|újraindít\w*|indíts\w* újra|reporni\w*|repornește|επανεκκίνη\w*|käynnistä\w* uudelleen"
               r"|genstart\w*|omstart\w*|mulakan semula|mulai ulang"
               r"|herstart\w*|opnieuw (?:op)?start\w*|(?:yeniden|tekrar) başlat\w*|zrestartuj\w*|zrestartow\w*"
               r"|restartuj\w*|uruchom\w* ponownie|ponownie uruchom\w*|khởi động lại|starta om|startar om|omstart\w*",
    "start": r"启动|起動|시작|starte\w*|inici[ae]\w*|arranc\w*|démarr\w*|avvi[ae]\w*|запуст\w*"
             # a service brought up: "subam o serviço", "levanten el servicio", "den Dienst hochfahren"
             r"|\bsub(?:a|am|ir)\b|\blevant(?:a|e|en|ar)\b|hochfahr\w*|hochzufahren"
             r"|\bstart (?:de|het)\b|opstarten|op te starten|başlat\w*|uruchom(?:ić|cie|isz|\b)|khởi động|starta\w*",
    "set": r"设置|设定|配置|設定|설정|setz\w*|defin[ai]\w*|configur\w*|impost\w*|зада\w*"
           r"|\bzet\b|\bstel\b|instellen|in te stellen|definieer\w*|ayarla(?:y|r\b|mak)\w*|tanımla(?:y|r\b|mak)\w*"
           r"|ustaw(?:ić|cie|isz|\b)|zdefiniuj\w*|thiết lập|(?<!cài )đặt|cấu hình|\bsätt\b|ställ in|konfigurera\w*"
           r"|definiera\w*",
    "remount": r"重新挂载|再マウント|다시 마운트|neu einhäng\w*|remont\w*|rimont\w*|перемонтир\w*"
               r"|hermount\w*|opnieuw (?:te )?(?:mounten|aan ?koppelen|koppelen)"
               r"|(?:yeniden|tekrar) (?:bağla(?:y|r\b|mak)|mount)\w*"
               r"|zamontuj\w*|przemontuj\w*|gắn lại|mount lại|montera om|återmontera\w*",
    # (not an access released: "pode liberar a escrita nesses arquivos?", "libérer l'accès")
    "free": r"清理|释放|腾出|空け|解放|비워|확보|freigeb\w*|freimach\w*"
            r"|(?:liber[ae]|libér)\w*+(?! (?:(?:a|o|el|la|l'|os|as) ?)?(?:escrita|escritura|gravação|acesso"
            r"|acceso|accès|permiss\w*|permiso\w*|écriture))|освобод\w*"
            r"|vrijmaken|vrij te maken|\bmaak\b.{0,30}\bvrij\b|opruimen|\bruim\b.{0,30}\bop\b|boşalt\w*"
            r"|temizle(?:y|r\b|mek)\w*|zwolni\w*"
            r"|wyczyść\w*|giải phóng|dọn dẹp|frigör\w*|rensa\w*",
    "increase": r"增加|提高|加大|増や|上げ|늘려|올려|erhöh\w*|anheb\w*|aument\w*|augment\w*|alz(?:a|are|ate|i)\b"
                r"|relev\w*|elev(?:ar|e|em)\b|увелич\w*|підвищ\w*|збільш\w*"
                r"|verhoog\w*|verhogen|vergroot\w*|vergroten|art[ıt]?ır\w*|yükselt\w*|zwiększ\w*|podnieś\w*"
                r"|tăng|cấp thêm|thêm (?:bộ nhớ|ram)\b|nâng (?:giới hạn|hạn mức)"
                r"|\bök(?:a|as|ar)\b|\bhöj(?:a|s)?\b",
    "sync": r"同步|同期|동기화|synchronisier\w*|sincroniz\w*|synchronis\w*|синхрониз\w*|senkroniz\w*"
            r"|synchronizuj\w*|đồng bộ|synkronis\w*|selaraskan|sinkron\w*",
    "renew": r"更新|续期|갱신|erneuer\w*|renov[ae]\w*|renouvel\w*|rinnov\w*|обнов\w*|продл\w*"
             r"|vernieuw\w*|verleng\w*|bijwerken|yenile\w*|güncelle(?:y|r\b|mek)\w*|odn(?:ów|owi)\w*|zaktualizuj\w*"
             r"|gia hạn|làm mới|cấp lại|cập nhật|förny\w*|uppdatera\w*",
    "resume": r"恢复|继续运行|再開|재개|fortsetz\w*|reanud\w*|reprend\w*|retom\w*|riprend\w*|возобнов\w*"
              r"|hervat\w*|devam ettir\w*|wznów\w*|wznowi\w*|tiếp tục chạy|bỏ tạm dừng|återuppta\w*",
    "allow": r"开放|放行|允许|許可|허용|erlaub\w*|freischalt\w*|permit[ae]\w*|autoris\w*|consent\w*|разреш\w*"
             r"|تفعيل|فعّل|السماح|اسمح"
             r"|toestaan|toe te staan|izin ver(?:in|ir|ebilir|mek)\w*|zezw(?:ól|ol)\w*|pozwól\w*|cho phép"
             r"|\btillåt(?:a)?\b",
    "chown": r"所有者を|所有权|归属|소유자를|소유권|besitzer ändern|cambi\w* (?:el|o|le|il) propietari\w*"
             r"|eigenaar (?:wijzigen|veranderen|aanpassen)|(?:wijzig|verander)\w* (?:de )?eigenaar"
             r"|eigendom (?:overdragen|wijzigen)"
             r"|sahib\w* (?:olarak ayarla|değiştir)\w*|sahipliğ\w* (?:değiştir|ver|devret)\w*"
             r"|zmie[nń]\w* właściciel\w*|(?:đổi|chuyển)(?: lại)? (?:quyền )?(?:chủ )?sở hữu"
             r"|(?:ändra|byt\w*) (?:på )?ägar\w*",
    "restore": r"恢复安装|戻して|복원|wiederherstell\w*|restaur\w*|ripristin\w*|восстанов\w*"
               r"|terugzetten|terugplaatsen|\bzet\b.{0,30}\bterug\b|geri (?:yükle|getir)\w*|przywr[óo]\w*|khôi phục"
               r"|cài lại|återställ\w*"
               r"|sätt tillbaka|lägg tillbaka",
    # a process ended: the remedy of no card, so an ask for it fits none ("実行中の git プロセスを終了する")
    "kill": r"终止|杀掉|杀死|结束.{0,6}进程|終了(?:する|して|させ)|強制終了|停止(?:する|して|させ)|종료|beend\w*|"
            r"\bmat(?:a|ar|e|en)\b|\btu(?:er|ez)\b|encerr\w*|заверш\w*|убе?й\w*|sonlandır\w*|zabij\w*|"
            r"dừng tiến trình|avsluta\w*|döda\w*",
    # the tests that need the blocker skipped: what would only hide it (the wrong action)
    "skip": r"跳过|スキップ|건너뛰|überspring\w*|omit\w*|пропуст\w*",
    "add": r"添加|加上|加入|追加|추가|hinzufüg\w*|ergänz\w*|añad\w*|agreg\w*|ajout\w*|adicion\w*|acrescent\w*"
           r"|aggiung\w*|добав\w*"
           r"|\bvoeg\b|toevoegen|toe te voegen|\bekle(?:y|r\b|mek)\w*|dodaj\w*|dodać|thêm|lägg\w* till",
}
VERBS = {english: re.compile(words, re.I) for english, words in ACTIONS.items()}


ELSEWHERE = re.compile(REQUEST + r"|[^\x00-\x7f‘’“”—–…→]", re.I)


def verbs_asked(text: str) -> set[str]:
    """The English verbs of the actions `text` asks for, where it is written in another language (a
    letter outside ASCII, or another language's please): "remove" and "configure" are English words
    that read as Portuguese and Spanish ones."""
    if not ELSEWHERE.search(text):
        return set()
    return {english for english, verb in VERBS.items() if verb.search(text)}


# A variable assigned in code (`TMPDIR=/tmp`, `docker run -e INVOICE_SIGNING_KEY=…`) asks to set it in
# any language: the assignment says what to do whatever words surround it.
# Unquoted, an upper-case name joined to its value is code all the same (`LANG=C.UTF-8` in a sentence).
ASSIGNMENT = re.compile(r"`[^`\n]*?\b([A-Z][A-Z0-9_]{2,})=[^`\n]*`|(?<![\w`=])([A-Z][A-Z0-9_]{2,})=[^\s`'\"=]+")


def assigned(text: str) -> set[str]:
    """The variables `text` assigns in code."""
    return {m[1] or m[2] for m in ASSIGNMENT.finditer(text)}


# The human handed a choice: "qué hago?", "tu veux que je fasse quoi ?", "どうしますか" (asks.CHOICE).
CHOICE = (r"\b(?:qué (?:hago|prefieres|debo hacer)|que (?:dois-je|voulez-vous|veux-tu) faire"
          r"|was soll ich tun|o que (?:devo fazer|prefere)|cosa (?:devo fare|preferisci)"
          r"|что (?:мне )?делать|que je fasse quoi|qu.est-ce que (?:tu veux|vous voulez) que je fasse"
          r"|qué quieres que haga|o que (?:você )?quer que eu faça)\b"
          r"|どうしますか|どれにしますか|どちらに(?:しますか|しましょうか)"
          r"|選んでください|怎么办|请选择|选哪个|어떻게 할까요|선택해")
