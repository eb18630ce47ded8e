"""Allure's results as the run writes them: step titles, readable errors, argument text, and the
masking front before Allure's file writer (every string of its results, containers, globals and
attachments passes the run's masking filter on its way to disk).

Used by ``plugin/allure.py`` when allure-pytest writes results; imports allure, so only then.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import allure_commons
import attr
from allure_commons.logger import AllureFileLogger
from allure_commons.types import AttachmentType

from ..core.masking import Masker
from ..core.run.runner import ResolvedStep

if TYPE_CHECKING:
    from allure_commons.model2 import Globals, TestResult, TestResultContainer


#: Allure's attachment type by file suffix (the spellings its own table lacks added).
_TYPES = {f".{kind.extension}": kind for kind in AttachmentType}
_TYPES.update({".jpeg": AttachmentType.JPG, ".log": AttachmentType.TEXT, ".yml": AttachmentType.YAML})


def attachments(folder: Path, since: float) -> list[tuple[Path, str, AttachmentType | None, str | None]]:
    """The files of an artifacts folder written since ``since`` (a second's slack for the file
    system's clock), as Allure attaches them: path, name in the folder, type, or else extension."""
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.stat().st_mtime >= since - 1):
        kind = _TYPES.get(path.suffix.lower())
        extension = None if kind else path.suffix.lstrip(".") or None
        found.append((path, path.relative_to(folder).as_posix(), kind, extension))
    return found


def step_title(step: ResolvedStep) -> str:
    kind = "verify: " if step.step.kind == "verify" else ""
    return f"{step.short_label}: {kind}{' '.join(step.step.text.split())}"


def readable(error: BaseException | None) -> BaseException | None:
    """Failed assertions of ours show as ``AssertionError: message``, not by their class's path."""
    if isinstance(error, AssertionError) and type(error) is not AssertionError:
        return AssertionError(str(error))
    return error


def shown(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


class MaskedAllureFiles:
    """Allure's file writer behind the run's masking filter (see the module docstring)."""

    def __init__(self, writer: AllureFileLogger, masker: Masker) -> None:
        self.writer = writer
        self.masker = masker

    @allure_commons.hookimpl
    def report_result(self, result: TestResult) -> None:
        self.writer.report_result(mask_model(result, self.masker))

    @allure_commons.hookimpl
    def report_container(self, container: TestResultContainer) -> None:
        self.writer.report_container(mask_model(container, self.masker))

    @allure_commons.hookimpl
    def report_globals(self, globals_item: Globals) -> None:
        self.writer.report_globals(mask_model(globals_item, self.masker))

    @allure_commons.hookimpl
    def report_attached_data(self, body: str | bytes, file_name: str) -> None:
        masked = self.masker.text(body) if isinstance(body, str) else mask_bytes(body, self.masker)
        self.writer.report_attached_data(masked, file_name)

    @allure_commons.hookimpl
    def report_attached_file(self, source: str, file_name: str) -> None:
        data = Path(source).read_bytes()
        masked = mask_bytes(data, self.masker)
        if masked == data:
            self.writer.report_attached_file(source, file_name)
        else:
            self.writer.report_attached_data(masked, file_name)


def mask_model(value: object, masker: Masker) -> object:
    """An Allure model (attrs classes) with every string in it masked, in place."""
    kind = type(value)
    if attr.has(kind):
        for field in attr.fields(kind):
            setattr(value, field.name, mask_model(getattr(value, field.name), masker))
        return value
    if isinstance(value, str):
        return masker.text(value)
    if isinstance(value, list):
        return [mask_model(v, masker) for v in value]
    if isinstance(value, dict):
        return {mask_model(k, masker): mask_model(v, masker) for k, v in value.items()}
    return value


def mask_bytes(data: bytes, masker: Masker) -> bytes:
    """Bytes with every UTF-8 occurrence of a secret masked; other bytes pass unchanged."""
    text = data.decode("utf-8", "surrogateescape")
    return masker.text(text).encode("utf-8", "surrogateescape") if masker.holds(text) else data
