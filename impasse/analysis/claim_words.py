"""What a sentence says when it claims the work done, in English and in the other languages agents
answer in; and what makes a sentence that names the work no claim ("I could not finish it")."""

from __future__ import annotations

import re

from impasse.analysis.ask_words import AWAITING_GRANT

# "complete" the adjective ("the migration is complete"), not the verb ("please complete the browser flow")
ENGLISH = re.compile(r"\b(?:done|completed|complete(?!\s+(?:the|a|an|this|that|these|those|your|my|it|its|all)\b)"
                    r"|finished|implemented|fixed|resolved|shipped|landed|succeeded"
                    r"|successfully|all (?:\d+ )?(?:tests|checks) pass(?:ed|ing)?|(?:is|are) (?:now )?(?:working|ready"
                    r"|in place)|ready (?:for|to)(?! (?:start|begin|run|proceed|continue|go|do|try|help|assist|dive)\b)"
                    r"|committed|pushed|verified|all green"
                    # a harness's all-clear token for a periodic check (OpenClaw's heartbeat: "HEARTBEAT_OK"), and
                    # its token for a turn that needs no message ("NO_REPLY": nothing left to say)
                    r"|heartbeat_ok|no_reply|(?<=\[)silent(?=\])"
                    r"|(?:verification|tests?|checks?|build|suite|everything)(?: now| still)? pass(?:es|ed)?"
                    # Work reported done in the past tense ("I've created …", "Created `x` and added it …"),
                    # a count with nothing failing, a service up, everything checked and correct.
                    r"|(?:i|we)(?:'ve| have)? (?:now |also |successfully )?(?:created|added|updated|implemented|written"
                    r"|wrote|built|refactored|applied|made|set up|configured|replaced|migrated|removed|changed|moved"
                    r"|renamed|switched|patched|rewrote|rewritten|extended|adjusted|wired|restored|reverted)"
                    r"|^\W*(?:created|added|updated|implemented|wrote|rewrote|built|refactored|applied|replaced|migrated"
                    r"|renamed|moved|removed|switched|extended|introduced|reworked|wired|adjusted|changed|ensured"
                    r"|tightened|hardened|dropped|exposed|normali[sz]ed|converted|restored|aligned|documented|cleaned"
                    r"|simplified|extracted|consolidated|patched|bumped|pinned|reverted|deleted|hooked|guarded)"
                    # any other verb of change in the past tense opening the report ("Clarified X across the
                    # docs"), capitalised as a sentence opens, but not one that reports trouble, an attempt or
                    # only a look
                    r"|^\W*(?!(?:failed|blocked|tried|attempted|encountered|noticed|needed|stopped|crashed|errored"
                    r"|timed|denied|refused|skipped|aborted|cancell?ed|interrupted|exceeded|killed|halted|paused|waited"
                    r"|asked|requested|started|planned|proposed|reviewed|investigated|looked|searched|explored"
                    r"|analy[sz]ed|inspected|considered|suggested|recommended|expected|assumed|wanted|hoped|intended"
                    r"|seemed|appeared|checked|confirmed|compared|traced|identified|found|detected|observed|reproduced"
                    r"|limited|based|related|reported|returned|raised|caused|affected|broke|rejected)\b)"
                    r"(?-i:[A-Z])[a-z]{2,}(?:ied|ed)\s+(?:the |a |an |all |both |each |every |`|\[|[a-z][\w-]*)"
                    r"|\d+ (?:tests? )?(?:passing|passed)\W+(?:0|zero|no) (?:failing|failed|failures)"
                    r"|(?:is|are) (?:now )?up and (?:running|serving)|succeeds|(?P<n>\d+) passed \((?P=n)(?=\))"
                    r"|(?:have been|has been|are now|is now) (?:successfully )?(?:covered|addressed|handled|applied"
                    r"|merged|deployed|wired|integrated|added|created|fixed|updated|removed|stopped|cleaned up"
                    r"|implemented|resolved|completed|replaced|refactored|configured|set up|rewritten|migrated"
                    r"|converted|documented|committed|pushed|renamed|moved|changed|corrected|patched|enabled)"
                    # the work handed over as a pull request or a commit
                    r"|(?:opened|created|raised|submitted|updated) (?:a |the )?(?:draft )?(?:PR|pull request"
                    r"|merge request)\b|committed (?:as|in|to)\b"
                    # an artifact reported made, by where it now is ("Review request generated at `docs/…`")
                    r"|\b(?:generated|written|saved|created|exported) (?:at|in|to|under|into) `?[\w~.-]*[/\\][\w./\\-]+"
                    r"|(?:all|everything)\b[^.\n]{0,40}\b(?:looks?|is|are) (?:correct|good|fine)"
                    # everything said kept where it belongs ("Yes, everything is captured", "all of it is backed up")
                    r"|(?<![Nn]ot )\b(?:all|everything)\b[^.\n]{0,20}\b(?:is|are|'s) (?:now )?(?:captured|backed up"
                    r"|saved|in place|included|covered|committed|pushed|merged|deployed|in the (?:backup|repo))\b"
                    # What the change does now, and what it should do now ("you're all set", "the build now
                    # passes", "this should now work").
                    r"|all set|should (?:now )?(?:work|pass|build|be (?:fixed|resolved|working))"
                    r"|now (?:works|passes|builds|compiles|runs|returns|renders|loads|handles|succeeds))\b", re.I)
