"""The masking filter: text, JSON-like values, names and streams (docs/guides/security.md, Secrets)."""

from __future__ import annotations

import hashlib
import io
import json

from pytest_trailblaze.core.masking import KEEP, MASK, PAIRS, Masker, has_controls, name_token, visible
from pytest_trailblaze.core.tooling.memory import Memory


def test_text_and_values_are_masked_wherever_the_secret_sits() -> None:
    masker = Masker({"password": "hunter2", "pin": "42"})
    assert masker.text("typed hunter2 and 42") == f"typed {MASK} and {MASK}"
    data = {"k": ["x", ("hunter2!", 3)], "n": 42}
    assert masker.value(data) == {"k": ["x", (f"{MASK}!", 3)], "n": 42}
    assert masker.holds(data)
    assert not masker.holds({"a": ["b", ("c", 42)]})


def test_a_name_holds_a_token_of_the_secrets_name_never_a_hash_of_its_value() -> None:
    masker = Masker({"password": "hunter2"})
    token = name_token("password")
    assert masker.name("login-hunter2[web]") == f"login-{token}[web]"
    # stable: a literal sha256 of the name, the same in every process, whatever the value
    expected = "secret-" + hashlib.sha256(b"trailblaze-secret:password").hexdigest()[:8]
    assert token == expected
    assert Masker({"password": "rotated"}).name("login-rotated") == f"login-{token}"
    assert hashlib.sha256(b"hunter2").hexdigest()[:8] not in token


def test_one_value_under_two_names_gets_one_token() -> None:
    masker = Masker({"b": "same", "a": "same"})
    assert masker.name("x-same") == f"x-{name_token('a')}"


def test_a_secret_split_across_writes_never_reaches_the_stream() -> None:
    sink = io.StringIO()
    stream = Masker({"password": "hunter2"}).stream(sink)
    for piece in ("user hun", "ter", "2 typed; hu", "nt", "er2", "\n", "done h"):
        stream.write(piece)
        assert "hunter2" not in sink.getvalue()
    assert sink.getvalue() == f"user {MASK} typed; {MASK}\ndone "
    stream.release()
    assert sink.getvalue() == f"user {MASK} typed; {MASK}\ndone h"


def test_text_that_only_looks_like_a_secrets_start_is_written_once_it_cannot_be_one() -> None:
    sink = io.StringIO()
    stream = Masker({"password": "hunter2"}).stream(sink)
    stream.write("hunt")
    stream.write("ed down")
    assert sink.getvalue() == "hunted down"


def test_memory_masks_with_the_same_filter() -> None:
    memory = Memory()
    memory.seed({"password": "hunter2"}, secret=True)
    memory.set("user", "alice")
    assert memory.mask("alice hunter2") == f"alice {MASK}"
    assert memory.masker.name("shot-hunter2") == f"shot-{name_token('password')}"
    assert not Masker()
    assert Masker().text("hunter2") == "hunter2"


def test_a_secret_is_masked_in_the_forms_json_urls_and_html_write_it() -> None:
    """A password with a quote, a space or a ``<`` reaches a trace (JSON), a failure message (the
    browser's URL) or a report (HTML) escaped: each of those spellings is the secret too."""
    secret = 'Pa<s&s"w d/Q9\\'
    masker = Masker({"token": secret})
    written = {
        "json": 'Pa<s&s\\"w d/Q9\\\\',
        "browser query": "Pa%3Cs&s%22w%20d/Q9\\",
        "python quote": "Pa%3Cs%26s%22w%20d/Q9%5C",
        "form": "Pa%3Cs%26s%22w+d%2FQ9%5C",
        "html": "Pa&lt;s&amp;s&quot;w d/Q9\\",
        "html text": 'Pa&lt;s&amp;s"w d/Q9\\',
    }
    for how, form in written.items():
        assert masker.text(f"at ?t={form}#x") == f"at ?t={MASK}#x", how
        assert masker.name(f"id-{form}") == f"id-{name_token('token')}", how
    other = Masker({"k": "a?b'c d"})
    for form in ("a%3Fb'c%20d", "a?b%27c%20d", "a?b'c%20d"):  # a browser's path, query, fragment
        assert other.text(form) == MASK, form
    assert Memory().mask(secret) == secret
    memory = Memory()
    memory.seed({"token": secret}, secret=True)
    assert memory.mask(f'{{"typed": "{written["json"]}"}}') == f'{{"typed": "{MASK}"}}'


