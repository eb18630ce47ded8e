"""Binding ``config.args``: unknown/missing/null values, coercion by type, defaults."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_trailblaze.core.errors import ConfigurationError, SourceSpan
from pytest_trailblaze.core.tooling.memory import Memory, bind_args, coerce_arg
from pytest_trailblaze.core.trail.model import ArgDecl

SPAN = SourceSpan("trails/checkout/pay.trail.yaml", 7, 5)
OTHER_SPAN = SourceSpan("trails/checkout/pay.trail.yaml", 9, 5)


def required(name: str, kind: str = "string", span: SourceSpan = SPAN) -> ArgDecl:
    return ArgDecl(name, kind, span)  # type: ignore[arg-type]


def optional(name: str, kind: str, default: Any, span: SourceSpan = SPAN) -> ArgDecl:
    return ArgDecl(name, kind, span, required=False, default=default)  # type: ignore[arg-type]


def decls(*items: ArgDecl) -> dict[str, ArgDecl]:
    return {d.name: d for d in items}


# -- what is provided -------------------------------------------------------------------------
def test_unknown_provided_arg_fails_with_did_you_mean() -> None:
    with pytest.raises(ConfigurationError) as info:
        bind_args(decls(required("recipient"), optional("retries", "integer", 3)), {"recipeint": "bob"})
    message = str(info.value)
    assert "unknown arg 'recipeint'" in message
    assert "did you mean 'recipient'?" in message
    assert "recipient, retries" in message


def test_unknown_provided_arg_without_a_close_name_has_no_hint() -> None:
    with pytest.raises(ConfigurationError) as info:
        bind_args(decls(optional("retries", "integer", 3)), {"zzz": "1"})
    assert "unknown arg 'zzz'" in str(info.value)
    assert "did you mean" not in str(info.value)


def test_any_provided_arg_fails_when_none_are_declared() -> None:
    with pytest.raises(ConfigurationError, match=r"unknown arg 'x' \(declared: none\)"):
        bind_args({}, {"x": "1"})


def test_nothing_declared_nothing_provided_binds_nothing() -> None:
    assert bind_args({}, {}) == {}


def test_missing_required_arg_names_it_its_span_and_the_fix() -> None:
    with pytest.raises(ConfigurationError) as info:
        bind_args(decls(required("recipient")), {})
    message = str(info.value)
    assert message.startswith("trails/checkout/pay.trail.yaml:7:5: ")
    assert "missing required arg 'recipient'" in message
    assert "--trailblaze-arg recipient=<value>" in message


@pytest.mark.parametrize("decl", [required("recipient"), optional("recipient", "string", "x")])
def test_null_is_never_a_value(decl: ArgDecl) -> None:
    with pytest.raises(ConfigurationError) as info:
        bind_args(decls(decl), {"recipient": None})
    message = str(info.value)
    assert "trails/checkout/pay.trail.yaml:7:5" in message
    assert "'recipient'" in message and "null" in message


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(ConfigurationError) as info:
        bind_args(
            decls(required("recipient"), required("retries", "integer", OTHER_SPAN)),
            {"retries": "many", "colour": "red"},
        )
    lines = str(info.value).splitlines()
    assert len(lines) == 3
    assert any("unknown arg 'colour'" in line for line in lines)
    assert any("missing required arg 'recipient'" in line for line in lines)
    assert any(line.startswith("trails/checkout/pay.trail.yaml:9:5") and "'many'" in line for line in lines)


# -- coercion by declared type ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("kind", "given", "expected"),
    [
        ("integer", "123", 123),
        ("integer", " 42 ", 42),
        ("integer", "-7", -7),
        ("integer", "+8", 8),
        ("integer", "007", 7),
        ("integer", 5, 5),
        ("string", 123, "123"),
        ("string", "007", "007"),
        ("string", True, "true"),
        ("string", False, "false"),
        ("string", 1.5, "1.5"),
        ("string", "", ""),
        ("string", ["a", 1], '["a",1]'),
        ("boolean", "true", True),
        ("boolean", "TRUE", True),
        ("boolean", "True", True),
        ("boolean", "false", False),
        ("boolean", "FALSE", False),
        ("boolean", " false ", False),
        ("boolean", True, True),
        ("boolean", False, False),
        ("array", '["a", "b"]', ["a", "b"]),
        ("array", "[]", []),
        ("array", ["x", 2], ["x", 2]),
        ("object", '{"a": 1, "b": [true]}', {"a": 1, "b": [True]}),
        ("object", {"k": "v"}, {"k": "v"}),
        ("number", "1.5", 1.5),
        ("number", 2, 2),
    ],
)
def test_values_are_coerced_by_the_declared_type(kind: str, given: Any, expected: Any) -> None:
    result = coerce_arg(required("x", kind), given)
    assert result == expected
    assert type(result) is type(expected)
    bound = bind_args(decls(required("x", kind)), {"x": given})
    assert bound == {"x": expected}


@pytest.mark.parametrize(
    ("kind", "given"),
    [
        ("integer", "abc"),
        ("integer", "1.5"),
        ("integer", "1e3"),
        ("integer", "1_000"),
        ("integer", "٣"),
        ("integer", ""),
        ("integer", True),
        ("integer", 1.5),
        ("integer", [1]),
        ("boolean", "yes"),
        ("boolean", "1"),
        ("boolean", ""),
        ("boolean", 1),
        ("boolean", 0),
        ("array", "not json"),
        ("array", '{"a": 1}'),
        ("array", "3"),
        ("array", {"a": 1}),
        ("object", "[1]"),
        ("object", "nope"),
        ("object", [1]),
        ("number", "many"),
        ("number", False),
        ("number", "nan"),
        ("number", "-inf"),
        ("number", float("inf")),
    ],
)
def test_bad_values_fail_with_a_clear_message(kind: str, given: Any) -> None:
    with pytest.raises(ValueError, match="expects"):
        coerce_arg(required("x", kind), given)
    with pytest.raises(ConfigurationError) as info:
        bind_args(decls(required("x", kind)), {"x": given})
    message = str(info.value)
    assert message.startswith("trails/checkout/pay.trail.yaml:7:5: arg 'x': expects")
    assert EXPECTS[kind] in message


EXPECTS = {
    "integer": "expects an integer",
    "number": "expects a number",
    "boolean": "expects true or false",
    "array": "array",
    "object": "object",
}


def test_bad_value_message_shows_the_value() -> None:
    with pytest.raises(ConfigurationError, match=r"expects an integer, got 'lots'"):
        bind_args(decls(required("retries", "integer")), {"retries": "lots"})
    with pytest.raises(ConfigurationError, match=r"expects true or false, got 'yes'"):
        bind_args(decls(required("ok", "boolean")), {"ok": "yes"})


# -- defaults ---------------------------------------------------------------------------------
def test_defaults_fill_omitted_optional_args_and_provided_values_win() -> None:
    declared = decls(
        required("recipient"),
        optional("retries", "integer", 3),
        optional("fast", "boolean", False),
        optional("code", "string", "007"),
    )
    assert bind_args(declared, {"recipient": "bob"}) == {
        "recipient": "bob",
        "retries": 3,
        "fast": False,
        "code": "007",
    }
    assert bind_args(declared, {"recipient": "bob", "retries": "5", "fast": "TRUE"}) == {
        "recipient": "bob",
        "retries": 5,
        "fast": True,
        "code": "007",
    }


def test_memory_bind_args_exposes_the_values_to_tokens() -> None:
    mem = Memory()
    mem.bind_args(decls(required("recipient"), optional("retries", "integer", 3)), {"recipient": "bob"})
    assert dict(mem.args) == {"recipient": "bob", "retries": 3}
    assert mem.interpolate({"to": "{{args.recipient}}", "n": "{{args.retries}}"}) == {"to": "bob", "n": 3}


def test_memory_bind_args_failure_binds_nothing() -> None:
    mem = Memory()
    with pytest.raises(ConfigurationError):
        mem.bind_args(decls(required("recipient")), {})
    assert dict(mem.args) == {}


def test_string_default_reads_memory_at_bind_time() -> None:
    mem = Memory()
    mem.seed({"email": "cfg@x.io"})
    mem.seed({"email": "cli@x.io"})
    mem.bind_args(decls(optional("recipient", "string", "{{memory.email}}")), {})
    assert mem.args["recipient"] == "cli@x.io"
    # bound once: later memory writes do not change the arg
    mem.set("email", "later@x.io")
    assert mem.interpolate("{{args.recipient}}") == "cli@x.io"


def test_string_default_with_unknown_memory_token_stays_literal() -> None:
    mem = Memory()
    mem.bind_args(decls(optional("recipient", "string", "to {{memory.email}}")), {})
    assert mem.args["recipient"] == "to {{memory.email}}"
    assert "{{memory.email}}" in mem.unresolved


def test_chained_defaults_resolve_whatever_the_declaration_order() -> None:
    mem = Memory()
    mem.seed({"email": "e@x.io"})
    mem.bind_args(
        decls(
            optional("greeting", "string", "{{args.subject}} / {{args.count}}"),
            optional("subject", "string", "Re: ${args.recipient}"),
            optional("recipient", "string", "{{memory.email}}"),
            optional("count", "integer", 2),
        ),
        {},
    )
    assert dict(mem.args) == {
        "greeting": "Re: e@x.io / 2",
        "subject": "Re: e@x.io",
        "recipient": "e@x.io",
        "count": 2,
    }


def test_a_default_referencing_a_provided_arg_uses_the_provided_value() -> None:
    mem = Memory()
    mem.bind_args(
        decls(optional("subject", "string", "Re: {{args.recipient}}"), required("recipient")),
        {"recipient": "bob@x.io"},
    )
    assert mem.args["subject"] == "Re: bob@x.io"


def test_a_string_default_that_is_one_args_token_stays_a_string() -> None:
    mem = Memory()
    mem.bind_args(
        decls(
            optional("count", "integer", 3),
            optional("label", "string", "{{args.count}}"),
            optional("on", "boolean", True),
            optional("state", "string", "${args.on}"),
        ),
        {},
    )
    assert mem.args["label"] == "3" and mem.args["state"] == "true"


def test_non_string_defaults_are_stored_verbatim() -> None:
    mem = Memory()
    mem.seed({"email": "e@x.io"})
    mem.bind_args(decls(optional("user", "object", {"email": "{{memory.email}}"})), {})
    assert mem.args["user"] == {"email": "{{memory.email}}"}


def test_reference_cycles_are_left_literal() -> None:
    mem = Memory()
    mem.seed({"email": "e@x.io"})
    mem.bind_args(
        decls(
            optional("a", "string", "{{memory.email}} {{args.b}}"),
            optional("b", "string", "{{args.a}}"),
            optional("self", "string", "x{{args.self}}"),
            optional("uses_cycle", "string", "<${args.a}>"),
            optional("fine", "string", "ok {{args.count}}"),
            optional("count", "integer", 1),
        ),
        {},
    )
    assert dict(mem.args) == {
        "a": "e@x.io {{args.b}}",
        "b": "{{args.a}}",
        "self": "x{{args.self}}",
        "uses_cycle": "<${args.a}>",
        "fine": "ok 1",
        "count": 1,
    }
    assert {"{{args.a}}", "{{args.b}}", "{{args.self}}", "${args.a}"} <= mem.unresolved


def test_a_malformed_token_in_a_default_fails_at_bind_time() -> None:
    with pytest.raises(ConfigurationError, match="malformed args token"):
        Memory().bind_args(decls(optional("a", "string", "{{args.b + 1}}")), {})


def test_provided_string_values_resolve_memory_and_other_args_like_defaults() -> None:
    memory = Memory()
    memory.set("pin", "4321", secret=True)
    memory.bind_args(
        decls(required("code"), optional("prefix", "string", "PIN")),
        {"code": "{{args.prefix}}-{{memory.pin}}"},
    )
    assert memory.args["code"] == "PIN-4321"
    assert memory.mask(f"typed {memory.args['code']}") == "typed PIN-********"