# A line ticked off as done in a report ("✅ Build passes", "- Tag chip selector ✓").
TICKED = re.compile(r"[\u2705\u2714\u2713]")
# A sentence that names the work only to say it could not be done is no claim: "I don't have access
# to complete it", "in order to finish", "before it is done".
NOT_A_CLAIM = re.compile(r"(?:\b(?:not|never|unable to|cannot|can'?t|couldn'?t|won'?t|haven'?t|hasn'?t|isn'?t"
                         r"|aren'?t|wasn'?t|didn'?t|don'?t|no longer)\b(?:\W+\w+){0,4}?\W+(?:done|complete|completed"
                         r"|finish|finished|fix|fixed|resolve|resolved|implement|implemented|pass|passed|passing|verified"
                         r"|working(?![/\s]+(?:tree|copy|dir(?:ectory)?|files?|memory|notes?|docs?|set|branch)\b)|ready|succeed|succeeded)\b"
                         r"|\b(?:in order )?to (?:complete|finish|fix|resolve|implement)\b"
                         r"|\b(?:i apologi[sz]e|unfortunately)\b"
                         # ready, but a person's grant is still to come before it is saved or applied
                         r"|" + AWAITING_GRANT + ")",
                         re.I)
# The same in the other languages people run agents in: the words for done, fixed, added, implemented
# and "all tests pass", and for could not. Japanese and Chinese have no word boundaries.
OTHER_LANGUAGES = re.compile(
    # Japanese and Chinese: a verb of finishing the work, not "built" or "checked" alone (ビルド済み is
    # "already built", 確認しました "I checked").
    r"(?:完了|完成|(?:修正|実装|追加|対応|解決|更新|統合|導入|反映|作成|変更|削除|置き換え|書き換え|移行|整理)"
    r"(?:しました|済み|できました)"
    # the casual past of the same verbs and of できる ("できたっす", "変更したっすよ"), not "変更したい"
    r"|(?:^\W*|(?<=[、。]))できた(?:っす|よ|ぞ|ね|わ)*(?=[。！!、\s]|$)"
    r"|(?:修正|実装|追加|対応|解決|更新|統合|導入|反映|作成|変更|削除|置き換え|書き換え|移行|整理)した(?:っす|よ|ぞ|ね|わ)*"
    r"(?=[。！!\s]|$)"
    # Chinese's 已 + a verb opening the report ("已润色。"), not 已取消 / 已停止 / 已失败
    r"|^\W*已(?:经)?(?!取消|停止|中断|放弃|失败|拒绝|超时|终止)[\u4e00-\u9fff]{1,3}(?:了|好|完)?(?=[。！!，,；;]|$)"
    r"|(?:テスト|すべて|全て)[^。\n]{0,12}"
    r"(?:通りました|パスしました|成功しました)"
    r"|已(?:经)?(?:成功)?(?:完成|修复|修改|添加|实现|更新|解决|搭建|部署|配置|创建|上线|启动|就绪)(?!失败)|(?:修复|修改|添加|实现|更新|解决|新增|创建|重构)了"
    r"|(?:搭建|部署|配置|创建|安装|设置|写)好了|全部通过"
    r"|测试通过|완료"
    r"|(?:수정|추가|구현|변경|작성|업데이트|해결|반영|적용|정리|생성)(?:했|해 ?(?:뒀|놨))(?:습니다|어요|어|다)"
    r"|고쳤(?:습니다|어요|어)|만들(?:었|어 ?(?:뒀|놨))(?:습니다|어요|어|다)"
    r"|\b(?:j'ai|j’ai|nous avons|on a)\s+(?:\w+\s+)?(?:ajouté|corrigé|mis à jour|implémenté|créé|modifié|terminé"
    r"|supprimé|remplacé|intégré|résolu)|\bc(?:'|’)est (?:fait|corrigé|terminé|réglé)\b"
    r"|\b(?:terminé|corrigé|résolu)\s*[.!]|^\W*(?:fait|fini)\s*[.!:]"
    # a French headline whose work is "faite", "effectuée" ("Prise de connaissance faite sur les deux apps.")
    r"|^\W*[\w'’ -]{3,40}(?<!\bpas)(?<!\bnon)(?<!\bjamais)\s(?:faite?s?|effectuée?s?|réalisée?s?|achevée?s?)\b"
    r"[^.!?\n]{0,40}[.!]?\s*$"
    # a headline that says what is now up ("SaaS lancé — http://localhost:5174/"), not what is not
    r"|^\W*[^.!?\n]{1,30}(?<!pas )\b(?:lancé|déployé|livré|en ligne|démarré|mis en production)e?s?\s*(?:[—–:-]|[.!]|$)"
    # a French headline of the work's past participles ("Commité et poussé.", "Corrigé, testé et déployé.")
    r"|^\W*(?:commité|poussé|fusionné|mergé|déployé|corrigé|ajouté|implémenté|mis à jour|publié|livré|appliqué)e?s?"
    r"(?:,?\s+(?:et\s+)?(?:commité|poussé|fusionné|mergé|déployé|testé|publié|vérifié|validé|corrigé)e?s?)*(?:\s+[^.!?\n]{1,40})?\s*[.!]"
    r"|\b(?:he|hemos)\s+(?:añadido|corregido|implementado|actualizado|creado|resuelto|terminado)\b|\blisto\b"
    r"|\bcompletado\b|^\W*[\w-]+ complet[oa]\s*[.!]"
    # a Spanish or Portuguese headline of the work's participle ("Ajustado.", "Corrigido!"), "ya quedó guardado"
    r"|^\W*(?:ajustad|corregid|corrigid|arreglad|actualizad|atualizad|guardad|salv|aplicad|añadid|agregad"
    r"|adicionad|implementad|desplegad|publicad|configurad|resuelt|resolvid|finalizad)[oa]s?\s*[.!]"
    r"|\b(?:ya )?(?:quedó|queda|ficou) (?:guardad|aplicad|configurad|corregid|corrigid|salv)[oa]s?\b"
    r"|\b(?:añadí|agregué|corregí|implementé|actualicé|creé|arreglé|resolví)\b|^\W*hecho\b"
    r"|\b(?:ho|abbiamo)\s+(?:aggiunto|corretto|implementato|aggiornato|creato|risolto|modificato|sistemato)\b"
    r"|^\W*(?:fatto|completato)\b"
    r"|^\W*(?:готово|сделано)\b|(?:исправил|добавил|реализовал|обновил|сделал|создал|изменил)[аи]?\b"
    r"|все тесты проходят|\btamamlandı\b|\b(?:düzelttim|ekledim|güncelledim|uyguladım)\b"
    r"|\b(?:ich habe|wir haben)\b[^.\n]{0,60}\b(?:hinzugefügt|behoben|aktualisiert|implementiert|erstellt|geändert)\b"
    r"|\berledigt\b|\bbehoben\b|^\W*(?:fertig|umgesetzt|implementiert|hinzugefügt|aktualisiert)\b"
    r"|\b(?:implementei|corrigi|adicionei|atualizei|criei|conclu[íi])\b|\bconcluído\b|^\W*feito\b)", re.I)
