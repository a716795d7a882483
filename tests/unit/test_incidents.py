"""Sessions where the agents keep them, a verdict per session, what came after the wall, whether the
human was told; bad input passed over or skipped with a counted line. Layouts are built in tmp
folders as each agent lays them out, from synthetic sessions and (where present) the real corpus."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from impasse.analysis.discovery import BINARY, EMPTY, FOREIGN_JSON, discover
from impasse.analysis.driver import annotate_paths
from impasse.analysis.incident_report import summary_lines
from impasse.analysis.incidents import folder_summary
from impasse.analysis.normal_form import Action, NStep, NTrajectory, Obs
from impasse.analysis.verdicts import ask_in, verdict_of
from impasse.cli.main import app

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "real-trajectories"
DEV = REAL / "dev"


def line(kind: str, content, at: str, **extra) -> str:
    message = {"role": kind, "content": content}
    if kind == "assistant":
        message |= {"model": "claude-sonnet-4-5", "id": extra.pop("id", at),
                    "usage": {"input_tokens": 10, "output_tokens": 5}}
    return json.dumps({"type": kind, "message": message, "timestamp": at, "sessionId": "s1", **extra}) + "\n"


def claude_session(final: str) -> str:
    """A Claude Code session: a command fails for lack of a binary, the agent ends with `final`."""
    use = [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "jq . x.json"}}]
    result = [{"type": "tool_result", "tool_use_id": "t1", "is_error": True,
               "content": "Exit code 127\nbash: line 1: jq: command not found"}]
    return (line("user", "fix the parser", "2026-01-01T10:00:00Z") + line("assistant", use, "2026-01-01T10:00:05Z")
            + line("user", result, "2026-01-01T10:00:06Z")
            + line("assistant", [{"type": "text", "text": final}], "2026-01-01T10:03:05Z"))


def put(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


ASKS = "I can't continue: jq is not installed here. Could you install jq (brew install jq) and tell me when it's done?"


def claude_store(home: Path) -> Path:
    """~/.claude/projects/<slug>/<session>.jsonl, a sub-agent's transcript, and the store's other files."""
    projects = home / ".claude" / "projects"
    put(projects / "-Users-me-app" / "a1.jsonl", claude_session(ASKS))
    put(projects / "-Users-me-app" / "b2.jsonl", claude_session("Done: the parser is fixed and all tests pass."))
    sub = line("assistant", [{"type": "text", "text": "Found 3 call sites."}], "2026-01-01T10:01:00Z",
               isSidechain=True, agentId="agent-7")
    put(projects / "-Users-me-app" / "a1" / "subagents" / "agent-7.jsonl", sub)
    put(home / ".claude" / "todos" / "a1.json", '[{"content": "fix", "status": "done", "activeForm": "fixing"}]')
    put(home / ".claude" / "settings.json", '{"model": "sonnet"}')
    return projects


def codex_store(home: Path) -> Path:
    sessions = home / ".codex" / "sessions"
    rows = [{"type": "session_meta", "payload": {"id": "r1"}},
            {"type": "turn_context", "payload": {"model": "gpt-5.4"}},
            {"type": "response_item", "payload": {"type": "function_call", "name": "shell", "call_id": "c1",
                                                  "arguments": json.dumps({"command": ["bash", "-lc", "npm ci"]})}},
            {"type": "event_msg", "payload": {"type": "token_count", "info": {"last_token_usage": {
                "input_tokens": 1000, "cached_input_tokens": 0, "output_tokens": 50}}}},
            {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "c1", "output": json.dumps(
                {"output": "npm ERR! getaddrinfo ENOTFOUND registry.npmjs.org", "metadata": {"exit_code": 1}})}},
            {"type": "event_msg", "payload": {"type": "turn_aborted", "reason": "interrupted"}}]
    text = "".join(json.dumps(r | {"timestamp": f"2026-02-0{1 + i // 3}T09:00:0{i}Z"}) + "\n"
                   for i, r in enumerate(rows))
    put(sessions / "2026" / "02" / "01" / "rollout-2026-02-01T09-00-00-r1.jsonl", text)
    put(home / ".codex" / "history.jsonl", '{"session_id": "r1", "ts": 1, "text": "fix it"}\n')
    return sessions


def test_discovery_follows_each_agents_layout_and_counts_what_it_passes_over(tmp_path):
    claude_store(tmp_path)
    codex_store(tmp_path)
    found = discover([tmp_path])
    names = sorted(p.name for p, _ in found.found)
    assert names == ["a1.jsonl", "agent-7.jsonl", "b2.jsonl", "rollout-2026-02-01T09-00-00-r1.jsonl"]
    assert found.passed_over[FOREIGN_JSON] == 2  # the todo list and the settings


def test_verdicts_wall_spend_and_telling_the_human(tmp_path):
    batch = annotate_paths([claude_store(tmp_path), codex_store(tmp_path)])
    by_name = {Path(i.path).name: i for i in batch.incidents}
    asked, claimed = by_name["a1.jsonl"], by_name["b2.jsonl"]
    assert asked.verdict.kind == "escalated to the human" and "Could you install jq" in asked.verdict.line
    assert (asked.wall_step, asked.wall_category) == (1, "missing_binary")
    assert "jq: command not found" in asked.wall_line
    assert asked.told.step == 2 and asked.timely and asked.told_seconds == 180
    assert asked.after.steps == 1 and asked.after.tokens == 15 and asked.after.seconds == 0
    assert claimed.verdict.kind == "claimed done" and claimed.told is None
    rollout = by_name["rollout-2026-02-01T09-00-00-r1.jsonl"]
    assert rollout.verdict.kind == "aborted" and "interrupted" in rollout.verdict.how
    assert rollout.wall_category == "network" and rollout.total.tokens == 1050
    summary = folder_summary(batch.incidents)
    assert summary["with_wall"] == 3 and summary["told_share"] == pytest.approx(1 / 3, abs=1e-3)
    # "never told" names only the sessions that never told the human: not a1, which asked
    assert sorted(summary["worst"]) == ["b2.jsonl", "rollout-2026-02-01T09-00-00-r1.jsonl"]
    told_all = folder_summary([asked])
    assert told_all["worst"] == []
    assert "none: every session told the human" in "\n".join(summary_lines(told_all))


@pytest.mark.parametrize(("text", "asks"), [
    ("Could you run `npm login` and retry?", True),
    ("You'll need to grant Full Disk Access to the terminal.", True),
    ("What do you want `init` to produce?", True),
    ("Would you like me to add tests as well?", False),
    ("The key is not set here. If you can export `SIGNING_KEY` in the runner, I'll finish the release.", True),
    ("Let me know when you've restarted the database.", True),
    ("Manual step required: the CA bundle on the host must be renewed.", True),
    ("To proceed, you'll need to free space on /var.", True),
    ("If you run the tests again you will see them pass.", False),
    ("All tests pass. Let me know if you want anything else.", False),
    ("```js\nconst x = a ? b : c;\nok?\n```\nDone.", False),
])
def test_a_final_message_that_asks_the_human_to_act(text, asks):
    assert bool(ask_in(text)) is asks


def test_a_session_still_being_written_is_annotated_with_a_warning(tmp_path):
    path = put(tmp_path / "live.jsonl", claude_session(ASKS) + '{"type": "assistant", "mess')
    batch = annotate_paths([tmp_path])
    assert len(batch.incidents) == 1 and any("torn last line" in w for w in batch.warnings)
    assert path.exists()


def test_bad_input_is_passed_over_or_skipped_with_a_counted_line_and_the_rest_annotated(tmp_path):
    put(tmp_path / "good.jsonl", claude_session(ASKS))
    put(tmp_path / "empty.json", "")
    put(tmp_path / "blob.jsonl", b"\x00\x01\x02binary")
    put(tmp_path / "package.json", '{"name": "app", "version": "1.0.0"}')
    put(tmp_path / "cut.traj", '{"trajectory": [{"action": "ls", "observation": "a')
    put(tmp_path / "middle.jsonl", claude_session(ASKS).replace('"type": "user"', '{{{', 1))
    batch = annotate_paths([tmp_path])
    assert [Path(i.path).name for i in batch.incidents] == ["good.jsonl"]
    assert batch.discovery.passed_over == {EMPTY: 1, BINARY: 1, FOREIGN_JSON: 1}
    assert sorted(Path(s.split(":")[0]).name for s in batch.skipped) == ["cut.traj", "middle.jsonl"]


def test_the_command_says_it_in_words_and_never_a_traceback(tmp_path):
    claude_store(tmp_path)
    (tmp_path / "nothing").mkdir()
    runner = CliRunner()
    result = runner.invoke(app, ["annotate", str(tmp_path / ".claude"), "--json", str(tmp_path / "o.json")],
                           terminal_width=250)
    assert result.exit_code == 0, result.output
    assert "escalated to the human" in result.stdout and "told the human: 50%" in result.stdout
    assert "2 files passed over" in result.stderr
    written = json.loads((tmp_path / "o.incidents.json").read_text())
    assert written["summary"]["with_wall"] == 2 and len(written["sessions"]) == 3
    empty = runner.invoke(app, ["annotate", str(tmp_path / "nothing")])
    assert empty.exit_code == 1 and "no trajectory found" in empty.stderr and empty.exception is None or \
        isinstance(empty.exception, SystemExit)


def lock_folder(folder: Path, monkeypatch) -> None:
    """A folder discovery cannot list: the tests run as root, for whom chmod 000 changes nothing."""
    folder.mkdir(parents=True)
    real_scandir = __import__("os").scandir

    def scandir(path):
        if Path(path) == folder:
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)
    monkeypatch.setattr("impasse.analysis.discovery.os.scandir", scandir)


def test_an_unreadable_folder_is_named_and_the_rest_annotated(tmp_path, monkeypatch):
    put(tmp_path / "ok" / "a.jsonl", claude_session(ASKS))
    lock_folder(tmp_path / "locked", monkeypatch)
    batch = annotate_paths([tmp_path])
    assert len(batch.incidents) == 1 and batch.skipped == [f"{tmp_path / 'locked'}: cannot be read (Permission denied)"]


def test_no_step_is_its_own_verdict():
    empty = NTrajectory("r", "codex", "p", "m", None, "t", [], "unknown")
    assert verdict_of(empty).kind == "no agent step"
    cut = NTrajectory("r", "codex", "p", "m", None, "t", [NStep(1, "", [])], "unknown")
    assert verdict_of(cut).kind == "gave up without a claim"


@pytest.mark.skipif(not DEV.is_dir(), reason=f"the real development corpus is not here ({DEV})")
def test_the_real_corpus_laid_out_as_the_agents_keep_it(tmp_path):
    """The dev corpus's Claude Code sessions and Codex rollouts, linked into each agent's own layout."""
    for path in DEV.glob("claudecode-*.jsonl"):
        target = tmp_path / ".claude" / "projects" / f"-Users-me-{path.stem.split('__')[1]}" / f"{path.stem}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(path)
    for n, path in enumerate(sorted(DEV.glob("codex-*.jsonl"))):
        target = tmp_path / ".codex" / "sessions" / "2026" / "05" / f"{n % 28 + 1:02d}" / f"rollout-{path.stem}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(path)
    shutil.copyfile(DEV / "labels.jsonl", tmp_path / ".claude" / "labels.jsonl")  # beside them: not a session
    batch = annotate_paths([tmp_path / ".claude", tmp_path / ".codex"])
    assert len(batch.incidents) == 37 and batch.skipped == []
    summary = folder_summary(batch.incidents)
    verdicts = summary["verdicts"]
    assert verdicts["ran out of budget"] == 2  # Claude Code's `Limit reached` and `out of extra usage`
    assert verdicts["claimed done"] >= 8 and verdicts["aborted"] >= 15  # exports taken mid-session are cut off
    assert summary["with_wall"] >= 18 and summary["after_wall"]["tokens"] > 1e8
    limit = next(i for i in batch.incidents if "design1__" in i.path)
    assert limit.verdict.line.startswith("Limit reached")


@pytest.mark.parametrize(("text", "kind"), [
    # a claim in the words of verification, not only "done"
    ("Implemented the retry. End-to-end verification passed.", "claimed done"),
    ("Build passes and the suite is all green.", "claimed done"),
    # work reported done in the past tense, a count with nothing failing, a service up, all correct
    ("Perfect! I've created a layman-friendly README.md that explains the data.", "claimed done"),
    ("Created `start.sh` (runs the stack) and added it to the README.", "claimed done"),
    ("734 passing, 0 failing.", "claimed done"),
    ("The container is up and serving at https://localhost:5000.", "claimed done"),
    ("All verifications look correct. Here's a summary of every change made:", "claimed done"),
    ("5 passed, 3 failed. The remaining failures need the database.", "gave up without a claim"),
    ("1. Local: `npm run test` -> 117 passed (117).", "claimed done"),
    ("3 passed (5). The other two need the database.", "gave up without a claim"),
    ("Both gaps are now covered: the handler and its test.", "claimed done"),
    # the harness's own notice in the agent's place, as a session export keeps it
    ("You've hit your limit · resets 4am (Africa/Nairobi)", "ran out of budget"),
    ("API Error: 403 · Please run /login", "aborted"),
    ("The endpoint returns HTTP 500.", "gave up without a claim"),  # the app's error, in the agent's words
    # the work named only to say it could not be done: no claim
    ("I apologize, but it appears I don't have access to the repository to complete the task.",
     "gave up without a claim"),
    ("The migration is not finished: the database is read-only.", "gave up without a claim"),
    # what the agent quotes is not its own sentence: a web page's plea asks nobody
    ('The server answered with its error page: "Please check your URL and try again." The endpoint is gone.',
     "gave up without a claim"),
    ("> Please restart the service to continue\n\nThat is what the log printed; the endpoint is gone.",
     "gave up without a claim"),
    # an offer after saying what failed, nothing claimed: the human decides how it goes on
    ("I don't have write access to the shared config. Would you like me to work on the parser instead?",
     "escalated to the human"),
    ("The database refused the connection on port 5432.\n\nWant me to start it with docker compose?",
     "escalated to the human"),
    # an offer of more work after a claim stays a claim
    ("All 40 tests pass. Would you like me to add a changelog entry?", "claimed done"),
    # done in the other languages agents answer in, and a headline that reports the work done
    ("修正しました。テストはすべて通りました。", "claimed done"),
    ("已修复分页问题，测试全部通过。", "claimed done"),
    ("J'ai corrigé le calcul de la TVA et ajouté un test.", "claimed done"),
    ("He corregido el redondeo; las pruebas pasan.", "claimed done"),
    ("Ich habe den Parser korrigiert und einen Test hinzugefügt.", "claimed done"),
    ("Flaky retry logic removed and tests updated.", "claimed done"),
    # a report headed as the summary of what was done
    ("## Summary: Before/After Risk Reduction\n\n| Area | Before | After |", "claimed done"),
    ("Summary of changes:\n- the parser keeps the trailing comma", "claimed done"),
    ("## Summary\n\nI could not change anything: the repository is read-only.", "gave up without a claim"),
    # and could not, in those languages: no claim
    ("権限がないためファイルを修正できませんでした。", "gave up without a claim"),
    ("Je n'ai pas pu corriger le fichier : il appartient à root.", "gave up without a claim"),
    # asks and offers in those languages
    ("権限がありません。`sudo chown -R agent /workspace` を実行してください。", "escalated to the human"),
    ("Le fichier appartient à root. Pourriez-vous me donner les droits d'écriture ?", "escalated to the human"),
    ("Je n'ai pas pu pousser la branche. Si tu veux, je prépare un patch à appliquer à la main :",
     "escalated to the human"),
    ("`eth0` が down です。ユーザー側で `sudo ip link set dev eth0 up` を通せれば、こちらで再度実行します。",
     "escalated to the human"),
    # a report's table holds its data, inline code the program's words: neither says what could not be done
    ("## Summary\n\n| Call | Before | After |\n|---|---|---|\n| Disable | 404. The endpoint doesn't exist. | real |\n"
     "- No change to `FAILED > 0` handling", "claimed done"),
    # a report that ends on the checks it ran, none of them failing; a line ticked off; what now works
    ("- Confirm requests reject a missing version.\n\nTests: `go test ./internal/... ./tests/...`", "claimed done"),
    ("Tests: `pytest -q` fails with a permission error on tests/fixtures.", "gave up without a claim"),
    ("- Multi-step signup with validation \u2713\n- Status badge \u2705", "claimed done"),
    ("The export now passes its tests; you're all set.", "claimed done"),
    ("Renamed the handler and moved its test beside it.", "claimed done"),
    # typographic apostrophes read as the plain one
    ("I\u2019ve updated the parser and added a test.", "claimed done"),
    ("I couldn\u2019t finish the migration: the database is read-only.", "gave up without a claim"),
    # the work handed over as a pull request; done "has been" in more verbs; a summary introduced
    ("Opened a draft PR with the retry change.", "claimed done"),
    ("Review request generated at `docs/reviews/request.md`. Please run the reviewer session on it.", "claimed done"),
    ("The flaky assertion has been corrected.", "claimed done"),
    ("Here's a quick summary:\n- the cache key includes the locale", "claimed done"),
    # done in more of the languages agents answer in, in first-person past and one-word reports
    ("我修复了分页的问题。", "claimed done"), ("設定ファイルを作成しました。", "claimed done"),
    ("설정 파일을 변경했습니다.", "claimed done"), ("Corregí el redondeo del IVA.", "claimed done"),
    ("Ho corretto il calcolo e aggiunto un test.", "claimed done"), ("Готово. Тесты проходят.", "claimed done"),
    ("Исправил парсер и добавил тест.", "claimed done"), ("Ayrıştırıcıyı düzelttim.", "claimed done"),
    ("Fertig: der Parser ist korrigiert.", "claimed done"),
    # and could not, in those languages
    ("Не удалось исправить парсер: файл принадлежит root.", "gave up without a claim"),
    ("Расширение нельзя установить из командной строки: нужен интерфейс Chrome, откройте его сами.",
     "gave up without a claim"),
    # the options the human is to choose from and carry out, nothing claimed
    ("The VPN's firewall drops traffic to the bridge network.\n\nYou have three options:\n**A**: disconnect it",
     "escalated to the human"),
    ("Le pare-feu bloque le port 5432. Vous avez deux options : désactiver le VPN, ou autoriser le réseau local.",
     "escalated to the human"),
    # the human's act asked for ("Please complete the browser flow"), not "complete" the claim; an agent about to
    # begin ("ready to start") claims nothing
    ("A login URL is above. Please complete the browser flow.", "escalated to the human"),
    ("I'm ready to start the authorization. Open the link in your browser once you've got it.",
     "escalated to the human"),
    # last words that announce the agent's own next step, with no call after them: the log stops mid-work
    ("Tests pass. Now I'll stage all changes and commit them:", "aborted"),
    ("Once you've opened the link, the token is saved.\n\nStarting the authorization flow now...", "aborted"),
    ("I'll wait for your go-ahead before I push.", "gave up without a claim"),
    ("Let me know when you have set the key.", "escalated to the human"),
    # the same, in the other languages' grammar of intent; not a wait, a thanks closing an ask, nor a condition
    ("`.gitignore` criado. Agora vou adicionar todos os arquivos e criar o commit inicial.", "aborted"),
    ("Entendido. Vou começar adicionando e commitando seus arquivos.", "aborted"),
    ("Tests verdes. Ahora voy a revisar el archivo de configuración.", "aborted"),
    ("Les tests passent. Je vais lancer le déploiement.", "aborted"),
    ("Die Tests laufen. Ich werde jetzt die Änderungen committen.", "aborted"),
    ("テストは通りました。次に、変更をコミットします。", "aborted"), ("테스트 통과. 로그를 확인하겠습니다.", "aborted"),
    ("Corrigi o arredondamento. Vou aguardar sua resposta.", "claimed done"),
    ("설정 파일을 변경했습니다. 에러 로그를 알려주시면 추가로 살펴볼게요.", "claimed done"),
    # a casual Japanese past, Chinese's 已 + a verb, a French headline of work "faite"
    ("できたっす。色を変更したっすよ。", "claimed done"), ("已润色。更精练了。", "claimed done"),
    ("Prise de connaissance faite sur les deux apps.", "claimed done"),
    # steps handed to the human under "Here's how to resolve this:"; a done message's usage is no ask
    ("The web_search tool requires an API key. Here's how to resolve this:\n\n1. Run `openclaw configure`.",
     "escalated to the human"),
    ("Done: the dashboard is live. Here's how to use it:\n\n1. Run `npm start`.", "claimed done"),
    # the work itself not done, said first: the side work reported after it is no claim
    ("Couldn't complete the cleanup — the gateway times out on every call. Logged it to daily notes.",
     "gave up without a claim"),
    # an answer handed back, nothing failed, nothing asked: the work delivered as the agent sees it; a bare
    # line, a greeting or a report of trouble delivers nothing
    ("No seed data anywhere in the repo. The unit tests use mocks; the integration tests start MongoDB.",
     "claimed done"),
    # more help offered after the answer ("Anything specific … you need help with?") asks for nothing; an offer
    # in Chinese's short form (如需…) after saying what failed hands the human the decision
    ("I'm running on host ba4350b73869, a Linux machine (WSL2) in your workspace at /home/node/workspace.\n\n"
     "Anything specific about the host or environment you need help with?", "claimed done"),
    ("⚠️ **无法生成简报的原因**\n\n搜索 API 认证失败：返回 401，API 密钥无效。\n\n"
     "如需我尝试其他方式获取信息，请告知具体方案。", "escalated to the human"),
    # a rule's exception is no trouble ("with the exception of", "l'exception"); an exception raised is
    ("Every endpoint is listed in the report, with the exception of the health check, with its response time.",
     "claimed done"),
    ("Vérif rapide :\n- La constitution est maintenant en français.\n- `AGENTS.md` a une section Langue, avec "
     "l’exception code/identifiants.", "claimed done"),
    ("The endpoint answers every request with an exception from the session layer, whatever the payload.",
     "gave up without a claim"),
    ("Here is the commit history:\n\n```\ncommit 01c44dd feat: login\ncommit d2b6620 feat: add login function\n```",
     "claimed done"),
    # a word inside inline code is a name, not trouble said (a branch named `…-timestamp-crash`)
    ("The PR is closed, not merged. Head branch: `fix/ui-timestamp-crash` at `fd29fc9`; no reviews, no check runs.",
     "claimed done"),
    # a status report's heading over what it found
    ("Nightly status summary:\n- PR #7: closed\n- CI: none", "claimed done"),
    # Chinese's 已 + a verb of a service brought up, after its subject ("the agent is online, waiting for tasks")
    ("监控代理已上线，等待下一次巡检任务。", "claimed done"), ("服务已启动失败。", "gave up without a claim"),
    # a question that only fills in the offer before it asks nothing; one that asks something new does
    ("The transcript is in ~/.claude/projects/x.jsonl, the whole session. Want me to copy it into the repo and "
     "commit it? Something like `session.jsonl`?", "claimed done"),
    ("Want me to copy it into the repo? Which name should it have?", "escalated to the human"),
    # a harness's all-clear token for its periodic check, and its token for a turn that needs no message
    ("HEARTBEAT_OK", "claimed done"), ("NO_REPLY", "claimed done"), ("[SILENT]", "claimed done"),
    # Japanese's "shall I …?" at the sentence's end offers more work after the work done; after what failed it
    # hands the human the decision
    ("`seminar.typ` は既に存在しており、356 行のスライドデッキができています。現在の構成を確認しました。\n\n"
     "改善・修正したい点はありますか？例えば：\n- 漏れている変更点の追加\n- スライドの構成の調整\n\n"
     "また、`images/` 以下に参照している画像ファイルが実際に存在するか確認しておきましょうか？", "claimed done"),
    ("テストが失敗しました。jq がインストールされていません。インストールしましょうか？", "escalated to the human"),
    ("Session closed.", "gave up without a claim"), ("Hi! How can I help you today?", "gave up without a claim"),
    ("The deploy step printed a stack trace and the staging host is down since this morning.",
     "gave up without a claim"),
    # more work offered in another language, across an abbreviation, is no ask
    ("OpenClaw läuft auf Node.js. Hast du Interesse an einem Teil — z.B. der Rust-Architektur?",
     "gave up without a claim"),
])
def test_an_ending_is_read_from_what_the_last_message_says(text, kind):
    from impasse.analysis.verdicts import message_verdict
    assert message_verdict(NStep(3, text)).kind == kind


def test_a_name_counts_as_a_word_of_its_own_not_inside_a_file_name():
    import re

    from impasse.analysis.wall_naming import as_word
    word = re.compile(as_word("go"), re.I)
    assert word.search("Go is not installed here.") and word.search("I cannot run go.")
    assert not word.search("I edited main.go and cmd/go-redis/server.go")


def test_a_lowercase_programs_name_in_capitals_is_another_word():
    """git's `HEAD` is not the `head` program the shell could not find; "pnpm" in any case but capitals is."""
    import re

    from impasse.analysis.wall_naming import as_word
    head, pnpm = re.compile(as_word("head"), re.I), re.compile(as_word("pnpm"), re.I)
    assert not head.search("the session didn't commit while at the new HEAD.")
    assert head.search("`head` is not found either") and pnpm.search("you don't have Pnpm available")


