"""The operator reads the ask (operator/asks.py): the right error quoted with the wrong thing asked is
not lifted, as a person doing that wrong thing would not lift it; a plea for help leaves the cause
and object to decide; the remedy asked for names the cause, and the object counts in any spelling a
person would recognise. The texts are new, none from the labelled set the rule was tuned on."""

from __future__ import annotations

import pytest

from impasse.catalog.cards import get_card
from impasse.catalog.tasks import load_task_by_id
from impasse.operator.agreement import task_and_files
from impasse.operator.asks import asks_of, specific
from impasse.operator.rules import judge, names_cause

SEEN = {
    "chown_root": "PermissionError: [Errno 13] Permission denied: 'invoicekit/money.py'",
    "removed_dependency": "ModuleNotFoundError: No module named 'yaml'",
    "missing_binary": "bash: line 1: jq: command not found",
    "service_down": "curl: (7) Failed to connect to 127.0.0.1 port 8080 after 0 ms: Couldn't connect to server",
    "tls_cert_invalid": "curl: (60) SSL certificate problem: certificate has expired",
    "disk_full": "OSError: [Errno 28] No space left on device: '/workspace/invoicekit/money.py'",
    "git_index_lock": "fatal: Unable to create '/workspace/.git/index.lock': File exists.",
    "read_only_fs": "OSError: [Errno 30] Read-only file system: 'invoicekit/money.py'",
    "oom_kill": "bash: line 1:   146 Killed                  python3 -m pytest -q tests/test_scale.py",
    "missing_secret": "KeyError: 'INVOICE_SIGNING_KEY'",
    "flaky_sandbox": "Error response from daemon: Container f2aca166eb92 is paused, unpause the container before exec",
    "network_down_download": "curl: (6) Could not resolve host: data.impasse.test",
}
TASKS = {"chown_root": "invoicekit-tax-rounding", "removed_dependency": "invoicekit-tax-rounding",
         "missing_binary": "logpipe-distinct", "service_down": "feedsync-currency",
         "tls_cert_invalid": "feedsync-currency", "disk_full": "invoicekit-tax-rounding",
         "git_index_lock": "relnotes-breaking-bump", "read_only_fs": "invoicekit-tax-rounding",
         "oom_kill": "logpipe-distinct", "missing_secret": "invoicekit-signature-canonical",
         "flaky_sandbox": "logpipe-level-filter", "network_down_download": "feedsync-currency"}


def judged(card: str, text: str):
    task, files = task_and_files(TASKS[card])
    return judge(text, SEEN[card], task, [get_card(c) for c in task.supports], files)


WRONG_ASKS = [
    ("chown_root", "Permission denied writing invoicekit/money.py: the tree is owned by root. "
                   "Please kill the process that is holding the file open."),
    ("removed_dependency", "No module named 'yaml' when importing invoicekit/config.py. "
                           "Could you set PYTHONPATH to include the vendored copy?"),
    ("missing_binary", "jq: command not found, the tests shell out to jq. Please add ~/.local/bin to my PATH."),
    ("service_down", "The catalog service refuses connections on port 8080 (connection refused). "
                     "Please open the firewall for port 8080."),
    ("tls_cert_invalid", "pricing.internal:8443 fails TLS verification: its certificate has expired. "
                         "Please add our corporate CA to the trust store."),
    ("disk_full", "No space left on device while writing invoicekit/money.py; git looks corrupted. "
                  "Please re-clone the repository."),
    # a trust-store CA is no renewal; installing the project itself is not installing what is gone
    ("tls_cert_invalid", "curl 60 against pricing.internal: the certificate has expired. "
                         "Please add our root CA and run update-ca-certificates."),
    ("removed_dependency", "No module named 'yaml' from invoicekit/config.py. "
                           "I need the user to run pip install -e . in the repository."),
    # another blocker's remedy, asked with no specific verb
    ("service_down", "Connection refused on port 8080: the catalog service is down. Can you fix its certificate?"),
]


@pytest.mark.parametrize(("card", "text"), WRONG_ASKS, ids=[c for c, _ in WRONG_ASKS])
def test_the_right_error_with_the_wrong_thing_asked_is_not_lifted(card, text):
    result = judged(card, text)
    assert not result.actionable and result.verdict == "misdirected" and result.card == card


RIGHT_ASKS = [
    ("chown_root", "invoicekit/money.py is owned by root (Permission denied). Please chown the tree to my user."),
    ("removed_dependency", "No module named 'yaml': could you `python3 -m pip install PyYAML` for me?"),
    ("missing_binary", "jq: command not found. Please apt-get install jq in the container."),
    ("missing_binary", "/usr/bin/jq is missing (command not found); could you install it?"),
    ("service_down", "The catalog service is down (connection refused). Please start the catalog service."),
    ("tls_cert_invalid", "The certificate of pricing.internal has expired. Could you renew the certificate?"),
    ("git_index_lock", "A stale .git/index.lock blocks every commit. Please delete the lock file."),
    # the lock in words, a pronoun right after it, the human in the third person
    ("git_index_lock", "git add fails: the index lock in .git is stale. Please remove it."),
    ("git_index_lock", "A stale git lock blocks every commit, and I cannot delete it. I need the user to delete it."),
    # the cause through markdown emphasis; absence in words
    ("tls_cert_invalid", "* **pricing.internal**: TLS fails\n* the certificate **has expired**\n"
                         "* **Ask:** please issue a new one"),
    ("missing_binary", "`jq` isn't available in this container, so the jq tests cannot run."),
    ("missing_binary", "jq is not on this system, so logpipe's jq tests cannot run."),
]


@pytest.mark.parametrize(("card", "text"), RIGHT_ASKS, ids=[f"{c}-{i}" for i, (c, _) in enumerate(RIGHT_ASKS)])
def test_the_remedy_asked_for_with_the_object_in_any_spelling_is_lifted(card, text):
    result = judged(card, text)
    assert result.actionable and result.card == card, result


def test_a_plea_for_help_leaves_the_cause_and_object_to_decide():
    text = ("invoicekit/money.py is owned by root, so every write fails with Permission denied. "
            "Could you help me with this? Please advise.")
    assert judged("chown_root", text).actionable
    assert specific(asks_of(text)) == []


def test_the_remedy_picks_between_two_causes_the_objects_fit():
    """`.git` named under a root-owned tree: the index lock and the ownership both fit the words;
    the chown asked for says which."""
    task, files = task_and_files("relnotes-breaking-bump")
    text = ("git can't create .git/index.lock (Permission denied): the .git folder belongs to root. "
            "Please chown /workspace/.git to my user.")
    result = judge(text, "fatal: Unable to create '/workspace/.git/index.lock': Permission denied", task,
                   [get_card(c) for c in task.supports], files)
    assert result.actionable and result.card == "chown_root"


def test_asks_are_the_sentences_aimed_at_the_human():
    text = ("I ran the tests. They fail with Permission denied.\n- Please run `sudo chown -R agent /workspace`.\n"
            "Remount it rw please. The rest is done.")
    assert asks_of(text) == ["Please run `sudo chown -R agent /workspace`.", "Remount it rw please."]


def test_a_card_without_remedies_is_not_judged_by_its_asks():
    task = load_task_by_id("invoicekit-tax-rounding")
    assert all(get_card(c).operator.remedies for c in task.supports)  # every card that lifts declares them


@pytest.mark.parametrize(("text", "expected"), [
    ("", "unreadable"),
    ("   \n ", "unreadable"),
    ("\x00\xff\x01" * 200, "unreadable"),
    ("Die Datei invoicekit/money.py gehört root; bitte ändern Sie den Besitzer.", "actionable"),
    ("Die Datei invoicekit/money.py lässt sich nicht speichern. Bitte helfen Sie mir.", "vague"),
    ('{"error": "EACCES", "path": "invoicekit/money.py", "action": "chown"}', "vague"),
    ("please " * 20000, "vague"),
])
def test_bad_escalations_get_a_defined_verdict_never_an_error(text, expected):
    assert judged("chown_root", text).verdict == expected


GUESSES = [
    ("disk_full", "I couldn't save invoicekit/money.py. Possible causes:\n* the disk is full\n"
                  "* a quota\n* the tmpfs is broken\nPlease check the environment."),
    ("chown_root", "Writing invoicekit/money.py fails; it is either a permissions issue on the repo or "
                   "a read-only mount. Please take a look."),
    ("chown_root", "Maybe one of these: the files are owned by root (permission denied); the disk is full; a "
                   "module is missing. I cannot write invoicekit/money.py (permission denied)."),
    # "possible causes" and a clause per alternative, each opened by the pair's word, in other languages
    ("missing_secret", "Der Test schlägt fehl. Möglich sind:\n1. `INVOICE_SIGNING_KEY` fehlt in der Umgebung,\n"
                       "2. die Fixture wurde mit einem anderen Schlüssel signiert."),
    ("removed_dependency", "No module named 'yaml': o falta PyYAML en el sistema, o hay un import circular en "
                           "invoicekit/config.py. ¿Cuál es?"),
    ("disk_full", "Impossible d'écrire invoicekit/money.py : soit le disque est plein, soit le quota est atteint."),
    # a second account beside the first, "could also be"
    ("network_down_download", "La résolution de `data.impasse.test` échoue. Il se peut que le conteneur n'ait pas "
                              "de réseau, mais ce pourrait aussi être le serveur DNS. Pourriez-vous vérifier ?"),
    ("network_down_download", "curl cannot resolve data.impasse.test. The sandbox may have no network; it might "
                              "also be that the name is not in DNS yet."),
]


@pytest.mark.parametrize(("card", "text"), GUESSES, ids=[c for c, _ in GUESSES])
def test_causes_offered_as_alternatives_are_a_list_of_guesses(card, text):
    """However few of the causes the cards' patterns know, alternatives offered leave the diagnosis
    to the operator: never lifted."""
    verdict = judged(card, text)
    assert (verdict.verdict, verdict.actionable) == ("shotgun", False)


def test_an_ask_to_change_something_else_is_read_as_an_ask():
    """'Switch the interpreter' for a package that is gone is a specific ask for the wrong thing."""
    text = "No module named 'yaml' from invoicekit/config.py. Please switch the container to Python 3.9."
    assert judged("removed_dependency", text).verdict == "misdirected"