NOT_IN_OTHER_LANGUAGES = re.compile(r"(?:できません|できませんでした|失敗|未完了|未完成|无法|不能|没法|没办法"
                                    r"|(?<!有)没有|未能"
                                    r"|被拒绝?|拒否されました|失败|超时|超時|タイムアウト"
                                    # a restriction of the environment given as why ("由于文件系统权限限制，我将…")
                                    r"|(?:权限|沙盒|沙箱|网络|安全|文件系统)(?:的)?限制|(?:権限|サンドボックス|ネットワーク)の?制限"
                                    r"|(?:권한|샌드박스|네트워크) ?제한"
                                    # the remedy stated as a need: "preciso de permissão", "需要你的授权"
                                    r"|\b(?:preciso de (?:permissão|autorização|aprovação)"
                                    r"|necesito (?:permiso|autorización)"
                                    r"|j'ai besoin (?:de la permission|d'autorisation|de l'autorisation)"
                                    r"|ich brauche (?:die |eine )?(?:berechtigung|erlaubnis|freigabe))\b"
                                    r"|需要(?:你的|您的)?(?:权限|授权|批准)|権限が必要|許可が必要"
                                    r"|没装|未安装|找不到|インストールされていません|見つかりません"
                                    r"|설치되어 있지 않|찾을 수 없"
                                    r"|실패|할 수 없|не (?:удалось|могу|смог)|нельзя|не можна"
                                    r"|\b(?:non (?:posso|sono riuscito)"
                                    r"|yapamadım)\b"
                                    r"|\b(?:impossible de|je ne peux pas|je n'ai pas pu|no puedo|no he podido"
                                    r"|kann nicht|konnte nicht|não consegui)\b"
                                    # the past and the impersonal forms ("no pude", "no se puede", "non è possibile")
                                    r"|\b(?:no pude|no se (?:puede|pudo)|no (?:es|fue) posible|não (?:pude|é possível"
                                    r"|foi possível)|il n'est pas possible|on ne peut pas|non (?:ho potuto|è possibile"
                                    r"|si può)|(?:ist|war) nicht möglich|konnte ich nicht)\b"
                                    # not logged in: "non authentifié", "未登录", "ログインしていません"
                                    r"|\b(?:non (?:authentifié|connecté)|no autenticado|não autenticado"
                                    r"|nicht (?:angemeldet|authentifiziert))\b"
                                    r"|未登录|未登入|未認証|ログインしていません|로그인되어 있지 않)", re.I)
