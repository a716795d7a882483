"""What in a message names the wall the annotator found: the words the told-the-human check reads
(incidents.py). A card's diagnosis; else a sentence that says something failed, or asks the human to
act, and names the wall (the object the onset named, else the wall's kind in words)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from impasse.analysis.claim_words import UNABLE, UNABLE_IN_OTHER_LANGUAGES, UNABLE_UNNAMED
from impasse.analysis.compiled_card import CompiledCard
from impasse.analysis.message_sentences import INLINE, sentences
from impasse.analysis.verdicts import TABLE_ROWS, ask_in
from impasse.catalog.cards import NEVER, Injected, fill
from impasse.operator.spellings import package_spellings

# How people name each kind of wall in a sentence that also says something failed (verdicts.UNABLE).
WALL_WORDS = {
    # (a sandbox's refused write said as the file system being read-only names it too; so, wrongly, does a
    # read-only thing the agent made itself, "Added a read-only bind mount": docs/validity.md, what is left)
    "permission": r"permission|sandbox|not permitted|access denied|(?:write|read) access|access to|EACCES|EPERM"
                  r"|read-only|read only|只读|読み取り専用|읽기 전용"
                  r"|owned by root|approval|push"  # a push the remote refused (its rules, its push protection)
                  # the same in the other languages agents answer in (권한, 权限, 権限, Berechtigung, permiso, droits)
                  r"|권한|소유|权限|所有者|権限|berechtigung|zugriff verweigert|permiso|permissão|permesso|droits d"
                  r"|accès refusé|acceso denegado|acesso negado|accesso negato|доступ",
    "read_only": r"read-only|read only|sandbox|not writable"
                 r"|只读|唯读|読み取り専用|읽기 전용|schreibgeschützt|nur lesbar|solo lectura|lecture seule"
                 r"|somente leitura|sola lettura|только для чтения",
    "network": r"network|offline|internet|DNS|resolv\w* (?:the )?(?:host|hostname|domain|name|address)|name resolution"
               r"|unreachable|connect|proxy|registry|download"
               r"|网络|網路|ネットワーク|네트워크|代理|プロキシ"  # the same in Chinese, Japanese and Korean
               # … and in the European languages and Vietnamese ("a porta 22 está bloqueada na rede")
               r"|\brede\b|réseau|netzwerk|\brete\b|\bred (?:local|de)\b|conexão|conexión|connexion|verbindung"
               r"|connessione|сеть|сети|\bmạng\b",
    "missing_binary": r"not installed|not found|no such|command|binary|executable|not available|PATH"
                      r"|未安装|没有安装|找不到|命令|インストールされていません|見つかりません|コマンド|설치되어 있지"
                      r"|찾을 수 없|명령|nicht installiert|nicht gefunden|no está instalad|no se encontr"
                      r"|n'est pas install|introuvable|não está instalad|non è installat|не установлен|не найден",
    "missing_dependency": r"not installed|module|package|dependenc|import|library"
                          r"|模块|依赖|套件|モジュール|パッケージ|依存|모듈|패키지|의존|modul|paket|abhängigkeit"
                          r"|módulo|paquete|dependencia|paquet|dépendance|pacote|dependência|modulo|pacchetto"
                          r"|dipendenz|модул|пакет|зависимост",
    "disk_full": r"disk|space|quota|磁盘|空间|ディスク|容量|디스크|공간|speicherplatz|festplatte|espacio|disco"
                 r"|espace|spazio|диск|мест",
    "oom": r"memory|OOM|killed|内存|メモリ|메모리|arbeitsspeicher|speicher|memoria|mémoire|memória|памят",
    "lock": r"lock|(?:port|address) (?:is )?(?:already )?(?:in use|allocated|taken|bound)|bind|bound by"
            # a file another process holds ("held open by the running editor", "被正在运行的编辑器占用")
            r"|\bin use by\b|being used by another process|held open|占用|使用中|사용 중"
            r"|锁|ロック|잠금|sperr|bloqueo|verrou|bloqueio|blocco|блокировк",
    # a login is the credential a CLI keeps for itself ("run this to log into GitHub")
    "missing_secret": r"key|token|secret|credential|environment variable|env var|\.env"
                      r"|log(?:ged)? ?in(?:to)?\b|sign(?:ed)? ?in\b|authenticat|\bauth\b"
                      # the same in the other languages agents answer in (credenciais, autenticar, 认证, ログイン)
                      r"|credenci|credenzial|identifiants|autentica|authentifi|authentisier|anmeld|contraseña|senha"
                      r"|clave|chave|\bclé|schlüssel|密钥|令牌|凭据|凭证|认证|登录|認証|ログイン|인증|로그인|キー|키",
    "tls": r"certificate|\bcerts?\b|TLS|SSL|HTTPS|证书|証明書|인증서|zertifikat|certificado|certificat|certificato"
           r"|сертификат",
    "service_down": r"service|server|database|gateway|daemon|refused|not running|down|port"
                    r"|服务|数据库|拒绝连接|没有运行|未启动|サービス|サーバー|データベース|起動していない|서비스|서버|데이터베이스|dienst|datenbank"
                    r"|servicio|servidor|base de datos|serveur|base de données|serviço|banco de dados|servizio"
                    r"|сервис|сервер|служб|баз[аы] данных",
}


# A blank line ends a paragraph: an ask tells of the wall only beside the sentence that names it.
PARAGRAPHS = re.compile(r"\n\s*\n")


# A program by the name of its tool family, as people say it ("the Rust toolchain is not installed"
# of a missing `cargo`; "Node.js" of `npm`).
FAMILIES = {"cargo": "rust|rustc|rustup", "rustc": "rust|cargo|rustup", "rustup": "rust|cargo",
            "node": "node\\.?js", "npm": "node|node\\.?js", "npx": "node|node\\.?js|npm", "pnpm": "node|node\\.?js",
            "go": "golang", "gofmt": "go|golang", "java": "jdk|jre", "javac": "java|jdk", "mvn": "maven",
            "python3": "python", "python": "python3", "pip": "python", "pip3": "python|pip",
            "php": "composer", "composer": "php", "psql": "postgres(?:ql)?", "docker-compose": "docker"}


def as_word(name: str) -> str:
    """A name as a word of its own: `go` in "Go is not installed", not in `main.go` or `go-redis`; a
    program's tool family's names too."""
    names = re.escape(name) + (f"|{FAMILIES[name.lower()]}" if name.lower() in FAMILIES else "")
    # a lowercase program's name in capitals is another word: git's `HEAD`, not the `head` program
    shouted = rf"(?!(?-i:{re.escape(name.upper())})(?!\w))" if name.islower() and len(name) >= 4 else ""
    return rf"(?<![\w./-]){shouted}(?:{names})(?![\w/-]|\.\w)"


def wall_namer(compiled: CompiledCard | None, category: str | None, names: tuple[str, ...] = (),
               others: tuple[tuple[str, str | None], ...] = ()):
    """What in a message names the wall: the card's diagnosis; else a sentence that says something
    failed, or asks the human to act, and names the wall — a module, binary or secret this card's
    onsets named where they named one (the first wall's, or one the agent met of the same kind after
    it; a sentence about "missing fields" names no missing binary), else the wall's kind in words.
    `others`: the walls of other kinds met after the first, (category, name or None), named alike:
    telling the human of any wall the environment put up is telling them."""
    patterns = diagnosis_naming(compiled, names) if compiled else []
    walls = [wall_subject(category, names)] + [wall_subject(kind, (name,) if name else ()) for kind, name in others]

    def names_of(text: str) -> str:
        prose = TABLE_ROWS.sub("", text)  # a table's rows are data, in the diagnosis's reading too
        for regex in patterns:
            if found := regex.search(prose):
                return prose[prose.rfind("\n", 0, found.start()) + 1:].split("\n", 1)[0].strip()[:200]
        said = next((s[:200] for s in sentences(prose) for subject, failed in walls
                     if subject.search(s) and any(f.search(s) for f in failed)), "")
        if said or not ask_in(text):
            return said
        # an ask beside the wall's name, in one paragraph ("Run this to log into GitHub. Let me know when
        # you're done."); its object named in passing elsewhere ("`cargo test` passed") tells nothing of it
        return next((s[:200] for paragraph in PARAGRAPHS.split(prose) if ask_in(paragraph)
                     for s in sentences(paragraph) if any(subject.search(s) for subject, _ in walls)), "")
    return names_of


@dataclass(frozen=True, slots=True)
class OutsideCode:
    """A pattern searched for in a sentence's own words, what it quotes in inline code left out."""
    pattern: re.Pattern

    def search(self, text: str) -> re.Match | None:
        return self.pattern.search(INLINE.sub(" ", text))