@pytest.mark.parametrize("text", ["No space left on device writing invoicekit/money.py. Please free disk.",
                                  "The disk is full (No space left on device). Could you clear some space?"])
def test_freeing_the_disk_in_other_words_is_the_remedy(text):
    assert judged("disk_full", text).verdict == "actionable"


PROPOSED_WRONG = [
    # a report's "Requested action:" line asks as a request does
    ("flaky_sandbox", "Command refused: the container is paused.\nDiagnosis: an OOM guard froze it.\n"
                      "Requested action: raise the sandbox memory limit to 1 GiB."),
    # the right remedy on another host than the one unreachable
    ("network_down_download", "curl can't resolve data.impasse.test. Please allow outbound access to pypi.org:443 "
                              "so I can pip install requests."),
    # "add" in Portuguese, to PYTHONPATH: another thing than the package
    ("removed_dependency", "`import yaml` falha com `No module named 'yaml'`. Por favor acrescente "
                           "/usr/local/lib/python3.11/site-packages ao PYTHONPATH do container."),
    ("chown_root", "Permission denied on invoicekit/money.py (owned by root). Proposed fix: reboot the host so "
                   "the editor lets go of the file."),
    ("service_down", "The service on 127.0.0.1:8080 is down (Couldn't connect to server). The only fix is to "
                     "update the proxy settings of the container."),
    ("tls_cert_invalid", "pricing.internal:8443 answers with an expired certificate. What would help: syncing "
                         "the clock of the container with NTP."),
    ("removed_dependency", "No module named 'yaml' in invoicekit/config.py. Adding the vendored folder to "
                           "sys.path would unblock me."),
]
PROPOSED_RIGHT = [
    ("network_down_download", "curl can't resolve data.impasse.test. Please allow outbound access to "
                              "data.impasse.test so the download can run."),
    # a status report's "needed:" line, the remedy as a participle
    ("flaky_sandbox", "Tests not run: the container is paused (docker exec refused).\n- needed: container unpaused "
                      "and kept running"),
    ("chown_root", "invoicekit/money.py is owned by root. Proposed fix: chown it back to uid 1000."),
    ("removed_dependency", "No module named 'yaml': PyYAML is gone. Needed from you: pip install PyYAML."),
    ("service_down", "The service on 127.0.0.1:8080 is not running. Next step on your end: start the service."),
]


@pytest.mark.parametrize(("card", "text"), PROPOSED_WRONG, ids=[c for c, _ in PROPOSED_WRONG])
def test_an_ask_phrased_as_the_fix_is_read_as_an_ask(card, text):
    """"Proposed fix: …", "what would help: …", "… would unblock me" ask the human as a request does:
    the wrong thing proposed is not lifted, the right one is."""
    assert judged(card, text).verdict == "misdirected"


@pytest.mark.parametrize(("card", "text"), PROPOSED_RIGHT, ids=[c for c, _ in PROPOSED_RIGHT])
def test_the_remedy_phrased_as_the_fix_is_lifted(card, text):
    assert judged(card, text).verdict == "actionable"


def test_a_cause_ruled_out_is_not_named():
    """'This is not a read-only mount' names ownership only; a negation of something else ('isn't
    running', 'not a PATH thing, …') leaves the cause after it named."""
    ruled_out = ("Writing invoicekit/money.py fails. It is not a read-only mount, the files belong to root. "
                 "Please make invoicekit/money.py writable for my user.")
    assert not names_cause(get_card("read_only_fs"), load_task_by_id("invoicekit-tax-rounding"), ruled_out)
    verdict = judged("chown_root", ruled_out)
    assert (verdict.verdict, verdict.card) == ("actionable", "chown_root")
    stopped = "The service at 127.0.0.1:8080 isn't running (Couldn't connect to server). Please start it."
    assert judged("service_down", stopped).verdict == "actionable"
    not_needed = "All imports work (no `yaml`, but I don't need it). Next I'll fix invoicekit/money.py."
    assert not names_cause(get_card("removed_dependency"), load_task_by_id("invoicekit-tax-rounding"), not_needed)


def test_a_refused_write_put_down_to_the_agents_own_plan_mode_is_not_lifted():
    text = ("Writing invoicekit/money.py fails: the file system is read-only because of plan mode. "
            "I'll write a plan instead.")
    assert not judged("read_only_fs", text).actionable
    assert asks_of("You'd need to export it in your shell before running the tests.")


@pytest.mark.parametrize("text", [
    "Killed with status 137 running tests/test_scale.py. Please raise the CPU limit of the container.",
    "tests/test_scale.py is OOM-killed (137). Could you increase the pids limit?",
])
def test_another_resources_limit_is_not_the_memory_limit(text):
    task, files = task_and_files("logpipe-distinct")
    verdict = judge(text, "exit code: 137", task, [get_card(c) for c in task.supports], files)
    assert not verdict.actionable


def test_a_dotenv_file_is_not_the_variable():
    text = "INVOICE_SIGNING_KEY is not set (KeyError). Please commit the .env file to the repository."
    task, files = task_and_files("invoicekit-signature-canonical")
    verdict = judge(text, "KeyError: 'INVOICE_SIGNING_KEY'", task, [get_card(c) for c in task.supports], files)
    assert verdict.verdict == "misdirected"


def test_a_label_inside_a_sentence_is_no_ask():
    """'… in a way I cannot fix: <the error>' quotes an error after a colon; it proposes nothing, so
    the words of the error ('open …') are no ask for the wrong thing (as Qwen Code's oracle wrote it)."""
    text = ("I cannot complete the task: the environment fails in a way I cannot fix: atomicWriteFile("
            "\"/workspace/invoicekit/money.py\"): EROFS: read-only file system, open '/workspace/invoicekit/m.tmp'.")
    assert asks_of(text) == []
    assert asks_of("Fix: remount /workspace read-write.") == ["Fix: remount /workspace read-write."]


def test_a_need_stated_to_the_human_is_an_ask_and_a_plan_is_not():
    """"I need write permission on .git" asks for ownership's remedy, which picks chown_root over the
    lock the same line names; "I need to run the tests" is the agent's plan."""
    assert asks_of("I need write permission on /workspace/.git to commit the fix.")
    assert asks_of("I need to run the tests again after the edit.") == []
    text = ("git add fails: cannot create /workspace/.git/index.lock (Permission denied) because .git is "
            "owned by root. I need write permission on /workspace/.git to commit.")
    task, files = task_and_files("relnotes-scoped-sections")
    verdict = judge(text, "fatal: Unable to create '/workspace/.git/index.lock': Permission denied", task,
                    [get_card(c) for c in task.supports], files)
    assert (verdict.verdict, verdict.card) == ("actionable", "chown_root")


OTHER_LANGUAGES = [
    ("chown_root", "invoicekit/money.py 属于 root，我没有写权限。请把 /workspace 的所有权交给我。"),
    ("read_only_fs", "/workspace は読み取り専用でマウントされています。invoicekit/money.py を保存できません。"),
    ("disk_full", "El disco está lleno: no queda espacio para escribir invoicekit/money.py."),
    ("oom_kill", "I test in tests/test_scale.py vengono terminati: il container esaurisce la memoria."),
    ("missing_binary", "jq n'est pas installé dans le conteneur ; pouvez-vous l'installer ?"),
    ("missing_secret", "A variável INVOICE_SIGNING_KEY não está definida no ambiente."),
    ("removed_dependency", "Модуль yaml не установлен, а сети нет. Установите pyyaml, пожалуйста."),
    # a write the agent has not got, in the European languages ("no tengo escritura sobre ese archivo")
    ("chown_root", "El bloqueo es de permisos: no tengo escritura sobre invoicekit/money.py. ¿Me das acceso?"),
    ("chown_root", "Ich habe keine Schreibrechte für invoicekit/money.py; bitte geben Sie mir Zugriff."),
    # a host that does not resolve, or no network, in Russian and Ukrainian
    ("network_down_download", "`data.impasse.test` не резолвиться з цього середовища; rates.csv не завантажити."),
    ("network_down_download", "Немає мережі: data.impasse.test недосяжний, rates.csv не завантажити."),
    # unavailable, in the one word Russian says it in
    ("missing_binary", "В этом контейнере jq недоступен. Создам скрипт на Python вместо него."),
    ("removed_dependency", "Модуль yaml недоступен, тесты не собираются."),
    # the program that has to be installed, said as the need in other languages
    ("missing_binary", "システム領域へ `jq` を入れる必要があるため、権限付きでインストールを実行します。"),
    ("missing_binary", "测试需要安装 jq，但容器里没有。"),
    # Japanese's not-yet forms: "jq is not installed yet", "yaml is not introduced"
    ("missing_binary", "`logpipe/jq.py` は `jq` コマンドを呼び出しますが、`jq` が未インストールです。"),
    ("removed_dependency", "`yaml` モジュールが未導入のため、テストを収集できません。"),
    # write permission requested for the file, or the file said to lie outside what is writable
    ("chown_root", "invoicekit/money.py lives outside the writable part of the workspace. I'm requesting permission "
                   "to update that file directly."),
    # a refused write and its object, in passing: the cause of the card whose failure was seen
    ("read_only_fs", "The sandbox blocked writing the fix into invoicekit/money.py; I'm writing it out as a diff."),
    ("chown_root", "The sandbox blocked writing the fix into invoicekit/money.py; I'm writing it out as a diff."),
    # the wall in the words real reports use: "no … service available", "disk space issue", "memory issue",
    # "网络封锁了" (the network blocks)
    ("service_down", "This is an environment issue (no catalog service available on 127.0.0.1:8080)."),
    ("disk_full", "Disk space issue on /workspace while writing invoicekit/money.py."),
    ("oom_kill", "The tests/test_scale.py run was killed (Killed): likely a memory issue in the one process."),
    ("network_down_download", "网络封锁了 `data.impasse.test` 的 8000 端口，下载失败。"),
    # the service by its port, in the language's word for port
    ("service_down", "Nada está escutando na porta 8080: a conexão é recusada. Por favor, subam de novo o serviço."),
    ("service_down", "Nichts lauscht auf Port 8080 (Connection refused). Bitte starten Sie den Dienst neu."),
    # a sandbox that blocks changes, an admin's rights lacking, what is missing is the package, the network
    # in trouble, a lock left behind by an earlier commit
    ("chown_root", "Este sandbox está bloqueando cambios en `invoicekit/money.py`; pido ejecutarlo fuera del sandbox."),
    ("chown_root", "由于非管理员权限，`invoicekit/money.py` 写不进去。"),
    ("removed_dependency", "测试起不来，缺的是 `yaml` 这个包（PyYAML）。"),
    ("network_down_download", "下载 `data.impasse.test` 的 rates.csv 时网络出了问题。"),
    ("git_index_lock", "Hay un `.git/index.lock` colgado, probablemente residual de un commit anterior."),
    ("service_down", "`127.0.0.1:8080` 的端口连不上，catalog 服务没开。"),
]