def test_a_plain_secret_has_one_form() -> None:
    assert Masker({"password": "hunter2"}).values == ["hunter2"]


def test_values_are_masked_never_keys_nor_the_fields_a_shape_keeps() -> None:
    masker = Masker({"E": "e", "O": "outcome"})
    record = {"nodeid": "t::x", "outcome": "failed", "text": "the outcome", "steps": [{"kind": "step"}]}
    shape = {"outcome": KEEP, "steps": {"kind": KEEP}}

    masked = masker.value(record, shape)

    assert list(masked) == ["nodeid", "outcome", "text", "steps"]
    assert masked["outcome"] == "failed" and masked["steps"] == [{"kind": "step"}]
    assert masked["text"] == "th******** ********"
    assert masked["nodeid"] == "t::x"
    assert masker.value({"e": 1}) == {"e": 1}  # a key that equals a secret stays a key


def test_pairs_keep_their_names_and_mask_their_values() -> None:
    masker = Masker({"K": "step"})
    report = {"user_properties": [["step_1", "step passed"]], "sections": [("Captured step", "a step")]}

    masked = masker.value(report, {"user_properties": PAIRS, "sections": PAIRS})

    assert masked == {
        "user_properties": [["step_1", "******** passed"]],
        "sections": [("Captured step", "a ********")],
    }


def test_a_multi_line_secret_is_masked_line_by_line_and_as_one_line() -> None:
    secret = "a.*(b)[x]\n+$^|?{1}\nok"
    masker = Masker({"K": secret})

    assert masker.text("first line: a.*(b)[x]") == "first line: ********"
    assert masker.text('textbox: "a.*(b)[x] +$^|?{1} ok"') == 'textbox: "********"'
    assert masker.text(json.dumps(secret)) == '"********"'
    assert masker.text("a.*(b)[x]\\n+$^|?{1}\\nok") == "********"
    assert masker.text("ok, fine") == "ok, fine"  # a line shorter than three characters is ordinary text


def test_short_secrets_are_named_for_a_warning() -> None:
    assert Masker({"PIN": "q7", "TOKEN": "long-enough"}).short_secrets() == ["PIN"]


def test_control_characters_are_shown_as_escapes() -> None:
    assert visible("a\x1b[2J\x07\x00\rb\n\tc\u202ed") == "a\\x1b[2J\\x07\\0\\rb\n\tc\\u202ed"
    assert visible("plain text\n") == "plain text\n"
    assert has_controls({"k": ["x", "\x1b"]}) and not has_controls({"\x1b": "x"})


def test_a_report_is_searched_for_controls_in_its_values_at_any_depth() -> None:
    report = {"sections": [("stdout", "a\tb\nc"), ("log", "\u2066")], "when": "call", "duration": 0.5}
    assert has_controls(report)
    report["sections"][1] = ("log", "plain")
    assert not has_controls(report) and not has_controls(None) and not has_controls(3)
    deep: object = "\x7f"
    for _ in range(5000):  # deeper than the interpreter's recursion limit
        deep = [deep]
    assert has_controls({"deep": deep})


def test_long_texts_are_shown_cut_with_their_size() -> None:
    from pytest_trailblaze.core.shown import clip, clip_value

    assert clip("abc", 5) == "abc"
    assert clip("x" * 12, 5) == "xxxxx… [12 characters, 7 not shown]"
    assert clip_value({"k": ["y" * 6, 3]}, 2) == {"k": ["yy… [6 characters, 4 not shown]", 3]}
