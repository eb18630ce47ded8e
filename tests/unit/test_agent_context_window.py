"""The agent's context window: what a refusal for length teaches, and how a conversation is made
to fit a small model's context (earlier prose and results cut, oldest calls left out and named,
the latest call kept, the screen cut last)."""

from __future__ import annotations

import json

import pytest

from pytest_trailblaze.agent.context_window import MARGIN, MIN_ANSWER_TOKENS, RAN_FULL_SLACK, ContextWindow
from pytest_trailblaze.agent.token_estimate import text_units
from pytest_trailblaze.agent.wire import Conversation, ToolRequest, ToolSpec, Turn

BUTTONS = "\n".join(f'- button "b{n}" [ref=e{n}]' for n in range(40))
SCREEN = f"Objective: click it\n\nCurrent screen:\n{BUTTONS}"


def exchange(n: int, result: str = "ok: clicked", prose: str = "", typed: str = "") -> list[Turn]:
    arguments = f'{{"ref": "e{n}", "text": "{typed}"}}' if typed else f'{{"ref": "e{n}"}}'
    call = ToolRequest(f"call_{n}", "web_type" if typed else "web_click", arguments)
    return [Turn("assistant", prose, call=call), Turn("result", result, call=call)]


def conversation(*exchanges: list[Turn], screen: str = SCREEN) -> Conversation:
    turns = [Turn("user", "Objective (step 1 of 1): click them all")]
    for pair in exchanges:
        turns += pair
    turns.append(Turn("user", screen))
    tools = (ToolSpec("web_click", "Click an element.", {"type": "object"}),)
    return Conversation("You are Trailblaze." * 20, tools, turns, cache_until=len(turns) - 1)


def window_for(whole: Conversation, tokens_short: int) -> ContextWindow:
    """A window whose budget is ``tokens_short`` below the conversation's estimated size."""
    window = ContextWindow()
    need = window.estimate(whole) - tokens_short
    window.tokens = int((need + MIN_ANSWER_TOKENS) / (1 - MARGIN)) + 1
    assert window.prompt_budget() in (need, need + 1)
    return window


@pytest.mark.parametrize(
    ("said", "limit", "sent"),
    [
        (
            "This model's maximum context length is 4096 tokens. However, you requested 5524 tokens "
            "(4500 in the messages, 1024 in the completion). Please reduce the length of the messages.",
            4096,
            4500,
        ),
        (
            "request (5121 tokens) exceeds the available context size (4096 tokens), try increasing it",
            4096,
            5121,
        ),
        ("prompt is too long: 210000 tokens > 200000 maximum", 200000, 210000),
        (
            "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
            1048576,
            1200000,
        ),
        ("Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded "
         "with context length of only 4096 tokens, which is not enough.", 4096, None),
    ],
)  # fmt: skip
def test_a_refusal_for_length_names_the_limit_and_the_tokens_counted(said: str, limit: int, sent: int | None):
    whole = conversation(exchange(1))
    window = ContextWindow()
    assert window.learn_refusal(f"HTTP 400: {said}", whole)
    assert window.tokens == limit
    # the count the server gave is what that very request is estimated at from now on
    assert window.estimate(whole) == (sent if sent else ContextWindow().estimate(whole))


@pytest.mark.parametrize("sent", [4096, 4097, 4096 + RAN_FULL_SLACK])
def test_a_count_at_the_limit_or_just_past_it_teaches_the_limit_only(sent: int) -> None:
    """llama-cpp-python's words when the model's own answer filled the context: the count is the
    context, give or take a token or two of tokenizing anew, whatever the request's size."""
    whole = conversation(exchange(1))
    window = ContextWindow()
    said = f"maximum context length is 4096 tokens. You requested 4459 tokens ({sent} in the messages)"
    assert window.learn_refusal(said, whole)
    assert window == ContextWindow(tokens=4096)


def test_a_count_beyond_the_slack_measures_the_request() -> None:
    whole = conversation(exchange(1))
    window = ContextWindow()
    sent = 4097 + RAN_FULL_SLACK
    assert window.learn_refusal(f"maximum context length is 4096 tokens. (x) ({sent} in the messages", whole)
    assert window.estimate(whole) == sent