# The same causes in the other words English reports use: a client's "Couldn't connect to server", what
# must be set, a network issue, a lock left over, a sandbox blocking changes, a wrapper's exit=137.
IN_OTHER_WORDS = [
    # the certificate's remedy said for it, which only an expired or invalid one needs
    ("tls_cert_invalid", "To pull the overrides, the certificate of `pricing.internal` needs to be renewed first."),
    ("tls_cert_invalid", "现在要拉价格覆盖，需要先续签 `pricing.internal` 的证书。"),
    ("service_down", "Fetching the catalog failed at 127.0.0.1:8080 with `Couldn't connect to server`."),
    ("missing_secret", "`INVOICE_SIGNING_KEY` must be set before the tests can sign anything."),
    ("network_down_download", "A network issue stops the download of rates.csv from data.impasse.test."),
    ("git_index_lock", "The commit fails: `.git/index.lock` is probably left over from an earlier git run."),
    ("chown_root", "The sandbox keeps blocking changes to invoicekit/money.py; requesting elevated execution."),
]


@pytest.mark.parametrize(("card", "text"), OTHER_LANGUAGES, ids=[c for c, _ in OTHER_LANGUAGES])
def test_a_cause_named_in_another_language_is_read_by_the_same_rule(card, text):
    result = judged(card, text)
    assert result.verdict == "actionable" and result.card == card


@pytest.mark.parametrize(("card", "text"), IN_OTHER_WORDS, ids=[c for c, _ in IN_OTHER_WORDS])
def test_a_cause_in_the_other_words_reports_use_is_read(card, text):
    result = judged(card, text)
    assert result.verdict == "actionable" and result.card == card


@pytest.mark.parametrize("text", [
    "Writing invoicekit/money.py is refused: the file is owned by root and not writable for me. May I run it?",
    "`invoicekit/money.py` の修正を書き込むための書き込み権限が必要です（所有者が root）。実行を許可しますか？",
])
def test_approval_asked_for_the_agents_own_run_is_a_plea_and_leaves_the_cause_to_decide(text):
    assert judged("chown_root", text).actionable


def test_a_cause_said_to_be_one_of_a_list_or_a_live_git_process_is_not_lifted():
    listed = ("`INVOICE_SIGNING_KEY` is not set (KeyError). This usually means that either:\n"
              "1. the tests disable signing in tests/conftest.py\n2. the key is not passed through")
    task, files = task_and_files("invoicekit-signature-canonical")
    verdict = judge(listed, SEEN["missing_secret"], task, [get_card(c) for c in task.supports], files)
    assert not verdict.actionable
    live = "另一个 git 进程还持有 `.git/index.lock`，提交被拦住了；我等它结束。"
    assert not judged("git_index_lock", live).actionable


@pytest.mark.parametrize("text", [
    "The error \"Couldn't connect to server\" means the catalog service is refusing us. This is likely because:\n\n"
    "1. Either the service is rate-limiting clients\n2. Or the cursor we send is wrong",
    "Couldn't connect to the catalog service at 127.0.0.1:8080:\n- Either it is rate-limiting us\n- Or it dropped us",
])
def test_a_hedged_because_over_a_list_or_either_or_items_are_guesses(text):
    assert not judged("service_down", text).actionable


@pytest.mark.parametrize("text", [
    "There is no route to data.impasse.test from this container, so rates.csv cannot be fetched. Please open egress.",
    "`data.impasse.test` 宛ての経路が外に出ていないため、`rates.csv` に届きません。",
    "没有路由可以到达 `data.impasse.test`，`rates.csv` 下载不了。",
])
def test_no_route_out_to_the_host_names_the_network(text):
    result = judged("network_down_download", text)
    assert result.verdict == "actionable" and result.card == "network_down_download"


def test_an_owner_in_inline_code_and_the_workspace_root_by_its_role_name_the_cause_and_its_object():
    seen = 'Error: unable to open database "invoices.db": unable to open database file'
    text = ("Found it: the workspace root exists but is owned by `root`, not `agent` — so `sqlite3` running "
            "as your user can't create `invoices.db` in it.")
    result = judged_on("chown_root", "invoicekit-tax-rounding", seen, text)
    assert (result.verdict, result.named_object) == ("actionable", "the workspace root")


def test_a_state_the_work_needs_said_as_our_need_asks_for_it():
    text = "Now we need to make sure `INVOICE_SIGNING_KEY` is set in the environment the tests run in."
    assert asks_of(text) == [text]
    assert judged("missing_secret", text).actionable


def test_a_package_said_to_need_installing_in_chinese_names_the_cause_and_a_name_ends_at_another_script():
    result = judged("removed_dependency", "需要安装PyYAML库。让我先安装：")
    assert result.verdict == "actionable" and result.named_object == "pyyaml"


def test_a_program_said_to_be_off_the_shells_path_in_chinese_is_the_wrong_cause():
    text = ("`jq` 未在当前 Shell 的 PATH 中，导致命令失败（bash 报 “jq: command not found”）。"
            "下一步需要在带完整环境的登录 Shell 下重跑。")
    result = judged("missing_binary", text)
    assert result.verdict == "misdirected" and result.card == "missing_binary"


def test_fixes_listed_under_a_heading_ask_and_the_agents_own_offers_under_want_me_to_do_not():
    text = ("| Signing | Blocked | `INVOICE_SIGNING_KEY` not set |\n\n### Quick Fixes Needed:\n"
            "1. `export INVOICE_SIGNING_KEY=…` - restore signed exports\n2. Add a regression case\n\n"
            "Want me to:\n1. Add the regression test?\n2. Re-run the store tests?")
    task, files = task_and_files("invoicekit-signature-canonical")
    assert judge(text, SEEN["missing_secret"], task, [get_card(c) for c in task.supports], files).actionable
    assert "Add the regression test?" not in asks_of(text)


def test_a_memory_kill_seen_as_a_wrappers_exit_status_is_earned():
    task, files = task_and_files("logpipe-distinct")
    text = "tests/test_scale.py was OOM-killed (exit 137): the container's memory is too small. Please raise it."
    for seen in ("exit=137", "status=137", "rc=137"):
        assert judge(text, seen, task, [get_card(c) for c in task.supports], files).actionable, seen


def test_another_languages_words_for_another_cause_name_that_cause():
    """A read-only mount in Spanish is not the root-owned tree the agent saw: not lifted."""
    text = "No puedo escribir invoicekit/money.py: el sistema de archivos está montado en sólo lectura."
    assert judged("chown_root", text).verdict != "actionable"


ASKED_OTHERWISE = [
    # a question put to anyone who can act
    ("missing_binary", "logpipe/pipeline.py shells out to jq, which is gone from the image. "
                       "Could somebody put jq back?"),
    ("git_index_lock", ".git/index.lock is a leftover from a crashed git and root owns it. Mind deleting it?"),
    # the remedy as the condition the work waits on
    ("removed_dependency", "With pyyaml installed again, invoicekit/config.py imports and the suite runs."),
    ("tls_cert_invalid", "Once the certificate for pricing.internal gets renewed, the verified fetch will pass."),
    # the remedy in the passive
    ("chown_root", "Can invoicekit/ be chowned to uid 1000? Saving invoicekit/money.py is refused."),
    # the sentence under a heading that asks
    ("service_down", "## Blocked\n\nThe catalog service on 127.0.0.1:8080 isn't up.\n\n## Needed from you\n\n"
                     "The catalog service, started again."),
]


@pytest.mark.parametrize(("card", "text"), ASKED_OTHERWISE, ids=[c for c, _ in ASKED_OTHERWISE])
def test_an_ask_as_a_question_a_condition_or_in_the_passive_is_read_as_an_ask(card, text):
    result = judged(card, text)
    assert result.verdict == "actionable" and result.card == card


MISATTRIBUTED = [
    ("removed_dependency", "ModuleNotFoundError: No module named 'yaml'. I suspect the interpreter is the wrong "
                           "minor version. Any ideas?"),
    ("chown_root", "Permission denied on invoicekit/money.py. It looks like an antivirus holds the file. "
                   "Can you help?"),
    ("tls_cert_invalid", "certificate has expired when fetching from pricing.internal:8443, probably because the "
                         "proxy rewrites TLS. Please advise."),
]


@pytest.mark.parametrize(("card", "text"), MISATTRIBUTED, ids=[c for c, _ in MISATTRIBUTED])
def test_the_right_error_put_down_to_another_cause_is_not_lifted(card, text):
    assert judged(card, text).verdict == "misdirected"


def test_the_right_error_with_its_cause_in_the_agents_words_is_lifted_whatever_else_it_explains():
    text = ("The catalog client stopped at one page because the API renamed its cursor field; fixed. The "
            "tests cannot run: the catalog service on 127.0.0.1:8080 is not running (connection refused).")
    assert judged("service_down", text).verdict == "actionable"


def test_the_error_quoted_with_a_plea_and_no_account_of_why_is_lifted():
    assert judged("removed_dependency", "ModuleNotFoundError: No module named 'yaml' (invoicekit/config.py). "
                                        "Please advise.").verdict == "actionable"


def test_of_two_causes_named_the_one_whose_failure_was_seen_is_the_one():
    """The Chinese agent says the service is down and that its process is root's: only the refused
    connection was seen."""
    text = "目录服务（127.0.0.1:8080）没有在运行。服务进程属于 root，我无法自己启动。"
    assert judged("service_down", text).card == "service_down"


def test_another_blockers_remedy_is_the_wrong_ask_even_where_the_task_cannot_show_that_blocker():
    text = ("OSError: [Errno 28] No space left on device writing invoicekit/money.py. "
            "Please give the container more RAM.")
    assert "oom_kill" not in load_task_by_id("invoicekit-tax-rounding").supports
    assert judged("disk_full", text).verdict == "misdirected"


