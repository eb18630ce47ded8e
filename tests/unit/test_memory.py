"""Memory: token interpolation, seeding precedence and secret masking (docs/guides/trails.md)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from pytest_trailblaze.core.errors import ConfigurationError, SourceSpan
from pytest_trailblaze.core.tooling.memory import (
    MASK,
    MAX_INTERPOLATED_CHARS,
    ExpansionTooBig,
    Memory,
    mask_with,
)
from pytest_trailblaze.core.trail.model import ArgDecl

SPAN = SourceSpan("trails/login.trail.yaml", 4, 5)


def memory(blank_unknown: bool = False, **values: Any) -> Memory:
    mem = Memory(blank_unknown=blank_unknown)
    mem.seed(values)
    return mem


def optional(name: str, kind: str, default: Any) -> ArgDecl:
    return ArgDecl(name, kind, SPAN, required=False, default=default)  # type: ignore[arg-type]


USER = {"email": "u@example.com", "roles": ["admin", "dev"], "age": 41, "active": False}


def with_args(**seed: Any) -> Memory:
    """A memory with a typical set of bound args of every declared type."""
    mem = memory(**seed)
    mem.bind_args(
        {
            "name": optional("name", "string", "Jane Doe"),
            "count": optional("count", "integer", 3),
            "flag": optional("flag", "boolean", True),
            "off": optional("off", "boolean", False),
            "tags": optional("tags", "array", ["a", "b"]),
            "user": optional("user", "object", copy.deepcopy(USER)),
        },
        {},
    )
    return mem


# -- memory tokens ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{{email}}", "e@x.io"),
        ("${email}", "e@x.io"),
        ("{{memory.email}}", "e@x.io"),
        ("${memory.email}", "e@x.io"),
        ("{{ email }}", "e@x.io"),
        ("${ email }", "e@x.io"),
        ("{{  memory.email  }}", "e@x.io"),
        ("Hi {{name}} <${email}>!", "Hi Ann <e@x.io>!"),
        ("{{name}}{{name}}${name}", "AnnAnnAnn"),
        ("no tokens at all", "no tokens at all"),
        ("braces { alone } and $ alone", "braces { alone } and $ alone"),
        ("", ""),
    ],
)
def test_memory_tokens_resolve_in_both_spellings(text: str, expected: str) -> None:
    mem = memory(email="e@x.io", name="Ann")
    assert mem.interpolate(text) == expected
    assert mem.unresolved == set()


def test_memory_prefix_strips_and_the_stripped_key_wins() -> None:
    mem = memory(x="stripped")
    mem.set("memory.x", "literal")
    assert mem.interpolate("{{memory.x}}") == "stripped"
    assert mem.interpolate("${memory.x}") == "stripped"
    assert mem.interpolate("{{x}}") == "stripped"


def test_memory_prefix_falls_back_to_a_key_literally_named_with_the_prefix() -> None:
    mem = memory()
    mem.set("memory.only", "literal")
    assert mem.interpolate("{{memory.only}}") == "literal"
    assert mem.interpolate("{{only}}") == "{{only}}"


def test_unknown_tokens_stay_literal_and_are_recorded() -> None:
    mem = memory(known="K")
    text = "Hi {{typo}} and ${other} and {{memory.gone}} but {{known}}"
    assert mem.interpolate(text) == "Hi {{typo}} and ${other} and {{memory.gone}} but K"
    assert mem.unresolved == {"{{typo}}", "${other}", "{{memory.gone}}"}


def test_unknown_tokens_are_not_blanked_by_default() -> None:
    assert Memory().interpolate("a{{typo}}b") == "a{{typo}}b"


def test_blank_unknown_mode_blanks_unknown_memory_tokens() -> None:
    mem = memory(blank_unknown=True, known="K")
    assert mem.interpolate("a{{typo}}b${other}c{{memory.gone}}d{{known}}") == "abcdK"
    assert mem.interpolate("{{typo}}") == ""
    assert mem.unresolved == {"{{typo}}", "${other}", "{{memory.gone}}"}


def test_blank_unknown_mode_never_blanks_args_tokens() -> None:
    mem = Memory(blank_unknown=True)
    mem.bind_args({"count": optional("count", "integer", 3)}, {})
    assert mem.interpolate("{{args.nope}}") == "{{args.nope}}"
    assert mem.interpolate("n={{args.nope}} c={{args.count}} {{typo}}") == "n={{args.nope}} c=3 "
    assert mem.interpolate("{{args.count}}") == 3


def test_interpolation_is_a_single_pass() -> None:
    mem = memory(a="{{b}}", b="B", c="${b}", d="{{args.count}}")
    mem.bind_args({"count": optional("count", "integer", 3)}, {})
    assert mem.interpolate("{{a}}") == "{{b}}"
    assert mem.interpolate("${a}|{{c}}") == "{{b}}|${b}"
    assert mem.interpolate("{{d}}") == "{{args.count}}"
    # a value that looks like a token is not an unknown token either
    assert mem.unresolved == set()


def test_memory_tokens_always_give_text() -> None:
    mem = memory(n=5)
    assert mem.interpolate("{{n}}") == "5"
    assert mem.interpolate({"v": "${n}"}) == {"v": "5"}


# -- JSON trees -------------------------------------------------------------------------------
def test_only_string_scalars_inside_dicts_and_lists_are_touched() -> None:
    mem = memory(email="e@x.io", name="Ann")
    tree = {
        "text": "{{email}}",
        "n": 3,
        "ratio": 1.5,
        "flag": True,
        "off": False,
        "none": None,
        "items": ["{{name}}", 2, {"deep": "mail ${email}"}, [True, "{{name}}"]],
        "{{name}}": "key stays",
    }
    original = copy.deepcopy(tree)
    result = mem.interpolate(tree)
    assert result == {
        "text": "e@x.io",
        "n": 3,
        "ratio": 1.5,
        "flag": True,
        "off": False,
        "none": None,
        "items": ["Ann", 2, {"deep": "mail e@x.io"}, [True, "Ann"]],
        "{{name}}": "key stays",
    }
    assert result["flag"] is True and result["n"] == 3 and type(result["n"]) is int
    assert tree == original, "interpolation must not modify its input"


@pytest.mark.parametrize("value", [3, 1.5, True, False, None])
def test_non_string_scalars_come_back_unchanged(value: Any) -> None:
    assert memory(x="X").interpolate(value) is value


# -- args tokens ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{{args.count}}", 3),
        ("${args.count}", 3),
        ("{{args.flag}}", True),
        ("{{args.off}}", False),
        ("{{args.name}}", "Jane Doe"),
        ("{{args.tags}}", ["a", "b"]),
        ("{{args.user}}", USER),
        ("{{args.user.age}}", 41),
        ("{{args.user.active}}", False),
        ("{{args.user.roles}}", ["admin", "dev"]),
    ],
)
def test_a_whole_args_token_keeps_the_native_type(text: str, expected: Any) -> None:
    result = with_args().interpolate(text)
    assert result == expected
    assert type(result) is type(expected)


def test_a_whole_args_token_in_a_tree_keeps_the_native_type() -> None:
    mem = with_args()
    tree = {"times": "{{args.count}}", "enabled": ["${args.flag}"], "label": "x{{args.count}}"}
    assert mem.interpolate(tree) == {"times": 3, "enabled": [True], "label": "x3"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("n={{args.count}}", "n=3"),
        ("{{args.count}} ", "3 "),
        ("{{args.count}}{{args.count}}", "33"),
        ("flag={{args.flag}}", "flag=true"),
        ("off=${args.off}", "off=false"),
        ("Hello {{args.name}}", "Hello Jane Doe"),
        ("tags={{args.tags}}", 'tags=["a","b"]'),
        (
            "user={{args.user}}",
            'user={"email":"u@example.com","roles":["admin","dev"],"age":41,"active":false}',
        ),
        ("roles: {{args.user.roles}}", 'roles: ["admin","dev"]'),
        ("Mail {{args.user.email}}!", "Mail u@example.com!"),
    ],
)
def test_embedded_args_tokens_render_as_text(text: str, expected: str) -> None:
    assert with_args().interpolate(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{{args.user.email}}", "u@example.com"),
        ("${args.user.email}", "u@example.com"),
        ("{{args.user.roles.0}}", "admin"),
        ("{{args.user.roles.1}}", "dev"),
        ("{{args.tags.1}}", "b"),
        ("first={{args.tags.0}}", "first=a"),
    ],
)
def test_dotted_paths_reach_into_objects_and_lists(text: str, expected: Any) -> None:
    assert with_args().interpolate(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "{{args.nope}}",
        "${args.nope}",
        "{{args.user.phone}}",
        "{{args.tags.2}}",
        "{{args.tags.first}}",
        "{{args.name.first}}",
        "{{args.count.value}}",
        "{{args.user.roles.9}}",
    ],
)
def test_unknown_args_tokens_stay_literal(text: str) -> None:
    mem = with_args()
    assert mem.interpolate(text) == text
    assert mem.interpolate(f"say {text}!") == f"say {text}!"
    assert mem.unresolved == {text}


@pytest.mark.parametrize(
    "text",
    [
        "{{args.x + 1}}",
        "{{args.x | upper}}",
        "${args.tags[0]}",
        "{{args.}}",
        "{{args.user..email}}",
        "{{args.user-name}}",
        "Hello {{args.name + 1}} there",
    ],
)
def test_malformed_args_tokens_are_an_error(text: str) -> None:
    with pytest.raises(ConfigurationError, match="malformed args token"):
        with_args().interpolate(text)


def test_malformed_args_tokens_fail_inside_trees_too() -> None:
    with pytest.raises(ConfigurationError, match=r"args\.count \* 2"):
        with_args().interpolate({"steps": [{"text": "{{args.count * 2}}"}]})


def test_args_tokens_do_not_read_memory_and_memory_tokens_do_not_read_args() -> None:
    mem = with_args(count="memory-count")
    assert mem.interpolate("{{args.count}}") == 3
    assert mem.interpolate("{{count}}") == "memory-count"
    assert mem.interpolate("{{memory.count}}") == "memory-count"
    assert mem.interpolate("{{memory.name}}") == "{{memory.name}}"


def test_a_native_value_handed_out_cannot_change_the_bound_args() -> None:
    mem = with_args()
    tags = mem.interpolate("{{args.tags}}")
    user = mem.interpolate({"u": "{{args.user}}"})["u"]
    tags.append("c")
    user["roles"].append("root")
    assert mem.interpolate("{{args.tags}}") == ["a", "b"]
    assert mem.interpolate("{{args.user.roles}}") == ["admin", "dev"]


def test_bound_args_are_read_only() -> None:
    mem = with_args()
    with pytest.raises(TypeError):
        mem.args["count"] = 4  # type: ignore[index]
    assert mem.args["count"] == 3


# -- stored values ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "stored"),
    [
        ("text", "text"),
        ("", ""),
        (5, "5"),
        (-2, "-2"),
        (1.5, "1.5"),
        (True, "true"),
        (False, "false"),
        (["a", 1], '["a",1]'),
        ({"k": "v"}, '{"k":"v"}'),
    ],
)
def test_memory_values_are_stored_as_text(value: Any, stored: str) -> None:
    mem = Memory()
    mem.set("k", value)
    assert mem.get("k") == stored
    assert mem.interpolate("{{k}}") == stored


def test_get_contains_delete() -> None:
    mem = memory(a="1")
    assert "a" in mem and mem.get("a") == "1"
    assert "b" not in mem and mem.get("b") is None and mem.get("b", "d") == "d"
    mem.delete("a")
    mem.delete("never-there")
    assert "a" not in mem
    assert mem.interpolate("{{a}}") == "{{a}}"


# -- seeding precedence (config.memory < --memory < --secret) ---------------------------------
def seeded() -> Memory:
    mem = Memory()
    mem.seed({"user": "cfg-user", "env": "cfg-env", "pin": "cfg-pin"})  # config.memory
    mem.seed({"env": "cli-env", "pin": "cli-pin"})  # --trailblaze-memory
    mem.seed({"pin": "4921", "token": "tok-abcdef"}, secret=True)  # --trailblaze-secret
    return mem


def test_later_seeds_override_earlier_ones() -> None:
    mem = seeded()
    assert mem.interpolate("{{user}}/{{env}}/{{pin}}/{{token}}") == "cfg-user/cli-env/4921/tok-abcdef"


def test_secrets_are_known_and_left_out_of_public() -> None:
    mem = seeded()
    assert mem.is_secret("pin") and mem.is_secret("token")
    assert not mem.is_secret("user") and not mem.is_secret("env")
    assert mem.public() == {"user": "cfg-user", "env": "cli-env"}
    assert mem.snapshot() == {"user": "cfg-user", "env": "cli-env", "pin": "4921", "token": "tok-abcdef"}


def test_snapshot_and_public_are_copies() -> None:
    mem = seeded()
    mem.snapshot()["user"] = "changed"
    mem.public()["env"] = "changed"
    assert mem.get("user") == "cfg-user" and mem.get("env") == "cli-env"


def test_a_secret_stays_secret_when_set_again_plainly() -> None:
    mem = seeded()
    mem.set("pin", "7777")
    assert mem.is_secret("pin")
    assert "pin" not in mem.public()
    assert mem.mask("pin 7777") == f"pin {MASK}"


# -- masking ----------------------------------------------------------------------------------
def test_mask_hides_secrets_in_strings_and_nested_values() -> None:
    mem = seeded()
    value = {
        "text": "typed 4921 then tok-abcdef",
        "n": 4921,
        "items": ["4921", ("x4921x", True), {"deep": ["pin=4921"]}],
        "plain": "cli-env",
    }
    original = copy.deepcopy(value)
    assert mem.mask(value) == {
        "text": f"typed {MASK} then {MASK}",
        "n": 4921,
        "items": [MASK, (f"x{MASK}x", True), {"deep": [f"pin={MASK}"]}],
        "plain": "cli-env",
    }
    assert value == original
    assert mem.mask("4921 and 4921") == f"{MASK} and {MASK}"


def test_mask_leaves_values_alone_without_secrets() -> None:
    mem = memory(user="u")
    value = {"a": ["u"]}
    assert mem.mask(value) is value
    assert mem.mask("u") == "u"


def test_an_empty_secret_masks_nothing() -> None:
    mem = Memory()
    mem.seed({"blank": ""}, secret=True)
    assert mem.mask("abc") == "abc"
    assert mem.secret_values() == []


@pytest.mark.parametrize("order", [("abc", "abcdef"), ("abcdef", "abc")])
def test_a_secret_inside_another_is_masked_completely(order: tuple[str, str]) -> None:
    mem = Memory()
    for i, secret in enumerate(order):
        mem.set(f"s{i}", secret, secret=True)
    assert mem.mask("xabcdefx abc") == f"x{MASK}x {MASK}"
    assert mem.secret_values() == ["abcdef", "abc"]


@pytest.mark.parametrize(
    ("secrets", "text"),
    [
        (["abc", "abcdef"], "xabcdefx"),
        (["abcdef", "abc"], "xabcdefx"),
        (["ab12", "12cd"], "xab12cdx"),
        (["12cd", "ab12"], "xab12cdx"),
    ],
)
def test_mask_with_hides_every_character_of_overlapping_secrets(secrets: list[str], text: str) -> None:
    assert mask_with(secrets, text) == f"x{MASK}x"


def test_mask_with_repeated_and_adjacent_occurrences() -> None:
    assert mask_with(["aa"], "aaaaa") == MASK
    assert mask_with(["ab", "cd"], "ab-cd") == f"{MASK}-{MASK}"
    assert "ab" not in mask_with(["ab", "cd"], "abcd") and "cd" not in mask_with(["ab", "cd"], "abcd")


def test_mask_with_ignores_empty_secrets_and_accepts_any_iterable() -> None:
    assert mask_with(["", None], "text") == "text"  # type: ignore[list-item]
    assert mask_with(iter(["s3cr3t"]), ["s3cr3t", ("a s3cr3t",), 3]) == [MASK, (f"a {MASK}",), 3]


def test_secret_values_are_unique_longest_first() -> None:
    mem = Memory()
    mem.seed({"a": "xy", "b": "xyz", "c": "xy", "d": "visible"}, secret=False)
    mem.seed({"a": "xy", "b": "xyz", "c": "xy"}, secret=True)
    assert mem.secret_values() == ["xyz", "xy"]


def test_deleted_secret_is_no_longer_masked_but_stays_marked() -> None:
    mem = seeded()
    mem.delete("pin")
    assert mem.mask("4921") == "4921"
    assert mem.is_secret("pin")
    mem.set("pin", "1111")
    assert "pin" not in mem.public()


def test_the_masker_follows_a_secret_that_changes_or_goes() -> None:
    memory = Memory()
    memory.set("token", "first-token", secret=True)
    assert memory.mask("first-token") == "********"
    memory.set("token", "second-token")  # still a secret: the new value is masked, the old one no more
    assert memory.mask("first-token second-token") == "first-token ********"
    memory.set("plain", "first-token")  # not a secret: the filter stays as it is
    assert memory.mask("second-token") == "********"
    memory.delete("token")
    assert memory.mask("second-token") == "second-token"


def test_interpolation_that_would_grow_past_the_limit_is_refused_while_it_grows() -> None:
    memory = Memory()
    memory.set("x", "y" * (MAX_INTERPOLATED_CHARS // 2))

    assert len(memory.interpolate("{{x}}")) == MAX_INTERPOLATED_CHARS // 2
    with pytest.raises(ExpansionTooBig, match=r"expands to more than 67,108,864 characters \(at \{\{x\}\}\)"):
        memory.interpolate("{{x}}{{x}}{{x}}")