@pytest.mark.parametrize(
    "said", ["HTTP 500: Error code: 500", "rate limit reached for requests", "context length exceeded"]
)
def test_other_refusals_teach_nothing(said: str) -> None:
    window = ContextWindow()
    assert not window.learn_refusal(said, conversation())
    assert window == ContextWindow()


def test_an_unknown_window_or_one_that_holds_the_request_changes_nothing() -> None:
    whole = conversation(exchange(1, prose="thinking " * 50), exchange(2))
    assert ContextWindow().fit(whole) is whole
    assert ContextWindow(tokens=10_000_000).fit(whole) is whole


def test_earlier_prose_and_long_results_go_first_and_the_calls_stay() -> None:
    long_result = "error: " + "no element matches; " * 40
    whole = conversation(exchange(1, long_result, "I think " * 40), exchange(2, long_result, "now " * 40))
    fitted = window_for(whole, 100).fit(whole)
    first_call, first_result, last_call, last_result = fitted.turns[1:5]
    assert first_call.text == "" and first_call.call == whole.turns[1].call
    assert first_result.text.startswith("error: no element matches")
    assert first_result.text.endswith("characters left out)")
    # the latest exchange is as it was, and so are the objective and the screen
    assert (last_call, last_result) == (whole.turns[3], whole.turns[4])
    assert fitted.turns[0] == whole.turns[0] and fitted.turns[-1] == whole.turns[-1]


