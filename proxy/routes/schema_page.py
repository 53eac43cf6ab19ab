"""The OpenAPI document and a schema page that needs no network.

Litestar's Swagger, ReDoc, Elements, RapiDoc and Scalar pages load their scripts from CDNs, so they
are blank on a machine without internet. This page is rendered on the server from the generated
document: every operation with its parameters, body and responses, then every schema with its
fields. Plain HTML with inline CSS, no script, and a Content-Security-Policy that forbids loading
anything, so it cannot reach out even by mistake.

Served under ``/mnemo/v1/schema``: the page at the root, the JSON at ``openapi.json``, YAML at
``openapi.yaml`` (see docs/api.md).
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from litestar import Request
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin, OpenAPIRenderPlugin, YamlRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme

from proxy.routes import MANAGEMENT_PREFIX

SCHEMA_PATH = f"{MANAGEMENT_PREFIX}/schema"
TITLE = "Mnemo management API"
DESCRIPTION = (
    "The management API of Mnemo: list, search, read, correct and delete memories; delete or pause "
    "scopes; export, import and audit; health and readiness.\n\n"
    "The proxy routes (`/v1/chat/completions`, `/v1/responses`, `/v1/messages`, any other `/v1/*`, "
    "each also under `/p/<project>`) are not described here: they pass the providers' own APIs "
    "through, with the providers' request and response bodies.\n\n"
    'Errors come in the OpenAI shape: `{"error": {"message", "type", "param", "code"}}`.'
)
API_VERSION = "0.1.0"
KEY_SCHEME = "MnemoKey"
_CODE = re.compile(r"`([^`]+)`")
_METHODS = ("get", "post", "put", "patch", "delete")
_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
_STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 62rem; padding: 1rem 1.5rem;
       color: #1d232a; background: #fff; }
h1 { margin-bottom: .2rem; }
h2 { border-bottom: 2px solid #dde3ea; padding-bottom: .2rem; margin-top: 2.5rem; }
code, .type { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
.op { border: 1px solid #dde3ea; border-radius: 6px; margin: 1rem 0; padding: .4rem 1rem .8rem; }
.op h3 { margin: .4rem 0; font-size: 16px; }
.method { display: inline-block; min-width: 4.2rem; text-align: center; border-radius: 4px; color: #fff;
          font: 700 12px ui-monospace, monospace; padding: 3px 6px; margin-right: .5rem; }
.get { background: #2f6fb3; } .post { background: #2d8a4e; } .patch { background: #a0670f; }
.put { background: #6b4fa8; } .delete { background: #b33a3a; }
table { border-collapse: collapse; width: 100%; margin: .3rem 0 .6rem; }
th, td { text-align: left; vertical-align: top; border-bottom: 1px solid #eef1f4; padding: 4px 8px; }
th { font-size: 12px; text-transform: uppercase; color: #5b6672; font-weight: 600; }
.req { color: #b33a3a; font-size: 12px; } .muted { color: #5b6672; }
nav ul { columns: 2; } nav li { margin: 2px 0; }
"""


class SchemaPagePlugin(OpenAPIRenderPlugin):
    """Renders the OpenAPI document as a self-contained HTML page."""

    def __init__(self, path: str = "/") -> None:
        super().__init__(path=path, favicon="", style="")

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return render_page(openapi_schema, self.get_openapi_json_route(request)).encode("utf-8")


def openapi_config(version: str = API_VERSION) -> OpenAPIConfig:
    """The app's OpenAPI config: the offline page at ``/mnemo/v1/schema``, the JSON and YAML beside it."""
    return OpenAPIConfig(
        title=TITLE,
        version=version,
        description=DESCRIPTION,
        path=SCHEMA_PATH,
        render_plugins=[SchemaPagePlugin(), JsonRenderPlugin(), YamlRenderPlugin()],
        components=Components(
            security_schemes={
                KEY_SCHEME: SecurityScheme(
                    type="apiKey",
                    name="X-Mnemo-Key",
                    security_scheme_in="header",
                    description="Keys mode only: the Mnemo key (local mode needs none)",
                )
            }
        ),
        # local mode needs no key, keys mode needs one: either is a valid way to call
        security=[{}, {KEY_SCHEME: []}],
    )


# Rendering ---------------------------------------------------------------------------------------------


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _anchor(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "-", text)


def _prose(text: str | None) -> str:
    """Descriptions: escaped, `code` spans kept, paragraphs on blank lines."""
    if not text:
        return ""
    paragraphs = [p.strip() for p in text.split("\n\n") if p.strip()]
    return "".join("<p>" + _CODE.sub(r"<code>\1</code>", _e(p)) + "</p>" for p in paragraphs)


def type_html(schema: dict[str, Any] | None) -> str:
    """A schema as a short type expression; references link to the schema's section."""
    if not schema:
        return '<span class="type">any</span>'
    if "$ref" in schema:
        name = str(schema["$ref"]).rsplit("/", 1)[-1]
        return f'<a class="type" href="#schema-{_anchor(name)}">{_e(name)}</a>'
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return " | ".join(type_html(option) for option in schema[key])
    if "allOf" in schema:
        return " &amp; ".join(type_html(part) for part in schema["allOf"])
    if "const" in schema:
        return f'<span class="type">{_e(_literal(schema["const"]))}</span>'
    if "enum" in schema:
        return '<span class="type">' + " | ".join(_e(_literal(v)) for v in schema["enum"]) + "</span>"
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(type_html({**schema, "type": one}) for one in kind)
    if kind == "array":
        return f'<span class="type">array of </span>{type_html(schema.get("items"))}'
    if kind == "object" and not schema.get("properties"):
        values = schema.get("additionalProperties")
        if isinstance(values, dict):
            return f'<span class="type">map of string to </span>{type_html(values)}'
        return '<span class="type">object</span>'
    text = str(kind or "any")
    if schema.get("format"):
        text += f" ({schema['format']})"
    return f'<span class="type">{_e(text)}</span>'