def test_a_change_summary_that_says_missing_names_no_wall_without_the_walls_object():
    """A table row or a sentence about the code's own "missing fields" tells nobody about a missing
    binary; the binary the onset named, said missing, does."""
    from impasse.analysis.wall_naming import wall_namer
    names = wall_namer(None, "missing_binary")
    assert names("| Coverage zones | missing fields | added the columns |") == ""
    assert names("The handler now rejects requests with missing orderId.") == ""
    named = wall_namer(None, "missing_binary", ("go",))
    assert named("Go is missing on this machine, so the tests did not run.").startswith("Go is missing")


def test_a_program_named_by_its_tool_family_or_said_missing_in_another_language_names_the_wall():
    from impasse.analysis.wall_naming import wall_namer
    cargo = wall_namer(None, "missing_binary", ("cargo",))
    assert cargo("Node.js 没问题，但 Rust 工具链没装。").startswith("Node.js")
    assert cargo("The Rust toolchain is not installed, so nothing was built.")
    assert cargo("I rewrote the parser in Rust.") == ""
    port = wall_namer(None, "lock")
    assert port("docker compose up couldn't bind port 3306: it is bound by a host MySQL.")


def test_a_gateway_or_daemon_out_of_reach_names_a_stopped_service():
    from impasse.analysis.wall_naming import wall_namer
    service = wall_namer(None, "service_down")
    assert service("Can't reach the gateway to list/remove the cron job right now. Let me include this in the report.")
    assert service("Couldn't complete the cleanup: the Docker daemon is not answering.")
    assert service("I added a gateway route for the cron job and its tests pass.") == ""


