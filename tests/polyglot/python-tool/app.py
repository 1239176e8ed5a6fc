"""`shout`: a Reasonix tool plugin written in Python.

It is built against the exported WIT (`reasonix plugin wit`) with componentize-py:

    componentize-py -d wit -w reasonix:plugin/tool-plugin@0.2.0 componentize app -o shout.wasm

It exports `reasonix:plugin/plugin` (describe) and `reasonix:plugin/tool` (list-tools, invoke,
preview), requests no capabilities, and logs through the host `log` service.
"""

import json

from componentize_py_types import Err
from wit_world import exports
from wit_world.exports import plugin
from wit_world.imports import log, types

PARAMETERS = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "description": "The text to shout."},
    },
    "required": ["text"],
    "additionalProperties": False,
}


def invalid(message: str) -> Err:
    return Err(types.Error_InvalidInput(message))


class Plugin(exports.Plugin):
    def describe(self) -> plugin.PluginInfo:
        return plugin.PluginInfo(
            name="shout",
            version="0.1.0",
            description="Uppercases text (a Python plugin built with componentize-py).",
            capabilities=plugin.Capabilities(
                workspace=plugin.WorkspaceAccess.NONE,
                network=[],
                env=[],
                process=False,
            ),
            limits=plugin.Limits(memory_mib=None, call_timeout_ms=None),
        )


class Tool(exports.Tool):
    def list_tools(self) -> list[types.ToolSpec]:
        return [
            types.ToolSpec(
                name="shout",
                description="Return `text` in upper case.",
                parameters=json.dumps(PARAMETERS, sort_keys=True),
                read_only=True,
                guidance="Use `shout` when the user asks for text in capitals.",
            )
        ]

    def invoke(self, name: str, arguments: str, context: types.CallContext) -> str:
        if name != "shout":
            raise Err(types.Error_NotFound(f"this plugin serves only `shout`, not `{name}`"))
        try:
            args = json.loads(arguments)
        except ValueError as e:
            raise invalid(f"arguments are not JSON ({e}); pass an object like {{\"text\": \"hi\"}}")
        if not isinstance(args, dict):
            raise invalid('arguments must be a JSON object like {"text": "hi"}')
        text = args.get("text")
        if not isinstance(text, str):
            raise invalid('`text` is required and must be a string, e.g. {"text": "hi"}')
        unknown = sorted(k for k in args if k != "text")
        if unknown:
            raise invalid(f"unknown field `{unknown[0]}`; `shout` takes only `text`")
        log.write(log.Level.DEBUG, f"shouting {len(text)} characters")
        return text.upper()

    def preview(self, name: str, arguments: str, context: types.CallContext) -> list[types.FileChange]:
        if name != "shout":
            raise Err(types.Error_NotFound(f"this plugin serves only `shout`, not `{name}`"))
        return []
