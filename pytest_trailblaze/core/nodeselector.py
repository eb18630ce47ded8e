"""The ``nodeSelector`` schema of recorded tool calls (U§4.4).

A selector holds at most one driver matcher (``web``, ``androidAccessibility``, ...) plus
optional spatial / structural relations and an ``index`` applied last. Unknown fields are
rejected so a misspelt matcher key fails at validation instead of silently matching anything.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, model_validator


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class WebMatcher(_Strict):
    ariaRole: str | None = None
    ariaNameRegex: str | None = None
    ariaDescriptorRegex: str | None = None
    headingLevel: int | None = None
    cssSelector: str | None = None
    dataTestId: str | None = None
    nthIndex: int | None = None


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
    inputType: int | None = None
    collectionItemRowIndex: int | None = None
    collectionItemColumnIndex: int | None = None


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
    index: int | None = None

    @model_validator(mode="after")
    def _one_matcher(self) -> NodeSelector:
        present = [key for key in MATCHER_KEYS if getattr(self, key) is not None]
        if len(present) > 1:
            raise ValueError(f"a selector holds at most one driver matcher, found {', '.join(present)}")
        return self

    def as_dict(self) -> dict:
        return self.model_dump(exclude_none=True)
