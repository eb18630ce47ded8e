"""Keeping a step's conversation inside the model's context window.

Hosted models hold far more than a step needs. A small local model does not: SmolLM2-135M on
llama.cpp with 4,096 tokens spends about 3,400 of them on the system prompt, the tools and one
web screen, so after a call or two the next request no longer fits and the server refuses it.

The window is known when ``llm: models: <model>: context:`` declares it, or learned from the
first refusal for length (servers name their limit in the error: OpenAI, vLLM and llama-cpp-python
as "maximum context length is N tokens", llama.cpp's own server, Anthropic, Gemini and LM Studio
in words of their own). No tokenizer is needed. A request is two parts: its frame (the system
prompt and the tools), the same for every request of a step, and its turns, which change. The
frame's tokens are measured: the usage of the first reply to a request with that frame, less
what its turns are estimated at. The turns are weighed in units (``token_estimate``), and how
many of the model's tokens a unit is comes from every later usage or refusal: what the server
counted beyond the measured frame. So a model that writes dense text (digits, symbols, other
scripts) teaches that the turns are dense, and they are what fitting cuts.

When a request would not fit, ``fit`` makes room in this order, stopping as soon as it fits:
the prose of earlier replies and the long results of earlier calls are cut; then the oldest
calls leave the history (the objective turn says how many and which, so the model knows they
were made); then the latest reply's prose and result are cut too, then the long values in the
calls' arguments (the tools ran with them whole: this is the model's memory of them); last, the
current screen is cut at the end. The objective and the latest call always stay. What cannot be
made to fit is sent as it is, and the server's refusal reaches the step's failure in its own words.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field, replace

from .token_estimate import PER_CALL, PER_TURN, text_units
from .wire import Conversation, ToolSpec, Turn

#: Tokens always left for the model's answer: a tool call with a short reason.
MIN_ANSWER_TOKENS = 256
#: Kept free besides, for what the estimate misses.
MARGIN = 0.05
#: The bounds of a learned rate (tokens a unit): beyond them a count is taken to be noise.
MIN_RATE = 0.2
MAX_RATE = 5.0
#: Units of the turns' rate's prior (one token a unit): about one web screen's worth.
PRIOR_UNITS = 400.0
#: Frames (system prompt and tools) whose measured tokens are kept: a session's recent steps.
KEPT_FRAMES = 64
#: Tokens past the limit a refusal may name and still be the context run full (``ran_full``).
RAN_FULL_SLACK = 8
#: An earlier call's result, cut to this many characters when room is needed.
CUT_RESULT_CHARS = 240
#: A call's string argument, cut to this many characters when nothing else makes room.
CUT_ARGUMENT_CHARS = 120

_REFUSALS = (
    # OpenAI, vLLM, llama-cpp-python: "...maximum context length is 4096 tokens. However, you
    # requested 5121 tokens (4097 in the messages, 1024 in the completion)..."
    re.compile(
        r"maximum context length is (?P<limit>\d+) tokens(?:.*?\((?P<sent>\d+) in the messages)?", re.S
    ),
    # llama.cpp's server: "request (5121 tokens) exceeds the available context size (4096 tokens)"
    re.compile(r"\((?P<sent>\d+) tokens\) exceeds the available context size \((?P<limit>\d+) tokens\)"),
    # Anthropic: "prompt is too long: 210000 tokens > 200000 maximum"
    re.compile(r"prompt is too long: (?P<sent>\d+) tokens > (?P<limit>\d+) maximum"),
    # Gemini: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)"
    re.compile(
        r"input token count \((?P<sent>\d+)\) exceeds the maximum number of tokens allowed "
        r"\((?P<limit>\d+)\)"
    ),
    # LM Studio: "...the model is loaded with context length of only 4096 tokens..."
    re.compile(r"context length of only (?P<limit>\d+) tokens"),
)


def turn_units(turn: Turn) -> float:
    """Units of one turn as a request carries it: its text, and the call it makes (name and
    arguments). A call's id weighs as part of ``PER_CALL``, not by its text: servers make them
    up (a uuid of digits on llama-cpp-python), and some chat templates leave them out."""
    units = PER_TURN + text_units(turn.text)
    call = turn.call
    if call is not None and turn.role == "assistant":
        units += PER_CALL + text_units(call.name) + text_units(call.arguments)
    elif call is not None:
        units += PER_CALL
    return units


def turns_units(conversation: Conversation) -> float:
    """Units of the part of a request that changes from call to call (pictures aside)."""
    return sum(turn_units(turn) for turn in conversation.turns)


@dataclass(frozen=True)
class _Frame:
    """The part of a request a step's calls share: its key and its units. ``tools`` is held so
    that the same tuple is recognised again without weighing it anew."""

    system: str
    tools: tuple[ToolSpec, ...]
    key: int
    units: float


def _frame_of(conversation: Conversation) -> _Frame:
    tools = conversation.tools
    schemas = tuple(
        (t.name, t.description, json.dumps(t.parameters, sort_keys=True, default=str)) for t in tools
    )
    units = PER_TURN + text_units(conversation.system)
    units += sum(PER_CALL + sum(map(text_units, schema)) for schema in schemas)  # name, words, JSON
    return _Frame(conversation.system, tools, hash((conversation.system, schemas)), units)


def ran_full(sent: int, limit: int) -> bool:
    """Whether a refusal's count is the model's own answer filling the context, not the request.

    llama-cpp-python's function-calling formats write a call's arguments with no cap, and then
    ask the model whether another call follows, with what it wrote added to the prompt. A model
    that rambles writes until the context is full, so that last prompt is the context's size,
    give or take the few tokens that tokenizing the text anew (and the newline added) changes:
    the server refuses it with a count at the limit or just past it, whatever the size of the
    request that was sent. Such a count measures nothing; sent again, the model writes anew.
    """
    return limit <= sent <= limit + RAN_FULL_SLACK


@dataclass
class ContextWindow:
    """The model's context in tokens (None while unknown) and what its tokens were measured at.

    One window serves every step of a session with that model, so what one step learns (the
    turns' rate, a limit from a refusal) the next step starts from.
    """

    tokens: int | None = None
    #: The model's tokens a unit of a frame is, for a frame no reply has measured yet.
    frame_rate: float = 1.0
    #: Tokens measured for each frame, by its key (the most recent frames only).
    frames: dict[int, float] = field(default_factory=dict)
    #: Tokens servers counted beyond the measured frames, and the units of the turns they counted
    #: them for, summed over the session: their ratio is the turns' rate (``turn_rate``).
    counted: float = 0.0
    weighed: float = 0.0
    _last_frame: _Frame | None = field(default=None, repr=False, compare=False)

    @property
    def turn_rate(self) -> float:
        """The model's tokens a unit of the turns is: what every count so far says, summed (one
        request's count is noisy: the frame it is measured against is itself an estimate), and
        a prior of one token a unit that the counts outweigh as they come."""
        return (PRIOR_UNITS + self.counted) / (PRIOR_UNITS + self.weighed)

    def estimate(self, conversation: Conversation) -> int:
        """Tokens the conversation's text is likely to take."""
        frame = self._frame(conversation)
        measured = self.frames.get(frame.key)
        frame_tokens = measured if measured is not None else frame.units * self.frame_rate
        return math.ceil(frame_tokens + turns_units(conversation) * self.turn_rate - 1e-6)  # float noise

    def observe(self, conversation: Conversation, input_tokens: int) -> None:
        """Learn from the tokens a server counted for a request (its reply's usage, or its
        refusal's count): the frame's tokens the first time that frame is seen, the turns' rate
        afterwards. Text-only requests: a picture's tokens do not scale with its text."""
        if input_tokens <= 0 or any(t.image is not None for t in conversation.turns):
            return
        frame = self._frame(conversation)
        turns = turns_units(conversation)
        measured = self.frames.get(frame.key)
        beyond = input_tokens - measured if measured is not None else 0.0
        if measured is not None and turns > 0 and MIN_RATE * turns <= beyond <= MAX_RATE * turns:
            self.counted += beyond
            self.weighed += turns
            return
        # a frame seen for the first time (or one the counts disown): what the turns do not explain
        split = input_tokens - turns * self.turn_rate
        if split < input_tokens * frame.units / (frame.units + turns) / 2:
            split = input_tokens * frame.units / (frame.units + turns)  # a rate far off: share out
        self._remember(frame.key, split)
        self.frame_rate = split / frame.units

    def learn_refusal(self, cause: str, conversation: Conversation) -> bool:
        """True when ``cause`` refuses the request for its length and names the limit (now known);
        the tokens the server counted, where it says them, are learned from too, unless the
        count is the context run full (``ran_full``)."""
        for pattern in _REFUSALS:
            found = pattern.search(cause)
            if found is None:
                continue
            self.tokens = int(found["limit"])
            sent = int(found.groupdict().get("sent") or 0)
            if not ran_full(sent, self.tokens):
                self.observe(conversation, sent)
            return True
        return False

    def prompt_budget(self) -> int | None:
        """Tokens the request itself may take, the answer's share and a margin kept free."""
        if self.tokens is None:
            return None
        return int(self.tokens * (1 - MARGIN)) - MIN_ANSWER_TOKENS

    def answer_cap(self, conversation: Conversation) -> int | None:
        """Tokens the answer may take beside the request (at least the minimum); None while the
        window is unknown. Providers send the smaller of this and their own cap."""
        if self.tokens is None:
            return None
        room = int(self.tokens * (1 - MARGIN)) - self.estimate(conversation)
        return max(MIN_ANSWER_TOKENS, room)

    def _shortened_screen(self, text: str, excess: int) -> str:
        """The screen with at least ``excess`` tokens' worth of lines cut from its end, at the
        screen's own density (units a character) and the turns' rate."""
        density = text_units(text) / len(text) if text else 1.0
        drop = math.ceil((excess / self.turn_rate + text_units(_cut_note(99_999))) / max(density, 0.05))
        return _cut_screen(text, len(text) - drop)

    def _frame(self, conversation: Conversation) -> _Frame:
        last = self._last_frame
        if last is not None and last.tools is conversation.tools and last.system == conversation.system:
            return last
        self._last_frame = _frame_of(conversation)
        return self._last_frame

    def _remember(self, key: int, tokens: float) -> None:
        self.frames.pop(key, None)
        self.frames[key] = tokens
        while len(self.frames) > KEPT_FRAMES:
            del self.frames[next(iter(self.frames))]

    def fit(self, conversation: Conversation) -> Conversation:
        """The conversation, made to fit the window where it does not (see the module's words).

        ``conversation.turns`` is the objective turn, the exchanges of calls made so far (an
        assistant turn and what answered it) and the current screen, last.
        """
        budget = self.prompt_budget()
        if budget is None or self.estimate(conversation) <= budget or len(conversation.turns) < 2:
            return conversation
        objective, *middle, screen = conversation.turns
        last = _last_exchange(middle)
        middle = [*(_trimmed(t) for t in middle[:last]), *middle[last:]]
        fitted = _rebuilt(conversation, objective, middle, screen, [])
        left_out: list[Turn] = []
        while self.estimate(fitted) > budget and last > 0:
            cut = _first_exchange_end(middle)
            left_out += middle[:cut]
            middle, last = middle[cut:], last - cut
            fitted = _rebuilt(conversation, objective, middle, screen, left_out)
        if self.estimate(fitted) > budget:  # only the latest exchange is left by now
            middle = [_trimmed(t) for t in middle]
            fitted = _rebuilt(conversation, objective, middle, screen, left_out)
        if self.estimate(fitted) > budget:
            middle = [_short_arguments(t) for t in middle]
            fitted = _rebuilt(conversation, objective, middle, screen, left_out)
        excess = self.estimate(fitted) - budget
        if excess > 0:
            shown = self._shortened_screen(screen.text, excess)
            fitted = _rebuilt(conversation, objective, middle, replace(screen, text=shown), left_out)
        return fitted


def _last_exchange(middle: list[Turn]) -> int:
    """Where the latest exchange (its assistant turn) starts in the history; 0 when none."""
    for index in range(len(middle) - 1, -1, -1):
        if middle[index].role == "assistant":
            return index
    return 0


def _first_exchange_end(middle: list[Turn]) -> int:
    """How many turns the oldest exchange takes: its assistant turn and what answered it."""
    end = 1
    while end < len(middle) and middle[end].role != "assistant":
        end += 1
    return end


def _trimmed(turn: Turn) -> Turn:
    """An earlier turn without its prose (assistant) or with its result cut (the call stays)."""
    if turn.role == "assistant":
        return replace(turn, text="")
    if len(turn.text) > CUT_RESULT_CHARS:
        cut = len(turn.text) - CUT_RESULT_CHARS
        return replace(turn, text=f"{turn.text[:CUT_RESULT_CHARS]}... ({cut} characters left out)")
    return turn


def _short_arguments(turn: Turn) -> Turn:
    """A turn whose call's long string arguments are cut (the call and its other values stay)."""
    if turn.call is None:
        return turn
    try:
        args = json.loads(turn.call.arguments)
    except ValueError:
        return replace(turn, call=replace(turn.call, arguments=_cut_text(turn.call.arguments)))
    if not isinstance(args, dict):
        return replace(turn, call=replace(turn.call, arguments=_cut_text(turn.call.arguments)))
    short = {k: _cut_value(v) for k, v in args.items()}
    return replace(turn, call=replace(turn.call, arguments=json.dumps(short, ensure_ascii=False)))


def _cut_value(value: object) -> object:
    """A long string cut; a long list or object as its JSON text, cut (short values stay)."""
    if isinstance(value, str):
        return _cut_text(value)
    if isinstance(value, dict | list):
        text = json.dumps(value, ensure_ascii=False)
        return value if len(text) <= CUT_ARGUMENT_CHARS else _cut_text(text)
    return value


def _cut_text(text: str) -> str:
    if len(text) <= CUT_ARGUMENT_CHARS:
        return text
    return f"{text[:CUT_ARGUMENT_CHARS]}... ({len(text) - CUT_ARGUMENT_CHARS} characters left out)"


def _rebuilt(
    conversation: Conversation, objective: Turn, middle: list[Turn], screen: Turn, left_out: list[Turn]
) -> Conversation:
    if left_out:
        objective = replace(objective, text=f"{objective.text}\n{left_out_note(left_out)}")
    turns = [objective, *middle, screen]
    return replace(conversation, turns=turns, cache_until=min(conversation.cache_until, len(turns) - 1))


def left_out_note(left_out: list[Turn]) -> str:
    """What the objective turn says of the calls that left the history: how many, and each one's
    tool and whether it worked."""
    made = [t for t in left_out if t.role == "assistant"]
    results = {t.call.id: t.text for t in left_out if t.role == "result" and t.call is not None}
    said = []
    for turn in made:
        name = turn.call.name if turn.call is not None else "(no tool)"
        answer = results.get(turn.call.id, "") if turn.call is not None else "error"
        said.append(f"{name} {'ok' if answer.startswith('ok') else 'error'}")
    count = len(made)
    return (
        f"({count} earlier call{'s' if count != 1 else ''} of this step left out to fit the model's "
        f"context, in order: {', '.join(said)})"
    )


def _cut_screen(text: str, keep: int) -> str:
    """The screen's first ``keep`` characters at a line's end, and how many lines were left out."""
    if keep >= len(text):
        return text
    head = text[: max(keep, 0)]
    head = head[: head.rfind("\n")] if "\n" in head else ""
    return head + _cut_note(text[len(head) :].count("\n") + (0 if head else 1))


def _cut_note(lines: int) -> str:
    return f"\n(the rest of the screen, {lines} lines, left out to fit the model's context)"