def test_the_oldest_calls_leave_the_history_named_and_the_latest_stays() -> None:
    typed = "x" * 400
    results = {1: "ok: typed", 2: "error: gone", 3: "ok: typed", 4: "ok: typed"}
    whole = conversation(*(exchange(n, said, typed=typed) for n, said in results.items()))
    estimate = ContextWindow().estimate
    one = estimate(conversation(exchange(1, typed=typed))) - estimate(conversation())
    window = window_for(whole, one + one // 2)  # two calls must go, with room for the note
    fitted = window.fit(whole)
    calls = [t.call.id for t in fitted.turns if t.role == "assistant" and t.call]
    assert calls == ["call_3", "call_4"]
    note = (
        "(2 earlier calls of this step left out to fit the model's context, in order: "
        "web_type ok, web_type error)"
    )
    assert fitted.turns[0].text == f"{whole.turns[0].text}\n{note}"
    assert window.estimate(fitted) <= window.prompt_budget()
    assert fitted.turns[-1] == whole.turns[-1]
    assert fitted.cache_until <= len(fitted.turns) - 1


def test_long_values_in_the_calls_are_cut_before_the_screen_and_stay_json() -> None:
    typed = "y" * 2000
    whole = conversation(exchange(1, typed=typed))
    window = window_for(whole, 300)
    fitted = window.fit(whole)
    sent = json.loads(fitted.turns[1].call.arguments)
    assert sent["ref"] == "e1" and sent["text"].startswith("y" * 100)
    assert sent["text"].endswith("characters left out)") and len(sent["text"]) < 200
    assert fitted.turns[-1] == whole.turns[-1]  # the screen is whole
    assert window.estimate(fitted) <= window.prompt_budget()


def test_long_lists_objects_and_unreadable_arguments_are_cut_too() -> None:
    nested = json.dumps({"ref": "e1", "items": list(range(800)), "deep": {"k": "v" * 900}, "n": 3})
    unreadable = "{" + "z" * 2500
    for arguments in (nested, unreadable):
        call = ToolRequest("call_1", "web_click", arguments)
        whole = conversation([Turn("assistant", "", call=call), Turn("result", "ok", call=call)])
        window = window_for(whole, int(text_units(arguments) * 0.7))
        fitted = window.fit(whole)
        sent = fitted.turns[1].call.arguments
        assert len(sent) < 600 and window.estimate(fitted) <= window.prompt_budget(), sent
        assert fitted.turns[-1] == whole.turns[-1]
    sent = json.loads(fit_arguments(nested))
    assert sent["ref"] == "e1" and sent["n"] == 3
    assert sent["items"].startswith("[0, 1, 2") and sent["items"].endswith("characters left out)")


def fit_arguments(arguments: str) -> str:
    call = ToolRequest("call_1", "web_click", arguments)
    whole = conversation([Turn("assistant", "", call=call), Turn("result", "ok", call=call)])
    return window_for(whole, int(text_units(arguments) * 0.7)).fit(whole).turns[1].call.arguments


def test_the_screen_is_cut_last_at_a_line_end_and_says_so() -> None:
    whole = conversation(exchange(1))
    window = window_for(whole, 300)
    fitted = window.fit(whole)
    screen = fitted.turns[-1].text
    assert screen.startswith("Objective: click it\n\nCurrent screen:\n- button")
    assert screen.endswith(" lines, left out to fit the model's context)")
    assert all(line.endswith("]") for line in screen.splitlines()[3:-1])
    assert window.estimate(fitted) <= window.prompt_budget()
    assert fitted.turns[1] == whole.turns[1]  # the one call made stays, with its result


def test_a_count_measures_the_frame_once_and_then_the_turns_rate() -> None:
    whole = conversation(exchange(1))
    window = ContextWindow()
    window.observe(whole, 1000)
    assert window.estimate(whole) == 1000
    # a later count of more turns with the same frame: the growth is the turns' own
    longer = conversation(exchange(1), exchange(2, "ok: " + "dense 0123456789 " * 20))
    added = ContextWindow().estimate(longer) - ContextWindow().estimate(whole)
    window.observe(longer, 1000 + 3 * added)
    # the counts so far outweigh the prior: the estimate moves most of the way to the count
    assert ContextWindow().estimate(longer) + 2 * added < window.estimate(longer) <= 1000 + 3 * added
    assert window.turn_rate > 1.5 and len(window.frames) == 1
    pictured = Conversation(whole.system, whole.tools, [*whole.turns[:-1], Turn("user", "x", image=b"png")])
    learned = (window.turn_rate, dict(window.frames))
    window.observe(pictured, 10)  # a picture's tokens do not scale with its text
    window.observe(whole, 0)  # a server that reports no usage
    assert (window.turn_rate, window.frames) == learned


def test_text_is_weighed_by_kind_not_by_length() -> None:
    prose = "The counter shows two and the heading reads Blorp, " * 6
    assert text_units("计数器显示二" * 50) > 4 * text_units(prose[:300])
    assert text_units("1234567890" * 30) > 3 * text_units(prose[:300])
    assert text_units(prose) == pytest.approx(len(prose) / 4.5, rel=0.25)


def test_a_refusal_for_length_puts_the_surprise_on_the_turns_so_the_request_still_fits() -> None:
    """As a small model does it: a first request counted, then a call whose arguments are in
    another script makes the next request far longer than its characters say; the refusal's
    count is put on the turns (the frame stays as measured) and fitting makes room there."""
    tools = tuple(ToolSpec(f"tool_{n}", "Does a thing. " * 20, {"type": "object"}) for n in range(12))
    first = replace_tools(conversation(), tools)
    window = ContextWindow(tokens=4096)
    window.observe(first, 3390)
    measured = dict(window.frames)
    typed = "计数器显示二，标题为布洛普。" * 25
    refused = replace_tools(conversation(exchange(1, typed=typed)), tools)
    assert window.learn_refusal("maximum context length is 4096 tokens. (4400 in the messages, 454", refused)
    assert window.frames == measured and window.estimate(refused) > 4096
    fitted = window.fit(refused)
    assert window.estimate(fitted) <= window.prompt_budget()
    assert json.loads(fitted.turns[1].call.arguments)["text"].endswith("characters left out)")


def replace_tools(whole: Conversation, tools: tuple[ToolSpec, ...]) -> Conversation:
    return Conversation(whole.system, tools, whole.turns, cache_until=whole.cache_until)


def test_the_answer_gets_the_room_the_request_leaves_and_never_less_than_a_call_needs() -> None:
    whole = conversation(exchange(1))
    assert ContextWindow().answer_cap(whole) is None
    roomy = ContextWindow(tokens=100_000)
    assert roomy.answer_cap(whole) == int(100_000 * (1 - MARGIN)) - roomy.estimate(whole)
    tight = ContextWindow(tokens=roomy.estimate(whole))
    assert tight.answer_cap(whole) == MIN_ANSWER_TOKENS