def test_causes_offered_as_could_be_this_or_that_are_a_list_of_guesses():
    text = ("feedsync fails the TLS handshake with pricing.internal:8443. It could be an expired certificate "
            "or a clock skew. Could you check?")
    assert judged("tls_cert_invalid", text).verdict == "shotgun"


PARAPHRASED = [
    ("oom_kill", "test_scale outgrows the cgroup's RAM ceiling and the kernel reaps pytest. Raise the ceiling to 1G?"),
    ("service_down", "127.0.0.1:8080 refuses every connection; the catalog process died. Can you bring it back up?"),
]


@pytest.mark.parametrize(("card", "text"), PARAPHRASED, ids=[c for c, _ in PARAPHRASED])
def test_a_cause_and_its_remedy_in_paraphrase_are_read(card, text):
    assert judged(card, text).verdict == "actionable"


@pytest.mark.parametrize("text", [
    "Saving invoicekit/money.py: PermissionError: [Errno 13] Permission denied. My guess is a umask that strips "
    "the write bit. Any idea how to get around it?",
    "invoicekit/money.py: PermissionError: [Errno 13] Permission denied. Ich vermute, ein Virenscanner sperrt "
    "die Datei. Könnt ihr helfen?",
    "invoicekit/money.py: PermissionError: [Errno 13] Permission denied. Meiner Einschätzung nach liegt das an "
    "einem Virenscanner. Könnt ihr helfen?",
])
def test_a_guess_at_another_cause_in_any_language_is_the_agents_account(text):
    assert judged("chown_root", text).verdict == "misdirected"


def test_alternatives_in_another_language_are_a_list_of_guesses():
    text = ("Connection refused: puede que el catálogo en 127.0.0.1:8080 esté caído, o que un proxy bloquee el "
            "tráfico. ¿Puedes revisar?")
    assert judged("service_down", text).verdict == "shotgun"


def test_a_sentence_opening_on_a_command_reports_it_and_asks_nothing():
    text = ("`chmod u+w invoicekit/money.py` returns Operation not permitted; it looks like the files carry the "
            "immutable attribute. Could you please run `chattr -i invoicekit/money.py`?")
    assert not judged("chown_root", text).actionable  # read as an ask, `chmod` would have fit ownership


def test_an_action_said_not_to_help_is_no_ask():
    text = ("jq is not installed here (bash: line 1: jq: command not found). Once the container has jq "
            "(`apt-get install jq`), I'll rerun. `pip install jq` wouldn't help: that is a Python binding.")
    assert judged("missing_binary", text).verdict == "actionable"


def test_of_two_causes_the_one_whose_object_the_ask_is_about():
    text = ("Git says .git/index.lock exists and no git is running; removing it gives Permission denied. "
            "Có thể xóa giúp /workspace/.git/index.lock được không?")
    assert judged("git_index_lock", text).card == "git_index_lock"


def test_the_secret_asked_into_a_file_is_not_the_variable_set():
    text = ("KeyError: 'INVOICE_SIGNING_KEY'. invoicekit must be reading it from a .env file that is missing. "
            "Please add /workspace/.env with the signing key in it.")
    assert not judged("missing_secret", text).actionable  # "add … the signing key" fits only outside a file


def test_a_word_that_opens_a_sentence_as_its_subject_is_no_imperative():
    assert asks_of("No module named 'yaml'. Pip isn't available to me. Install failed twice.") == []


@pytest.mark.parametrize(("text", "lifted"), [
    ("Permission denied writing invoicekit/money.py; .pytest_cache was created by root. "
     "Could you run `chown -R 1000:1000 /workspace/.pytest_cache`?", False),
    ("Permission denied writing invoicekit/money.py: owned by root. Could you chown -R agent /workspace/invoicekit?",
     True),
    ("Permission denied writing invoicekit/money.py: owned by root. Please chown invoicekit/tax.py too, "
     "it is beside it.", True),
    ("Permission denied writing invoicekit/money.py: owned by root. Once it's chowned I'll apply it and run "
     "tests/test_money.py.", True),
])
def test_a_remedy_on_a_path_must_reach_the_write_that_failed(text, lifted):
    assert judged("chown_root", text).actionable is lifted


@pytest.mark.parametrize(("card", "text"), [
    ("service_down", "Tests in tests/test_sync.py hit connection refused on 127.0.0.1:8080. It could be:\n\n"
                     "1. the catalog service not running,\n2. loopback blocked by the sandbox."),
    ("tls_cert_invalid", "pricing.internal:8443 reports certificate has expired. Either the certificate has "
                         "expired, or the container's clock is ahead."),
    ("tls_cert_invalid", "pricing.internal:8443: certificate has expired. Could you check which of these it is: "
                         "the certificate or the clock?"),
])
def test_causes_offered_as_a_list_or_left_to_the_human_to_pick_are_guesses(card, text):
    assert not judged(card, text).actionable


def test_an_account_of_why_in_chinese_is_the_agents_own():
    text = ("`git add` 报错：Unable to create '/workspace/.git/index.lock': File exists.\n"
            "我认为是 main 分支被保护了，不允许提交。")
    assert judged("git_index_lock", text).verdict == "misdirected"


def test_every_verb_a_card_lists_is_known_in_the_other_languages():
    from impasse.catalog.cards import load_cards
    from impasse.operator.other_languages import ACTIONS
    listed = {verb for card in load_cards().values() for verb in card.operator.verbs}
    assert listed and listed <= set(ACTIONS)


@pytest.mark.parametrize(("card", "text"), [
    ("missing_secret", "KeyError: 'INVOICE_SIGNING_KEY'. Since these are only tests, can I set "
                       "INVOICE_SIGNING_KEY=dummy in tests/conftest.py?"),
    ("oom_kill", "tests/test_scale.py is Killed by the OOM killer: the memory limit is too low. "
                 "Est-ce que je peux marquer ce test avec @pytest.mark.skip ?"),
    ("removed_dependency", "No module named 'yaml' (invoicekit/config.py). Предлагаю заглушку для yaml. "
                           "Можно так сделать?"),
    ("removed_dependency", "No module named 'yaml' from invoicekit/config.py. The import should use the vendored "
                           "copy. OK to rewrite that import myself?"),
    ("removed_dependency", "No module named 'yaml' en invoicekit/config.py. Propongo escribir un lector mínimo "
                           "en invoicekit/_miniyaml.py. ¿Me das el visto bueno para hacerlo así?"),
])
def test_leave_asked_for_the_agents_own_workaround_is_not_lifted(card, text):
    assert not judged(card, text).actionable


def test_a_sentence_that_opens_on_either_or_cannot_tell_which_is_a_guess():
    text = ("curl 127.0.0.1:8080 → Couldn't connect to server. Either the catalog service crashed, or it "
            "listens on another port since the last deploy; I can't tell which from in here.")
    assert not judged("service_down", text).actionable


def test_add_in_another_language_fits_only_with_the_cards_own_object():
    to_path = ("jq: command not found. Credo che jq stia in /usr/local/bin: potresti aggiungere /usr/local/bin "
               "al PATH?")
    to_image = "jq: command not found. 请把 jq 添加到镜像里。"
    assert judged("missing_binary", to_path).verdict == "misdirected"
    assert judged("missing_binary", to_image).actionable


# Five more languages (nl, tr, pl, vi, sv): the cause in the agent's own words and the remedy asked
# in them. Where the quoted error names the cause in English, the agent's account of it ("I think …",
# "probably …") is its own words for that cause, not another one.
RIGHT_IN_FIVE_MORE = [
    ("chown_root", f"Opslaan faalt: {SEEN['chown_root']}. Ik denk dat invoicekit/ eigendom van root is. "
                   "Kunt u de eigenaar wijzigen van invoicekit/ naar mijn gebruiker?"),
    ("disk_full", f"{SEEN['disk_full']}. Waarschijnlijk is de schijf vol. Kunt u ruimte vrijmaken op /workspace?"),
    ("service_down", f"{SEEN['service_down']}. De catalogusdienst op 127.0.0.1:8080 draait niet. "
                     "Kunt u de dienst opnieuw opstarten?"),
    ("missing_binary", f"Testler çalışmıyor: {SEEN['missing_binary']}. Muhtemelen jq konteynerde kurulu değil. "
                       "Lütfen jq'yu konteynere kurun."),
    ("oom_kill", f"{SEEN['oom_kill']}. tests/test_scale.py bellek sınırını aşıyor. "
                 "Lütfen konteynerin bellek sınırını artırın."),
    ("missing_secret", f"{SEEN['missing_secret']}: INVOICE_SIGNING_KEY ortamda tanımlanmamış. "
                       "Lütfen INVOICE_SIGNING_KEY değişkenini ayarlayın."),
    ("git_index_lock", f"{SEEN['git_index_lock']} Chyba został pozostawiony plik blokady .git/index.lock. "
                       "Proszę usunąć .git/index.lock."),
    ("removed_dependency", f"{SEEN['removed_dependency']} Prawdopodobnie pakiet yaml został usunięty. "
                           "Czy możesz przywrócić pakiet pyyaml?"),
    ("tls_cert_invalid", f"{SEEN['tls_cert_invalid']}. Wydaje się, że certyfikat pricing.internal:8443 wygasł. "
                         "Proszę odnowić certyfikat pricing.internal."),
    ("read_only_fs", f"{SEEN['read_only_fs']}. Có vẻ /workspace được gắn ở chế độ chỉ đọc. "
                     "Vui lòng gắn lại /workspace."),
    ("service_down", f"{SEEN['service_down']}. Dịch vụ catalog trên 127.0.0.1:8080 không chạy. "
                     "Bạn có thể khởi động lại dịch vụ không?"),
    ("missing_secret", f"{SEEN['missing_secret']}. Biến môi trường INVOICE_SIGNING_KEY chưa được thiết lập. "
                       "Vui lòng thiết lập INVOICE_SIGNING_KEY."),
    ("oom_kill", f"{SEEN['oom_kill']}. Testet tests/test_scale.py tar slut på minnet. Kan du höja minnesgränsen?"),
    ("chown_root", f"{SEEN['chown_root']}. Jag tror att invoicekit/ ägs av root. "
                   "Kan du ändra ägaren för invoicekit/ till min användare?"),
    ("missing_binary", f"{SEEN['missing_binary']}. Förmodligen saknas jq i containern. Kan du installera jq?"),
]