def _literal(value: object) -> str:
    """A value as JSON shows it (``false``, ``1``, ``"x"``)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return json.dumps(value)


def _constraints(schema: dict[str, Any]) -> str:
    found = [
        f"{label} {_literal(schema[key])}"
        for key, label in (
            ("minimum", "min"),
            ("maximum", "max"),
            ("minLength", "min length"),
            ("maxLength", "max length"),
            ("default", "default"),
        )
        if key in schema and schema[key] is not None
    ]
    return f' <span class="muted">({_e(", ".join(found))})</span>' if found else ""


def _parameters(parameters: list[dict[str, Any]]) -> str:
    if not parameters:
        return ""
    rows = "".join(
        f"<tr><td><code>{_e(p['name'])}</code>"
        + (' <span class="req">required</span>' if p.get("required") else "")
        + f"</td><td>{_e(p.get('in', ''))}</td>"
        f"<td>{type_html(p.get('schema'))}{_constraints(p.get('schema') or {})}</td>"
        f"<td>{_e(p.get('description') or (p.get('schema') or {}).get('description') or '')}</td></tr>"
        for p in parameters
    )
    return (
        "<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>type</th><th>description</th></tr>"
        f"{rows}</table>"
    )


def _content(content: dict[str, Any] | None) -> str:
    if not content:
        return ""
    return "".join(
        f"<div><code>{_e(media)}</code>: {type_html(body.get('schema'))}</div>"
        for media, body in content.items()
    )


def _operation(path: str, method: str, operation: dict[str, Any]) -> str:
    op_id = operation.get("operationId") or f"{method}-{path}"
    parts = [
        f'<section class="op" id="op-{_anchor(op_id)}">',
        f'<h3><span class="method {method}">{method.upper()}</span><code>{_e(path)}</code></h3>',
        f"<div>{_e(operation.get('summary') or '')}</div>",
        f'<div class="muted">operationId <code>{_e(op_id)}</code></div>',
        _prose(operation.get("description")),
        _parameters(operation.get("parameters") or []),
    ]
    body = operation.get("requestBody")
    if body:
        required = ' <span class="req">required</span>' if body.get("required") else ""
        parts.append(f"<h4>Request body{required}</h4>{_prose(body.get('description'))}")
        parts.append(_content(body.get("content")))
    rows = "".join(
        f"<tr><td><code>{_e(status)}</code></td><td>{_e(response.get('description') or '')}</td>"
        f"<td>{_content(response.get('content')) or '<span class=muted>no body</span>'}</td></tr>"
        for status, response in sorted(operation.get("responses", {}).items())
    )
    parts.append(
        "<h4>Responses</h4><table><tr><th>status</th><th>meaning</th><th>body</th></tr>" + rows + "</table>"
    )
    parts.append("</section>")
    return "".join(parts)


def _schema(name: str, schema: dict[str, Any]) -> str:
    parts = [f'<section class="op" id="schema-{_anchor(name)}"><h3><code>{_e(name)}</code></h3>']
    parts.append(_prose(schema.get("description")))
    properties: dict[str, Any] = schema.get("properties") or {}
    if properties:
        required = set(schema.get("required") or ())
        rows = "".join(
            f"<tr><td><code>{_e(field)}</code>"
            + (' <span class="req">required</span>' if field in required else "")
            + f"</td><td>{type_html(spec)}{_constraints(spec)}</td>"
            f"<td>{_e(spec.get('description') or '')}</td></tr>"
            for field, spec in properties.items()
        )
        parts.append("<table><tr><th>field</th><th>type</th><th>description</th></tr>" + rows + "</table>")
    else:
        parts.append(f"<div>{type_html(schema)}</div>")
    parts.append("</section>")
    return "".join(parts)


def render_page(document: dict[str, Any], json_href: str) -> str:
    """The whole page for an OpenAPI document; ``json_href`` is the same-origin path of the JSON."""
    info = document.get("info", {})
    title = f"{info.get('title', 'API')} {info.get('version', '')}".strip()
    operations = [
        (path, method, item[method])
        for path, item in document.get("paths", {}).items()
        for method in _METHODS
        if method in item
    ]
    schemas: dict[str, Any] = document.get("components", {}).get("schemas", {})
    toc = "".join(
        f'<li><a href="#op-{_anchor(op.get("operationId") or f"{method}-{path}")}">'
        f"<code>{method.upper()} {_e(path)}</code></a></li>"
        for path, method, op in operations
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{_e(title)}</h1>"
        f'<div class="muted">OpenAPI {_e(document.get("openapi", ""))} &middot; '
        f'<a href="{_e(json_href)}">the OpenAPI document (JSON)</a></div>'
        f"{_prose(info.get('description'))}"
        f"<nav><h2>Contents</h2><ul>{toc}</ul></nav>"
        "<h2>Operations</h2>"
        + "".join(_operation(path, method, op) for path, method, op in operations)
        + "<h2>Schemas</h2>"
        + "".join(_schema(name, schema) for name, schema in sorted(schemas.items()))
        + "</body></html>\n"
    )
