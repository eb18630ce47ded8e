"""The ``nodeSelector`` schema of recorded tool calls (docs/upstream.md, Node selectors on mobile).

A selector holds at most one driver matcher (``web``, ``androidAccessibility``, ...) plus
optional spatial / structural relations and an ``index`` applied last. Unknown fields are
rejected so a misspelt matcher key fails at validation instead of silently matching anything.

Numbers are range-checked like the built-in tools' arguments (``tools.limits``): a recorded
``index: -1``, ``.nan`` or ``1e300`` is a mistake in the trail, so the tool's schema refuses it
and it is a collection error at its ``file:line``. The bounds are far above any real screen.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..jsondata import JsonObject

#: Which of several matches (0-based): the bound of the tools' own ``index`` arguments.
MAX_INDEX = 10_000
#: ARIA heading levels start at 1 (HTML headings use 1-6; ``aria-level`` may go beyond).
MAX_HEADING_LEVEL = 100
#: Row or column of an item in an Android collection: long lists hold many rows.
MAX_COLLECTION_INDEX = 1_000_000
#: Android ``InputType`` flags: a non-negative 32-bit int.
MAX_INPUT_TYPE = 2**31 - 1

Index = Annotated[int, Field(ge=0, le=MAX_INDEX)]
HeadingLevel = Annotated[int, Field(ge=1, le=MAX_HEADING_LEVEL)]
CollectionIndex = Annotated[int, Field(ge=0, le=MAX_COLLECTION_INDEX)]
InputType = Annotated[int, Field(ge=0, le=MAX_INPUT_TYPE)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class WebMatcher(_Strict):
    ariaRole: str | None = None
    ariaNameRegex: str | None = None
    ariaDescriptorRegex: str | None = None
    headingLevel: HeadingLevel | None = None
    cssSelector: str | None = None
    dataTestId: str | None = None
    nthIndex: Index | None = None


class AndroidAccessibilityMatcher(_Strict):
    classNameRegex: str | None = None
    resourceIdRegex: str | None = None
    uniqueId: str | None = None
    composeTestTagRegex: str | None = None
    textRegex: str | None = None
    contentDescriptionRegex: str | None = None
    hintTextRegex: str | None = None
    labeledByTextRegex: str | None = None
    stateDescriptionRegex: str | None = None
    paneTitleRegex: str | None = None
    roleDescriptionRegex: str | None = None
    isEnabled: bool | None = None
    isClickable: bool | None = None
    isCheckable: bool | None = None
    isChecked: bool | None = None
    isSelected: bool | None = None
    isFocused: bool | None = None
    isEditable: bool | None = None
    isScrollable: bool | None = None
    isPassword: bool | None = None
    isHeading: bool | None = None
    isMultiLine: bool | None = None
    inputType: InputType | None = None
    collectionItemRowIndex: CollectionIndex | None = None
    collectionItemColumnIndex: CollectionIndex | None = None


class AndroidMaestroMatcher(_Strict):
    textRegex: str | None = None
    resourceIdRegex: str | None = None
    accessibilityTextRegex: str | None = None
    classNameRegex: str | None = None
    hintTextRegex: str | None = None
    clickable: bool | None = None
    enabled: bool | None = None
    focused: bool | None = None
    checked: bool | None = None
    selected: bool | None = None


class IosMaestroMatcher(_Strict):
    textRegex: str | None = None
    resourceIdRegex: str | None = None
    accessibilityTextRegex: str | None = None
    classNameRegex: str | None = None
    hintTextRegex: str | None = None
    focused: bool | None = None
    selected: bool | None = None


class IosAxeMatcher(_Strict):
    roleRegex: str | None = None
    subroleRegex: str | None = None
    labelRegex: str | None = None
    valueRegex: str | None = None
    uniqueId: str | None = None
    typeRegex: str | None = None
    titleRegex: str | None = None
    customAction: str | None = None
    enabled: bool | None = None


class ComposeMatcher(_Strict):
    testTag: str | None = None
    role: str | None = None
    textRegex: str | None = None
    editableTextRegex: str | None = None
    contentDescriptionRegex: str | None = None
    toggleableState: str | None = None
    isEnabled: bool | None = None
    isFocused: bool | None = None
    isSelected: bool | None = None
    isPassword: bool | None = None


MATCHER_KEYS = ("androidAccessibility", "androidMaestro", "web", "compose", "iosMaestro", "iosAxe")


class NodeSelector(_Strict):
    """A recorded element selector: one driver matcher, relations, and a final index."""

    androidAccessibility: AndroidAccessibilityMatcher | None = None
    androidMaestro: AndroidMaestroMatcher | None = None
    web: WebMatcher | None = None
    compose: ComposeMatcher | None = None
    iosMaestro: IosMaestroMatcher | None = None
    iosAxe: IosAxeMatcher | None = None
    below: NodeSelector | None = None
    above: NodeSelector | None = None
    leftOf: NodeSelector | None = None
    rightOf: NodeSelector | None = None
    childOf: NodeSelector | None = None
    containsChild: NodeSelector | None = None
    containsDescendants: list[NodeSelector] | None = None
    index: Index | None = None

    @model_validator(mode="after")
    def _one_matcher(self) -> NodeSelector:
        present = [key for key in MATCHER_KEYS if getattr(self, key) is not None]
        if len(present) > 1:
            raise ValueError(f"a selector holds at most one driver matcher, found {', '.join(present)}")
        return self

    def as_dict(self) -> JsonObject:
        return self.model_dump(exclude_none=True)