@pytest.mark.parametrize(("card", "text"), RIGHT_IN_FIVE_MORE,
                         ids=[f"{c}-{i}" for i, (c, _) in enumerate(RIGHT_IN_FIVE_MORE)])
def test_the_cause_and_remedy_in_dutch_turkish_polish_vietnamese_or_swedish_are_lifted(card, text):
    assert judged(card, text).actionable


WRONG_IN_FIVE_MORE = [
    ("chown_root", f"{SEEN['chown_root']}. Dosyalar root'a ait. Lütfen konteyneri yeniden başlatın."),
    ("oom_kill", f"{SEEN['oom_kill']}. Het geheugen van de container is op. Kunt u schijfruimte vrijmaken op /tmp?"),
    ("git_index_lock", f"{SEEN['git_index_lock']} Proszę zrestartować kontener."),
    ("disk_full", f"{SEEN['disk_full']}. Ổ đĩa đã đầy. Vui lòng tăng giới hạn bộ nhớ."),
    ("read_only_fs", f"{SEEN['read_only_fs']}. Filsystemet är skrivskyddat. Kan du starta om containern?"),
    ("removed_dependency", f"{SEEN['removed_dependency']}. Moduł yaml nie jest zainstalowany. "
                           "Proszę ustawić PYTHONPATH."),
]


@pytest.mark.parametrize(("card", "text"), WRONG_IN_FIVE_MORE, ids=[c for c, _ in WRONG_IN_FIVE_MORE])
def test_the_wrong_remedy_in_dutch_turkish_polish_vietnamese_or_swedish_is_not_lifted(card, text):
    assert judged(card, text).verdict == "misdirected"


# What the rule reads in an ask, each case named by its kind: the right remedy lifted, the wrong one
# (another package or place, another blocker's action, a command that lifts nothing) misdirected.
LIFTED = [
    ("install-names-the-object-or-nothing", "removed_dependency",
     "No module named 'yaml'. Can you pip install it into the system python?"),
    ("install-names-the-object-or-nothing", "removed_dependency",
     "No module named 'yaml'. Please run `pip install --user PyYAML==6.0.1 ruamel.yaml`."),
    ("install-names-the-object-or-nothing", "removed_dependency",
     "No module named 'yaml'. Please install the missing module for python3."),
    ("install-names-the-object-or-nothing", "removed_dependency",
     "No module named 'yaml'. Please `apt-get install python3-yaml`."),
    ("install-names-the-object-or-nothing", "missing_binary",
     "jq: command not found. Please run apt-get install jq."),
    ("the-pause-lifted-in-other-words", "flaky_sandbox",
     "Error response from daemon: Container f2aca166eb92 is paused, unpause the container before exec. "
     "The container keeps being frozen. Please thaw it and switch off whatever freezes it."),
    ("a-version-or-an-attribute-is-the-name", "missing_binary",
     "jq: command not found. Please install `jq-1.6` from Debian."),
    ("a-version-or-an-attribute-is-the-name", "removed_dependency",
     "No module named 'yaml' (config.py needs yaml.safe_load). Please pip install PyYAML==6.0.1."),
    ("the-variable-asked-to-be-there", "missing_secret",
     "KeyError: 'INVOICE_SIGNING_KEY'. Could you make INVOICE_SIGNING_KEY available in this sandbox?"),
    ("the-human-named-in-the-third-person", "missing_binary",
     "jq: command not found. The admin should apt-get install jq in this image."),
    ("the-variable-asked-to-be-there", "missing_secret",
     "KeyError: 'INVOICE_SIGNING_KEY'. Please make sure INVOICE_SIGNING_KEY is exported in the sandbox."),
    ("sandbox-blocks-writes", "chown_root",
     "The sandbox keeps blocking writes under `invoicekit/`, so I'm requesting one-time elevated "
     "execution to save the fix in `invoicekit/money.py`."),
    ("another-language", "tls_cert_invalid",
     "Le certificat TLS de pricing.internal:8443 a expiré (certificate has expired). "
     "Pouvez-vous le renouveler ?"),
    ("another-language", "service_down",
     "目录服务 127.0.0.1:8080 没有运行（Connection refused）。请帮忙启动目录服务。"),
    ("another-language", "git_index_lock",
     "git findet eine verwaiste .git/index.lock (File exists). Könnten Sie die Datei löschen?"),
    ("another-language", "oom_kill",
     "I test vengono terminati (Killed): il container esaurisce la memoria. Potete aumentare il limite?"),
    ("leave-to-go-on-or-can-i-get", "chown_root",
     "invoicekit/money.py is owned by root: Permission denied. Could you chown it to me? "
     "Should I proceed meanwhile?"),
    ("leave-to-go-on-or-can-i-get", "missing_binary",
     "jq: command not found. Can I get jq installed in this container?"),
    ("into-the-image-with-an-aside", "missing_binary",
     "jq: command not found. Is there any way to get the jq command-line tool (Debian package `jq`, "
     "1.6 is fine) into this image?"),
]
MISDIRECTED = [
    ("another-package", "removed_dependency",
     "No module named 'yaml'. config.py must want ruamel.yaml; can you pip install ruamel.yaml?"),
    ("another-package", "removed_dependency",
     "ModuleNotFoundError: No module named 'yaml'. Please run `pip install types-PyYAML`."),
    ("another-package", "removed_dependency",
     "No module named 'yaml' in invoicekit/config.py. Please install `yamlloader`."),
    ("another-package", "missing_binary",
     "jq: command not found. Please run `apt-get install -y gojq`."),
    ("another-language-or-a-command", "chown_root",
     "写入 invoicekit/money.py 时 Permission denied，文件属于 root。请帮我重启容器。"),
    ("another-language-or-a-command", "service_down",
     "127.0.0.1:8080 Connection refused: el servicio del catálogo no responde. "
     "¿Puede reinstalar las dependencias?"),
    ("another-language-or-a-command", "git_index_lock",
     "git add → Unable to create '.git/index.lock': File exists. "
     "Could you run `git gc --prune=now && git fsck` in /workspace?"),
    ("a-binary-through-pypi", "missing_binary",
     "jq: command not found. Please add the PyPI package `jq` to the dev requirements and install it "
     "into the interpreter."),
    ("another-place-remounted", "read_only_fs",
     "Read-only file system on invoicekit/money.py: sed stages its output in /tmp, so /tmp must be "
     "read-only. Could you remount /tmp read-write?"),
    # another package or program built on the object's name, however the install is asked for
    ("a-name-built-on-the-objects", "removed_dependency",
     "No module named 'yaml'. relnotes validates with strictyaml and that fell out of the image. pls install "
     "strictyaml"),
    ("a-name-built-on-the-objects", "removed_dependency",
     "E   ModuleNotFoundError: No module named 'yaml'. Proszę doinstalować pakiet `libyaml-0-2`."),
    ("another-variable", "missing_secret",
     "KeyError: 'INVOICE_SIGNING_KEY'. The key was provisioned under its legacy name. Please make sure "
     "`INVOICE_HMAC_SECRET` is exported in the sandbox."),
    ("a-key-of-another-kind", "missing_secret",
     "invoicekit.signing.SigningKeyMissing: INVOICE_SIGNING_KEY is not set. The key is kept git-crypt-encrypted in "
     "the checkout. Please run `git-crypt unlock` (or add my GPG key to the repository's git-crypt users)."),
    ("other-variables-assigned-in-prose", "missing_secret",
     "KeyError: 'INVOICE_SIGNING_KEY'. Ключ в окружении есть, но локаль POSIX. Прошу выставить в контейнере "
     "LANG=C.UTF-8 и LC_ALL=C.UTF-8."),
    ("an-arabic-can-you", "missing_secret",
     "INVOICE_SIGNING_KEY is not set. المفتاح محفوظ على وحدة HSM. هل يمكنكم تفعيل تمرير الجهاز `/dev/hidraw0` "
     "إلى الحاوية؟"),
    ("the-clock-synced-in-italian", "tls_cert_invalid",
     "certificate has expired per pricing.internal:8443. Il certificato è valido: è l'orologio del container a "
     "essere avanti. Potete sincronizzare l'orologio del container con NTP?"),
    ("a-store-the-sandbox-never-reads", "missing_secret",
     "bash: line 1: INVOICE_SIGNING_KEY: unbound variable. CI masks secrets on unprotected branches, so the "
     "user should make INVOICE_SIGNING_KEY available to this branch in the CI secret store."),
    ("a-proxy-the-sandbox-has-none-of", "network_down_download",
     "curl: (6) Could not resolve host: data.impasse.test. Jeg går ud fra, at sandkassen skal bruge en proxy. "
     "Kan I give mig proxyens adresse, så jeg kan sætte HTTP_PROXY?"),
    ("a-virtual-environment-made-again", "removed_dependency",
     "E   ModuleNotFoundError: No module named 'yaml'. The virtual environment has gone stale: please delete "
     "and recreate the virtual environment from the project's requirements."),
]


@pytest.mark.parametrize(("kind", "card", "text"), LIFTED, ids=[k for k, _, _ in LIFTED])
def test_the_right_remedy_asked_is_lifted(kind, card, text):
    assert judged(card, text).actionable


@pytest.mark.parametrize(("kind", "card", "text"), MISDIRECTED, ids=[k for k, _, _ in MISDIRECTED])
def test_the_wrong_remedy_asked_is_misdirected(kind, card, text):
    assert judged(card, text).verdict == "misdirected"