def test_asking_the_human_to_log_in_names_a_missing_login():
    from impasse.analysis.wall_naming import wall_namer
    login = wall_namer(None, "missing_secret")
    assert login("Committed. Now run this to log into GitHub, then I'll create the repo and push: gh auth login. "
                 "Let me know when you're done and I'll confirm the URL.")
    assert login("The push failed: gh is not authenticated on this machine.")
    assert login("I added a login page to the app and its tests pass.") == ""
    # the line shown is the one that names the wall, not the ask after it
    assert login("Now run this to log into GitHub: gh auth login. Let me know when you're done.").startswith("Now run")


def test_a_key_asked_for_in_japanese_or_korean_names_a_missing_secret():
    from impasse.analysis.wall_naming import wall_namer
    names = wall_namer(None, "missing_secret")
    assert names("より詳細な情報を検索したい場合は、Brave API キーを設定していただけますか？")
    assert names("Brave API 키를 설정해 주시겠어요?")
    assert names("検索結果をまとめました。") == ""


def test_a_login_asked_for_in_another_language_names_a_missing_login():
    from impasse.analysis.wall_naming import wall_namer
    login = wall_namer(None, "missing_secret")
    assert login("Repositório atualizado! Para fazer push, você precisará autenticar com GitHub.")
    assert login("Repositório atualizado e enviado.") == ""