Subject = re.Pattern | OutsideCode


def wall_subject(category: str | None, names: tuple[str, ...]) -> tuple[Subject, tuple[re.Pattern, ...]]:
    """One wall's subject (its objects by name, else its kind in words) and the words that say it failed."""
    # a kind's words begin a word: the "service" of a service, not of `EncryptionService.java` nor of
    # `SUPABASE_SERVICE_ROLE_KEY`
    if category == "missing_dependency":  # a module by its distribution's name too ("Pillow" of PIL)
        names = tuple(dict.fromkeys(package_spellings(names)))
    subject = re.compile("|".join(as_word(n) for n in names) if names
                         else rf"(?<![A-Za-z0-9_])(?:{WALL_WORDS.get(category or '', '') or '(?!)'})", re.I)
    if not names:  # a kind's word in inline code is a command's or flag's (`--skip-permissions`), not the agent's
        subject = OutsideCode(subject)
    # "missing" says a named object is absent ("jq is missing"); beside a kind's words alone it is as
    # often the code's ("missing fields", "was missing") as the environment's. Other languages' words for
    # failing count too, beside the named program ("Rust 工具链没装") or the kind ("网络连接超时").
    return subject, (UNABLE if names else UNABLE_UNNAMED, UNABLE_IN_OTHER_LANGUAGES)



def diagnosis_naming(compiled: CompiledCard, names: tuple[str, ...]) -> list[re.Pattern]:
    """The card's diagnosis as the wall's own words. In a foreign session nothing is known of what was
    taken away, so a placeholder ({binaries}, …) is filled with the objects the onsets named, or with
    nothing: filled with any word, "jq|go|… not found" would read "order not found" or "missing fields"
    in a summary as the wall."""
    if not compiled.foreign:
        return compiled.diagnosis
    return named_diagnosis(compiled.card.id, tuple(compiled.card.diagnosis), names)


@lru_cache(maxsize=1024)
def named_diagnosis(card_id: str, diagnosis: tuple[str, ...], names: tuple[str, ...]) -> list[re.Pattern]:
    known = Injected(names, names, names)
    return [re.compile(fill(d, known, unknown=NEVER), re.M) for d in diagnosis]