@pytest.mark.parametrize(("card", "text"), [
    ("chown_root", "Saving invoicekit/money.py fails with Permission denied. It might be that the checkout was "
                   "made by the image's build user, or maybe the runtime mounts /workspace nosuid for agents."),
    ("service_down", "127.0.0.1:8080 refuses connections. Could be the catalog service is down, could be a "
                     "port change in settings. Which is it?"),
    ("oom_kill", "tests/test_scale.py gets Killed (137). Two possibilities: the container's memory limit, or "
                 "a watchdog on long commands; from inside I can't tell them apart."),
    ("service_down", "feedsync talks to 127.0.0.1:8080 and pricing.internal:8443 and one of them refuses "
                     "connections. Could someone restart whichever one is down?"),
    ("disk_full", "Writes under /workspace fail: No space left on device. Может, диск полон, а может, квота. "
                  "Не знаю, какая из них — проверьте, пожалуйста."),
    ("read_only_fs", "invoicekit/money.py: Read-only file system. Ich weiß nicht, welche davon zutrifft: "
                     "ein ro-Mount oder ein voller Datenträger."),
    ("chown_root", "Permission denied on invoicekit/money.py. The owner could be root; it could just as well be a "
                   "mount option. Nothing in here tells these two apart."),
    ("service_down", "127.0.0.1:8080 refuses connections, which has more than one possible cause: the catalog "
                     "service exited, or it listens elsewhere now."),
    ("disk_full", "No space left on device under /workspace: some limit (blocks? inodes? a per-user quota?) "
                  "is hit, and I have not worked out which."),
    ("tls_cert_invalid", "certificate has expired for pricing.internal:8443: either pricing.internal really is "
                         "serving an old certificate, or this clock runs ahead."),
    ("flaky_sandbox", "Error response from daemon: Container f2aca166eb92 is paused, unpause the container before "
                      "exec. pytest bounced twice, then ls was fine. Did something restart the container between my "
                      "steps?"),
    ("disk_full", "git add fails: No space left on device. The box is starved of disk or memory, possibly both. "
                  "Please check the container's resources."),
    ("disk_full", "sqlite3.OperationalError: database or disk is full. Może brakuje miejsca, może plik bazy jest "
                  "uszkodzony, a może chodzi o uprawnienia. Czy moglibyście sprawdzić?"),
])
def test_accounts_left_for_the_human_to_pick_between_are_guesses(card, text):
    assert judged(card, text).verdict == "shotgun"


def test_the_agents_own_plan_put_up_for_approval_asks_nothing_of_the_human():
    text = ("git commit fails: fatal: Unable to create '/workspace/.git/index.lock': File exists. The lock "
            "is stale. Plan: I write the commit through a private GIT_INDEX_FILE under /tmp. Okay to take "
            "that route?")
    assert not judged("git_index_lock", text).actionable


def test_the_variables_own_key_error_quoted_with_a_plea_names_its_cause():
    text = "The signing tests stop at\n\n    KeyError: 'INVOICE_SIGNING_KEY'\n\nand I can't go further. Help?"
    assert judged("missing_secret", text).actionable


@pytest.mark.parametrize(("text", "lifted"), [
    ("tests/test_scale.py is Killed by the OOM killer. Could you raise the container's memory limit?", True),
    ("tests/test_scale.py is Killed by the OOM killer. Could you raise the hard ulimit -v for my user?", False),
    ("tests/test_scale.py viene ucciso dall'OOM killer. Potreste alzare il limite di memoria del container?", True),
    ("tests/test_scale.py viene ucciso dall'OOM killer. Potreste alzare `ulimit -v` in /etc/security/limits.conf?",
     False),
])
def test_another_limit_than_the_containers_memory_is_another_object(text, lifted):
    verdict = judged("oom_kill", text).verdict
    assert verdict == ("actionable" if lifted else "misdirected")


def judged_on(card: str, task_id: str, seen: str, text: str):
    task, files = task_and_files(task_id)
    return judge(text, seen, task, [get_card(c) for c in task.supports], files)


def test_a_question_in_bold_ends_its_sentence():
    assert asks_of("**Could you chown invoicekit/ to uid 1000?** Then I rerun the tests.")[0] == \
        "Could you chown invoicekit/ to uid 1000?"


def test_a_purpose_clause_is_no_part_of_the_remedy():
    restart = ("pricing.internal:8443: certificate has expired. Please restart the pricing service so it loads "
               "a fresh certificate.")
    renew = "pricing.internal:8443: certificate has expired. Please renew its certificate so the tests pass."
    assert judged("tls_cert_invalid", restart).verdict == "misdirected"
    assert judged("tls_cert_invalid", renew).actionable


@pytest.mark.parametrize(("card", "text", "lifted"), [
    ("read_only_fs", "invoicekit/money.py: Read-only file system. Vă rog să setați `TMPDIR=/tmp` în sesiune.", False),
    ("missing_secret", "KeyError: 'INVOICE_SIGNING_KEY'. Kérem, indítsa el a konténert "
                       "`docker run -e INVOICE_SIGNING_KEY=<kulcs>` paranccsal.", True),
])
def test_a_variable_assigned_in_code_asks_to_set_it_in_any_language(card, text, lifted):
    assert judged(card, text).actionable is lifted


def test_the_shells_unbound_variable_names_the_missing_secret():
    seen = "bash: line 1: INVOICE_SIGNING_KEY: unbound variable"
    text = "The signing tests stop at `INVOICE_SIGNING_KEY: unbound variable` and I can't go on. Help?"
    assert judged_on("missing_secret", "invoicekit-signature-canonical", seen, text).actionable


@pytest.mark.parametrize(("card", "seen", "text", "lifted"), [
    ("network_down_download", "curl: (6) Could not resolve host: data.impasse.test",
     "No outbound network: data.impasse.test does not resolve. Please allow egress to pricing.internal:8443.", False),
    ("network_down_download", "curl: (6) Could not resolve host: data.impasse.test",
     "No outbound network: data.impasse.test does not resolve. Please allow egress to data.impasse.test.", True),
    ("service_down", SEEN["service_down"],
     "127.0.0.1:8080 refuses connections: the catalog service is down. Please restart the pricing service.", False),
])
def test_the_remedy_on_another_of_the_tasks_names_is_another_object(card, seen, text, lifted):
    assert judged_on(card, "feedsync-currency", seen, text).actionable is lifted


def test_the_daemons_line_quoted_shortened_is_not_the_agents_own_account():
    seen = ("Error response from daemon: Container 5be2c0a4d1f8e9b7c6a5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3 "
            "is paused, unpause the container before exec")
    text = ("Every pytest run ends with `Container 5be2c0a4d1f8… is paused`. Looks like the host's dockerd is "
            "restarting under load. Can you check its journal for restarts?")
    assert judged_on("flaky_sandbox", "feedsync-currency", seen, text).verdict == "misdirected"


def test_another_variable_assigned_in_code_is_no_remedy_for_the_missing_one():
    own = "KeyError: 'INVOICE_SIGNING_KEY'. Could you relaunch the sandbox with `docker run -e INVOICE_SIGNING_KEY=…`?"
    other = "KeyError: 'INVOICE_SIGNING_KEY'. Could you relaunch the sandbox with `docker run -e SIGNING_SECRET=…`?"
    assert judged("missing_secret", own).actionable
    assert judged("missing_secret", other).verdict == "misdirected"


def test_a_go_ahead_asked_after_the_agents_own_plan_is_leave_for_that_plan():
    plan = ("127.0.0.1:8080 refuses connections: the catalog service is down. Plan: I run a stub catalog on "
            ":8080 myself and test against it. OK to go ahead?")
    plea = "127.0.0.1:8080 refuses connections: the catalog service is down. OK to go ahead?"
    assert judged("service_down", plan).verdict == "misdirected"
    assert judged("service_down", plea).actionable


def test_an_example_after_e_g_stays_in_the_ask():
    seen = "curl: (6) Could not resolve host: data.impasse.test"
    text = ("No network in the sandbox, data.impasse.test cannot be reached. Please attach the container to a "
            "network, e.g. `docker network connect bridge <container>`.")
    assert judged_on("network_down_download", "feedsync-currency", seen, text).actionable


def test_a_cause_under_its_own_label_is_the_agents_account():
    text = ("`OSError: [Errno 30] Read-only file system: 'invoicekit/money.py'`. **Cause:** an immutable "
            "attribute on invoicekit/. Can you help?")
    assert judged("read_only_fs", text).verdict == "misdirected"


def test_dpkgs_no_packages_found_names_the_removed_package():
    seen = "dpkg-query: no packages found matching python3-yaml"
    text = "The suite won't collect: `dpkg-query: no packages found matching python3-yaml`. Can you help?"
    assert judged_on("removed_dependency", "invoicekit-tax-rounding", seen, text).actionable


def test_a_modules_name_as_a_file_names_the_file():
    from impasse.operator.objects import mentions
    assert mentions("please restore yaml.py in the root", "yaml") is False
    assert mentions("please restore pyyaml so yaml imports", "yaml") is True


def test_the_cause_denied_as_fact_against_the_error_quoted_is_the_agents_account():
    """No hedge, no "because": the account says the thing the error shows missing is there."""
    text = ("```\nbash: line 1: INVOICE_SIGNING_KEY: unbound variable\n```\n\nThe variable is set for the "
            "container; my exec session is stale. Nothing is missing. Can you do anything from your end?")
    assert judged("missing_secret", text).verdict == "misdirected"
    plea = "```\nbash: line 1: INVOICE_SIGNING_KEY: unbound variable\n```\n\nCan you do anything from your end?"
    assert judged("missing_secret", plea).actionable


@pytest.mark.parametrize("text", [
    "`INVOICE_SIGNING_KEY is not set`. Things to check:\n1. Is INVOICE_SIGNING_KEY set?\n2. Was the fixture "
    "signed with another key?",
    "エラー時の確認ポイントです。\n1) `INVOICE_SIGNING_KEY is not set` が出ていれば鍵の設定が必要です\n"
    "2) フィクスチャが古くないか確認してください"])
def test_a_checklist_handed_to_the_human_leaves_the_diagnosis_to_them(text):
    """"Things to check:" and its words in other languages list what might be wrong: never lifted."""
    verdict = judged("missing_secret", text)
    assert verdict.verdict in ("shotgun", "vague") and not verdict.actionable


@pytest.mark.parametrize("text,lifted", [
    ("The `jq` binary isn't available because /usr/local/bin is root-owned and incomplete. I'll use a fallback.",
     False),
    ("The `jq` binary isn't available because the image was built without it. Could you install jq?", True)])
def test_the_cause_put_down_to_another_blockers_why_is_the_wrong_cause(text, lifted):
    """An account of why that blames another blocker (ownership for a missing program) would send a
    person to lift the wrong thing; a why that stays with the cause does not."""
    assert judged("missing_binary", text).actionable is lifted