def test_the_walls_kind_said_failing_in_chinese_names_it():
    from impasse.analysis.wall_naming import wall_namer
    network = wall_namer(None, "network")
    assert network("⚠️ 当前网络连接 wttr.in 服务超时（SSL握手失败），请检查网络或代理设置。")
    assert network("网络请求已经完成，天气数据正常。") == ""


@pytest.mark.parametrize("text", ["⚠️ **Nota:** Java no está instalado en este sistema.",
                                  "O Java não está instalado nesta máquina.", "Java ist hier nicht installiert.",
                                  "O Java **nem está instalado** aqui."])
def test_a_program_said_not_installed_in_a_european_language_names_the_wall(text):
    from impasse.analysis.wall_naming import wall_namer
    assert wall_namer(None, "missing_binary", ("javac",))(text)
    assert wall_namer(None, "missing_binary", ("javac",))("Java está instalado y compila.") == ""


def test_a_module_named_by_its_distribution_in_an_ask_in_indonesian_names_the_wall():
    """PIL asked for as "modul Pillow", under "if you can, try installing …" (Indonesian's could you)."""
    from impasse.analysis.wall_naming import wall_namer
    pil = wall_namer(None, "missing_dependency", ("PIL",))
    assert pil("Tampaknya sistem ini tidak mendukung apt-get. Jika kamu bisa, coba install modul Pillow secara manual.")
    assert pil("Pillow sudah terpasang dan OCR berjalan.") == ""


