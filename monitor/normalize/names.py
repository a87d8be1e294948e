"""Tool names with a plugin prefix, split where the instrumentation puts it. Pure.

Semantic Kernel names a function of plugin `Travel` `Travel-get_weather` (in `gen_ai.tool.name`, tool
calls and tool definitions). `normalize.plugin_separators` maps an instrumentation scope prefix to
that separator; such names are rewritten to `plugin<tool_action_separator>function`, so the one split
downstream makes the plugin the `tool_id` and the function the `action`. Other scopes are untouched.
"""

from __future__ import annotations

from monitor.config import NormalizeConfig
from monitor.model import AgentSpan, Message


def split_plugin_names(span: AgentSpan, config: NormalizeConfig) -> AgentSpan:
    separator = next(
        (sep for prefix, sep in config.plugin_separators.items() if span.span.scope.startswith(prefix)), None
    )
    if separator is None or separator == config.tool_action_separator:
        return span

    def rename(name: str) -> str:
        plugin, found, function = name.partition(separator)
        return f"{plugin}{config.tool_action_separator}{function}" if found and plugin and function else name

    def messages(items: tuple[Message, ...]) -> tuple[Message, ...]:
        return tuple(
            m.model_copy(
                update={
                    "tool_calls": tuple(c.model_copy(update={"name": rename(c.name)}) for c in m.tool_calls)
                }
            )
            if m.tool_calls
            else m
            for m in items
        )

    tool = span.tool.model_copy(update={"name": rename(span.tool.name)}) if span.tool is not None else None
    return span.model_copy(
        update={
            "tool": tool,
            "input_messages": messages(span.input_messages),
            "output_messages": messages(span.output_messages),
            "tool_definitions": {rename(k): v for k, v in span.tool_definitions.items()},
        }
    )
