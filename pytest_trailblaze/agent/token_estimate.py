"""How many tokens a text is likely to take, without the model's tokenizer.

Characters alone are a poor measure: English prose runs about four characters a token, but a
digit is a token of its own for Llama-family tokenizers, an accessibility snapshot (brackets,
refs, indentation) runs near three, and a Chinese character or an emoji takes two or more. A
small model that writes a few hundred characters of such text in a call's arguments would
make the next request several hundred tokens longer than a character count says, and the
server refuses it. So a text is weighed by kind of character, in *units* near one token each
for a typical byte-level BPE tokenizer (fitted on SmolLM2's, whose 49k vocabulary is the
smallest and so the densest of the common ones). The context window then learns, from the
usage servers report, how many of the model's tokens a unit is.
"""

from __future__ import annotations

from functools import lru_cache

#: Units a character of each kind weighs: small letters merge into words of about four letters
#: a token, capitals into half as many (identifiers, random text); digits stand alone and break
#: the words around them; punctuation merges in pairs; a line break with the indentation after
#: it is about one; other characters weigh by their UTF-8 bytes. Spaces ride on words.
LETTER = 0.25
CAPITAL = 0.55
DIGIT = 1.5
PUNCTUATION = 0.55
LINE_BREAK = 1.0
OTHER_BYTE = 0.7
#: What a message costs besides its text (the chat template's role markers).
PER_TURN = 6.0
#: What a tool call or a tool's definition costs besides its text (its id, type, wrapping).
PER_CALL = 10.0

_KINDS = str.maketrans(
    {
        **{chr(c): "a" for c in range(ord("a"), ord("z") + 1)},
        **{chr(c): "A" for c in range(ord("A"), ord("Z") + 1)},
        **{chr(c): "0" for c in range(128) if chr(c).isdigit()},
        **{chr(c): "." for c in range(33, 127) if not chr(c).isalnum()},
        "\n": "n",
        " ": None,
        "\t": None,
        "\r": None,
    }
)


@lru_cache(maxsize=4096)
def text_units(text: str) -> float:
    """The units ``text`` weighs (see the module's words). Cached: a step's requests repeat
    most of their texts, the tools' descriptions above all."""
    if not text:
        return 0.0
    kinds = text.translate(_KINDS)
    counts = {kind: kinds.count(kind) for kind in "aA0.n"}
    other_bytes = len(kinds.encode("utf-8")) - sum(counts.values())
    return (
        counts["a"] * LETTER
        + counts["A"] * CAPITAL
        + counts["0"] * DIGIT
        + counts["."] * PUNCTUATION
        + counts["n"] * LINE_BREAK
        + other_bytes * OTHER_BYTE
    )