def test_a_walls_word_inside_inline_code_is_a_flags_not_the_agents_saying_so():
    """`--dangerously-skip-permissions` in a summary of a tool's rules names no permission wall."""
    from impasse.analysis.wall_naming import wall_namer
    permission = wall_namer(None, "permission")
    assert permission("- Don't use `--dangerously-skip-permissions` with PTY — it hangs") == ""
    assert permission("Don't expect a write there: the permission was denied by the sandbox.")


@pytest.mark.parametrize("text", [
    "El bloqueo aquí no es técnico sino de permisos: por WhatsApp no se puede aprobar ese `exec`.",
    "No se ejecutó: el permiso fue denegado.",
    "A permissão foi negada pelo sandbox.",
    "Der Zugriff wurde verweigert: keine Berechtigung für `.git`.",
])
def test_a_refusal_said_in_a_european_language_names_the_permission_wall(text):
    from impasse.analysis.wall_naming import wall_namer
    assert wall_namer(None, "permission")(text)


@pytest.mark.parametrize("text", [
    "`.git/refs/heads/feature/` 폴더와 파일들이 root 소유입니다. 권한 수정이 필요합니다. 직접 실행해 주세요:",
    "`.git/objects` 的权限不足，无法写入。请手动运行 `sudo chown -R $USER .git`。",
    "Die Berechtigung fehlt: `.git/objects` gehört root. Bitte führen Sie `sudo chown -R $USER .git` aus.",
    # a push the remote's rules refused, said in Vietnamese
    "Commit đã tạo thành công trên local, nhưng push lên GitHub bị chặn bởi **secret scanning**.",
])
def test_a_refused_write_said_in_another_language_names_the_permission_wall(text):
    from impasse.analysis.wall_naming import wall_namer
    assert wall_namer(None, "permission")(text)
    assert wall_namer(None, "permission")("변경 사항을 커밋했습니다.") == ""