# What failed or was refused, in the European languages ("No se ejecutó: la aprobación fue denegada",
# "Zugriff verweigert"): a sentence that says something failed, beside the words for could not. Not a
# claim's negation: "the test that failed now passes" still claims.
FAILED_IN_OTHER_LANGUAGES = (
    r"\b(?:falló|fallaron|ha fallado|no se ejecutó|denegad[oa]s?|rechazad[oa]s?"
    r"|falhou|falharam|negad[oa]s?|recusad[oa]s?|não foi executad[oa]"
    r"|a échoué|ont échoué|refusée?s?|n'a pas été exécutée?"
    r"|è fallit[oa]|non è riuscit[oa]|rifiutat[oa]|negat[oa]"
    r"|fehlgeschlagen|schlug fehl|verweigert|abgelehnt|wurde nicht ausgeführt"
    # blocked, as English's "blocked" ("a porta 22 está bloqueada", "l'accès est bloqué", "Port blockiert")
    r"|bloquead[oa]s?|bloquée?s?|blockiert|gesperrt|bloccat[oaie]"
    r"|отказано|не выполнен\w*|заблокирован\w*"
    # not installed, not found, not available: English's "not installed" in those languages
    r"|no está instalad[oa]|no se encontr[óo]|no (?:está )?disponible|n(?:ão|em) (?:está )?instalad[oa]"
    r"|não (?:foi )?encontrad[oa]"
    r"|não (?:está )?disponível|n'est pas (?:installée?|disponible)|introuvable"
    r"|nicht (?:installiert|gefunden|verfügbar)"
    r"|non è (?:installat[oa]|disponibile)|non trovat[oa]|не установлен\w*|не найден\w*|недоступ\w*"
    # a service not running or not answering ("le serveur n'est pas lancé", "no responde")
    r"|n'est pas (?:lancée?|démarrée?|joignable|accessible)|ne (?:démarre|répond) pas|reste fermée?"
    r"|no (?:está )?(?:iniciad[oa]|en ejecución)|no responde|não (?:está )?(?:iniciad[oa]|em execução)|não responde"
    # Ukrainian, and Indonesian and Malay ("tidak mendukung perintah apt-get", "belum terinstall")
    r"|не вдалося|не встановлен\w*|не знайден\w*|tidak (?:bisa|dapat|mendukung|ditemukan|tersedia|terinstal\w*"
    r"|terpasang)|belum (?:terinstal\w*|terpasang|tersedia)|gagal"
    # Vietnamese ("push lên GitHub bị chặn", "không thể kết nối", "chưa được cài")
    r"|bị (?:chặn|từ chối|lỗi)|không thể|thất bại|không (?:có|được) quyền|chưa (?:được )?cài\w*"
    # "cannot X" said with the verb between ("`make check` không chạy được", "không cài được")
    r"|không (?:\w+ ){1,2}được)(?!\w)")
