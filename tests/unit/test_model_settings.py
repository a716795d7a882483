"""Models with settings: what the command line and a matrix file take, what reaches the wire (only
what was set), the run id and meta (two settings of one model are two models)."""

from __future__ import annotations

import pytest

from impasse.hashing import hash_text
from impasse.models import ModelSpecError, make_model
from impasse.models.config import ModelConfig, ModelSettings, config_from_entry, settings_from_args
from impasse.models.turns import ModelTurn
from tests.integration.endpoints import anthropic_tool_use, openai_tool_call

TOOLS = [{"type": "function", "function": {"name": "bash", "description": "run",
                                             "parameters": {"type": "object", "properties": {}}}}]
MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "fix it"}]




def test_model_args_parse_and_type_each_setting():
    settings = settings_from_args(["temperature=0", "max_tokens=2048", "reasoning_effort=high",
                                   'extra_body={"top_k": 5}'])
    assert settings == ModelSettings(temperature=0.0, max_tokens=2048, reasoning_effort="high",
                                     extra_body={"top_k": 5})


@pytest.mark.parametrize("arg, said", [
    ("temprature=0", "unknown model setting 'temprature'"),
    ("temperature", "use KEY=VALUE"),
    ("max_tokens=-3", "not a positive whole number"),
    ("reasoning_effort=extreme", "use one of minimal, low, medium, high"),
    ("extra_body=[1]", "not a JSON object"),
    ("thinking=yes", "thinking='yes'"),
])
def test_a_bad_model_arg_is_refused_by_name(arg, said):
    with pytest.raises(ModelSpecError, match=said.replace("[", r"\[").replace("(", r"\(")):
        settings_from_args([arg])


def test_thinking_needs_room_for_the_answer():
    with pytest.raises(ModelSpecError, match="larger than the thinking budget"):
        settings_from_args(["thinking=4000", "max_tokens=4000"])


def test_a_matrix_entry_takes_the_same_keys_as_the_command_line():
    entry = {"spec": "openai:gpt-5", "name": "gpt5-high", "base_url": "http://127.0.0.1:9/v1",
             "key_env": "ROUTER_KEY", "reasoning_effort": "high", "max_tokens": 1000}
    config = config_from_entry(entry, "models[0]")
    assert config.settings == settings_from_args(["reasoning_effort=high", "max_tokens=1000"])
    assert (config.label, config.base_url, config.key_env) == ("gpt5-high", "http://127.0.0.1:9/v1", "ROUTER_KEY")
    with pytest.raises(ModelSpecError, match=r"unknown keys \['temprature'\]"):
        config_from_entry({"spec": "openai:gpt-5", "temprature": 0}, "models[1]")
    with pytest.raises(ModelSpecError, match="not an environment variable name"):
        config_from_entry({"spec": "openai:gpt-5", "key_env": "my key"}, "models[2]")


def test_two_settings_of_one_model_are_two_labels():
    low = ModelConfig("openai:gpt-5", settings=ModelSettings(reasoning_effort="low"))
    high = ModelConfig("openai:gpt-5", settings=ModelSettings(reasoning_effort="high"))
    assert low.label == "openai:gpt-5[reasoning_effort=low]" != high.label
    assert ModelConfig("openai:gpt-5").label == "openai:gpt-5"


def test_openai_sends_no_setting_that_was_not_set(endpoint):
    script, url = endpoint([openai_tool_call("bash", '{"command": "ls"}')])
    make_model("openai:gpt-5", base_url=url).complete(MESSAGES, TOOLS)
    body = script.requests[0]["body"]
    assert set(body) == {"model", "messages", "tools"}  # no temperature of impasse's own


def test_openai_sends_what_was_set_under_the_names_the_api_takes(endpoint):
    script, url = endpoint([openai_tool_call("bash", '{"command": "ls"}')])
    settings = settings_from_args(["temperature=0.2", "max_tokens=300", "reasoning_effort=low",
                                   'extra_body={"top_k": 5}'])
    make_model("openai:gpt-5", base_url=url, settings=settings).complete(MESSAGES, TOOLS)
    body = script.requests[0]["body"]
    assert (body["temperature"], body["max_completion_tokens"], body["reasoning_effort"], body["top_k"]) == \
        (0.2, 300, "low", 5)
    assert "max_tokens" not in body


def test_the_key_is_read_from_the_variable_the_model_names(endpoint, monkeypatch):
    monkeypatch.setenv("ROUTER_KEY", "sk-router")
    script, url = endpoint([openai_tool_call("bash", '{"command": "ls"}')])
    make_model("openai:m", base_url=url, key_env="ROUTER_KEY").complete(MESSAGES, TOOLS)
    headers = {k.lower(): v for k, v in script.requests[0]["headers"].items()}
    assert headers["authorization"] == "Bearer sk-router"