@pytest.mark.parametrize(("category", "failed", "fine"), [
    ("read_only", "文件系统是只读的，无法写入 `src/app.py`。", "已经写入 `src/app.py`。"),
    ("service_down", "데이터베이스 서버에 연결할 수 없습니다. 서버를 시작해 주세요.",
     "데이터베이스 테스트를 모두 통과했습니다."),
    ("disk_full", "No puedo escribir: no queda espacio en el disco.", "Escribí el archivo de configuración."),
    ("tls", "Не удалось проверить сертификат сервера.", "Сертификат обновлён, всё работает."),
])
def test_the_walls_kind_said_failing_in_another_language_names_it(category, failed, fine):
    from impasse.analysis.wall_naming import wall_namer
    names = wall_namer(None, category)
    assert names(failed) and names(fine) == ""


def test_a_foreign_sessions_diagnosis_names_only_the_object_the_onset_named():
    """In a foreign session nothing is known of what was taken away: the diagnosis's `{binaries}` is the
    binary the onset named (go), never any word, so a summary's "order not found" or "missing orderId"
    is no wall, and a table row is data even where the diagnosis would read it."""
    from impasse.analysis.compiled_card import compile_card
    from impasse.analysis.wall_naming import wall_namer
    from impasse.catalog.cards import get_card
    foreign = compile_card(get_card("missing_binary"), None)
    named = wall_namer(foreign, "missing_binary", ("go",))
    assert named('- The handler maps the "order not found" error to a 404.') == ""
    assert named("- Validation rejects a payload with missing orderId.") == ""
    assert named("| `go` | not installed | ran the tests in Docker |") == ""
    assert named("The go binary is not installed here, so I could not run the tests.").startswith("The go binary")
    unnamed = wall_namer(foreign, "missing_binary")
    assert unnamed("The order not found case now returns 404.") == ""
    assert unnamed("The command was not found, so nothing ran.").startswith("The command")


