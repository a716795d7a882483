"""impasse's scripted policies as an Inspect model provider: `--model impasse/oracle` (or
`get_model("impasse/persistent")`) plays the policy `impasse run --model scripted:<name>` plays, on the
sample's own task and card, from the seed of its impasse sandbox: the same calls, read from the same
observations. Offline, no key: what drives impasse's Inspect eval in tests and the demo."""

from __future__ import annotations

from inspect_ai._util.error import PrerequisiteError  # Inspect's one-line error, no traceback
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessageAssistant,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
)
from inspect_ai.tool import ToolCall
from inspect_ai.util import sandbox

from impasse.inspect_ext.sandbox import ImpasseSandbox
from impasse.models.policies import make_policy, policy_names


class ScriptedPolicies(ModelAPI):
    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig | None = None, **model_args) -> None:
        super().__init__(model_name=model_name, base_url=base_url, api_key=api_key, config=config or GenerateConfig())
        if model_name not in policy_names():
            raise PrerequisiteError(f"impasse/{model_name}: unknown scripted policy; known: "
                                    f"{', '.join(policy_names())}")

    async def generate(self, input, tools, tool_choice, config) -> ModelOutput:
        live = sandbox().as_type(ImpasseSandbox).live
        if live.policy is None:
            condition = live.condition
            live.policy = make_policy(self.model_name, (condition.task, condition.card), live.seed)
        turn = live.policy.complete([{"role": m.role, "content": m.text} for m in input], [])
        calls = [ToolCall(id=c.id, function=c.name, arguments=c.arguments or {}) for c in turn.tool_calls]
        message = ChatMessageAssistant(content=turn.text, tool_calls=calls or None, model=self.model_name,
                                       source="generate")
        return ModelOutput(model=self.model_name, usage=ModelUsage(),
                           choices=[ChatCompletionChoice(message=message,
                                                         stop_reason="tool_calls" if calls else "stop")])
