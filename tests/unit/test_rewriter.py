"""`--rewriter`: a statement rewritten by a model through the real OpenAI wire format (a local server,
no model API is reachable here); a rewrite that names what the template hides, or says nothing, is
thrown away and the template kept."""

from __future__ import annotations

import pytest

from impasse.models.openai_chat import OpenAIChat
from impasse.models.rewriter import rewrite_statement
from tests.integration.endpoints import Script, openai_text, serve

TEMPLATE = "In toolz 1.0.0, compose metadata is wrong: test_compose_metadata fails with `assert 'f' == 'g'`."
HIDDEN = ("toolz/functoolz.py", "Compose.__ne__", "__ne__(")


@pytest.mark.parametrize("reply,used", [
    ("Composing functions loses their names: test_compose_metadata expects 'f' and gets 'g'.", True),
    ("The bug is in toolz/functoolz.py, look at Compose.__ne__.", False),  # it names the hidden place
    ("   ", False),
])
def test_a_rewrite_is_used_only_when_it_hides_what_the_template_hides(reply: str, used: bool):
    script = Script([openai_text(reply)])
    server, url = serve(script)
    try:
        text, rewritten = rewrite_statement(OpenAIChat("test-model", base_url=url), TEMPLATE, HIDDEN)
    finally:
        server.shutdown()
    assert rewritten is used
    assert text == (reply.strip() if used else TEMPLATE)
    body = script.requests[0]["body"]
    assert "tools" not in body  # an empty tools list is refused by the real API
    assert body["messages"][-1]["content"] == TEMPLATE