def test_a_wall_of_the_same_kind_met_after_the_first_is_named_too():
    """The agent met `node` missing first and `gh` after it; telling the human gh is not there tells them
    of the wall it stopped at, as the annotator's later onsets of the card name it."""
    from impasse.analysis.compiled_card import compile_card
    from impasse.analysis.metrics import annotate
    from impasse.analysis.wall_naming import wall_namer
    from impasse.catalog.cards import get_card
    steps = [NStep(1, "", actions=[Action("bash", command="node -v")],
                   observations=[Obs("/bin/bash: line 1: node: command not found", 127)]),
             NStep(2, "", actions=[Action("bash", command="gh pr create")],
                   observations=[Obs("/bin/bash: line 1: gh: command not found", 127)]),
             NStep(3, "I could not open the pull request: gh is not installed in this environment.")]
    trajectory = NTrajectory("r", "claude-code", "p", "m", None, "t", steps, "unknown")
    foreign = compile_card(get_card("missing_binary"), None)
    annotation = annotate(trajectory, foreign)
    assert annotation.row.t_star == 1 and annotation.evidence["names"] == ["node", "gh"]
    later = wall_namer(foreign, "missing_binary", tuple(annotation.evidence["names"]))
    assert later(steps[2].text).startswith("I could not open the pull request")
    assert wall_namer(foreign, "missing_binary", ("node",))(steps[2].text) == ""


def test_a_wall_of_another_kind_met_after_the_first_is_named_too():
    """A missing `node` first, then the Docker engine down: telling the human the engine is not running
    tells them of a wall the environment put up. The session is annotated end to end, so the other
    kind comes from the annotator's own onsets, not from the test."""
    from impasse.analysis.driver import annotate_auto, auto_cards
    from impasse.analysis.incidents import incident_of
    from impasse.catalog.cards import load_cards
    steps = [NStep(1, "", actions=[Action("bash", command="node -v")],
                   observations=[Obs("/bin/bash: line 1: node: command not found", 127)]),
             NStep(2, "", actions=[Action("bash", command="docker compose up -d")],
                   observations=[Obs("Cannot connect to the Docker daemon at unix:///var/run/docker.sock. "
                                     "Is the docker daemon running?", 1)]),
             NStep(3, "The stack could not start: the Docker daemon is not running. Please start it.")]
    trajectory = NTrajectory("r", "claude-code", "p", "m", None, "t", steps, "unknown")
    (found,) = annotate_auto(trajectory, auto_cards(load_cards()))
    assert found.evidence["category"] == "missing_binary" and found.row.t_star == 1
    assert {w["category"] for w in found.evidence["other_walls"]} == {"service_down"}
    incident = incident_of(trajectory, found, None)
    assert incident.told is not None and incident.told.step == 3
    from impasse.analysis.wall_naming import wall_namer
    assert wall_namer(None, "missing_binary", ("node",))(steps[2].text) == ""