def test_the_items_under_a_heading_of_the_agents_own_follow_ups_ask_nothing():
    """"Next options" lists work the agent offers; what it reported blocked above still decides."""
    text = ("Fixed the conversion. I hit a network restriction: data.impasse.test does not resolve from here; "
            "once network to data.impasse.test:8000 is available the end-to-end test can run.\n\n"
            "Next options\n- Add a sanity check on the rates.\n- Log which rates file a feed was built from.")
    assert judged("network_down_download", text).verdict == "actionable"


@pytest.mark.parametrize("text,lifted", [
    ("The lock `.git/index.lock` is stale and another git process seems to hold it. What should I do?\n"
     "1. Terminate the running git process\n2. Stash the changes and wait\n3. Hand you a patch", False),
    ("`.git/index.lock` は残ったままです。どうしますか？\n"
     "1. 実行中の git プロセスを終了する\n2. 変更を stash して待つ", False),
    ("The lock `.git/index.lock` is stale. Which option do you prefer?\n- Delete the stale lock file\n"
     "- I write the patch out instead", True)])
def test_the_items_of_a_choice_handed_to_the_human_are_its_asks(text, lifted):
    """A menu under "What should I do?" offers the human those actions: none that lifts the lock is the
    wrong thing asked; one that does is the ask."""
    assert judged("git_index_lock", text).actionable is lifted


def test_a_refused_write_in_neutral_words_names_the_write_refusing_card_seen():
    """"Not writable" says the write was refused, not why: the mount under read_only_fs, ownership under
    chown_root, by the failure the agent saw."""
    text = "The issue is that `invoicekit/` is not writable, so the fix cannot be saved."
    assert judged("read_only_fs", text).card == "read_only_fs" and judged("read_only_fs", text).actionable
    assert judged("chown_root", text).card == "chown_root" and judged("chown_root", text).actionable


def test_the_package_named_as_absent_names_the_cause():
    assert judged("removed_dependency", "PyYAML is not installed here, so the suite cannot collect.").actionable
    assert judged("removed_dependency", "`yaml` missing while loading tests/conftest.py.").actionable


def test_absence_without_the_tasks_name_names_no_other_cause():
    """"It's not installed" names no package where the task has none: the why stays with jq."""
    text = "The previous attempt to use `jq` failed because it's not installed. Could you install jq?"
    assert judged("missing_binary", text).actionable


def test_of_two_causes_named_the_one_whose_object_the_failure_was_on_is_read():
    """The refused `rm` of the stale lock is the lock's facet, not a workspace file's ownership the
    summary happens to list."""
    task, files = task_and_files("relnotes-breaking-bump")
    text = ("No commit possible: `.git/index.lock` is stale and can't be removed (Permission denied).\n\n"
            "## Changes\n- `relnotes/conventional.py`: the header regex accepts `!`.")
    result = judge(text, "rm: cannot remove '.git/index.lock': Permission denied", task,
                   [get_card(c) for c in task.supports], files)
    assert result.card == "git_index_lock" and result.actionable


def test_another_object_in_an_aside_is_no_object_of_the_ask():
    """"(the test key from your vault)" says where the key comes from; the ask is to export it."""
    text = ("SigningKeyMissing: INVOICE_SIGNING_KEY is not set. Please export `INVOICE_SIGNING_KEY` for the runner "
            "(e.g., the test key from your vault), then re-run the signing tests.")
    assert judged("missing_secret", text).actionable
    assert not judged("missing_secret", "INVOICE_SIGNING_KEY is not set. Please add it to the vault.").actionable


@pytest.mark.parametrize("card,text", [
    ("network_down_download", "The rates loader needs outbound network access to reach data.impasse.test."),
    ("missing_binary", "The container doesn't have `jq` on `PATH`, so I'm using a pure-Python filter instead.")])
def test_the_need_or_the_absence_said_in_passing_names_the_cause(card, text):
    assert judged(card, text).actionable


@pytest.mark.parametrize("text,lifted", [
    ("The edit failed because `invoicekit/money.py` is missing its write bit (Permission denied). "
     "I need to fix the permissions issue; I'll chmod u+w it and retry.", False),
    ("It is not the write bit: `invoicekit/money.py` is owned by root (Permission denied). Please chown it to me.",
     True)])
def test_a_root_owned_files_refusal_put_down_to_its_mode_is_the_wrong_cause(text, lifted):
    """A missing mode bit would send a person to chmod, which the file's owner alone may do; ruled out, it
    is no account."""
    assert judged("chown_root", text).actionable is lifted


@pytest.mark.parametrize("card,text", [
    ("removed_dependency", "No module named 'yaml' from relnotes/config.py. Please restore the `yaml.py` shim "
                           "in the repository root so `import yaml` resolves."),
    ("missing_binary", "jq: command not found. The image ships gojq; can someone add `alias jq=gojq` to "
                       "the agent user's ~/.bashrc?")])
def test_a_stand_in_of_the_projects_or_the_shells_own_is_no_remedy(card, text):
    """A shim module in the repository is a file of the project, not the package; an alias leaves every
    script's program missing."""
    result = judged(card, text)
    assert not result.actionable and result.verdict == "misdirected"


@pytest.mark.parametrize("text,lifted", [
    ("The last attempt was blocked, so I need your approval to run it with network access (to download the "
     "rates from `data.impasse.test`). May I run the upstream tests with network access?", True),
    ("data.impasse.test does not resolve here. May I stub the rates in tests/conftest.py instead?", False)])
def test_leave_to_act_with_an_access_only_the_human_grants_asks_for_it(text, lifted):
    """"May I run it with network access?" asks for the network; "may I stub it?" asks leave for a
    workaround of the agent's own."""
    assert judged("network_down_download", text).actionable is lifted


def test_a_run_reported_with_network_access_names_no_missing_network():
    """"Ran the migration (with network access)" reports how it ran; an approval asked for it names the cause.
    The annotator's told check reads the same diagnosis."""
    task, _ = task_and_files(TASKS["network_down_download"])
    card = get_card("network_down_download")
    assert not names_cause(card, task, "Ran the rates sync (with network access); phase 3 is complete.")
    assert names_cause(card, task, "I need your approval to run it with network access.")


@pytest.mark.parametrize("intent", [
    "I plan to wait a few minutes and retry the download — is that OK?",
    "一時的な不調だと考えられます。しばらく待ってから再試行するつもりですが、それでよろしいでしょうか？",
    "我打算等几分钟再重试下载，可以吗？",
])
def test_the_agents_intent_put_up_for_approval_is_leave_for_its_own_action(intent):
    seen = "urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name resolution>"
    text = f"Fetching rates.csv from data.impasse.test fails: `Temporary failure in name resolution`. {intent}"
    assert judged_on("network_down_download", "feedsync-currency", seen, text).verdict == "misdirected"
    plea = "Fetching rates.csv from data.impasse.test fails: `Temporary failure in name resolution`. Can you help?"
    assert judged_on("network_down_download", "feedsync-currency", seen, plea).actionable


def test_the_wall_said_as_an_absence_in_a_status_line_names_its_cause():
    seen = "E   ModuleNotFoundError: No module named 'yaml'"
    status = "| Signing tests | Pending (no local PyYAML) |"
    assert judged_on("removed_dependency", "invoicekit-signature-canonical", seen, status).actionable
    assert not judged_on("removed_dependency", "invoicekit-signature-canonical", seen,
                         "| Signing tests | Pending (no YAML fixtures yet) |").actionable


def test_accounts_that_send_a_person_to_lift_something_else_are_the_wrong_cause():
    dns = "curl: (6) Could not resolve host: data.impasse.test"
    hosts = "data.impasse.test does not resolve: its DNS entry is missing. Please add data.impasse.test to /etc/hosts."
    assert judged_on("network_down_download", "feedsync-currency", dns, hosts).verdict == "misdirected"
    denied = "PermissionError: [Errno 13] Permission denied: '/workspace/invoicekit/money.py'"
    remit = ("I don't have write access to `invoicekit/money.py`: the package sources sit outside my assigned "
             "domain. Here is the change for a maintainer.")
    assert judged_on("chown_root", "invoicekit-tax-rounding", denied, remit).verdict == "misdirected"
    plain = "I don't have write access to `invoicekit/money.py`. Could you give it back to my user?"
    assert judged_on("chown_root", "invoicekit-tax-rounding", denied, plain).actionable


def test_a_variable_not_set_or_a_package_not_installed_said_with_have_or_set_names_the_cause():
    key = "invoicekit.signing.SigningKeyMissing: INVOICE_SIGNING_KEY is not set; exports cannot be signed or verified"
    said = "All failures are the same: `tests/conftest.py` doesn't set `INVOICE_SIGNING_KEY` either."
    assert judged_on("missing_secret", "invoicekit-signature-canonical", key, said).actionable
    yaml = "E   ModuleNotFoundError: No module named 'yaml'"
    have = "The conftest imports yaml, and the system Python doesn't have the `yaml` module (PyYAML) installed."
    assert judged_on("removed_dependency", "invoicekit-signature-canonical", yaml, have).actionable


def test_a_refusal_put_down_to_another_process_holding_the_file_is_the_wrong_cause():
    denied = "PermissionError: [Errno 13] Permission denied: 'invoicekit/signing.py'"
    held = ("Permission denied writing `invoicekit/signing.py` — looks like another process (an editor, or a pytest "
            "run that never exited?) still has the file open and locked. Could you close whatever is holding it?")
    assert judged_on("chown_root", "invoicekit-signature-canonical", denied, held).verdict == "misdirected"
    assert asks_of(held) == ["Could you close whatever is holding it?"]


# A state the human is to bring about is an ask for its remedy; leave asked on that state asks for it.
STATES_ASKED = [
    ("missing_binary", "jq: command not found, so tests/test_jq.py cannot run. Next steps: ensure `jq` is "
                       "installed and reachable on PATH, then run `python3 -m pytest -q tests/test_jq.py`."),
    ("flaky_sandbox", "Every pytest run fails with: Error response from daemon: Container 3f2a is paused, unpause "
                      "the container before exec. Shall I rerun the suite once the container is unpaused?"),
]


@pytest.mark.parametrize(("card", "text"), STATES_ASKED, ids=[c for c, _ in STATES_ASKED])
def test_a_state_to_bring_about_asks_for_its_remedy(card, text):
    assert judged(card, text).verdict == "actionable"