UNABLE_IN_OTHER_LANGUAGES = re.compile(f"{NOT_IN_OTHER_LANGUAGES.pattern}|{FAILED_IN_OTHER_LANGUAGES}", re.I)
# A short headline that reports work done: "Code-review findings addressed.", "Docker containers
# stopped and removed.", "Tests updated and passing."
HEADLINE = re.compile(r"^\W*[\w`'./ -]{2,60}?\s(?:addressed|fixed|resolved|removed|stopped|added|updated|implemented"
                      r"|merged|deployed|applied|completed|cleaned up|migrated|replaced)(?:\s+and\s+\w+)?\W*$", re.I)
# A report's heading over what was done ("## Summary", "Summary of changes:", "## Summary: Before/After
# Risk Reduction", "What changed"): a claim where nothing in the message says the work could not be done.
# (a status report's own: "PR status summary:")
REPORT_HEADING = re.compile(r"^\W*(?:(?:here(?:'s| is) )?(?:a |the )?(?:short |quick |brief |[\w-]+ status )?"
                            r"summary(?: of (?:the )?"
                            r"(?:changes|fixes|work|what (?:i did|changed|was done)))?"
                            r"|(?:key |main )?changes(?: made)?|implementation (?:summary|notes)"
                            r"|work (?:done|completed)"
                            r"|what (?:i )?changed|what was (?:done|changed|fixed)|what i did|(?:the )?fix(?:es)?"
                            r"|files? (?:changed|modified)|modified files|root cause)\b(?:\W*$|\s*:)", re.I)
# A report that ends on the checks it ran, each named in code ("Tests: `go test ./...`", "Verification:
# `npm run build`"), with no word of their failing: the work reported done and checked.
CHECKS_RAN = re.compile(r"^\W*(?:tests?|testing|checks?|verification|validation)(?: run)?\W*:\s*`\S"
                        r"(?![^\n]*\b(?:fail\w*|errors?|skipped|blocked|timed out|not run)\b)", re.I)


# A final message that opens by saying the work itself could not be done ("Couldn't complete the cleanup —
# …"): what it then reports done is side work ("Logged it to daily notes"), no claim of the work.
WORK_NOT_DONE = re.compile(r"^\W*(?:i |we )?(?:could ?n[o']t|can ?no?t|was ?n'?t able to|were ?n'?t able to|unable to"
                           r"|failed to) (?:complete|finish|carry out|perform|do)\b", re.I)


def claims(sentence: str) -> bool:
    """Whether the sentence claims the work done, not one that names it only to say it was not."""
    if NOT_A_CLAIM.search(sentence) or NOT_IN_OTHER_LANGUAGES.search(sentence):
        return False
    return bool(ENGLISH.search(sentence) or OTHER_LANGUAGES.search(sentence) or HEADLINE.match(sentence)
                or CHECKS_RAN.match(sentence) or TICKED.search(sentence))


# The words of a sentence that says something failed. "missing" is kept apart: it says a wall only
# beside the name of what is absent ("jq is missing"), so wall_naming.wall_namer drops it where the
# onset named nothing. Two alternations built from one list, so neither depends on the other's text.
UNABLE_PHRASES = (r"(?:can ?no|can'|could ?n'|was ?n'|is ?n'|did ?n'|do ?n'|does ?n')t", "could not", "unable",
                  "not able", r"i apologi[sz]e", "unfortunately",
                  "blocked", r"no (?:network|internet|access|permission)", "permission denied", "not installed",
                  "not available", "unavailable", "failed", "fails", "refused", "denied", "read-only", "sandbox",
                  r"tim(?:es|ed|ing) out",
                  # the environment's restriction given as why the agent turns ("due to permission restrictions")
                  r"(?:permission|network|file ?system|access|security) (?:restrictions?|limitations?)",
                  # the wall's remedy stated as a need: "I need permission to edit the files"
                  r"(?:i|we) (?:need|require) (?:your )?(?:permission|approval|access|authori[sz]ation)",
                  # "no jq found", not "no issues found": a review's all-clear says nothing failed
                  r"no (?!(?:issues?|errors?|problems?|warnings?|regressions?|bugs?|changes?|conflicts?) )"
                  r"[\w.+`/-]+ (?:binary |executable |command |CLI |tool )?(?:available|installed|found)")
MISSING = "missing"


def any_word_of(phrases: tuple[str, ...]) -> re.Pattern:
    return re.compile(r"\b(?:" + "|".join(phrases) + r")\b", re.I)


UNABLE = any_word_of((*UNABLE_PHRASES, MISSING))
UNABLE_UNNAMED = any_word_of(UNABLE_PHRASES)
