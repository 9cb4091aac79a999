"""Validates every example in an OpenAPI 3.1 description against the schema it illustrates.

    python examples.py openapi.json

An example of a schema (`example`, each of `examples`) is checked against that schema; an
example of a media type, parameter or header (`example`, each `examples.<name>.value`, after
following a `$ref` into `components/examples`) against its `schema`. An ndjson example is
checked line by line against the media type's `x-ndjson-lines` (`first`, then `rest`).
Formats are asserted (date-time, uuid, email…) where jsonschema can check them. Prints one
line per failure and exits 1 if there is any; prints the number of examples checked.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Iterator

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

ROOT = "urn:kontor:openapi"

# The keywords of a schema whose values are schemas, or lists or maps of schemas.
ONE = ("items", "not", "if", "then", "else", "contentSchema", "additionalProperties")
MANY = ("allOf", "anyOf", "oneOf", "prefixItems")
MAP = ("properties", "patternProperties", "$defs")


def escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def schema_examples(schema: Any, pointer: str) -> Iterator[tuple[str, str, Any]]:
    """(where, schema pointer, example) for a schema and every schema inside it."""
    if not isinstance(schema, dict):
        return
    if "example" in schema:
        yield pointer, pointer, schema["example"]
    for i, example in enumerate(schema.get("examples") or []):
        yield f"{pointer}/examples/{i}", pointer, example
    for key in ONE:
        yield from schema_examples(schema.get(key), f"{pointer}/{key}")
    for key in MANY:
        for i, member in enumerate(schema.get(key) or []):
            yield from schema_examples(member, f"{pointer}/{key}/{i}")
    for key in MAP:
        for name, member in (schema.get(key) or {}).items():
            yield from schema_examples(member, f"{pointer}/{key}/{escape(name)}")


def follow(spec: dict[str, Any], node: Any) -> Any:
    """An Example Object, with a `$ref` to `components/examples` followed."""
    while isinstance(node, dict) and isinstance(node.get("$ref"), str):
        target: Any = spec
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


def described_examples(spec: dict[str, Any], node: Any, pointer: str) -> Iterator[tuple[str, str, Any]]:
    """Examples of media types, parameters and headers: objects beside a `schema`."""
    if isinstance(node, list):
        for i, item in enumerate(node):
            yield from described_examples(spec, item, f"{pointer}/{i}")
        return
    if not isinstance(node, dict):
        return
    if isinstance(node.get("schema"), dict):
        schema = f"{pointer}/schema"
        yield from schema_examples(node["schema"], schema)
        if "example" in node:
            yield f"{pointer}/example", schema, node["example"]
        for name, example in (node.get("examples") or {}).items():
            value = follow(spec, example).get("value")
            lines = node.get("x-ndjson-lines")
            where = f"{pointer}/examples/{escape(name)}"
            if lines and isinstance(value, str):
                # One document per line: the first of `first`, the rest of `rest`.
                for n, line in enumerate(value.splitlines()):
                    part = "first" if n == 0 else "rest"
                    yield f"{where} line {n + 1}", f"{pointer}/x-ndjson-lines/{part}", json.loads(line)
            else:
                yield where, schema, value
    for key, child in node.items():
        if key != "schema":
            yield from described_examples(spec, child, f"{pointer}/{escape(key)}")


def main() -> int:
    spec = json.load(open(sys.argv[1]))
    registry = Registry().with_resource(ROOT, Resource(contents=spec, specification=DRAFT202012))
    found = list(described_examples(spec, spec.get("paths", {}), "#/paths"))
    for name, schema in spec["components"]["schemas"].items():
        found.extend(schema_examples(schema, f"#/components/schemas/{escape(name)}"))
    failures = 0
    for where, pointer, example in found:
        validator = Draft202012Validator(
            {"$ref": f"{ROOT}{pointer}"},
            registry=registry,
            format_checker=Draft202012Validator.FORMAT_CHECKER,
        )
        error = best_match(validator.iter_errors(example))
        if error is not None:
            failures += 1
            path = "/".join(str(p) for p in error.absolute_path) or "(the whole example)"
            print(f"{where}: at {path}: {error.message[:300]}")
    print(f"{len(found)} examples checked, {failures} failing")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