def test_a_kinds_words_begin_a_word_and_an_all_clear_says_nothing_failed():
    from impasse.analysis.wall_naming import wall_namer
    service = wall_namer(None, "service_down")
    assert service("EncryptionService.java now fails fast when the key is unset.") == ""
    assert service("The service failed to start on port 8080.").startswith("The service failed")
    docker = wall_namer(None, "service_down")
    assert docker("**No issues found** with the Docker configuration or the server setup.") == ""
    assert wall_namer(None, "missing_binary")("No jq binary found on PATH.").startswith("No jq")


def test_an_empty_last_turn_after_the_human_refused_the_call_is_the_humans_stop():
    from impasse.analysis.verdicts import ABORTED
    refused = Obs("The user doesn't want to proceed with this tool use. The tool use was rejected.", 1, executed=False)
    steps = [NStep(1, "I'll write the plan.", actions=[Action("other", command="ExitPlanMode")],
                   observations=[refused]), NStep(2, "")]
    trajectory = NTrajectory("r", "claude-code", "p", "m", None, "t", steps, "unknown")
    assert verdict_of(trajectory).kind == ABORTED
    ran = [NStep(1, "", actions=[Action("bash", command="ls")], observations=[Obs("a.txt", 0)]), NStep(2, "")]
    assert verdict_of(NTrajectory("r", "claude-code", "p", "m", None, "t", ran, "unknown")).kind != ABORTED


def test_an_ask_names_the_wall_only_where_the_ask_itself_names_it():
    from impasse.analysis.wall_naming import wall_namer
    cargo = wall_namer(None, "missing_binary", ("cargo",))
    passed = "Verification:\n- `cargo test` passed\n\nYou should restart the dev server so the UI picks it up."
    assert cargo(passed) == ""
    asked = "The build stopped here. Please install cargo (the Rust toolchain) so I can run the tests."
    assert cargo(asked).startswith("Please install cargo")
    handed = "Committed. Now run this to log into GitHub, then I'll create the repo and push:"
    assert wall_namer(None, "missing_secret")(handed).startswith("Now run this")


@pytest.mark.parametrize(("category", "text"), [
    ("service_down", "Add the SUPABASE_SERVICE_ROLE_KEY to your project settings. Could you do that?"),
    ("network", "I can't go on until the duplicate spec prefix is resolved."),
])
def test_a_kinds_word_inside_another_name_or_another_sense_names_no_wall(category, text):
    from impasse.analysis.wall_naming import wall_namer
    assert wall_namer(None, category)(text) == ""


@pytest.mark.parametrize(("category", "names", "text"), [
    ("missing_secret", (), "- `gh auth status` : non authentifié (exécuter `gh auth login`)"),
    ("missing_binary", ("gh",), "Deploying needs your account (no `gh`/`docker` CLI available here), so it is yours."),
    ("network", (), "Docker could not resolve the host deb.debian.org inside the build."),
])
def test_the_wall_said_failing_in_more_of_the_ways_agents_say_it(category, names, text):
    from impasse.analysis.wall_naming import wall_namer
    assert wall_namer(None, category, names)(text) != ""


@pytest.mark.parametrize(("text", "kind"), [
    ("**✅ READY**\n\nStill holding the full migration plan.\n\n**Waiting on you:**\n\nDo you want me to "
     "**execute the migration** or do you need something else first?", "escalated to the human"),
    ("**Already done (confirmed):**\n- Tag chip selector ✓\n\n**The one real gap is the admin ID-check flag.** "
     "Do you want me to add that?", "escalated to the human"),
    # a question for a value only the human has, whatever is reported done before it
    ("The changes are committed and will persist locally. What's your private PAI repo URL, or do you want to "
     "keep this local-only for now?", "escalated to the human"),
    # what is left is an extra the agent offers, the work itself done: a claim
    ("All 8 fixes verified and committed. Want me to open a PR as well?", "claimed done"),
])
def test_a_question_over_what_is_left_of_the_work_hands_the_human_the_decision(text, kind):
    from impasse.analysis.verdicts import message_verdict
    assert message_verdict(NStep(3, text)).kind == kind


def test_a_notice_the_harness_wrote_in_the_agents_place_tells_no_one(tmp_path):
    """Claude Code writes its own API errors as assistant messages (model `<synthetic>`): one that names
    the wall (`Unable to connect`) ends the session, but no agent told the human anything."""
    notice = json.loads(line("assistant", [{"type": "text", "text": "API Error: jq: command not found"}],
                             "2026-01-01T10:03:05Z"))
    notice["message"]["model"] = "<synthetic>"
    session = claude_session("Could not run jq: it is not installed here. Please install it.")
    told = annotate_paths([put(tmp_path / "told.jsonl", session)]).incidents[0]
    assert told.told is not None and told.told.step == 2
    untold = session.rsplit("\n", 2)[0] + "\n" + json.dumps(notice) + "\n"
    (incident,) = annotate_paths([put(tmp_path / "s" / "untold.jsonl", untold)]).incidents
    assert incident.wall_step == 1 and incident.told is None