def test_openai_usage_keeps_cached_and_reasoning_tokens_and_reasoning_text(endpoint):
    reply = openai_tool_call("bash", '{"command": "ls"}')
    reply["usage"] = {"prompt_tokens": 1200, "completion_tokens": 300, "total_tokens": 1500,
                      "prompt_tokens_details": {"cached_tokens": 1024},
                      "completion_tokens_details": {"reasoning_tokens": 256}}
    reply["choices"][0]["message"]["reasoning_content"] = "the file is root's"
    script, url = endpoint([reply])
    turn = make_model("openai:m", base_url=url).complete(MESSAGES, TOOLS)
    assert turn.usage == {"prompt_tokens": 1200, "completion_tokens": 300, "total_tokens": 1500,
                          "cached_tokens": 1024, "reasoning_tokens": 256}
    assert (turn.reasoning, turn.text) == ("the file is root's", "")


def test_openai_never_sends_what_another_vendor_needs_back(endpoint):
    script, url = endpoint([openai_tool_call("bash", '{"command": "ls"}')])
    history = MESSAGES + [{"role": "assistant", "content": "hm", "carry": [{"type": "thinking"}]}]
    make_model("openai:m", base_url=url).complete(history, TOOLS)
    assert "carry" not in script.requests[0]["body"]["messages"][-1]


def test_anthropic_thinking_is_sent_and_its_signed_blocks_come_back_first(endpoint):
    reply = anthropic_tool_use("bash", {"command": "ls"})
    reply["content"].insert(0, {"type": "thinking", "thinking": "check owner", "signature": "sig-1"})
    script, url = endpoint([reply, anthropic_tool_use("bash", {"command": "id"})])
    model = make_model("anthropic:claude-x", base_url=url, settings=settings_from_args(["thinking=2048"]))
    turn = model.complete(MESSAGES, TOOLS)
    assert turn.reasoning == "check owner" and turn.carry == [
        {"type": "thinking", "thinking": "check owner", "signature": "sig-1"}]
    first = script.requests[0]["body"]
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert first["max_tokens"] == 2048 + 4096 and "temperature" not in first
    call = turn.tool_calls[0]
    history = MESSAGES + [{"role": "assistant", "content": "", "tool_calls": [call.to_message()],
                           "carry": turn.carry},
                          {"role": "tool", "tool_call_id": call.id, "content": "ok"}]
    model.complete(history, TOOLS)
    sent_back = script.requests[1]["body"]["messages"][1]["content"]
    assert sent_back[0] == {"type": "thinking", "thinking": "check owner", "signature": "sig-1"}
    assert sent_back[1]["type"] == "tool_use"


def test_anthropic_cache_breakpoints_on_the_system_prompt_and_the_latest_turn(endpoint):
    script, url = endpoint([anthropic_tool_use("bash", {"command": "ls"})])
    history = MESSAGES + [{"role": "assistant", "content": "look", "tool_calls": [
        {"id": "t1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "t1", "content": "a"}]
    make_model("anthropic:claude-x", base_url=url).complete(history, TOOLS)
    body = script.requests[0]["body"]
    assert body["system"] == [{"type": "text", "text": "be brief", "cache_control": {"type": "ephemeral"}}]
    marked = [block for message in body["messages"] for block in message["content"] if "cache_control" in block]
    assert marked == [body["messages"][-1]["content"][-1]]
    assert history[-1] == {"role": "tool", "tool_call_id": "t1", "content": "a"}  # nothing marked in place


def test_anthropic_usage_counts_cached_input_in_the_prompt(endpoint):
    reply = anthropic_tool_use("bash", {"command": "ls"})
    reply["usage"] = {"input_tokens": 50, "output_tokens": 20, "cache_read_input_tokens": 3000,
                      "cache_creation_input_tokens": 400}
    script, url = endpoint([reply])
    turn = make_model("anthropic:claude-x", base_url=url).complete(MESSAGES, TOOLS)
    assert turn.usage == {"prompt_tokens": 3450, "completion_tokens": 20, "total_tokens": 3470,
                          "cached_tokens": 3000, "cache_write_tokens": 400}


def old_run_id_digest(model, condition, task, seed, budget, gate, duty, card_hash, task_hash) -> str:
    return hash_text(model, condition, task, str(seed), str(budget), gate, str(duty), card_hash, task_hash)[:8]


def test_a_model_without_settings_keeps_the_run_id_it_had(monkeypatch):
    from impasse.catalog.cards import get_card
    from impasse.catalog.conditions import make_condition
    from impasse.catalog.tasks import load_tasks
    from impasse.runs.runner import RunSpec, run_id_for
    task = load_tasks()[0]
    condition = make_condition(task, get_card("none"))
    plain = RunSpec("scripted:oracle", "none", task.id)
    digest = old_run_id_digest("scripted:oracle", "none", task.id, 0, 80, "tool", None,
                               condition.card.content_hash, task.content_hash)
    assert run_id_for(plain, condition).endswith(digest)
    tuned = RunSpec("openai:m", "none", task.id, config=ModelConfig("openai:m", settings=ModelSettings(temperature=0)))
    other = RunSpec("openai:m", "none", task.id, config=ModelConfig("openai:m", settings=ModelSettings(temperature=1)))
    assert run_id_for(tuned, condition) != run_id_for(other, condition)
    assert run_id_for(tuned, condition).startswith("openai-m-temperature-0__")


def test_model_turn_defaults_keep_scripted_turns_unchanged():
    assert ModelTurn("x").reasoning == "" and ModelTurn("x").carry == []