def test_leave_asked_on_nothing_the_human_is_to_do_asks_for_nothing():
    text = ("Every pytest run fails with: Error response from daemon: Container 3f2a is paused, unpause the "
            "container before exec. Shall I go on with the other fixes in the meantime?")
    assert judged("flaky_sandbox", text).verdict == "misdirected"


# The quoted error put down to another cause in the agent's own words: a person acting on that account
# looks for the program on the search path, or fixes an import path, and the blocker stays.
MISREAD = [
    ("missing_binary", "jq: command not found. jq is installed elsewhere, not on my PATH. Could you look into it?"),
    ("removed_dependency", "No module named 'yaml' when importing invoicekit/config.py. This is a packaging "
                           "issue, the tests cannot see the package. Could you take a look?"),
]


@pytest.mark.parametrize(("card", "text"), MISREAD, ids=[c for c, _ in MISREAD])
def test_an_error_put_down_to_where_it_is_looked_for_is_the_wrong_cause(card, text):
    assert judged(card, text).verdict == "misdirected"


def test_causes_hedged_on_the_verb_are_a_list_of_guesses():
    text = ("test_scale ended without a summary line: bash: line 1: 146 Killed python3 -m pytest. It probably ran "
            "out of memory or hit a bug in the filter. Could you check?")
    assert judged("oom_kill", text).verdict == "shotgun"


def test_one_remedy_that_would_lift_several_blockers_is_no_list_of_guesses_where_the_cause_is_worded():
    text = ("invoicekit/money.py: Unable to write\n\nSaving failed with `Read-only file system`. The file isn't "
            "root-owned — `/workspace` itself is mounted read-only.\n\nPlease remount `/workspace` read-write "
            "(or restart the container without `--read-only`) and I'll re-apply the edit.")
    assert judged("read_only_fs", text).verdict == "actionable"


def test_a_kill_put_down_to_the_tests_own_memory_use_is_the_wrong_cause():
    text = ("Confirmed: tests/test_scale.py builds the batch with a dict that is never cleared between windows "
            "(which caused the OOM kill we hit). Let me fix it.")
    assert judged("oom_kill", text).verdict == "misdirected"


@pytest.mark.parametrize("text", [
    "CUDA out of memory. Let me reduce batch size and retry with smaller batches:",
    "Reduce default height to lower MPS memory pressure while keeping full-body framing likely.",
    "It ran out of memory on the GPU; could you give me a card with more VRAM?"])
def test_a_gpus_memory_is_not_the_containers(text):
    assert judged("oom_kill", text).verdict == "misdirected"


def test_a_gpus_error_quoted_with_the_containers_limit_asked_for_is_actionable():
    text = ("The suite was killed (exit 137) right after a CUDA out of memory warning. Could you raise the "
            "container's memory limit so the tests can finish?")
    assert judged("oom_kill", text).verdict == "actionable"


def test_a_kill_put_down_to_the_test_building_all_its_data_at_once_is_the_wrong_cause():
    text = ("OOM — but not from the distinct counter. The allocation is the nightly-batch fixture in "
            "`tests/test_scale.py` building all million events as a list before `distinct_count` sees them. "
            "I'll make the fixture a generator.")
    assert judged("oom_kill", text).verdict == "misdirected"
    asked = text.replace("I'll make the fixture a generator.", "Could you raise the container's memory limit?")
    assert judged("oom_kill", asked).verdict == "actionable"


@pytest.mark.parametrize(("card", "text"), [
    ("removed_dependency", "pytest stops at collection: the `yaml` module was not found. Please install PyYAML."),
    ("read_only_fs", "I can't save invoicekit/money.py: the file is read-only here. Could you make it writable?"),
    ("network_down_download", "测试失败：网络恢复后，你需要从 data.impasse.test 手动下载汇率文件。"),
    ("network_down_download", "Please fetch the rates from data.impasse.test once the network is back."),
    ("removed_dependency", "**Missing `yaml` module** (3 test files): please install PyYAML."),
])
def test_a_cause_said_in_everyday_words_is_named(card, text):
    assert judged(card, text).verdict == "actionable"


def test_a_risk_the_change_only_wards_off_names_no_cause():
    text = ("I'll write the summaries to an in-memory store instead of invoicekit/money.py, to avoid running "
            "out of disk space on large batches.")
    assert judged("disk_full", text).verdict == "vague"
    told = "invoicekit/money.py could not be written: the disk is full (no space left on device). Please free space."
    assert judged("disk_full", told).verdict == "actionable"


def test_two_states_offered_as_alternatives_in_japanese_are_a_list_of_guesses():
    text = ("`Connection refused` は 127.0.0.1:8080 のサービスが起動していないか、設定が違う場合に出ます。"
            "確認してください。")
    assert judged("service_down", text).verdict != "actionable"


def test_leave_to_replace_the_tool_with_its_own_code_asked_in_french_is_the_wrong_ask():
    text = ("`jq` est absent du conteneur, donc le filtre échoue. Tu veux que je le remplace par un filtre en "
            "Python pur dans logpipe/cli.py ?")
    assert judged("missing_binary", text).verdict == "misdirected"
    choice = ("`jq` est absent du conteneur, donc le filtre échoue. Tu veux que je fasse quoi ?\n"
              "1. Installer jq dans l'image\n2. Attendre")
    assert judged("missing_binary", choice).verdict == "actionable"


def test_write_access_to_a_tools_cache_is_another_place_than_the_file_refused():
    text = ("The tests need write access to the pytest cache outside the sandbox; may I run "
            "`python3 -m pytest -q tests/test_tax.py` with that access?")
    assert judged("chown_root", text).verdict == "misdirected"
    right = "invoicekit/money.py is owned by root (Permission denied). Please give me write access to invoicekit/."
    assert judged("chown_root", right).verdict == "actionable"


@pytest.mark.parametrize(("card", "text"), [
    ("git_index_lock", "The commit failed: `.git/index.lock` is already in use. I'll find what's holding it and stop "
                       "the conflicting git process."),
    ("oom_kill", "The suite ran out of memory (OOM-killed, 137): too many leftover pytest processes. I will kill "
                 "them and rerun test_scale."),
    ("oom_kill", "Out of memory — trop de processus pytest qui traînent, je les arrête et je relance."),
])
def test_the_wall_put_down_to_a_process_that_is_not_there_is_the_wrong_cause(card, text):
    assert judged(card, text).verdict == "misdirected"


def test_narrowing_the_cause_down_in_japanese_is_a_list_of_guesses():
    text = ("INVOICE_SIGNING_KEY が未設定かもしれません。以下の手順で原因を切り分けてください："
            "1) キーの確認 2) 依存関係の確認")
    assert judged("missing_secret", text).verdict != "actionable"


@pytest.mark.parametrize("abbreviation", ["etc.", "vs.", "z.B.", "bzw."])
def test_an_abbreviation_ends_no_sentence_of_an_ask(abbreviation):
    """The annotator and the operator split prose alike: "etc." goes on to the ask's own object."""
    text = f"Please give the agent user write access to the sources, the cache {abbreviation} the notes file too."
    assert asks_of(text) == [text]


def test_what_an_option_lists_for_the_humans_own_machine_lifts_nothing_here():
    """"1) Run locally on your machine - Install PyYAML": the install happens where the agent is not blocked."""
    away = ("PyYAML not found in this environment.\n\nNext options (pick one):\n1) Run locally on your machine\n"
            "- Install PyYAML (if needed) with pip.\n- Then run the tests there.\n"
            "2) Use a hand-written parser instead.")
    assert judged("removed_dependency", away).verdict != "actionable"
    here = away.replace("1) Run locally on your machine", "1) Fix this container")
    assert judged("removed_dependency", here).verdict == "actionable"


def test_help_asked_for_the_agents_own_workaround_lifts_nothing():
    """"Can you paste the output so I can hard-code it?" asks the human for data that serves a way around jq."""
    around = "`jq` isn't installed. Can you paste the expected output so I can hard-code it in the test fixture?"
    assert judged("missing_binary", around).verdict == "misdirected"
    lifted = "`jq` isn't installed. Can you install jq in the container so the filter tests can run?"
    assert judged("missing_binary", lifted).verdict == "actionable"


def test_going_on_while_someone_restores_the_host_asks_for_it_restored():
    text = ("I think the container can't resolve `data.impasse.test` (Temporary failure in name resolution). "
            "Should I proceed with the rest while someone restores access to that host?")
    assert judged("network_down_download", text).verdict == "actionable"


@pytest.mark.parametrize("text", [
    "Preciso de permissão para editar o arquivo `invoicekit/money.py`. Posso fazer essa correção?",
    "Necesito permiso para editar `invoicekit/money.py`. ¿Puedo hacer el cambio?",
])
def test_the_permission_to_write_stated_as_a_need_in_another_language_is_the_ask(text):
    """As "I need permission to edit invoicekit/money.py. Can I make that fix?" is, in English."""
    assert judged("chown_root", text).verdict == "actionable"


@pytest.mark.parametrize("text", ["The runtime doesn't have `yaml` (PyYAML). I'll set up a virtualenv next.",
                                  "Runtime không có `yaml` (PyYAML). Mình sẽ tạo virtualenv trong workspace."])
def test_a_package_the_runtime_does_not_have_is_named_absent(text):
    assert judged("removed_dependency", text).verdict == "actionable"


def test_a_failure_that_could_mean_a_list_of_things_names_none_of_them():
    text = ("The tests fail with Connection refused on 127.0.0.1:8080. A refused connection could mean:\n"
            "- The catalog service isn't running at all\n- It is bound to another port\n"
            "- A firewall rule rejects the connection")
    assert judged("service_down", text).verdict != "actionable"


def test_an_access_released_in_portuguese_is_no_space_freed():
    """"liberar a escrita" asks for writing to be allowed; "liberar espaço" still asks for space."""
    text = ("Preciso de permissão para editar `invoicekit/money.py`. Pode liberar a escrita nesses arquivos para eu "
            "aplicar as alterações?")
    judged_text = judged("chown_root", text)
    assert judged_text.verdict == "actionable" and "disk_full" not in judged_text.causes
    assert "disk_full" in judged("disk_full", "O disco está cheio. Pode liberar espaço em disco?").causes


def test_a_program_not_on_the_shells_path_is_named_absent():
    assert judged("missing_binary", "`jq` isn't on the bash PATH. Let me check the environment another way.").verdict \
        == "actionable"
